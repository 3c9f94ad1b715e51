// Expressions, by precedence climbing over the levels of precedence.h.

#include <fmt/format.h>

#include "parser_internal.h"
#include "solo/sql/lexer.h"

namespace solo::sql::internal {
namespace {

// Returns true and sets op if token is a binary operator (other than the
// predicates BETWEEN, IN, LIKE and the postfix IS, handled apart).
bool BinaryOpOf(const Token& token, BinaryOp& op) {
  switch (token.kind) {
    case TokenKind::kPlus:
      op = BinaryOp::kAdd;
      return true;
    case TokenKind::kMinus:
      op = BinaryOp::kSub;
      return true;
    case TokenKind::kStar:
      op = BinaryOp::kMul;
      return true;
    case TokenKind::kSlash:
      op = BinaryOp::kDiv;
      return true;
    case TokenKind::kPercent:
      op = BinaryOp::kMod;
      return true;
    case TokenKind::kConcat:
      op = BinaryOp::kConcat;
      return true;
    case TokenKind::kEq:
      op = BinaryOp::kEq;
      return true;
    case TokenKind::kNe:
      op = BinaryOp::kNe;
      return true;
    case TokenKind::kLt:
      op = BinaryOp::kLt;
      return true;
    case TokenKind::kLe:
      op = BinaryOp::kLe;
      return true;
    case TokenKind::kGt:
      op = BinaryOp::kGt;
      return true;
    case TokenKind::kGe:
      op = BinaryOp::kGe;
      return true;
    case TokenKind::kKeyword:
      if (token.keyword == Keyword::kAnd) {
        op = BinaryOp::kAnd;
        return true;
      }
      if (token.keyword == Keyword::kOr) {
        op = BinaryOp::kOr;
        return true;
      }
      return false;
    default:
      return false;
  }
}

bool IsPredicateKeyword(const Token& token) {
  return token.kind == TokenKind::kKeyword &&
         (token.keyword == Keyword::kBetween || token.keyword == Keyword::kIn ||
          token.keyword == Keyword::kLike);
}

}  // namespace

ExprPtr Parser::ParseExpr() {
  DepthGuard guard(*this, Peek().pos);
  return ParseBinary(kPrecOr);
}

ExprPtr Parser::ParseBinary(Precedence min_prec) {
  ExprPtr left;
  if (IsKeyword(Keyword::kNot)) {
    // Prefix NOT is accepted wherever an operand may start; its operand binds
    // everything tighter than NOT ("NOT a = b" is "NOT (a = b)").
    const Token& not_token = Advance();
    DepthGuard guard(*this, not_token.pos);
    left = std::make_unique<UnaryExpr>(not_token.pos, UnaryOp::kNot, ParseBinary(kPrecNot));
  } else {
    left = ParseUnary();
  }
  // Each operator applied in this loop deepens the tree by one: count it as
  // nesting, so that "1+1+...+1" is bounded like "((((1))))".
  int applied = 0;
  Precedence last_prec = kPrecPrimary;
  while (true) {
    const Token& token = Peek();
    BinaryOp op = BinaryOp::kAdd;
    bool is_binary = BinaryOpOf(token, op);
    Precedence prec;
    if (is_binary) {
      prec = PrecedenceOf(op);
    } else if (token.kind == TokenKind::kKeyword && token.keyword == Keyword::kIs) {
      prec = kPrecIs;
    } else if (IsPredicateKeyword(token) ||
               (IsKeyword(Keyword::kNot) && IsPredicateKeyword(Peek(1)))) {
      prec = kPrecPredicate;
    } else {
      break;
    }
    if (prec < min_prec) break;
    if (IsNonAssociative(prec) && last_prec == prec) {
      Fail(SqlState::kSyntaxError,
           fmt::format("syntax error at or near \"{}\": comparisons do not chain; use "
                       "parentheses or AND",
                       token.source),
           token.pos);
    }
    EnterNesting(token.pos);
    ++applied;
    Advance();
    if (is_binary) {
      ExprPtr right = ParseBinary(static_cast<Precedence>(prec + 1));
      left = std::make_unique<BinaryExpr>(token.pos, op, std::move(left), std::move(right));
    } else if (prec == kPrecIs) {
      auto is_null = std::make_unique<IsNullExpr>(token.pos);
      is_null->negated = AcceptKeyword(Keyword::kNot);
      ExpectKeyword(Keyword::kNull);
      is_null->operand = std::move(left);
      left = std::move(is_null);
    } else {
      bool negated = token.keyword == Keyword::kNot;
      const Token& op_token = negated ? Advance() : token;
      left = ParsePredicate(std::move(left), negated, op_token);
    }
    last_prec = prec;
  }
  depth_ -= applied;
  return left;
}

ExprPtr Parser::ParsePredicate(ExprPtr operand, bool negated, const Token& op_token) {
  switch (op_token.keyword) {
    case Keyword::kBetween: {
      auto between = std::make_unique<BetweenExpr>(op_token.pos);
      between->operand = std::move(operand);
      between->negated = negated;
      between->low = ParseBinary(kPrecConcat);
      ExpectKeyword(Keyword::kAnd);
      between->high = ParseBinary(kPrecConcat);
      return between;
    }
    case Keyword::kIn: {
      Expect(TokenKind::kLeftParen);
      if (IsQueryStart() || IsParenthesizedQueryStart(/*close_too=*/false)) {
        auto in_subquery = std::make_unique<InSubqueryExpr>(op_token.pos);
        in_subquery->operand = std::move(operand);
        in_subquery->negated = negated;
        in_subquery->subquery = ParseSubqueryBody();
        return in_subquery;
      }
      auto in_list = std::make_unique<InListExpr>(op_token.pos);
      in_list->operand = std::move(operand);
      in_list->negated = negated;
      in_list->list = ParseExprList();
      Expect(TokenKind::kRightParen);
      return in_list;
    }
    default: {
      auto like = std::make_unique<LikeExpr>(op_token.pos);
      like->operand = std::move(operand);
      like->negated = negated;
      like->pattern = ParseBinary(kPrecConcat);
      if (AcceptKeyword(Keyword::kEscape)) like->escape = ParseBinary(kPrecConcat);
      return like;
    }
  }
}

ExprPtr Parser::ParseUnary() {
  if (Is(TokenKind::kMinus) || Is(TokenKind::kPlus)) {
    const Token& sign = Advance();
    DepthGuard guard(*this, sign.pos);
    UnaryOp op = sign.kind == TokenKind::kMinus ? UnaryOp::kNegate : UnaryOp::kPlus;
    return std::make_unique<UnaryExpr>(sign.pos, op, ParseUnary());
  }
  return ParsePrimary();
}

ExprPtr Parser::ParsePrimary() {
  const Token& token = Peek();
  using Type = LiteralExpr::Type;
  switch (token.kind) {
    case TokenKind::kInteger:
      Advance();
      return std::make_unique<LiteralExpr>(token.pos, Type::kInteger, token.text);
    case TokenKind::kDecimal:
      Advance();
      return std::make_unique<LiteralExpr>(token.pos, Type::kDecimal, token.text);
    case TokenKind::kFloat:
      Advance();
      return std::make_unique<LiteralExpr>(token.pos, Type::kFloat, token.text);
    case TokenKind::kString:
      Advance();
      return std::make_unique<LiteralExpr>(token.pos, Type::kString, token.text);
    case TokenKind::kParameter:
      return ParseParameter();
    case TokenKind::kLeftParen:
      return ParseParenthesized();
    case TokenKind::kKeyword:
      switch (token.keyword) {
        case Keyword::kNull:
          Advance();
          return std::make_unique<LiteralExpr>(token.pos, Type::kNull, "");
        case Keyword::kTrue:
          Advance();
          return std::make_unique<LiteralExpr>(token.pos, Type::kTrue, "");
        case Keyword::kFalse:
          Advance();
          return std::make_unique<LiteralExpr>(token.pos, Type::kFalse, "");
        case Keyword::kCase:
          return ParseCase();
        case Keyword::kCast:
          return ParseCast();
        case Keyword::kExists: {
          Advance();
          auto exists = std::make_unique<ExistsExpr>(token.pos);
          Expect(TokenKind::kLeftParen);
          exists->subquery = ParseSubqueryBody();
          return exists;
        }
        default:
          break;
      }
      break;
    default:
      break;
  }
  if (IsIdentifier()) return ParseNameOrCall();
  SyntaxError(token, "an expression");
}

ExprPtr Parser::ParseParameter() {
  const Token& token = Advance();
  uint32_t number = token.parameter_number;
  if (number == 0) {
    if (used_numbered_) {
      Fail(SqlState::kSyntaxError, "cannot mix ? and $n parameters in one statement", token.pos);
    }
    number = ++positional_count_;
    if (number > kMaxParameterNumber) {
      Fail(SqlState::kProgramLimitExceeded,
           fmt::format("more than {} parameters", kMaxParameterNumber), token.pos);
    }
  } else {
    if (positional_count_ > 0) {
      Fail(SqlState::kSyntaxError, "cannot mix ? and $n parameters in one statement", token.pos);
    }
    used_numbered_ = true;
    max_numbered_ = std::max(max_numbered_, number);
  }
  parameter_uses_.push_back(ParameterUse{number, token.pos});
  return std::make_unique<ParameterExpr>(token.pos, number);
}

ExprPtr Parser::ParseParenthesized() {
  const Token& open = Advance();
  if (IsQueryStart() || IsParenthesizedQueryStart(/*close_too=*/false)) {
    auto subquery = std::make_unique<SubqueryExpr>(open.pos);
    subquery->subquery = ParseSubqueryBody();
    return subquery;
  }
  ExprPtr inner = ParseExpr();
  Expect(TokenKind::kRightParen);
  return inner;
}

ExprPtr Parser::ParseNameOrCall() {
  const Token& name = Advance();
  if (Is(TokenKind::kLeftParen)) return ParseFunctionCall(name);
  auto column = std::make_unique<ColumnRefExpr>(name.pos);
  if (Accept(TokenKind::kDot)) {
    column->table = name.text;
    column->column = ExpectIdentifier("a column name").name;
  } else {
    column->column = name.text;
  }
  return column;
}

ExprPtr Parser::ParseFunctionCall(const Token& name_token) {
  auto call = std::make_unique<FunctionExpr>(name_token.pos);
  call->name = name_token.text;
  DepthGuard guard(*this, Peek().pos);
  Expect(TokenKind::kLeftParen);
  if (Accept(TokenKind::kStar)) {
    call->star = true;
  } else if (!Is(TokenKind::kRightParen)) {
    call->distinct = AcceptKeyword(Keyword::kDistinct);
    if (!call->distinct) AcceptKeyword(Keyword::kAll);
    call->args = ParseExprList();
  }
  Expect(TokenKind::kRightParen);
  return call;
}

ExprPtr Parser::ParseCase() {
  const Token& case_token = Advance();
  auto case_expr = std::make_unique<CaseExpr>(case_token.pos);
  if (!IsKeyword(Keyword::kWhen)) case_expr->operand = ParseExpr();
  if (!IsKeyword(Keyword::kWhen)) SyntaxError(Peek(), "WHEN");
  while (AcceptKeyword(Keyword::kWhen)) {
    CaseExpr::When when;
    when.condition = ParseExpr();
    ExpectKeyword(Keyword::kThen);
    when.result = ParseExpr();
    case_expr->whens.push_back(std::move(when));
  }
  if (AcceptKeyword(Keyword::kElse)) case_expr->else_result = ParseExpr();
  ExpectKeyword(Keyword::kEnd);
  return case_expr;
}

ExprPtr Parser::ParseCast() {
  const Token& cast_token = Advance();
  auto cast = std::make_unique<CastExpr>(cast_token.pos);
  Expect(TokenKind::kLeftParen);
  cast->operand = ParseExpr();
  ExpectKeyword(Keyword::kAs);
  cast->type = ParseTypeName();
  Expect(TokenKind::kRightParen);
  return cast;
}

std::vector<ExprPtr> Parser::ParseExprList() {
  std::vector<ExprPtr> list;
  do {
    list.push_back(ParseExpr());
  } while (Accept(TokenKind::kComma));
  return list;
}

}  // namespace solo::sql::internal
