#include "solo/sql/parser.h"

#include <fmt/format.h>

#include "parser_internal.h"
#include "solo/sql/lexer.h"
#include "utf8.h"

namespace solo::sql {
namespace internal {

// ---- tokens

const Token& Parser::Peek(size_t ahead) const {
  size_t at = next_ + ahead;
  return at < tokens_.size() ? tokens_[at] : tokens_.back();
}

bool Parser::IsParenthesizedQueryStart(bool close_too) const {
  size_t ahead = 0;
  while (Is(TokenKind::kLeftParen, ahead)) ++ahead;
  if (ahead == 0 || (!IsKeyword(Keyword::kSelect, ahead) && !IsKeyword(Keyword::kWith, ahead))) {
    return false;
  }
  // The first '(''s match; the nesting depth limits how far the scan goes.
  size_t depth = 0;
  for (ahead = 0;; ++ahead) {
    const Token& token = Peek(ahead);
    if (token.kind == TokenKind::kEnd) return false;
    if (token.kind == TokenKind::kLeftParen) ++depth;
    if (token.kind == TokenKind::kRightParen && --depth == 0) break;
  }
  const Token& after = Peek(ahead + 1);
  if (after.kind == TokenKind::kRightParen) return close_too;
  return after.kind == TokenKind::kKeyword &&
         (after.keyword == Keyword::kUnion || after.keyword == Keyword::kIntersect ||
          after.keyword == Keyword::kExcept || after.keyword == Keyword::kOrder ||
          after.keyword == Keyword::kLimit);
}

const Token& Parser::Advance() {
  const Token& token = Peek();
  if (next_ + 1 < tokens_.size()) ++next_;  // kEnd is never passed
  last_end_offset_ = token.pos.offset + static_cast<uint32_t>(token.source.size());
  return token;
}

bool Parser::IsKeyword(Keyword keyword, size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kKeyword && token.keyword == keyword;
}

bool Parser::Accept(TokenKind kind) {
  if (!Is(kind)) return false;
  Advance();
  return true;
}

bool Parser::AcceptKeyword(Keyword keyword) {
  if (!IsKeyword(keyword)) return false;
  Advance();
  return true;
}

const Token& Parser::Expect(TokenKind kind) {
  if (!Is(kind)) SyntaxError(Peek(), TokenKindName(kind));
  return Advance();
}

void Parser::ExpectKeyword(Keyword keyword) {
  if (!IsKeyword(keyword)) SyntaxError(Peek(), KeywordName(keyword));
  Advance();
}

bool Parser::IsIdentifier(size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kIdentifier || token.kind == TokenKind::kQuotedIdentifier ||
         (token.kind == TokenKind::kKeyword && !IsReservedKeyword(token.keyword));
}

Identifier Parser::ExpectIdentifier(std::string_view what) {
  if (!IsIdentifier()) SyntaxError(Peek(), what);
  const Token& token = Advance();
  return Identifier{token.text, token.pos};
}

void Parser::SyntaxError(const Token& token, std::string_view expected) const {
  std::string message =
      token.kind == TokenKind::kEnd
          ? std::string("syntax error at end of input")
          : fmt::format("syntax error at or near \"{}\"", QuotedTokenText(token.source));
  if (!expected.empty()) message += fmt::format(": expected {}", expected);
  Fail(SqlState::kSyntaxError, std::move(message), token.pos);
}

void Parser::Fail(SqlState state, std::string message, SourcePos pos) const {
  throw ParseFailure{SqlError(state, std::move(message), pos)};
}

Parser::DepthGuard::DepthGuard(Parser& parser, SourcePos pos) : parser_(parser) {
  parser_.EnterNesting(pos);
}

void Parser::EnterNesting(SourcePos pos) {
  if (++depth_ > kMaxNestingDepth) {
    Fail(SqlState::kStatementTooComplex,
         fmt::format("statement too complex: nested more than {} levels deep", kMaxNestingDepth),
         pos);
  }
}

// ---- statements

bool Parser::SkipSemicolonsToEnd() {
  while (Accept(TokenKind::kSemicolon)) {
  }
  return Is(TokenKind::kEnd);
}

ParsedStatement Parser::ParseOne() {
  positional_count_ = 0;
  max_numbered_ = 0;
  used_numbered_ = false;
  parameter_uses_.clear();
  depth_ = 0;
  ParsedStatement parsed;
  parsed.begin_offset = Peek().pos.offset;
  parsed.statement = ParseStatementBody();
  parsed.end_offset = last_end_offset_;
  if (!Accept(TokenKind::kSemicolon) && !Is(TokenKind::kEnd)) {
    SyntaxError(Peek(), "';' or end of input");
  }
  parsed.parameter_count = used_numbered_ ? max_numbered_ : positional_count_;
  parsed.parameter_uses = std::move(parameter_uses_);
  parameter_uses_.clear();
  return parsed;
}

void Parser::ExpectOnlySemicolonsLeft() {
  if (!SkipSemicolonsToEnd()) SyntaxError(Peek(), "end of input (one statement only)");
}

StatementPtr Parser::ParseStatementBody() {
  const Token& first = Peek();
  if (first.kind == TokenKind::kLeftParen) return ParseSelect();  // (SELECT ...) ...
  if (first.kind == TokenKind::kKeyword) {
    switch (first.keyword) {
      case Keyword::kSelect:
        return ParseSelect();
      case Keyword::kWith:
        return ParseWithStatement();
      case Keyword::kInsert:
        return ParseInsert();
      case Keyword::kUpdate:
        return ParseUpdate();
      case Keyword::kDelete:
        return ParseDelete();
      case Keyword::kCreate:
        return ParseCreate();
      case Keyword::kDrop:
        return ParseDrop();
      case Keyword::kBegin:
      case Keyword::kCommit:
      case Keyword::kRollback: {
        Advance();
        AcceptKeyword(Keyword::kTransaction);
        StatementKind kind = first.keyword == Keyword::kBegin    ? StatementKind::kBegin
                             : first.keyword == Keyword::kCommit ? StatementKind::kCommit
                                                                 : StatementKind::kRollback;
        return std::make_unique<TransactionStmt>(kind, first.pos);
      }
      case Keyword::kExplain: {
        Advance();
        auto explain = std::make_unique<ExplainStmt>(first.pos);
        if (IsKeyword(Keyword::kExplain)) SyntaxError(Peek(), "a statement to explain");
        explain->statement = ParseStatementBody();
        return explain;
      }
      default:
        break;
    }
  }
  SyntaxError(first, "a statement");
}

}  // namespace internal

namespace {

template <typename T, typename Body>
Result<T> Guarded(Body&& body) {
  try {
    return body();
  } catch (internal::ParseFailure& failure) {
    return std::move(failure.error);
  }
}

}  // namespace

Result<ParsedStatement> ParseStatement(std::string_view sql) {
  Result<std::vector<Token>> tokens = Tokenize(sql);
  if (!tokens.ok()) return tokens.error();
  return Guarded<ParsedStatement>([&]() -> ParsedStatement {
    internal::Parser parser(tokens.value());
    ParsedStatement parsed = parser.ParseOne();
    parser.ExpectOnlySemicolonsLeft();
    return parsed;
  });
}

Result<std::vector<ParsedStatement>> ParseScript(std::string_view sql) {
  Result<std::vector<Token>> tokens = Tokenize(sql);
  if (!tokens.ok()) return tokens.error();
  return Guarded<std::vector<ParsedStatement>>([&]() {
    internal::Parser parser(tokens.value());
    std::vector<ParsedStatement> statements;
    while (!parser.SkipSemicolonsToEnd()) statements.push_back(parser.ParseOne());
    return statements;
  });
}

}  // namespace solo::sql
