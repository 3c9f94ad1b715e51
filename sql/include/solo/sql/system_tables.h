// The SQL layer's own tables and hidden column, by name: public so that tools (the solo
// shell's .tables and .schema) tell them apart and read them with the
// layer's names instead of copies of the strings.
#pragma once

#include <string_view>

namespace solo::sql {

// The hidden table that keeps DEFAULT expressions (as SQL text):
// (tbl TEXT, col INTEGER, expr TEXT), col counting the table's columns from
// 0. Made by the first CREATE TABLE with a DEFAULT.
inline constexpr std::string_view kDefaultsTable = "__solo_defaults";

// Tables whose names start with this are the SQL layer's own: SQL may read
// them, but only the layer's code changes them (no INSERT, UPDATE, DELETE,
// DROP or CREATE INDEX; CREATE TABLE of such a name is refused too).
inline constexpr std::string_view kSystemTablePrefix = "__solo_";

// The hidden primary key column of a table declared without one.
inline constexpr std::string_view kRowIdColumn = "__solo_rowid";

}  // namespace solo::sql
