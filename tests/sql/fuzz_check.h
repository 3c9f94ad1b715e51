// The property the fuzz tests check on one input: lexing and parsing never
// crash, and whatever parses prints to SQL that parses to the same tree.
#pragma once

#include <string>
#include <string_view>

#include "solo/sql/ast_printer.h"
#include "solo/sql/lexer.h"
#include "solo/sql/parser.h"

namespace solo::sql::testing {

// Returns an empty string if input passes, else a description of the failure.
inline std::string FuzzCheckOne(std::string_view input) {
  Result<std::vector<Token>> tokens = Tokenize(input);
  Result<std::vector<ParsedStatement>> script = ParseScript(input);
  if (!tokens.ok() && script.ok()) return "the lexer failed but the parser did not";
  if (!script.ok()) {
    const SqlError& error = script.error();
    if (!error.pos().valid() || error.pos().offset > input.size()) {
      return "error without a valid position: " + error.ToString();
    }
    FormatError(error, input);  // must not crash either
    return "";
  }
  PrintOptions all{.parenthesize_all = true};
  for (const ParsedStatement& parsed : script.value()) {
    if (parsed.begin_offset > parsed.end_offset || parsed.end_offset > input.size()) {
      return "statement range outside the input";
    }
    std::string canonical = ToSql(*parsed.statement);
    Result<ParsedStatement> again = ParseStatement(canonical);
    if (!again.ok()) {
      return "canonical SQL does not parse: " + canonical + "\n  " + again.error().ToString();
    }
    if (ToSql(*again->statement) != canonical) {
      return "canonical SQL is not stable: " + canonical + "\n  became " + ToSql(*again->statement);
    }
    if (ToSql(*again->statement, all) != ToSql(*parsed.statement, all)) {
      return "canonical SQL changes the grouping: " + ToSql(*parsed.statement, all) +
             "\n  became " + ToSql(*again->statement, all);
    }
    if (again->parameter_count != parsed.parameter_count) {
      return "canonical SQL changes the parameter count: " + canonical;
    }
  }
  return "";
}

}  // namespace solo::sql::testing
