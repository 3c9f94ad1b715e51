// Helpers shared by the parser tests.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "solo/sql/ast_printer.h"
#include "solo/sql/parser.h"

namespace solo::sql::testing {

// Parses sql, which must succeed, and returns the canonical SQL.
inline std::string Canonical(std::string_view sql, const PrintOptions& options = {}) {
  Result<ParsedStatement> parsed = ParseStatement(sql);
  INFO("sql: " << sql);
  if (!parsed.ok()) INFO("error: " << parsed.error().ToString());
  REQUIRE(parsed.ok());
  return ToSql(*parsed->statement, options);
}

// Parses "SELECT <expr>" and returns the expression fully parenthesized.
inline std::string Grouping(std::string_view expr) {
  std::string sql = "SELECT " + std::string(expr);
  Result<ParsedStatement> parsed = ParseStatement(sql);
  INFO("sql: " << sql);
  if (!parsed.ok()) INFO("error: " << parsed.error().ToString());
  REQUIRE(parsed.ok());
  const auto& select = parsed->statement->As<SelectStmt>();
  REQUIRE(select.items.size() == 1);
  REQUIRE_FALSE(select.items[0].is_star());
  return ToSql(*select.items[0].expr, PrintOptions{.parenthesize_all = true});
}

// Parses sql, which must fail, and returns the error.
inline SqlError ParseError(std::string_view sql) {
  Result<ParsedStatement> parsed = ParseStatement(sql);
  INFO("sql: " << sql);
  if (parsed.ok()) INFO("parsed as: " << ToSql(*parsed->statement));
  REQUIRE_FALSE(parsed.ok());
  return parsed.error();
}

}  // namespace solo::sql::testing
