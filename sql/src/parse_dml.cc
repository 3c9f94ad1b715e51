// INSERT, UPDATE and DELETE.

#include "parser_internal.h"

namespace solo::sql::internal {

StatementPtr Parser::ParseInsert() {
  auto insert = std::make_unique<InsertStmt>(Peek().pos);
  ExpectKeyword(Keyword::kInsert);
  ExpectKeyword(Keyword::kInto);
  insert->table = ExpectIdentifier("a table name");
  if (Accept(TokenKind::kLeftParen)) {
    insert->columns = ParseIdentifierList();
    Expect(TokenKind::kRightParen);
  }
  if (IsQueryStart()) {
    insert->select = ParseSelect();
    return insert;
  }
  if (!IsKeyword(Keyword::kValues)) SyntaxError(Peek(), "VALUES or SELECT");
  Advance();
  do {
    const Token& open = Expect(TokenKind::kLeftParen);
    std::vector<ExprPtr> row = ParseExprList();
    Expect(TokenKind::kRightParen);
    if (!insert->rows.empty() && row.size() != insert->rows.front().size()) {
      Fail(SqlState::kSyntaxError, "VALUES lists must all be the same length", open.pos);
    }
    insert->rows.push_back(std::move(row));
  } while (Accept(TokenKind::kComma));
  return insert;
}

StatementPtr Parser::ParseUpdate() {
  auto update = std::make_unique<UpdateStmt>(Peek().pos);
  ExpectKeyword(Keyword::kUpdate);
  update->table = ExpectIdentifier("a table name");
  ExpectKeyword(Keyword::kSet);
  do {
    Assignment assignment;
    assignment.column = ExpectIdentifier("a column name");
    Expect(TokenKind::kEq);
    assignment.value = ParseExpr();
    update->assignments.push_back(std::move(assignment));
  } while (Accept(TokenKind::kComma));
  if (AcceptKeyword(Keyword::kWhere)) update->where = ParseExpr();
  if (AcceptKeyword(Keyword::kReturning)) ParseSelectItems(update->returning);
  return update;
}

StatementPtr Parser::ParseDelete() {
  auto del = std::make_unique<DeleteStmt>(Peek().pos);
  ExpectKeyword(Keyword::kDelete);
  ExpectKeyword(Keyword::kFrom);
  del->table = ExpectIdentifier("a table name");
  if (AcceptKeyword(Keyword::kWhere)) del->where = ParseExpr();
  if (AcceptKeyword(Keyword::kReturning)) ParseSelectItems(del->returning);
  return del;
}

// WITH before INSERT, UPDATE or DELETE (session 48): its queries are
// visible to the statement's subqueries and INSERT's SELECT, as a WITH
// before a SELECT is to that SELECT; they only read (PostgreSQL's
// data-modifying WITH queries are not parsed: INSERT inside WITH's
// parentheses is "expected SELECT").
StatementPtr Parser::ParseWithStatement() {
  DepthGuard guard(*this, Peek().pos);
  ExpectKeyword(Keyword::kWith);
  std::vector<SelectStmt::CommonTable> with = ParseWithList();
  if (IsKeyword(Keyword::kInsert)) {
    StatementPtr statement = ParseInsert();
    static_cast<InsertStmt&>(*statement).with = std::move(with);
    return statement;
  }
  if (IsKeyword(Keyword::kUpdate)) {
    StatementPtr statement = ParseUpdate();
    static_cast<UpdateStmt&>(*statement).with = std::move(with);
    return statement;
  }
  if (IsKeyword(Keyword::kDelete)) {
    StatementPtr statement = ParseDelete();
    static_cast<DeleteStmt&>(*statement).with = std::move(with);
    return statement;
  }
  if (!IsKeyword(Keyword::kSelect) && !Is(TokenKind::kLeftParen)) {
    SyntaxError(Peek(), "SELECT, INSERT, UPDATE or DELETE");
  }
  return ParseSelectAfterWith(std::move(with));
}

std::vector<Identifier> Parser::ParseIdentifierList() {
  std::vector<Identifier> names;
  do {
    names.push_back(ExpectIdentifier("a column name"));
  } while (Accept(TokenKind::kComma));
  return names;
}

}  // namespace solo::sql::internal
