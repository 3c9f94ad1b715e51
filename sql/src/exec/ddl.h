// CREATE TABLE, CREATE INDEX, DROP: run on the owner from the statement's AST.
#pragma once

#include "solo/sql/ast.h"
#include "solo/txn.h"

namespace solo::sql {

// The hidden table that keeps DEFAULT expressions (as SQL text):
// (tbl, col) -> expr. Made by the first CREATE TABLE with a DEFAULT.
inline constexpr std::string_view kDefaultsTable = "__solo_defaults";

// Tables whose names start with this are the SQL layer's own: SQL may read
// them, but only the layer's code changes them (no INSERT, UPDATE, DELETE,
// DROP or CREATE INDEX; CREATE TABLE of such a name is refused too).
inline constexpr std::string_view kSystemTablePrefix = "__solo_";

// Throws 42501 (PostgreSQL's insufficient_privilege for a system catalog) at
// `pos` if `table` is a system table.
void RefuseSystemTableChange(std::string_view table, SourcePos pos);

// Executes a DDL statement in `txn`. Throws ExecFailure (42P07, 42P01, 42703,
// 42701, 42704, 0A000, 42501, 23505 for a unique index over duplicates).
void ExecuteDdl(const Statement& statement, WriteTxn* txn);

}  // namespace solo::sql
