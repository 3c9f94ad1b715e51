// The recursive-descent parser behind parser.h. Split by statement kind:
// parser.cc (driver, tokens, errors), parse_expr.cc, parse_select.cc,
// parse_dml.cc (INSERT, UPDATE, DELETE), parse_ddl.cc (CREATE, DROP, types).
//
// Errors are thrown as ParseFailure and caught by the public functions in
// parser.cc, so no exception leaves the parser.
#pragma once

#include <string_view>
#include <vector>

#include "precedence.h"
#include "solo/sql/ast.h"
#include "solo/sql/parser.h"
#include "solo/sql/token.h"

namespace solo::sql::internal {

struct ParseFailure {
  SqlError error;
};

class Parser {
 public:
  // tokens end with a kEnd token and must outlive the Parser.
  explicit Parser(const std::vector<Token>& tokens) : tokens_(tokens) {}
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // Skips ';' tokens; returns true if the end of input follows.
  bool SkipSemicolonsToEnd();

  // Parses one statement and the ';' after it, if any; when there is none,
  // the statement must be the last one.
  ParsedStatement ParseOne();

  // Skips ';' tokens; throws kSyntaxError unless the end of input follows.
  void ExpectOnlySemicolonsLeft();

 private:
  // ---- tokens (parser.cc)
  const Token& Peek(size_t ahead = 0) const;
  const Token& Advance();
  bool Is(TokenKind kind, size_t ahead = 0) const { return Peek(ahead).kind == kind; }
  bool IsKeyword(Keyword keyword, size_t ahead = 0) const;
  bool Accept(TokenKind kind);
  bool AcceptKeyword(Keyword keyword);
  const Token& Expect(TokenKind kind);
  void ExpectKeyword(Keyword keyword);
  // Returns true if the next token can be an identifier: an identifier, a
  // quoted identifier or an unreserved keyword.
  bool IsIdentifier(size_t ahead = 0) const;
  Identifier ExpectIdentifier(std::string_view what);

  // Throws kSyntaxError at token: 'syntax error at or near "x": expected <expected>'.
  [[noreturn]] void SyntaxError(const Token& token, std::string_view expected) const;
  [[noreturn]] void Fail(SqlState state, std::string message, SourcePos pos) const;

  // Counts one level of nesting until the guard dies; throws
  // kStatementTooComplex beyond kMaxNestingDepth.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, SourcePos pos);
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };
  void EnterNesting(SourcePos pos);

  // ---- statements (parser.cc dispatches)
  StatementPtr ParseStatementBody();

  // ---- expressions (parse_expr.cc)
  ExprPtr ParseExpr();
  ExprPtr ParseBinary(Precedence min_prec);
  ExprPtr ParseUnary();
  ExprPtr ParsePrimary();
  ExprPtr ParseParameter();
  ExprPtr ParseNameOrCall();
  ExprPtr ParseFunctionCall(const Token& name_token);
  ExprPtr ParseCase();
  ExprPtr ParseCast();
  ExprPtr ParseParenthesized();
  // After operand and an optional NOT: BETWEEN / IN / LIKE.
  ExprPtr ParsePredicate(ExprPtr operand, bool negated, const Token& op_token);
  std::vector<ExprPtr> ParseExprList();

  // ---- SELECT (parse_select.cc)
  // A query: [WITH], a SELECT or a parenthesized query, its UNION,
  // INTERSECT and EXCEPT arms, ORDER BY and LIMIT.
  std::unique_ptr<SelectStmt> ParseSelect();
  // The same after its WITH list (`with`, maybe empty) was read.
  std::unique_ptr<SelectStmt> ParseSelectAfterWith(std::vector<SelectStmt::CommonTable> with);
  // SELECT ... [FROM] [WHERE] [GROUP BY] [HAVING]: an operand of UNION,
  // INTERSECT or EXCEPT.
  std::unique_ptr<SelectStmt> ParseSelectCore();
  // An operand (a SELECT, or a query in parentheses) and the INTERSECT arms
  // after it. `first`: the query's first operand, to which the caller adds
  // the UNION and EXCEPT arms (a parenthesized one becomes a body).
  std::unique_ptr<SelectStmt> ParseIntersectTerm(bool first);
  SelectStmt::SetArm ParseSetArm(SelectStmt::SetOp op);
  // After WITH: name [(columns)] AS (SELECT ...), ...
  std::vector<SelectStmt::CommonTable> ParseWithList();
  // SELECT or WITH: where a query begins.
  bool IsQueryStart() const { return IsKeyword(Keyword::kSelect) || IsKeyword(Keyword::kWith); }
  // After a '(' was consumed, at another '(': true when what follows is a
  // query that begins with a parenthesized one, `((SELECT 1) UNION (SELECT
  // 2))`, told from an expression or a join that begins with a subquery,
  // `((SELECT 1) + 1)`, `((SELECT 1) s JOIN t ON ..)`, by the token after
  // the first '(''s match: UNION, INTERSECT, EXCEPT, ORDER or LIMIT; and
  // `close_too` (a FROM item): ')' as well, `FROM ((SELECT 1)) s`.
  bool IsParenthesizedQueryStart(bool close_too) const;
  void ParseSelectItems(SelectStmt& select);
  void ParseSelectItems(std::vector<SelectItem>& items);
  TableRefPtr ParseTableRef();
  TableRefPtr ParseTablePrimary();
  Identifier ParseOptionalAlias();
  void ParseOrderBy(std::vector<OrderItem>& order_by);
  // A subquery after its '(' was consumed: SELECT ... ')' (or WITH, or a
  // parenthesized query).
  std::unique_ptr<SelectStmt> ParseSubqueryBody();

  // ---- INSERT, UPDATE, DELETE (parse_dml.cc)
  StatementPtr ParseInsert();
  StatementPtr ParseUpdate();
  StatementPtr ParseDelete();
  // WITH ... then a query, INSERT, UPDATE or DELETE: the statement.
  StatementPtr ParseWithStatement();

  // ---- CREATE, DROP, types (parse_ddl.cc)
  StatementPtr ParseCreate();
  StatementPtr ParseCreateTable(SourcePos pos);
  StatementPtr ParseCreateIndex(SourcePos pos, bool unique);
  StatementPtr ParseDrop();
  void ParseColumnDef(CreateTableStmt& table, bool& has_primary_key);
  std::vector<Identifier> ParseIdentifierList();
  TypeName ParseTypeName();
  int32_t ParseTypeModifier();

  const std::vector<Token>& tokens_;
  size_t next_ = 0;               // index of the next token
  uint32_t last_end_offset_ = 0;  // where the last consumed token ends
  int depth_ = 0;
  // Parameters of the statement being parsed.
  uint32_t positional_count_ = 0;
  uint32_t max_numbered_ = 0;
  bool used_numbered_ = false;
  std::vector<ParameterUse> parameter_uses_;
};

}  // namespace solo::sql::internal
