// Prints an AST back to canonical SQL: upper-case keywords, names quoted only
// when they would not read back as themselves, $n for every parameter, and
// only the parentheses that precedence needs. Parsing the output gives the
// same tree again (the round-trip property that parser_roundtrip_test checks).
#pragma once

#include <string>
#include <string_view>

#include "solo/sql/ast.h"

namespace solo::sql {

struct PrintOptions {
  // Put parentheses around every operator expression below the top, to show
  // how the parser grouped it: "1 + 2 * 3" prints as "1 + (2 * 3)".
  bool parenthesize_all = false;
};

// Returns statement as one line of SQL, without a final ';'. Any thread.
std::string ToSql(const Statement& statement, const PrintOptions& options = {});

// Returns expr as SQL. Any thread.
std::string ToSql(const Expr& expr, const PrintOptions& options = {});

// Returns the type's canonical spelling: INTEGER, DECIMAL(10, 2), ...
std::string ToSql(const TypeName& type);

// Returns the operator as written in SQL: "AND", "<=", "||", "+", ...
std::string_view BinaryOpText(BinaryOp op);

// Returns name as written in SQL: unchanged if it is a lower-case identifier
// that is no keyword, else in double quotes with '"' doubled.
std::string QuoteIdentifier(std::string_view name);

// Returns text as a SQL string literal: in single quotes, with '\'' doubled.
std::string QuoteString(std::string_view text);

}  // namespace solo::sql
