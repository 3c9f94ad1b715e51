// SELECT and its FROM clause.

#include "parser_internal.h"

namespace solo::sql::internal {

std::unique_ptr<SelectStmt> Parser::ParseSelect() {
  DepthGuard guard(*this, Peek().pos);
  std::vector<SelectStmt::CommonTable> with;
  if (AcceptKeyword(Keyword::kWith)) with = ParseWithList();
  return ParseSelectAfterWith(std::move(with));
}

std::unique_ptr<SelectStmt> Parser::ParseSelectAfterWith(
    std::vector<SelectStmt::CommonTable> with) {
  // The first operand's INTERSECT arms and then the UNION and EXCEPT arms go
  // into one list: combined left to right, that is (a INTERSECT b) UNION c.
  std::unique_ptr<SelectStmt> select = ParseIntersectTerm(/*first=*/true);
  select->with = std::move(with);
  while (IsKeyword(Keyword::kUnion) || IsKeyword(Keyword::kExcept)) {
    const SelectStmt::SetOp op =
        IsKeyword(Keyword::kUnion) ? SelectStmt::SetOp::kUnion : SelectStmt::SetOp::kExcept;
    Advance();
    select->set_arms.push_back(ParseSetArm(op));
  }
  if (AcceptKeyword(Keyword::kOrder)) {
    ExpectKeyword(Keyword::kBy);
    ParseOrderBy(select->order_by);
  }
  if (AcceptKeyword(Keyword::kLimit)) {
    select->limit = ParseExpr();
    if (AcceptKeyword(Keyword::kOffset)) select->offset = ParseExpr();
  }
  return select;
}

// After UNION, INTERSECT or EXCEPT: [ALL | DISTINCT] and the operand, which
// after UNION or EXCEPT takes the INTERSECT arms that follow it.
SelectStmt::SetArm Parser::ParseSetArm(SelectStmt::SetOp op) {
  SelectStmt::SetArm arm;
  arm.op = op;
  if (AcceptKeyword(Keyword::kAll)) {
    arm.all = true;
  } else {
    AcceptKeyword(Keyword::kDistinct);
  }
  if (op == SelectStmt::SetOp::kIntersect) {
    if (Accept(TokenKind::kLeftParen)) {
      arm.select = ParseSubqueryBody();
    } else {
      arm.select = ParseSelectCore();
    }
  } else {
    arm.select = ParseIntersectTerm(/*first=*/false);
  }
  return arm;
}

std::unique_ptr<SelectStmt> Parser::ParseIntersectTerm(bool first) {
  const SourcePos pos = Peek().pos;
  std::unique_ptr<SelectStmt> term;
  if (Accept(TokenKind::kLeftParen)) {
    term = ParseSubqueryBody();
    // Arms added to the parenthesized query itself would fall under its own
    // ORDER BY and LIMIT, and after its own arms: it becomes the body of a
    // new statement instead. Only an arm's lone operand stays as it is.
    if (first || IsKeyword(Keyword::kIntersect)) {
      auto outer = std::make_unique<SelectStmt>(pos);
      outer->body = std::move(term);
      term = std::move(outer);
    }
  } else {
    term = ParseSelectCore();
  }
  while (IsKeyword(Keyword::kIntersect)) {
    Advance();
    term->set_arms.push_back(ParseSetArm(SelectStmt::SetOp::kIntersect));
  }
  return term;
}

std::vector<SelectStmt::CommonTable> Parser::ParseWithList() {
  if (IsKeyword(Keyword::kRecursive)) {
    Fail(SqlState::kFeatureNotSupported, "WITH RECURSIVE is not supported", Peek().pos);
  }
  std::vector<SelectStmt::CommonTable> list;
  do {
    SelectStmt::CommonTable table;
    table.name = ExpectIdentifier("a WITH query name");
    if (Accept(TokenKind::kLeftParen)) {
      table.columns = ParseIdentifierList();
      Expect(TokenKind::kRightParen);
    }
    ExpectKeyword(Keyword::kAs);
    Expect(TokenKind::kLeftParen);
    table.select = ParseSubqueryBody();
    list.push_back(std::move(table));
  } while (Accept(TokenKind::kComma));
  return list;
}

std::unique_ptr<SelectStmt> Parser::ParseSelectCore() {
  auto select = std::make_unique<SelectStmt>(Peek().pos);
  ExpectKeyword(Keyword::kSelect);
  if (AcceptKeyword(Keyword::kDistinct)) {
    select->distinct = true;
  } else {
    AcceptKeyword(Keyword::kAll);
  }
  ParseSelectItems(*select);
  if (AcceptKeyword(Keyword::kFrom)) {
    do {
      select->from.push_back(ParseTableRef());
    } while (Accept(TokenKind::kComma));
  }
  if (AcceptKeyword(Keyword::kWhere)) select->where = ParseExpr();
  if (AcceptKeyword(Keyword::kGroup)) {
    ExpectKeyword(Keyword::kBy);
    select->group_by = ParseExprList();
  }
  if (AcceptKeyword(Keyword::kHaving)) select->having = ParseExpr();
  return select;
}

void Parser::ParseSelectItems(SelectStmt& select) { ParseSelectItems(select.items); }

void Parser::ParseSelectItems(std::vector<SelectItem>& items) {
  do {
    SelectItem item;
    item.pos = Peek().pos;
    if (Accept(TokenKind::kStar)) {
      // SELECT *: nothing more to read.
    } else if (IsIdentifier() && Is(TokenKind::kDot, 1) && Is(TokenKind::kStar, 2)) {
      item.star_table = Advance().text;
      Advance();
      Advance();
    } else {
      item.expr = ParseExpr();
      item.alias = ParseOptionalAlias();
    }
    items.push_back(std::move(item));
  } while (Accept(TokenKind::kComma));
}

Identifier Parser::ParseOptionalAlias() {
  if (AcceptKeyword(Keyword::kAs)) return ExpectIdentifier("an alias");
  if (IsIdentifier()) {
    const Token& token = Advance();
    return Identifier{token.text, token.pos};
  }
  return Identifier{};
}

void Parser::ParseOrderBy(std::vector<OrderItem>& order_by) {
  do {
    OrderItem item;
    item.expr = ParseExpr();
    if (AcceptKeyword(Keyword::kDesc)) {
      item.descending = true;
    } else {
      AcceptKeyword(Keyword::kAsc);
    }
    if (AcceptKeyword(Keyword::kNulls)) {
      if (AcceptKeyword(Keyword::kFirst)) {
        item.nulls_first = true;
      } else if (AcceptKeyword(Keyword::kLast)) {
        item.nulls_first = false;
      } else {
        SyntaxError(Peek(), "FIRST or LAST");
      }
    }
    order_by.push_back(std::move(item));
  } while (Accept(TokenKind::kComma));
}

TableRefPtr Parser::ParseTableRef() {
  TableRefPtr left = ParseTablePrimary();
  int joins = 0;  // each join deepens the (left-deep) tree by one
  while (true) {
    const Token& token = Peek();
    JoinType type;
    if (IsKeyword(Keyword::kJoin)) {
      type = JoinType::kInner;
      Advance();
    } else if (IsKeyword(Keyword::kInner)) {
      type = JoinType::kInner;
      Advance();
      ExpectKeyword(Keyword::kJoin);
    } else if (IsKeyword(Keyword::kLeft) || IsKeyword(Keyword::kRight) ||
               IsKeyword(Keyword::kFull)) {
      type = IsKeyword(Keyword::kLeft)    ? JoinType::kLeft
             : IsKeyword(Keyword::kRight) ? JoinType::kRight
                                          : JoinType::kFull;
      Advance();
      AcceptKeyword(Keyword::kOuter);
      ExpectKeyword(Keyword::kJoin);
    } else if (IsKeyword(Keyword::kCross)) {
      type = JoinType::kCross;
      Advance();
      ExpectKeyword(Keyword::kJoin);
    } else {
      break;
    }
    EnterNesting(token.pos);
    ++joins;
    auto join = std::make_unique<JoinTableRef>(token.pos);
    join->type = type;
    join->left = std::move(left);
    join->right = ParseTablePrimary();
    if (type != JoinType::kCross) {
      if (!IsKeyword(Keyword::kOn)) SyntaxError(Peek(), "ON");
      Advance();
      join->condition = ParseExpr();
    }
    left = std::move(join);
  }
  depth_ -= joins;
  return left;
}

TableRefPtr Parser::ParseTablePrimary() {
  const Token& token = Peek();
  if (token.kind == TokenKind::kLeftParen) {
    Advance();
    if (IsQueryStart() || IsParenthesizedQueryStart(/*close_too=*/true)) {
      auto derived = std::make_unique<SubqueryTableRef>(token.pos);
      derived->subquery = ParseSubqueryBody();
      derived->alias = ParseOptionalAlias();
      if (derived->alias.name.empty()) {
        Fail(SqlState::kSyntaxError, "subquery in FROM must have an alias", Peek().pos);
      }
      return derived;
    }
    DepthGuard guard(*this, token.pos);
    TableRefPtr inner = ParseTableRef();
    Expect(TokenKind::kRightParen);
    return inner;
  }
  if (!IsIdentifier()) SyntaxError(token, "a table name");
  auto table = std::make_unique<BaseTableRef>(token.pos);
  table->name = ExpectIdentifier("a table name");
  table->alias = ParseOptionalAlias();
  return table;
}

std::unique_ptr<SelectStmt> Parser::ParseSubqueryBody() {
  if (!IsQueryStart() && !Is(TokenKind::kLeftParen)) SyntaxError(Peek(), "SELECT");
  std::unique_ptr<SelectStmt> select = ParseSelect();
  Expect(TokenKind::kRightParen);
  return select;
}

}  // namespace solo::sql::internal
