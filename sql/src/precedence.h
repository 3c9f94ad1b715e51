// Operator precedence, shared by the parser (which groups by it) and the
// printer (which adds the parentheses it needs). PostgreSQL's order, from the
// loosest to the tightest binding. Comparison and the predicates (BETWEEN, IN,
// LIKE) do not associate: "a = b = c" is a syntax error.
#pragma once

#include "solo/sql/ast.h"

namespace solo::sql {

enum Precedence : int {
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,             // prefix NOT
  kPrecIs = 4,              // postfix IS [NOT] NULL
  kPrecComparison = 5,      // = <> < <= > >=
  kPrecPredicate = 6,       // [NOT] BETWEEN, [NOT] IN, [NOT] LIKE
  kPrecConcat = 7,          // ||
  kPrecAdditive = 8,        // + -
  kPrecMultiplicative = 9,  // * / %
  kPrecUnary = 10,          // prefix - +
  kPrecPrimary = 11,        // literals, names, calls, (...)
};

inline Precedence PrecedenceOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return kPrecOr;
    case BinaryOp::kAnd:
      return kPrecAnd;
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return kPrecComparison;
    case BinaryOp::kConcat:
      return kPrecConcat;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return kPrecAdditive;
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
      return kPrecMultiplicative;
  }
  return kPrecPrimary;
}

inline bool IsNonAssociative(Precedence prec) {
  return prec == kPrecComparison || prec == kPrecPredicate;
}

// The precedence of the operator at the root of expr.
inline Precedence PrecedenceOf(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kUnary:
      return expr.As<UnaryExpr>().op == UnaryOp::kNot ? kPrecNot : kPrecUnary;
    case ExprKind::kBinary:
      return PrecedenceOf(expr.As<BinaryExpr>().op);
    case ExprKind::kIsNull:
      return kPrecIs;
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kLike:
      return kPrecPredicate;
    default:
      return kPrecPrimary;
  }
}

}  // namespace solo::sql
