// The parser: SQL text to an AST (ast.h). See sql/README.md, "Dialect".
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "solo/sql/ast.h"
#include "solo/sql/result.h"

namespace solo::sql {

// One occurrence of a parameter (? or $n) in a statement's text.
struct ParameterUse {
  uint32_t number = 0;  // 1-based, as in ParsedStatement::parameter_count
  SourcePos pos;        // of the ? or $n token
};

// One parsed statement.
struct ParsedStatement {
  StatementPtr statement;
  // The highest parameter number used: ? are numbered 1, 2, ... by position,
  // $n is n. 0 when the statement has no parameters. A statement uses either
  // ? or $n, never both.
  uint32_t parameter_count = 0;
  // Every ? and $n of the statement, in text order (for ?, entry k is
  // parameter k + 1). Only errors about a parameter's value read it, to
  // point at where the parameter is; a number the text skips ($1, $3) has
  // no entry.
  std::vector<ParameterUse> parameter_uses;
  // The statement's bytes in the text it was parsed from, without the ';'.
  uint32_t begin_offset = 0;
  uint32_t end_offset = 0;
};

// Expressions, subqueries and joins nested deeper than this are refused with
// SqlState::kStatementTooComplex, so that no input can exhaust the stack
// (of the parser, or of whoever walks the tree).
inline constexpr int kMaxNestingDepth = 1000;

// Parses exactly one statement, optionally followed by ';'.
// On failure returns a SqlError (never throws one, never crashes): the lexer's
// errors (lexer.h), kSyntaxError at the first token that does not fit the
// grammar (or at the end of the text), kInvalidTableDefinition for a table
// with two primary keys, kStatementTooComplex beyond kMaxNestingDepth, and
// kSyntaxError for an empty text or a second statement.
// Any thread; no shared state.
Result<ParsedStatement> ParseStatement(std::string_view sql);

// Parses a script: statements separated by ';' (empty statements are
// skipped). Fails on the first error, as ParseStatement() does.
// Any thread; no shared state.
Result<std::vector<ParsedStatement>> ParseScript(std::string_view sql);

}  // namespace solo::sql
