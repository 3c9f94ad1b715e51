// The binder and planner: resolves names against the catalog, checks
// grouping, and chooses access paths and the join order. See sql/README.md
// "Binder and planner".
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "exec/ddl.h"
#include "exec/eval.h"
#include "exec/plan.h"
#include "solo/codec.h"
#include "exec/value_ops.h"
#include "solo/sql/ast_printer.h"

namespace solo::sql {
namespace {

// One FROM item of a SELECT: a base table or a subquery, with its slots.
struct FromItem {
  std::string alias;
  const TableInfo* table = nullptr;
  std::vector<solo::ColumnDef> columns;
  std::unique_ptr<SelectPlan> derived;
  uint32_t slot_base = 0;
  std::vector<bool> needed;
  bool left_join = false;
  std::vector<const Expr*> on;  // LEFT JOIN conditions
  bool full_join = false;       // FULL JOIN's right side (left_join too)
  // Its place in the FROM clause as written, which SELECT * follows: a
  // RIGHT JOIN's left side is moved after its right side (AddFromItem).
  uint32_t written = 0;
};

// An ORDER BY or GROUP BY item that is a constant, read as PostgreSQL does:
// an integer constant that fits in 32 bits, also after minus signs (its
// grammar folds "-1" into a constant), is a select-list position; any other
// constant (1.5, '1', NULL, TRUE, 3000000000) is 42601 "non-integer constant".
// Returns the position, unchecked, or nullopt when expr is an expression.
// clause is "ORDER BY" or "GROUP BY", for the message.
std::optional<int64_t> ConstantPosition(const Expr& expr, std::string_view clause) {
  const Expr* operand = &expr;
  bool negative = false;
  while (operand->kind == ExprKind::kUnary && operand->As<UnaryExpr>().op == UnaryOp::kNegate) {
    negative = !negative;
    operand = operand->As<UnaryExpr>().operand.get();
  }
  if (operand->kind != ExprKind::kLiteral) return std::nullopt;
  const LiteralExpr& literal = operand->As<LiteralExpr>();
  using Type = LiteralExpr::Type;
  bool numeric = literal.type == Type::kInteger || literal.type == Type::kDecimal ||
                 literal.type == Type::kFloat;
  if (operand != &expr && !numeric) return std::nullopt;  // -'1' is an expression
  uint64_t position = 0;
  bool integer = false;
  if (literal.type == Type::kInteger) {
    const char* end = literal.text.data() + literal.text.size();
    auto [parsed_end, error] = std::from_chars(literal.text.data(), end, position);
    integer = error == std::errc() && parsed_end == end && position <= INT32_MAX;
  }
  if (!integer) {
    ThrowSql(SqlState::kSyntaxError, fmt::format("non-integer constant in {}", clause), expr.pos);
  }
  return negative ? -static_cast<int64_t>(position) : static_cast<int64_t>(position);
}

struct Scope {
  std::vector<FromItem>* items = nullptr;
  Scope* outer = nullptr;
  // Set to "LIMIT" or "OFFSET" while binding that clause: its columns are
  // then 42P10, also from inside a subquery (they are evaluated once, before
  // any row of this level is read).
  std::string_view columns_forbidden_in;
};

// While binding the select list, HAVING and ORDER BY of a grouped query.
struct AggContext {
  SelectPlan* plan = nullptr;
  std::vector<std::string> group_text;
  std::vector<int> group_slot;  // a group key that is a plain column: its slot
  bool inside_aggregate = false;
};

bool IsAggregateName(std::string_view name) {
  return name == "count" || name == "sum" || name == "min" || name == "max" || name == "avg";
}

bool ContainsAggregate(const Expr& expr);

bool ContainsAggregateIn(const std::vector<ExprPtr>& exprs) {
  for (const ExprPtr& expr : exprs) {
    if (expr && ContainsAggregate(*expr)) return true;
  }
  return false;
}

// Aggregates of this query level (not inside subqueries).
bool ContainsAggregate(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kFunction: {
      const auto& fn = expr.As<FunctionExpr>();
      return IsAggregateName(fn.name) || ContainsAggregateIn(fn.args);
    }
    case ExprKind::kUnary: return ContainsAggregate(*expr.As<UnaryExpr>().operand);
    case ExprKind::kBinary: {
      const auto& bin = expr.As<BinaryExpr>();
      return ContainsAggregate(*bin.left) || ContainsAggregate(*bin.right);
    }
    case ExprKind::kIsNull: return ContainsAggregate(*expr.As<IsNullExpr>().operand);
    case ExprKind::kBetween: {
      const auto& between = expr.As<BetweenExpr>();
      return ContainsAggregate(*between.operand) || ContainsAggregate(*between.low) ||
             ContainsAggregate(*between.high);
    }
    case ExprKind::kInList: {
      const auto& in = expr.As<InListExpr>();
      return ContainsAggregate(*in.operand) || ContainsAggregateIn(in.list);
    }
    case ExprKind::kInSubquery: return ContainsAggregate(*expr.As<InSubqueryExpr>().operand);
    case ExprKind::kLike: {
      const auto& like = expr.As<LikeExpr>();
      return ContainsAggregate(*like.operand) || ContainsAggregate(*like.pattern);
    }
    case ExprKind::kCase: {
      const auto& c = expr.As<CaseExpr>();
      if (c.operand && ContainsAggregate(*c.operand)) return true;
      if (c.else_result && ContainsAggregate(*c.else_result)) return true;
      for (const auto& when : c.whens) {
        if (ContainsAggregate(*when.condition) || ContainsAggregate(*when.result)) return true;
      }
      return false;
    }
    case ExprKind::kCast: return ContainsAggregate(*expr.As<CastExpr>().operand);
    default: return false;
  }
}

// Throws for the first part of a DEFAULT expression that cannot work in
// every INSERT: a column reference or subquery (0A000), a parameter (42P02)
// or an aggregate (42803), as PostgreSQL does at CREATE TABLE.
void CheckDefaultParts(const Expr& expr) {
  auto check_all = [](const std::vector<ExprPtr>& exprs) {
    for (const ExprPtr& part : exprs) CheckDefaultParts(*part);
  };
  switch (expr.kind) {
    case ExprKind::kLiteral:
      return;
    case ExprKind::kColumnRef:
      ThrowSql(SqlState::kFeatureNotSupported, "cannot use column reference in DEFAULT expression",
               expr.pos);
    case ExprKind::kParameter:
      ThrowSql(SqlState::kUndefinedParameter,
               fmt::format("there is no parameter ${}", expr.As<ParameterExpr>().number), expr.pos);
    case ExprKind::kSubquery:
    case ExprKind::kExists:
    case ExprKind::kInSubquery:
      ThrowSql(SqlState::kFeatureNotSupported, "cannot use subquery in DEFAULT expression",
               expr.pos);
    case ExprKind::kFunction: {
      const auto& fn = expr.As<FunctionExpr>();
      if (IsAggregateName(fn.name)) {
        ThrowSql(SqlState::kGroupingError,
                 "aggregate functions are not allowed in DEFAULT expressions", expr.pos);
      }
      check_all(fn.args);
      return;
    }
    case ExprKind::kUnary:
      CheckDefaultParts(*expr.As<UnaryExpr>().operand);
      return;
    case ExprKind::kBinary:
      CheckDefaultParts(*expr.As<BinaryExpr>().left);
      CheckDefaultParts(*expr.As<BinaryExpr>().right);
      return;
    case ExprKind::kIsNull:
      CheckDefaultParts(*expr.As<IsNullExpr>().operand);
      return;
    case ExprKind::kBetween: {
      const auto& between = expr.As<BetweenExpr>();
      CheckDefaultParts(*between.operand);
      CheckDefaultParts(*between.low);
      CheckDefaultParts(*between.high);
      return;
    }
    case ExprKind::kInList:
      CheckDefaultParts(*expr.As<InListExpr>().operand);
      check_all(expr.As<InListExpr>().list);
      return;
    case ExprKind::kLike: {
      const auto& like = expr.As<LikeExpr>();
      CheckDefaultParts(*like.operand);
      CheckDefaultParts(*like.pattern);
      if (like.escape) CheckDefaultParts(*like.escape);
      return;
    }
    case ExprKind::kCase: {
      const auto& case_expr = expr.As<CaseExpr>();
      if (case_expr.operand) CheckDefaultParts(*case_expr.operand);
      for (const auto& when : case_expr.whens) {
        CheckDefaultParts(*when.condition);
        CheckDefaultParts(*when.result);
      }
      if (case_expr.else_result) CheckDefaultParts(*case_expr.else_result);
      return;
    }
    case ExprKind::kCast:
      CheckDefaultParts(*expr.As<CastExpr>().operand);
      return;
  }
}

void SplitConjuncts(const Expr* expr, std::vector<const Expr*>* out) {
  if (expr->kind == ExprKind::kBinary && expr->As<BinaryExpr>().op == BinaryOp::kAnd) {
    SplitConjuncts(expr->As<BinaryExpr>().left.get(), out);
    SplitConjuncts(expr->As<BinaryExpr>().right.get(), out);
  } else {
    out->push_back(expr);
  }
}

// True when a condition's value can never be a BOOLEAN (or NULL as one),
// whatever the row: arithmetic, ||, a CAST to another type, a constant
// other than TRUE, FALSE or NULL, a scalar function other than COALESCE and
// NULLIF, or a column of a base table of this query that is not BOOLEAN. A
// derived table's column or an outer query's may hold a BOOLEAN and is left
// to evaluation.
bool NeverBoolean(const BExpr& expr, const std::vector<FromItem>& items) {
  switch (expr.kind) {
    case BKind::kNegate:
    case BKind::kArith:
    case BKind::kConcat:
      return true;
    case BKind::kCast:
      return !expr.known_boolean;
    case BKind::kConst:
      return !expr.constant.is_null() && expr.constant.kind() != ValueKind::kBool;
    case BKind::kFunction:
      return expr.function != ScalarFn::kCoalesce && expr.function != ScalarFn::kNullif;
    case BKind::kColumn:
      if (expr.depth != 0 || expr.known_boolean) return false;
      for (const FromItem& item : items) {
        if (expr.index >= item.slot_base && expr.index < item.slot_base + item.columns.size()) {
          return item.table != nullptr;
        }
      }
      return false;
    default:
      return false;
  }
}

// A string literal where a BOOLEAN is wanted (a condition, a value matched
// with a boolean) is read as one when the statement is bound, once, as
// PostgreSQL reads an untyped literal: 'yes' is true, 'x' 22P02 at the
// literal (sql/README.md "Values and arithmetic").
void LiteralToBoolean(BExpr* expr) {
  if (expr->kind == BKind::kConst && expr->constant.kind() == ValueKind::kText) {
    expr->constant = ParseBoolText(expr->constant.as_text(), expr->pos);
  }
}

// PostgreSQL refuses a condition that is not a BOOLEAN when it binds the
// statement (42804), also when no row is read; Eval's check needs a row. A
// string literal is read as a boolean first (WHERE 'yes').
void RequireBoolean(BExpr* expr, const std::vector<FromItem>& items, std::string_view clause) {
  LiteralToBoolean(expr);
  if (NeverBoolean(*expr, items)) {
    ThrowSql(SqlState::kDatatypeMismatch,
             fmt::format("argument of {} must be type boolean", clause), expr->pos);
  }
}

BExprPtr MakeExpr(BKind kind, SourcePos pos) {
  auto expr = std::make_unique<BExpr>();
  expr->kind = kind;
  expr->pos = pos;
  return expr;
}

// The items (bitmask) whose depth-0 columns an expression reads; `complex`
// when it holds a subquery (placed after every item).
void ExprMask(const BExpr& expr, const std::vector<uint32_t>& slot_item, uint64_t* mask,
              bool* complex) {
  if (expr.kind == BKind::kColumn && expr.depth == 0) *mask |= uint64_t{1} << slot_item[expr.index];
  if (expr.subquery) *complex = true;
  for (const BExprPtr& arg : expr.args) ExprMask(*arg, slot_item, mask, complex);
}

BExprPtr CloneExpr(const BExpr& expr) {
  auto out = std::make_unique<BExpr>();
  out->kind = expr.kind;
  out->pos = expr.pos;
  out->constant = expr.constant;
  out->index = expr.index;
  out->depth = expr.depth;
  out->binary = expr.binary;
  out->function = expr.function;
  out->negated = expr.negated;
  out->has_operand = expr.has_operand;
  out->has_else = expr.has_else;
  out->cast_type = expr.cast_type;
  out->bpchar_length = expr.bpchar_length;
  out->varchar = expr.varchar;
  out->known_type = expr.known_type;
  out->known_boolean = expr.known_boolean;
  for (const BExprPtr& arg : expr.args) out->args.push_back(CloneExpr(*arg));
  return out;  // never called on expressions with subqueries
}

// --- static types (sql/README.md "Types") ------------------------------------------

std::optional<Type> KnownType(const BExpr& expr);

// The kinds of PostgreSQL types that have no implicit conversions between
// them: a text is not compared with a number, a boolean with neither.
enum class TypeFamily { kString, kNumber, kTimestamp, kBoolean };

TypeFamily FamilyOf(Type type) {
  if (type_is_string(type)) return TypeFamily::kString;
  if (type == Type::kBoolean) return TypeFamily::kBoolean;
  return type == Type::kTimestamp ? TypeFamily::kTimestamp : TypeFamily::kNumber;
}

// True for a value PostgreSQL types "unknown" until it meets a typed one: a
// string literal, NULL or a parameter.
bool IsUntyped(const BExpr& expr) {
  return expr.kind == BKind::kParam ||
         (expr.kind == BKind::kConst &&
          (expr.constant.is_null() || expr.constant.kind() == ValueKind::kText));
}

// A number type's place in PostgreSQL's implicit conversions: smallint ->
// integer -> bigint -> numeric -> double precision.
int NumberRank(Type type) {
  switch (type) {
    case Type::kSmallInt:
      return 0;
    case Type::kInteger:
      return 1;
    case Type::kBigInt:
      return 2;
    case Type::kDecimal:
      return 3;
    default:
      return 4;  // double precision
  }
}

// The type PostgreSQL gives the values of a CASE or COALESCE ("UNION, CASE,
// and Related Constructs"): text when every value is untyped (rule 3), else
// the first known type, replaced by each later one of its family that it
// converts to implicitly (rule 5: CASE ... THEN 1 ELSE 2.5 is numeric).
// nullopt when some value's type is not known and none is, and for
// BOOLEANs (no column type: IsBoolean).
std::optional<Type> CommonType(const std::vector<const BExpr*>& values) {
  std::optional<Type> common;
  bool all_untyped = true;
  for (const BExpr* value : values) {
    all_untyped = all_untyped && IsUntyped(*value);
    const std::optional<Type> type = KnownType(*value);
    if (!type) continue;
    if (!common) {
      common = type;
    } else if (FamilyOf(*type) != FamilyOf(*common)) {
      continue;  // CheckCommonType's 42804
    } else if (FamilyOf(*type) == TypeFamily::kString) {
      if (*type != *common) common = Type::kText;  // CHAR and VARCHAR both become text
    } else if (FamilyOf(*type) == TypeFamily::kNumber && NumberRank(*type) > NumberRank(*common)) {
      common = type;
    }
  }
  if (!common && all_untyped) return Type::kText;
  return common;
}

// The values a CASE may give, its ELSE first: PostgreSQL matches them in
// that order (the first known type is the candidate, and the ELSE is
// converted first).
std::vector<const BExpr*> CaseResults(const BExpr& expr) {
  std::vector<const BExpr*> results;
  if (expr.has_else) results.push_back(expr.args.back().get());
  const size_t first_when = expr.has_operand ? 1 : 0;
  const size_t when_end = expr.args.size() - (expr.has_else ? 1 : 0);
  for (size_t arg = first_when; arg + 1 < when_end; arg += 2) {
    results.push_back(expr.args[arg + 1].get());
  }
  return results;
}

// The SQL type of expr's value where the binder can tell: a column, a cast
// or a subquery's output (BExpr::known_type), a number literal, and what
// follows from them (arithmetic, ||, the scalar functions, CASE and
// COALESCE: CommonType). nullopt for a string literal or a parameter, which
// take the type of what they meet (PostgreSQL's "unknown"), NULL and the rest.
std::optional<Type> KnownType(const BExpr& expr) {
  switch (expr.kind) {
    case BKind::kConst:
      switch (expr.constant.kind()) {
        case ValueKind::kInt: {
          const int64_t number = expr.constant.as_int();
          return number >= INT32_MIN && number <= INT32_MAX ? Type::kInteger : Type::kBigInt;
        }
        case ValueKind::kDecimal:
          return Type::kDecimal;
        case ValueKind::kDouble:
          return Type::kDouble;
        default:
          return std::nullopt;
      }
    case BKind::kColumn:
    case BKind::kCast:
    case BKind::kSubquery:
      return expr.known_type;
    case BKind::kNegate:
    case BKind::kArith:
      for (const BExprPtr& arg : expr.args) {
        if (auto type = KnownType(*arg)) return type;
      }
      return std::nullopt;
    case BKind::kConcat:
      return Type::kText;
    case BKind::kCase:
      return CommonType(CaseResults(expr));
    case BKind::kFunction:
      switch (expr.function) {
        case ScalarFn::kCoalesce: {
          std::vector<const BExpr*> values;
          for (const BExprPtr& arg : expr.args) values.push_back(arg.get());
          return CommonType(values);
        }
        case ScalarFn::kNullif:
          // The first argument's type, which an untyped one took from the
          // second (ResolveComparedUntyped); both untyped: text.
          if (IsUntyped(*expr.args[0]) && IsUntyped(*expr.args[1])) return Type::kText;
          [[fallthrough]];
        case ScalarFn::kAbs:
          for (const BExprPtr& arg : expr.args) {
            if (auto type = KnownType(*arg)) return type;
          }
          return std::nullopt;
        case ScalarFn::kLength:
        case ScalarFn::kOctetLength:
          return Type::kInteger;
        case ScalarFn::kRound:
          // round(numeric) is numeric; round of an integer, a double or a
          // literal is round(double precision); round(x, n) is numeric.
          if (expr.args.size() == 2 || KnownType(*expr.args[0]) == Type::kDecimal) {
            return Type::kDecimal;
          }
          return Type::kDouble;
        default:
          return Type::kText;  // substr, upper, lower, trim, the CHAR(n) ones
      }
    default:
      return std::nullopt;  // booleans (comparisons, AND, LIKE, ...), NULL, parameters
  }
}

// True when expr's value is a BOOLEAN (or NULL as one): TRUE, FALSE, a
// predicate (comparison, AND, OR, NOT, IS NULL, IN, LIKE, EXISTS), and what
// the binder marked (BExpr::known_boolean): a column or subquery that is
// one, a CASE, COALESCE or NULLIF whose values are. O(1): a CASE nested n
// deep is not walked again at each level.
bool IsBoolean(const BExpr& expr) {
  switch (expr.kind) {
    case BKind::kConst:
      return expr.constant.kind() == ValueKind::kBool;
    case BKind::kNot:
    case BKind::kAnd:
    case BKind::kOr:
    case BKind::kCompare:
    case BKind::kIsNull:
    case BKind::kInList:
    case BKind::kLike:
    case BKind::kExists:
    case BKind::kInSubquery:
      return true;
    default:
      return expr.known_boolean;
  }
}

// The family of expr's static type (KnownType, or a BOOLEAN), nullopt for
// an untyped value (a string literal, NULL, a parameter) and the rest.
std::optional<TypeFamily> KnownFamily(const BExpr& expr) {
  if (IsBoolean(expr)) return TypeFamily::kBoolean;
  const std::optional<Type> type = KnownType(expr);
  if (!type) return std::nullopt;
  return FamilyOf(*type);
}

// PostgreSQL's name of expr's static type; KnownFamily(expr) is set.
std::string_view KnownTypeName(const BExpr& expr) {
  return IsBoolean(expr) ? "boolean" : PgTypeName(*KnownType(expr));
}

// True when the first of `values` whose type is known is a BOOLEAN: they
// are then BOOLEANs, or CheckCommonType refused them.
bool FirstKnownIsBoolean(const std::vector<const BExpr*>& values) {
  for (const BExpr* value : values) {
    if (const std::optional<TypeFamily> family = KnownFamily(*value)) {
      return family == TypeFamily::kBoolean;
    }
  }
  return false;
}

// 42883 when `left op right` mixes values of known types of different
// families: a text with a number or a timestamp, a number with a timestamp,
// a boolean with any of them (PostgreSQL has no such operator; a string
// literal or a parameter takes the other side's type).
void CheckOperands(const BExpr& left, std::string_view op, const BExpr& right, SourcePos pos) {
  const std::optional<TypeFamily> left_family = KnownFamily(left);
  const std::optional<TypeFamily> right_family = KnownFamily(right);
  if (!left_family || !right_family || *left_family == *right_family) return;
  ThrowSql(SqlState::kUndefinedFunction,
           fmt::format("operator does not exist: {} {} {}", KnownTypeName(left), op,
                       KnownTypeName(right)),
           pos);
}

// Where PostgreSQL points at a value in a message about its type
// (exprLocation): its leftmost token, so `n > 0` at `n` and `(k > 0)` at
// `k`, where a BExpr of an operator holds the operator's position. Walks
// the expression: for errors only.
SourcePos LeftmostPos(const BExpr& expr) {
  SourcePos leftmost = expr.pos;
  for (const BExprPtr& arg : expr.args) {
    const SourcePos pos = LeftmostPos(*arg);
    if (pos.valid() && (!leftmost.valid() || pos.offset < leftmost.offset)) leftmost = pos;
  }
  return leftmost;
}

// 42804 when the values a CASE or COALESCE may give are of known types of
// different families ("CASE types text and integer cannot be matched", at
// the first value that differs from the first known one).
void CheckCommonType(std::string_view what, const std::vector<const BExpr*>& results,
                     SourcePos pos) {
  const BExpr* first = nullptr;
  std::optional<TypeFamily> first_family;
  for (const BExpr* result : results) {
    const std::optional<TypeFamily> family = KnownFamily(*result);
    if (!family) continue;
    if (!first) {
      first = result;
      first_family = family;
    } else if (*first_family != *family) {
      const SourcePos at = LeftmostPos(*result);
      ThrowSql(SqlState::kDatatypeMismatch,
               fmt::format("{} types {} and {} cannot be matched", what, KnownTypeName(*first),
                           KnownTypeName(*result)),
               at.valid() ? at : pos);
    }
  }
}

// A string literal read as `type` when it is bound, as PostgreSQL's input
// function of the type reads it (22P02, 22003, 22008 at the literal). A
// numeric keeps the literal's own scale.
Value LiteralAs(const std::string& text, Type type, SourcePos pos) {
  if (type == Type::kDecimal) return ParseNumericText(text, pos);
  solo::ColumnDef column;
  column.type = type;
  Value out;
  CastValue(Value::Text(text), column, &out, pos);
  return out;
}

// Wraps *value in a cast to `type` (evaluated per row).
void WrapInCast(BExprPtr* value, Type type) {
  auto cast = MakeExpr(BKind::kCast, (*value)->pos);
  cast->cast_type.type = type;
  cast->known_type = type;
  cast->args.push_back(std::move(*value));
  *value = std::move(cast);
}

// Gives an untyped value the type `type` of the values it is matched with
// (a CASE's or COALESCE's CommonType, NULLIF's other argument), as PostgreSQL
// does when it binds the statement: a string literal is converted now, so
// COALESCE(n, 'z') fails with 22P02 at 'z' before any row is read and
// COALESCE(n, '5') gives the integer 5; a parameter is cast when it is
// evaluated (not to numeric, whose scale is not known: its value is kept).
// A string type needs nothing: a literal is text already (a CHAR's
// comparisons are CoerceToBpchar's).
void ResolveUntyped(BExprPtr* value, Type type) {
  if (FamilyOf(type) == TypeFamily::kString) return;
  BExpr& expr = **value;
  if (expr.kind == BKind::kConst && expr.constant.kind() == ValueKind::kText) {
    expr.constant = LiteralAs(expr.constant.as_text(), type, expr.pos);
  } else if (expr.kind == BKind::kParam && type != Type::kDecimal) {
    WrapInCast(value, type);
  }
}

// The values of a CASE or COALESCE: 42804 across families
// (CheckCommonType), then the untyped ones take their CommonType, or are
// read as BOOLEANs when the values are (a parameter is left as it is: no
// CAST names a BOOLEAN). Returns the values as they are then (a parameter
// may be wrapped in a cast).
std::vector<const BExpr*> MatchValues(std::string_view what, const std::vector<BExprPtr*>& values,
                                      SourcePos pos) {
  std::vector<const BExpr*> results;
  for (const BExprPtr* value : values) results.push_back(value->get());
  CheckCommonType(what, results, pos);
  if (FirstKnownIsBoolean(results)) {
    for (const BExprPtr* value : values) LiteralToBoolean(value->get());
    return results;
  }
  const std::optional<Type> common = CommonType(results);
  if (!common) return results;
  for (size_t idx = 0; idx < values.size(); ++idx) {
    if (!IsUntyped(*results[idx])) continue;
    ResolveUntyped(values[idx], *common);
    results[idx] = values[idx]->get();
  }
  return results;
}

// `left op right` with a BOOLEAN on one side: a string literal on the other
// is read as a boolean now ('yes' = TRUE is true, 'x' = TRUE 22P02 at 'x').
void CoerceToBoolean(BExpr* left, BExpr* right) {
  if (IsBoolean(*left)) LiteralToBoolean(right);
  if (IsBoolean(*right)) LiteralToBoolean(left);
}

// NULLIF(a, b) compares as a = b does in PostgreSQL: an untyped argument
// takes the other's known type, a string literal opposite a BOOLEAN is one.
void ResolveComparedUntyped(BExprPtr* left, BExprPtr* right) {
  CoerceToBoolean(left->get(), right->get());
  const std::optional<Type> left_type = KnownType(**left);
  const std::optional<Type> right_type = KnownType(**right);
  if (left_type && !right_type && IsUntyped(**right)) ResolveUntyped(right, *left_type);
  if (right_type && !left_type && IsUntyped(**left)) ResolveUntyped(left, *right_type);
}

// 42804 when a value of known type is stored into `column` (INSERT's VALUES
// or SELECT, UPDATE's SET) and PostgreSQL has no assignment cast for it:
// text or a boolean into a number or timestamp, a number into a timestamp
// or back (`column "n" is of type integer but expression is of type
// text`), when the statement is bound, whatever the rows. A string literal
// or a parameter takes the column's type (converted as it is stored, as
// before), and any type may be stored into a text column.
void CheckAssignment(const BExpr& value, const solo::ColumnDef& column) {
  if (FamilyOf(column.type) == TypeFamily::kString) return;
  const std::optional<TypeFamily> family = KnownFamily(value);
  if (!family || *family == FamilyOf(column.type)) return;
  ThrowSql(SqlState::kDatatypeMismatch,
           fmt::format("column \"{}\" is of type {} but expression is of type {}", column.name,
                       PgTypeName(column.type), KnownTypeName(value)),
           LeftmostPos(value));
}

// --- CHAR(n) (sql/README.md "CHAR(n)") -------------------------------------------------

// Gives a column reference its item's column's static type (BExpr::bpchar_length, varchar).
void SetColumnType(const FromItem& item, size_t col, BExpr* expr) {
  if (item.derived) {
    expr->bpchar_length = item.derived->outputs[col]->bpchar_length;
    expr->varchar = item.derived->outputs[col]->varchar;
    expr->known_type = KnownType(*item.derived->outputs[col]);
    expr->known_boolean = IsBoolean(*item.derived->outputs[col]);
    return;
  }
  const solo::ColumnDef& column = item.columns[col];
  if (column.type == Type::kChar) expr->bpchar_length = column.length;
  expr->varchar = column.type == Type::kVarChar;
  // A BOOLEAN column is a boolean as a predicate is: no column type
  // (KnownType), known_boolean (IsBoolean).
  if (column.type == Type::kBoolean) {
    expr->known_boolean = true;
    return;
  }
  expr->known_type = column.type;
}

BExprPtr WrapFunction(ScalarFn function, BExprPtr arg, uint32_t index = 0) {
  auto out = MakeExpr(BKind::kFunction, arg->pos);
  out->function = function;
  out->index = index;
  out->args.push_back(std::move(arg));
  return out;
}

// `*other` is compared with a CHAR value. PostgreSQL compares a CHAR with a
// string literal, an untyped parameter, a VARCHAR or another CHAR as bpchar:
// trailing spaces do not count. A CHAR value is held without them, so the
// other side loses its own: a literal now, anything else as it is evaluated.
// A TEXT value or computed text (c || 'x', upper(c)) is left alone: PostgreSQL
// compares the CHAR as text with it, which the CHAR's held value already is.
void CoerceToBpchar(BExprPtr* other) {
  BExpr& expr = **other;
  if (expr.bpchar_length > 0) return;
  if (expr.kind == BKind::kConst) {
    if (expr.constant.kind() == ValueKind::kText) {
      expr.constant.SetText(std::string(BpcharStripped(expr.constant.as_text())));
    }
    return;
  }
  if (expr.kind == BKind::kParam || expr.varchar) {
    *other = WrapFunction(ScalarFn::kBpcharStrip, std::move(*other));
  }
}

// Both operands of a comparison.
void CoerceComparison(BExprPtr* left, BExprPtr* right) {
  if ((*left)->bpchar_length > 0) CoerceToBpchar(right);
  if ((*right)->bpchar_length > 0) CoerceToBpchar(left);
}

// The CHAR(n) of values that are all CHAR(n) of one n, else 0: the static
// type of a CASE or COALESCE over them.
uint32_t CommonBpcharLength(const std::vector<const BExpr*>& results) {
  uint32_t length = 0;
  for (const BExpr* result : results) {
    if (result->bpchar_length == 0 || (length != 0 && result->bpchar_length != length)) return 0;
    length = result->bpchar_length;
  }
  return length;
}

// A scalar function's CHAR(n) rules: octet_length counts a CHAR's padding;
// NULLIF compares as `=` does and returns its first argument's type; a
// COALESCE of CHAR(n) values is a CHAR(n). Every other function takes the
// CHAR as text (without its trailing spaces), as PostgreSQL converts it.
// "function round(double precision, integer) does not exist": the
// argument types as PostgreSQL names them (a literal or parameter is
// "unknown").
std::string FunctionSignature(std::string_view name, const BExpr& expr) {
  std::string text = fmt::format("function {}(", name);
  for (size_t arg = 0; arg < expr.args.size(); ++arg) {
    if (arg > 0) text += ", ";
    text += KnownFamily(*expr.args[arg]) ? KnownTypeName(*expr.args[arg]) : "unknown";
  }
  return text + ") does not exist";
}

// round(x [, n]) as PostgreSQL has it: round(numeric), round(double
// precision) and round(numeric, integer). A string literal is read as a
// double alone and as a numeric before n; a known type that none takes is
// 42883 (round(x::float8, 1), round(n, 2::bigint), round('a'::text)).
void CheckRound(BExpr* expr) {
  const std::optional<Type> type = KnownType(*expr->args[0]);
  const bool with_places = expr->args.size() == 2;
  bool exists = !KnownFamily(*expr->args[0]) || (type && FamilyOf(*type) == TypeFamily::kNumber &&
                                                 !(with_places && *type == Type::kDouble));
  if (with_places) {
    const std::optional<Type> places = KnownType(*expr->args[1]);
    exists = exists && (!KnownFamily(*expr->args[1]) ||
                        (places && (*places == Type::kInteger || *places == Type::kSmallInt)));
  }
  if (!exists) ThrowSql(SqlState::kUndefinedFunction, FunctionSignature("round", *expr), expr->pos);
  if (IsUntyped(*expr->args[0])) {
    ResolveUntyped(&expr->args[0], with_places ? Type::kDecimal : Type::kDouble);
  }
  if (with_places && IsUntyped(*expr->args[1])) ResolveUntyped(&expr->args[1], Type::kInteger);
}

void BindCharFunction(BExpr* expr) {
  switch (expr->function) {
    case ScalarFn::kOctetLength:
      if (expr->args[0]->bpchar_length > 0) {
        uint32_t length = expr->args[0]->bpchar_length;
        expr->args[0] = WrapFunction(ScalarFn::kBpcharPad, std::move(expr->args[0]), length);
      }
      return;
    case ScalarFn::kNullif:
      CheckOperands(*expr->args[0], "=", *expr->args[1], expr->pos);
      ResolveComparedUntyped(&expr->args[0], &expr->args[1]);
      CoerceComparison(&expr->args[0], &expr->args[1]);
      expr->bpchar_length = expr->args[0]->bpchar_length;
      expr->varchar = expr->args[0]->varchar;
      expr->known_boolean =
          IsBoolean(*expr->args[0]) || (IsUntyped(*expr->args[0]) && IsBoolean(*expr->args[1]));
      return;
    case ScalarFn::kRound:
      CheckRound(expr);
      return;
    case ScalarFn::kReplace:
      for (const BExprPtr& arg : expr->args) {
        if (KnownFamily(*arg) && KnownFamily(*arg) != TypeFamily::kString) {
          ThrowSql(SqlState::kUndefinedFunction, FunctionSignature("replace", *expr), expr->pos);
        }
      }
      return;
    case ScalarFn::kCoalesce: {
      std::vector<BExprPtr*> values;
      for (BExprPtr& arg : expr->args) values.push_back(&arg);
      const std::vector<const BExpr*> results = MatchValues("COALESCE", values, expr->pos);
      expr->bpchar_length = CommonBpcharLength(results);
      expr->known_boolean = FirstKnownIsBoolean(results);
      return;
    }
    default: return;
  }
}

struct Conjunct {
  BExprPtr expr;
  uint64_t mask = 0;
  bool complex = false;
  std::string text;
  int on_item = -1;  // a LEFT JOIN condition of this item
  bool placed = false;
};

struct PathChoice {
  TreeId tree = kInvalidTree;
  std::string index_name;
  std::vector<uint32_t> key_columns;
  std::vector<int> equal;  // conjunct index per equal key column
  int in_list = -1;        // conjunct `next key column IN (values)`
  int lower = -1, upper = -1;
  bool order_ok = false;
  bool reverse = false;
  bool is_pk = true;
  int score() const {
    return static_cast<int>(equal.size() + (in_list >= 0 ? 1 : 0)) * 16 +
           (lower >= 0 || upper >= 0 ? 8 : 0) +
           (order_ok ? 4 : 0) + (is_pk ? 1 : 0);
  }
};

class Binder {
 public:
  Binder(const TxnView& view, Plan* plan) : view_(view), catalog_(view.catalog()), plan_(plan) {}

  void Bind(const Statement& statement);
  // Binds an expression that reads no table (a DEFAULT).
  BExprPtr BindStandalone(const Expr& expr) {
    Scope empty_scope;
    return BindExpr(expr, &empty_scope, nullptr);
  }

 private:
  // A whole query: its WITH queries, then the SELECT or the UNION.
  std::unique_ptr<SelectPlan> BindSelect(const SelectStmt& select, Scope* outer);
  size_t PushWith(const std::vector<SelectStmt::CommonTable>& with, Scope* outer);
  // The SELECT without its WITH or UNION arms; core_only: without its ORDER
  // BY and LIMIT too (a UNION's first arm).
  std::unique_ptr<SelectPlan> BindSelectBody(const SelectStmt& select, Scope* outer,
                                             bool core_only);
  // A FROM item that names WITH query ctes_[index].
  void AddCommonTable(size_t index, const BaseTableRef& base, std::vector<FromItem>* items,
                      uint32_t* slots, Scope* outer);
  std::unique_ptr<SelectPlan> BindUnion(const SelectStmt& select, Scope* outer);
  std::unique_ptr<SelectPlan> WrapUnionInput(std::unique_ptr<SelectPlan> input,
                                             const std::vector<BExpr>& types, SourcePos pos);
  void BindLimit(const Expr* limit, const Expr* offset, const Scope& scope, SelectPlan* plan);
  void AddFromItem(const TableRef& ref, std::vector<FromItem>* items, uint32_t* slots,
                   std::vector<const Expr*>* inner_conditions, Scope* outer);
  const TableInfo* FindTable(const Identifier& name);
  BExprPtr BindExpr(const Expr& expr, Scope* scope, AggContext* agg);
  BExprPtr BindColumn(const ColumnRefExpr& ref, Scope* scope, AggContext* agg);
  BExprPtr BindFunction(const FunctionExpr& fn, Scope* scope, AggContext* agg);
  void PlanLevels(SelectPlan* plan, std::vector<FromItem>* items, std::vector<Conjunct>* conjuncts,
                  const std::vector<std::pair<int, bool>>& order_columns);
  PathChoice ChoosePath(const FromItem& item, uint32_t item_idx, uint64_t bound,
                        std::vector<Conjunct>& conjuncts, const std::vector<uint32_t>& slot_item,
                        const std::vector<std::pair<int, bool>>* order_columns);
  void BindInsert(const InsertStmt& insert);
  void BindModify(const Statement& statement);
  void BindDefaults(const TableInfo& table, InsertPlan* insert);
  void UseTree(TreeId tree, const std::string& name) {
    for (auto& used : plan_->trees) {
      if (used.first == tree) return;
    }
    plan_->trees.emplace_back(tree, name);
  }

  const TxnView& view_;
  const Catalog& catalog_;
  Plan* plan_;
  // The WITH queries visible where the binder is, innermost last.
  std::vector<const SelectStmt::CommonTable*> ctes_;
  // WITH queries bound so far for FROM items that name them: each is bound
  // again where it is named, so one naming an earlier one twice, and so on,
  // would bind 2^depth times; kMaxWithBindings stops that (54001).
  size_t with_bindings_ = 0;
  static constexpr size_t kMaxWithBindings = 10000;
};

// 42712 when a FROM item of this level before it is already called `alias`.
// A FULL JOIN other than two FROM items alone in FROM, the second a table
// (ScanLevel::full_join): 0A000.
[[noreturn]] void FullJoinUnsupported(SourcePos pos) {
  ThrowSql(SqlState::kFeatureNotSupported,
           "FULL JOIN is supported only between two FROM items, the second a table, and alone "
           "in FROM",
           pos);
}

void CheckAliasFree(const std::vector<FromItem>& items, const std::string& alias, SourcePos pos) {
  for (const FromItem& other : items) {
    if (other.alias == alias) {
      ThrowSql(SqlState::kDuplicateAlias,
               fmt::format("table name \"{}\" specified more than once", alias), pos);
    }
  }
}

// A derived table's columns: the names its query gives them, the first
// ones replaced by `names` (a WITH query's column list).
std::vector<solo::ColumnDef> DerivedColumns(const SelectPlan& plan,
                                            const std::vector<Identifier>& names) {
  std::vector<solo::ColumnDef> columns(plan.names.size());
  for (size_t col = 0; col < columns.size(); ++col) {
    columns[col].name = col < names.size() ? names[col].name : plan.names[col];
  }
  return columns;
}

// Appends `item` with its slots after those of the items before it; every
// column of a derived table is loaded, a table's as they are needed.
void AppendFromItem(FromItem item, std::vector<FromItem>* items, uint32_t* slots) {
  item.slot_base = *slots;
  item.written = static_cast<uint32_t>(items->size());
  *slots += static_cast<uint32_t>(item.columns.size());
  item.needed.assign(item.columns.size(), item.derived != nullptr);
  items->push_back(std::move(item));
}

const TableInfo* Binder::FindTable(const Identifier& name) {
  const TableInfo* table = catalog_.find_table(name.name);
  if (table == nullptr) {
    ThrowSql(SqlState::kUndefinedTable, fmt::format("relation \"{}\" does not exist", name.name),
             name.pos);
  }
  UseTree(table->id, table->schema.name);
  return table;
}

void Binder::AddFromItem(const TableRef& ref, std::vector<FromItem>* items, uint32_t* slots,
                         std::vector<const Expr*>* inner_conditions, Scope* outer) {
  switch (ref.kind) {
    case TableRefKind::kTable: {
      const auto& base = ref.As<BaseTableRef>();
      for (size_t idx = ctes_.size(); idx-- > 0;) {
        if (ctes_[idx]->name.name == base.name.name) {
          AddCommonTable(idx, base, items, slots, outer);
          return;
        }
      }
      FromItem item;
      item.table = FindTable(base.name);
      item.alias = base.alias.name.empty() ? base.name.name : base.alias.name;
      item.columns = item.table->schema.columns;
      CheckAliasFree(*items, item.alias, base.name.pos);
      AppendFromItem(std::move(item), items, slots);
      return;
    }
    case TableRefKind::kSubquery: {
      const auto& sub = ref.As<SubqueryTableRef>();
      // PostgreSQL's 42712 for a derived table's alias as for a table's.
      CheckAliasFree(*items, sub.alias.name, sub.alias.pos);
      FromItem item;
      item.derived = BindSelect(*sub.subquery, outer);
      item.alias = sub.alias.name;
      item.columns = DerivedColumns(*item.derived, {});
      AppendFromItem(std::move(item), items, slots);
      return;
    }
    case TableRefKind::kJoin: {
      const auto& join = ref.As<JoinTableRef>();
      const size_t first_left = items->size();
      AddFromItem(*join.left, items, slots, inner_conditions, outer);
      size_t first_right = items->size();
      AddFromItem(*join.right, items, slots, inner_conditions, outer);
      if (join.type == JoinType::kRight) {
        // `a RIGHT JOIN b ON c` is `b LEFT JOIN a ON c` with a's columns
        // first: a moves after b's items (the levels keep the FROM order
        // when there is an outer join), and SELECT * follows `written`.
        if (first_right != first_left + 1) {
          ThrowSql(SqlState::kFeatureNotSupported,
                   "RIGHT JOIN whose left side is a join is not supported; write it as a LEFT JOIN",
                   join.pos);
        }
        std::rotate(items->begin() + static_cast<ptrdiff_t>(first_left),
                    items->begin() + static_cast<ptrdiff_t>(first_right), items->end());
        first_right = items->size() - 1;
      }
      // Two FROM items, the second a table; alone in FROM: BindSelectBody.
      if (join.type == JoinType::kFull && (first_left != 0 || first_right != 1 ||
                                           items->size() != 2 || items->back().table == nullptr)) {
        FullJoinUnsupported(join.pos);
      }
      if (join.type == JoinType::kLeft || join.type == JoinType::kRight ||
          join.type == JoinType::kFull) {
        if (items->size() != first_right + 1) {
          ThrowSql(SqlState::kFeatureNotSupported,
                   "LEFT JOIN of a parenthesized join is not supported", join.right->pos);
        }
        items->back().left_join = true;
        items->back().full_join = join.type == JoinType::kFull;
        if (join.condition) SplitConjuncts(join.condition.get(), &items->back().on);
      } else if (join.condition) {
        SplitConjuncts(join.condition.get(), inner_conditions);
      }
      return;
    }
  }
}

BExprPtr Binder::BindColumn(const ColumnRefExpr& ref, Scope* scope, AggContext* agg) {
  uint32_t depth = 0;
  for (Scope* current = scope; current != nullptr; current = current->outer, ++depth) {
    if (current->items == nullptr) continue;
    int found_item = -1;
    int found_column = -1;
    bool table_seen = false;
    for (size_t item_idx = 0; item_idx < current->items->size(); ++item_idx) {
      FromItem& item = (*current->items)[item_idx];
      if (!ref.table.empty() && ref.table != item.alias) continue;
      table_seen = true;
      for (size_t col = 0; col < item.columns.size(); ++col) {
        if (item.columns[col].name != ref.column || IsHiddenColumn(item.columns[col])) continue;
        if (found_item >= 0) {
          ThrowSql(SqlState::kAmbiguousColumn,
                   fmt::format("column reference \"{}\" is ambiguous", ref.column), ref.pos);
        }
        found_item = static_cast<int>(item_idx);
        found_column = static_cast<int>(col);
      }
    }
    if (found_item < 0) {
      if (!ref.table.empty() && table_seen) {
        ThrowSql(SqlState::kUndefinedColumn,
                 fmt::format("column {}.{} does not exist", ref.table, ref.column), ref.pos);
      }
      continue;
    }
    if (!current->columns_forbidden_in.empty()) {
      ThrowSql(
          SqlState::kInvalidColumnReference,
          fmt::format("argument of {} must not contain variables", current->columns_forbidden_in),
          ref.pos);
    }
    FromItem& item = (*current->items)[found_item];
    item.needed[found_column] = true;
    auto expr = MakeExpr(BKind::kColumn, ref.pos);
    expr->index = item.slot_base + found_column;
    expr->depth = depth;
    SetColumnType(item, found_column, expr.get());
    if (agg != nullptr && depth == 0 && !agg->inside_aggregate) {
      for (size_t key = 0; key < agg->group_slot.size(); ++key) {
        if (agg->group_slot[key] == static_cast<int>(expr->index)) {
          expr->index = static_cast<uint32_t>(key);
          return expr;
        }
      }
      ThrowSql(SqlState::kGroupingError,
               fmt::format("column \"{}.{}\" must appear in the GROUP BY clause or be used in an "
                           "aggregate function",
                           item.alias, ref.column),
               ref.pos);
    }
    return expr;
  }
  if (!ref.table.empty()) {
    bool any = false;
    for (Scope* current = scope; current != nullptr; current = current->outer) {
      if (current->items == nullptr) continue;
      for (const FromItem& item : *current->items) any |= item.alias == ref.table;
    }
    if (!any) {
      ThrowSql(SqlState::kUndefinedTable,
               fmt::format("missing FROM-clause entry for table \"{}\"", ref.table), ref.pos);
    }
  }
  ThrowSql(SqlState::kUndefinedColumn, fmt::format("column \"{}\" does not exist", ref.column),
           ref.pos);
}

BExprPtr Binder::BindFunction(const FunctionExpr& fn, Scope* scope, AggContext* agg) {
  if (IsAggregateName(fn.name)) {
    if (agg == nullptr) {
      ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed here", fn.pos);
    }
    if (agg->inside_aggregate) {
      ThrowSql(SqlState::kGroupingError, "aggregate function calls cannot be nested", fn.pos);
    }
    AggSpec spec;
    spec.distinct = fn.distinct;
    spec.text = ToSql(fn);
    if (fn.star) {
      if (fn.name != "count") {
        ThrowSql(SqlState::kUndefinedFunction, fmt::format("function {}(*) does not exist", fn.name),
                 fn.pos);
      }
      spec.fn = AggFn::kCountStar;
    } else {
      if (fn.args.size() != 1) {
        ThrowSql(SqlState::kUndefinedFunction,
                 fmt::format("function {} takes exactly one argument", fn.name), fn.pos);
      }
      spec.fn = fn.name == "count" ? AggFn::kCount
                : fn.name == "sum" ? AggFn::kSum
                : fn.name == "min" ? AggFn::kMin
                : fn.name == "max" ? AggFn::kMax
                                   : AggFn::kAvg;
      agg->inside_aggregate = true;
      spec.arg = BindExpr(*fn.args[0], scope, agg);
      agg->inside_aggregate = false;
      // PostgreSQL has no sum, avg, min or max of a boolean (bool_and and
      // bool_or are its aggregates for them): 42883 when bound, as there.
      if (spec.fn != AggFn::kCount && IsBoolean(*spec.arg)) {
        ThrowSql(SqlState::kUndefinedFunction,
                 fmt::format("function {}(boolean) does not exist", fn.name), fn.pos);
      }
    }
    auto expr = MakeExpr(BKind::kColumn, fn.pos);
    expr->index = static_cast<uint32_t>(agg->group_text.size() + agg->plan->aggs.size());
    if (spec.fn == AggFn::kMin || spec.fn == AggFn::kMax) {
      expr->bpchar_length = spec.arg->bpchar_length;
      expr->varchar = spec.arg->varchar;
    }
    switch (spec.fn) {
      case AggFn::kCountStar:
      case AggFn::kCount:
        expr->known_type = Type::kBigInt;
        break;
      case AggFn::kAvg: {
        const std::optional<Type> arg = KnownType(*spec.arg);
        expr->known_type = arg == Type::kDouble ? Type::kDouble : Type::kDecimal;
        if (arg && !type_is_string(*arg) && *arg != Type::kTimestamp) break;
        expr->known_type = arg;  // SUM/AVG of text or a timestamp fail when they run
        break;
      }
      default:
        expr->known_type = KnownType(*spec.arg);
        break;  // SUM, MIN, MAX (not of a boolean: refused above)
    }
    agg->plan->aggs.push_back(std::move(spec));
    return expr;
  }
  struct FnInfo {
    std::string_view name;
    ScalarFn fn;
    size_t min_args, max_args;
  };
  static const FnInfo kFunctions[] = {
      {"coalesce", ScalarFn::kCoalesce, 1, 1000},
      {"nullif", ScalarFn::kNullif, 2, 2},
      {"substr", ScalarFn::kSubstr, 2, 3},
      {"substring", ScalarFn::kSubstr, 2, 3},
      {"length", ScalarFn::kLength, 1, 1},
      {"char_length", ScalarFn::kLength, 1, 1},
      {"octet_length", ScalarFn::kOctetLength, 1, 1},
      {"upper", ScalarFn::kUpper, 1, 1},
      {"lower", ScalarFn::kLower, 1, 1},
      {"trim", ScalarFn::kTrim, 1, 1},
      {"abs", ScalarFn::kAbs, 1, 1},
      {"round", ScalarFn::kRound, 1, 2},
      {"replace", ScalarFn::kReplace, 3, 3},
  };
  for (const FnInfo& info : kFunctions) {
    if (info.name != fn.name) continue;
    if (fn.star || fn.distinct || fn.args.size() < info.min_args || fn.args.size() > info.max_args) {
      break;
    }
    auto expr = MakeExpr(BKind::kFunction, fn.pos);
    expr->function = info.fn;
    for (const ExprPtr& arg : fn.args) expr->args.push_back(BindExpr(*arg, scope, agg));
    BindCharFunction(expr.get());
    return expr;
  }
  ThrowSql(SqlState::kUndefinedFunction,
           fmt::format("function {}({} argument{}) does not exist", fn.name, fn.args.size(),
                       fn.args.size() == 1 ? "" : "s"),
           fn.pos);
}

BExprPtr Binder::BindExpr(const Expr& expr, Scope* scope, AggContext* agg) {
  if (agg != nullptr && !agg->inside_aggregate && expr.kind != ExprKind::kColumnRef &&
      expr.kind != ExprKind::kLiteral && expr.kind != ExprKind::kParameter) {
    std::string text = ToSql(expr);
    for (size_t key = 0; key < agg->group_text.size(); ++key) {
      if (agg->group_text[key] == text) {
        auto ref = MakeExpr(BKind::kColumn, expr.pos);
        ref->index = static_cast<uint32_t>(key);
        ref->bpchar_length = agg->plan->group_keys[key]->bpchar_length;
        ref->varchar = agg->plan->group_keys[key]->varchar;
        ref->known_type = KnownType(*agg->plan->group_keys[key]);
        ref->known_boolean = IsBoolean(*agg->plan->group_keys[key]);
        return ref;
      }
    }
  }
  switch (expr.kind) {
    case ExprKind::kLiteral: {
      const auto& literal = expr.As<LiteralExpr>();
      auto out = MakeExpr(BKind::kConst, expr.pos);
      switch (literal.type) {
        case LiteralExpr::Type::kNull: break;
        case LiteralExpr::Type::kTrue: out->constant = Value::Bool(true); break;
        case LiteralExpr::Type::kFalse: out->constant = Value::Bool(false); break;
        case LiteralExpr::Type::kString: out->constant = Value::Text(literal.text); break;
        default: out->constant = ParseNumber(literal.text, expr.pos); break;
      }
      return out;
    }
    case ExprKind::kParameter: {
      auto out = MakeExpr(BKind::kParam, expr.pos);
      out->index = expr.As<ParameterExpr>().number - 1;
      return out;
    }
    case ExprKind::kColumnRef: return BindColumn(expr.As<ColumnRefExpr>(), scope, agg);
    case ExprKind::kUnary: {
      const auto& unary = expr.As<UnaryExpr>();
      if (unary.op == UnaryOp::kNegate && unary.operand->kind == ExprKind::kLiteral) {
        // A minus written before a number is part of it, as in PostgreSQL:
        // -9223372036854775808 is the least BIGINT, not an overflow.
        const auto& literal = unary.operand->As<LiteralExpr>();
        if (literal.type == LiteralExpr::Type::kInteger ||
            literal.type == LiteralExpr::Type::kDecimal ||
            literal.type == LiteralExpr::Type::kFloat) {
          auto out = MakeExpr(BKind::kConst, expr.pos);
          out->constant = ParseNumber(literal.text, expr.pos, /*negative=*/true);
          return out;
        }
      }
      BExprPtr operand = BindExpr(*unary.operand, scope, agg);
      if (unary.op != UnaryOp::kNot && IsBoolean(*operand)) {
        ThrowSql(SqlState::kUndefinedFunction,
                 fmt::format("operator does not exist: {} boolean",
                             unary.op == UnaryOp::kPlus ? "+" : "-"),
                 expr.pos);
      }
      if (unary.op == UnaryOp::kPlus) return operand;
      if (unary.op == UnaryOp::kNegate && operand->kind == BKind::kConst &&
          IsNumeric(operand->constant)) {
        Value negated;
        Negate(operand->constant, &negated, expr.pos);
        operand->constant = negated;
        operand->pos = expr.pos;
        return operand;
      }
      auto out = MakeExpr(unary.op == UnaryOp::kNot ? BKind::kNot : BKind::kNegate, expr.pos);
      if (unary.op == UnaryOp::kNot) LiteralToBoolean(operand.get());
      out->args.push_back(std::move(operand));
      return out;
    }
    case ExprKind::kBinary: {
      const auto& bin = expr.As<BinaryExpr>();
      BKind kind;
      switch (bin.op) {
        case BinaryOp::kAnd: kind = BKind::kAnd; break;
        case BinaryOp::kOr: kind = BKind::kOr; break;
        case BinaryOp::kConcat: kind = BKind::kConcat; break;
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMul:
        case BinaryOp::kDiv:
        case BinaryOp::kMod: kind = BKind::kArith; break;
        default: kind = BKind::kCompare; break;
      }
      auto out = MakeExpr(kind, expr.pos);
      out->binary = bin.op == BinaryOp::kNe ? BinaryOp::kNe : bin.op;
      out->args.push_back(BindExpr(*bin.left, scope, agg));
      out->args.push_back(BindExpr(*bin.right, scope, agg));
      if (kind == BKind::kAnd || kind == BKind::kOr) {
        LiteralToBoolean(out->args[0].get());
        LiteralToBoolean(out->args[1].get());
      } else if (kind == BKind::kCompare) {
        CheckOperands(*out->args[0], BinaryOpText(bin.op), *out->args[1], expr.pos);
        CoerceToBoolean(out->args[0].get(), out->args[1].get());
        CoerceComparison(&out->args[0], &out->args[1]);
      } else if (kind == BKind::kArith) {
        // A boolean in arithmetic: no such operator, when bound, as in
        // PostgreSQL (an untyped side is "unknown" there).
        if (IsBoolean(*out->args[0]) || IsBoolean(*out->args[1])) {
          auto name = [](const BExpr& side) {
            return KnownFamily(side) ? KnownTypeName(side) : std::string_view("unknown");
          };
          ThrowSql(SqlState::kUndefinedFunction,
                   fmt::format("operator does not exist: {} {} {}", name(*out->args[0]),
                               BinaryOpText(bin.op), name(*out->args[1])),
                   expr.pos);
        }
        // Text in arithmetic (a timestamp's is left to the executor).
        const std::optional<Type> left = KnownType(*out->args[0]);
        const std::optional<Type> right = KnownType(*out->args[1]);
        if ((left && type_is_string(*left)) || (right && type_is_string(*right))) {
          CheckOperands(*out->args[0], BinaryOpText(bin.op), *out->args[1], expr.pos);
        }
      }
      return out;
    }
    case ExprKind::kIsNull: {
      const auto& is_null = expr.As<IsNullExpr>();
      auto out = MakeExpr(BKind::kIsNull, expr.pos);
      out->negated = is_null.negated;
      out->args.push_back(BindExpr(*is_null.operand, scope, agg));
      return out;
    }
    case ExprKind::kBetween: {
      const auto& between = expr.As<BetweenExpr>();
      auto low = MakeExpr(BKind::kCompare, expr.pos);
      low->binary = BinaryOp::kGe;
      low->args.push_back(BindExpr(*between.operand, scope, agg));
      low->args.push_back(BindExpr(*between.low, scope, agg));
      CheckOperands(*low->args[0], ">=", *low->args[1], expr.pos);
      CoerceToBoolean(low->args[0].get(), low->args[1].get());
      CoerceComparison(&low->args[0], &low->args[1]);
      auto high = MakeExpr(BKind::kCompare, expr.pos);
      high->binary = BinaryOp::kLe;
      high->args.push_back(BindExpr(*between.operand, scope, agg));
      high->args.push_back(BindExpr(*between.high, scope, agg));
      CheckOperands(*high->args[0], "<=", *high->args[1], expr.pos);
      CoerceToBoolean(high->args[0].get(), high->args[1].get());
      CoerceComparison(&high->args[0], &high->args[1]);
      auto both = MakeExpr(BKind::kAnd, expr.pos);
      both->args.push_back(std::move(low));
      both->args.push_back(std::move(high));
      if (!between.negated) return both;
      auto out = MakeExpr(BKind::kNot, expr.pos);
      out->args.push_back(std::move(both));
      return out;
    }
    case ExprKind::kInList: {
      const auto& in = expr.As<InListExpr>();
      auto out = MakeExpr(BKind::kInList, expr.pos);
      out->negated = in.negated;
      out->args.push_back(BindExpr(*in.operand, scope, agg));
      for (const ExprPtr& item : in.list) {
        out->args.push_back(BindExpr(*item, scope, agg));
        CheckOperands(*out->args[0], "=", *out->args.back(), out->args.back()->pos);
      }
      // PostgreSQL matches the operand and the list as a CASE's values: with
      // a BOOLEAN among them, every string literal is read as one.
      if (std::any_of(out->args.begin(), out->args.end(),
                      [](const BExprPtr& arg) { return IsBoolean(*arg); })) {
        for (BExprPtr& arg : out->args) LiteralToBoolean(arg.get());
      }
      if (out->args[0]->bpchar_length > 0) {
        for (size_t arg = 1; arg < out->args.size(); ++arg) CoerceToBpchar(&out->args[arg]);
      }
      return out;
    }
    case ExprKind::kInSubquery:
    case ExprKind::kExists:
    case ExprKind::kSubquery: {
      const SelectStmt* sub = expr.kind == ExprKind::kInSubquery
                                  ? expr.As<InSubqueryExpr>().subquery.get()
                              : expr.kind == ExprKind::kExists ? expr.As<ExistsExpr>().subquery.get()
                                                               : expr.As<SubqueryExpr>().subquery.get();
      BKind kind = expr.kind == ExprKind::kInSubquery ? BKind::kInSubquery
                   : expr.kind == ExprKind::kExists   ? BKind::kExists
                                                      : BKind::kSubquery;
      auto out = MakeExpr(kind, expr.pos);
      if (kind == BKind::kInSubquery) {
        out->negated = expr.As<InSubqueryExpr>().negated;
        out->args.push_back(BindExpr(*expr.As<InSubqueryExpr>().operand, scope, agg));
      }
      out->subquery = BindSelect(*sub, scope);
      if (kind != BKind::kExists && out->subquery->outputs.size() != 1) {
        ThrowSql(SqlState::kSyntaxError, "subquery must return only one column", sub->pos);
      }
      if (kind == BKind::kSubquery) {
        out->bpchar_length = out->subquery->outputs[0]->bpchar_length;
        out->varchar = out->subquery->outputs[0]->varchar;
        out->known_type = KnownType(*out->subquery->outputs[0]);
        out->known_boolean = IsBoolean(*out->subquery->outputs[0]);
      } else if (kind == BKind::kInSubquery) {
        CheckOperands(*out->args[0], "=", *out->subquery->outputs[0], expr.pos);
      }
      return out;
    }
    case ExprKind::kLike: {
      const auto& like = expr.As<LikeExpr>();
      auto out = MakeExpr(BKind::kLike, expr.pos);
      out->negated = like.negated;
      out->args.push_back(BindExpr(*like.operand, scope, agg));
      if (uint32_t length = out->args[0]->bpchar_length; length > 0) {
        // PostgreSQL matches a CHAR(n) with its padding: 'ab'::char(4) LIKE 'ab  '.
        out->args[0] = WrapFunction(ScalarFn::kBpcharPad, std::move(out->args[0]), length);
      }
      out->args.push_back(BindExpr(*like.pattern, scope, agg));
      if (like.escape) out->args.push_back(BindExpr(*like.escape, scope, agg));
      return out;
    }
    case ExprKind::kCase: {
      const auto& c = expr.As<CaseExpr>();
      auto out = MakeExpr(BKind::kCase, expr.pos);
      if (c.operand) {
        out->has_operand = true;
        out->args.push_back(BindExpr(*c.operand, scope, agg));
      }
      for (const auto& when : c.whens) {
        out->args.push_back(BindExpr(*when.condition, scope, agg));
        if (!c.operand) LiteralToBoolean(out->args.back().get());  // CASE WHEN 'yes'
        out->args.push_back(BindExpr(*when.result, scope, agg));
      }
      if (c.else_result) {
        out->has_else = true;
        out->args.push_back(BindExpr(*c.else_result, scope, agg));
      }
      // CASE c WHEN 'ab ' compares as `=` does (CASE b WHEN 'yes', for a
      // BOOLEAN b, reads 'yes' as one; an untyped operand is left as it
      // is: PostgreSQL makes it text); CASE ... THEN c ... is a CHAR(n)
      // when every result is one of that n. The values are matched ELSE
      // first, as PostgreSQL does (CaseResults).
      std::vector<BExprPtr*> values;
      if (out->has_else) values.push_back(&out->args.back());
      const size_t first_when = out->has_operand ? 1 : 0;
      const size_t when_end = out->args.size() - (out->has_else ? 1 : 0);
      for (size_t arg = first_when; arg + 1 < when_end; arg += 2) {
        if (out->has_operand) {
          CheckOperands(*out->args[0], "=", *out->args[arg], out->args[arg]->pos);
          if (IsBoolean(*out->args[0])) LiteralToBoolean(out->args[arg].get());
          CoerceComparison(&out->args[0], &out->args[arg]);
        }
        values.push_back(&out->args[arg + 1]);
      }
      const std::vector<const BExpr*> results = MatchValues("CASE", values, expr.pos);
      out->bpchar_length = CommonBpcharLength(results);
      out->known_boolean = FirstKnownIsBoolean(results);
      return out;
    }
    case ExprKind::kCast: {
      const auto& cast = expr.As<CastExpr>();
      auto out = MakeExpr(BKind::kCast, expr.pos);
      out->cast_type = ColumnForType(cast.type);
      out->args.push_back(BindExpr(*cast.operand, scope, agg));
      if (out->cast_type.type == Type::kChar) out->bpchar_length = out->cast_type.length;
      out->varchar = out->cast_type.type == Type::kVarChar;
      if (out->cast_type.type == Type::kBoolean) {
        out->known_boolean = true;  // as a BOOLEAN column (SetColumnType)
      } else {
        out->known_type = out->cast_type.type;
      }
      return out;
    }
    case ExprKind::kFunction: return BindFunction(expr.As<FunctionExpr>(), scope, agg);
  }
  ThrowSql(SqlState::kInternalError, "unknown expression", expr.pos);
}

// --- access paths ----------------------------------------------------------------

// True when the first scan level delivers rows grouped on the GROUP BY keys,
// so that aggregation can stream (one group at a time, no hash table): every
// key is a column of that level's table, and the keys that its equality
// bounds do not fix are exactly the next key columns of the access path, in
// any order. Later levels are inner loops: they never interleave the outer
// level's groups.
bool GroupedByScanOrder(const SelectPlan& plan) {
  if (plan.group_keys.empty() || plan.levels.empty()) return false;
  const ScanLevel& level = plan.levels[0];
  if (level.derived || level.table == kInvalidTree) return false;
  std::set<uint32_t> free_columns;  // group columns not fixed by `column = value`
  for (const BExprPtr& key : plan.group_keys) {
    if (key->kind != BKind::kColumn || key->depth != 0 || key->index < level.slot_base ||
        key->index >= level.slot_base + level.columns) {
      return false;
    }
    uint32_t column = key->index - level.slot_base;
    bool fixed = false;
    for (size_t eq = 0; eq < level.equal.size(); ++eq) fixed |= level.key_columns[eq] == column;
    if (!fixed) free_columns.insert(column);
  }
  size_t key_pos = level.equal.size();
  while (!free_columns.empty()) {
    if (key_pos >= level.key_columns.size() || free_columns.erase(level.key_columns[key_pos]) == 0) {
      return false;
    }
    ++key_pos;
  }
  return true;
}

// True if conjunct is `column IN (values)` with column the depth-0 column
// `key_col` (table position) of the item and every value computable before
// the item.
bool MatchInListConjunct(const BExpr& conjunct, const FromItem& item, uint64_t item_bit,
                         uint64_t bound, const std::vector<uint32_t>& slot_item, uint32_t key_col) {
  if (conjunct.kind != BKind::kInList || conjunct.negated || conjunct.args.size() < 2) return false;
  const BExpr& col = *conjunct.args[0];
  if (col.kind != BKind::kColumn || col.depth != 0 || col.index != item.slot_base + key_col) {
    return false;
  }
  for (size_t arg = 1; arg < conjunct.args.size(); ++arg) {
    uint64_t mask = 0;
    bool complex = false;
    ExprMask(*conjunct.args[arg], slot_item, &mask, &complex);
    if (complex || (mask & item_bit) != 0 || (mask & ~bound) != 0) return false;
  }
  return true;
}

// If conjunct is `column op value` (either way round) with column a depth-0
// column of the item and value computable before the item, returns the
// column (table position), the operator as seen from the column, and the
// value expression.
bool MatchKeyConjunct(const BExpr& conjunct, const FromItem& item, uint64_t item_bit,
                      uint64_t bound, const std::vector<uint32_t>& slot_item, uint32_t* column,
                      BinaryOp* op, const BExpr** value) {
  if (conjunct.kind != BKind::kCompare || conjunct.binary == BinaryOp::kNe) return false;
  for (int side = 0; side < 2; ++side) {
    const BExpr& col = *conjunct.args[side];
    const BExpr& other = *conjunct.args[1 - side];
    if (col.kind != BKind::kColumn || col.depth != 0) continue;
    if (col.index < item.slot_base || col.index >= item.slot_base + item.columns.size()) continue;
    uint64_t mask = 0;
    bool complex = false;
    ExprMask(other, slot_item, &mask, &complex);
    if (complex || (mask & item_bit) != 0 || (mask & ~bound) != 0) continue;
    *column = col.index - item.slot_base;
    *value = &other;
    BinaryOp oper = conjunct.binary;
    if (side == 1) {  // value op column: mirror
      oper = oper == BinaryOp::kLt   ? BinaryOp::kGt
             : oper == BinaryOp::kLe ? BinaryOp::kGe
             : oper == BinaryOp::kGt ? BinaryOp::kLt
             : oper == BinaryOp::kGe ? BinaryOp::kLe
                                     : oper;
    }
    *op = oper;
    return true;
  }
  return false;
}

PathChoice Binder::ChoosePath(const FromItem& item, uint32_t item_idx, uint64_t bound,
                              std::vector<Conjunct>& conjuncts,
                              const std::vector<uint32_t>& slot_item,
                              const std::vector<std::pair<int, bool>>* order_columns) {
  std::vector<PathChoice> candidates;
  PathChoice pk;
  pk.tree = item.table->id;
  pk.key_columns = item.table->schema.primary_key;
  candidates.push_back(pk);
  for (IndexId index_id : item.table->indexes) {
    const IndexInfo* index = catalog_.index(index_id);
    if (index == nullptr) continue;
    PathChoice choice;
    choice.tree = index_id;
    choice.index_name = index->schema.name;
    choice.is_pk = false;
    choice.key_columns = index->schema.columns;
    for (uint32_t col : item.table->schema.primary_key) choice.key_columns.push_back(col);
    candidates.push_back(choice);
  }
  uint64_t item_bit = uint64_t{1} << item_idx;
  for (PathChoice& choice : candidates) {
    for (uint32_t key_col : choice.key_columns) {
      int found = -1;
      for (size_t c = 0; c < conjuncts.size(); ++c) {
        if (conjuncts[c].on_item >= 0 && conjuncts[c].on_item != static_cast<int>(item_idx)) continue;
        uint32_t column;
        BinaryOp op;
        const BExpr* value;
        if (MatchKeyConjunct(*conjuncts[c].expr, item, item_bit, bound, slot_item, &column, &op,
                             &value) &&
            column == key_col && op == BinaryOp::kEq) {
          found = static_cast<int>(c);
          break;
        }
      }
      if (found < 0) break;
      choice.equal.push_back(found);
    }
    if (choice.equal.size() < choice.key_columns.size()) {
      uint32_t in_col = choice.key_columns[choice.equal.size()];
      for (size_t c = 0; c < conjuncts.size() && choice.in_list < 0; ++c) {
        if (conjuncts[c].on_item >= 0 && conjuncts[c].on_item != static_cast<int>(item_idx)) continue;
        if (MatchInListConjunct(*conjuncts[c].expr, item, item_bit, bound, slot_item, in_col)) {
          choice.in_list = static_cast<int>(c);
        }
      }
    }
    if (choice.equal.size() < choice.key_columns.size() && choice.in_list < 0) {
      uint32_t range_col = choice.key_columns[choice.equal.size()];
      for (size_t c = 0; c < conjuncts.size(); ++c) {
        if (conjuncts[c].on_item >= 0 && conjuncts[c].on_item != static_cast<int>(item_idx)) continue;
        uint32_t column;
        BinaryOp op;
        const BExpr* value;
        if (!MatchKeyConjunct(*conjuncts[c].expr, item, item_bit, bound, slot_item, &column, &op,
                              &value) ||
            column != range_col) {
          continue;
        }
        if ((op == BinaryOp::kGt || op == BinaryOp::kGe) && choice.lower < 0) {
          choice.lower = static_cast<int>(c);
        } else if ((op == BinaryOp::kLt || op == BinaryOp::kLe) && choice.upper < 0) {
          choice.upper = static_cast<int>(c);
        }
      }
    }
    // ORDER BY satisfied by the key order (after the equal columns)?
    if (order_columns != nullptr && !order_columns->empty()) {
      size_t key_pos = choice.equal.size();
      bool ok = true;
      bool descending = (*order_columns)[0].second;
      for (const auto& [slot, desc] : *order_columns) {
        if (slot < static_cast<int>(item.slot_base) ||
            slot >= static_cast<int>(item.slot_base + item.columns.size())) {
          ok = false;
          break;
        }
        uint32_t column = static_cast<uint32_t>(slot) - item.slot_base;
        bool fixed = false;
        for (size_t eq = 0; eq < choice.equal.size(); ++eq) fixed |= choice.key_columns[eq] == column;
        if (fixed) continue;
        // The key is unique: this item's later columns are ties. Not another
        // item's (checked above): a join repeats this row for each of its rows.
        if (key_pos >= choice.key_columns.size()) continue;
        if (choice.key_columns[key_pos] != column || desc != descending ||
            !item.table->schema.columns[column].not_null) {
          ok = false;
          break;
        }
        ++key_pos;
      }
      choice.order_ok = ok;
      choice.reverse = ok && descending;
    }
    if (choice.in_list >= 0) choice.order_ok = choice.reverse = false;  // rows come per value
  }
  PathChoice* best = &candidates[0];
  for (PathChoice& choice : candidates) {
    if (choice.score() > best->score()) best = &choice;
  }
  return *best;
}

void Binder::PlanLevels(SelectPlan* plan, std::vector<FromItem>* items,
                        std::vector<Conjunct>* conjuncts,
                        const std::vector<std::pair<int, bool>>& order_columns) {
  std::vector<uint32_t> slot_item(plan->slot_count);
  for (uint32_t item_idx = 0; item_idx < items->size(); ++item_idx) {
    const FromItem& item = (*items)[item_idx];
    for (uint32_t col = 0; col < item.columns.size(); ++col) slot_item[item.slot_base + col] = item_idx;
  }
  for (Conjunct& conjunct : *conjuncts) {
    ExprMask(*conjunct.expr, slot_item, &conjunct.mask, &conjunct.complex);
  }
  bool keep_order = false;
  for (const FromItem& item : *items) keep_order |= item.left_join || item.derived != nullptr;
  // FULL JOIN: whether a row of level 1 matched is decided by ON alone, so
  // level 0 is read whole (no bounds) and every WHERE filter runs at level 1,
  // after the match is recorded (Scanner::Unmatched).
  const bool full_join = items->size() == 2 && (*items)[1].full_join;

  uint64_t bound = 0;
  std::vector<bool> used(items->size(), false);
  std::vector<int> level_of_item(items->size(), 0);
  std::vector<bool> equal_bound(conjuncts->size(), false);  // used as a `key = value` bound
  std::vector<uint8_t> range_bound(conjuncts->size(), 0);   // used as the lower or upper bound
  for (size_t level_idx = 0; level_idx < items->size(); ++level_idx) {
    int best_item = -1;
    PathChoice best_path;
    int best_score = -1;
    for (uint32_t item_idx = 0; item_idx < items->size(); ++item_idx) {
      if (used[item_idx]) continue;
      const FromItem& item = (*items)[item_idx];
      PathChoice path;
      if (item.table != nullptr && full_join && level_idx == 0) {
        path.tree = item.table->id;
        path.key_columns = item.table->schema.primary_key;
      } else if (item.table != nullptr) {
        path = ChoosePath(item, item_idx, bound, *conjuncts, slot_item,
                          level_idx == 0 && !plan->aggregate ? &order_columns : nullptr);
      }
      int score = item.table != nullptr ? path.score() : 0;
      if (score > best_score) {
        best_score = score;
        best_item = static_cast<int>(item_idx);
        best_path = path;
      }
      if (keep_order) break;
    }
    used[best_item] = true;
    level_of_item[best_item] = static_cast<int>(level_idx);
    FromItem& item = (*items)[best_item];
    uint64_t item_bit = uint64_t{1} << best_item;
    ScanLevel level;
    level.item = static_cast<uint32_t>(best_item);
    level.name = item.alias;
    level.slot_base = item.slot_base;
    level.columns = static_cast<uint32_t>(item.columns.size());
    level.left_join = item.left_join;
    level.full_join = item.full_join;
    if (item.table != nullptr) {
      level.table = item.table->id;
      level.schema = item.table->schema;
      level.tree = best_path.tree;
      level.index_name = best_path.index_name;
      if (!best_path.index_name.empty()) UseTree(best_path.tree, best_path.index_name);
      level.key_columns = best_path.key_columns;
      level.reverse = best_path.reverse;
      auto make_bound = [&](int conjunct_idx, KeyBound* key) {
        if (conjunct_idx < 0) return;
        const Conjunct& conjunct = (*conjuncts)[conjunct_idx];
        uint32_t column;
        BinaryOp op;
        const BExpr* value;
        MatchKeyConjunct(*conjunct.expr, item, item_bit, bound, slot_item, &column, &op, &value);
        key->value = CloneExpr(*value);
        key->inclusive = op == BinaryOp::kGe || op == BinaryOp::kLe || op == BinaryOp::kEq;
        key->text = conjunct.text;
      };
      for (int conjunct_idx : best_path.equal) {
        equal_bound[conjunct_idx] = true;
        KeyBound key;
        make_bound(conjunct_idx, &key);
        level.equal.push_back(std::move(key));
      }
      make_bound(best_path.lower, &level.lower);
      make_bound(best_path.upper, &level.upper);
      if (best_path.lower >= 0) range_bound[best_path.lower] |= ScanLevel::kLowerBound;
      if (best_path.upper >= 0) range_bound[best_path.upper] |= ScanLevel::kUpperBound;
      if (best_path.in_list >= 0) {
        equal_bound[best_path.in_list] = true;  // holds for every key InList builds
        const Conjunct& conjunct = (*conjuncts)[best_path.in_list];
        for (size_t arg = 1; arg < conjunct.expr->args.size(); ++arg) {
          level.in_values.push_back(CloneExpr(*conjunct.expr->args[arg]));
        }
        level.in_text = conjunct.text;
      }
      if (best_path.order_ok && level_idx == 0) plan->need_sort = false;
    } else {
      level.derived = std::move(item.derived);
    }
    for (uint32_t col = 0; col < item.columns.size(); ++col) {
      if (item.needed[col]) level.needed.push_back(col);
    }
    level.decode_columns = static_cast<uint32_t>(item.columns.size());
    bound |= item_bit;
    plan->levels.push_back(std::move(level));
  }
  // Place each filter at the first level where everything it reads is loaded.
  for (size_t conjunct_idx = 0; conjunct_idx < conjuncts->size(); ++conjunct_idx) {
    Conjunct& conjunct = (*conjuncts)[conjunct_idx];
    if (conjunct.on_item >= 0) {
      ScanLevel& level = plan->levels[level_of_item[conjunct.on_item]];
      level.on.push_back(std::move(conjunct.expr));
      level.filter_text.push_back("on " + conjunct.text);
      continue;
    }
    if (conjunct.mask == 0 && !conjunct.complex) {
      plan->constant_filters.push_back(std::move(conjunct.expr));
      continue;
    }
    int level_idx = 0;
    if (conjunct.complex || plan->levels.empty() || full_join) {
      level_idx = static_cast<int>(plan->levels.size()) - 1;
    } else {
      for (uint32_t item_idx = 0; item_idx < items->size(); ++item_idx) {
        if (conjunct.mask & (uint64_t{1} << item_idx)) {
          level_idx = std::max(level_idx, level_of_item[item_idx]);
        }
      }
    }
    if (level_idx < 0) {
      plan->constant_filters.push_back(std::move(conjunct.expr));
      continue;
    }
    ScanLevel& level = plan->levels[level_idx];
    level.where_is_key.push_back(equal_bound[conjunct_idx] ? 1 : 0);
    level.where_range_bound.push_back(range_bound[conjunct_idx]);
    level.where.push_back(std::move(conjunct.expr));
    level.filter_text.push_back(conjunct.text);
  }
}

// WITH (sql/README.md "WITH"): each WITH query is bound where a FROM item
// names it, as a subquery written there would be (PostgreSQL inlines them
// too), and once here, so that one no FROM names still gets its errors.
std::unique_ptr<SelectPlan> Binder::BindSelect(const SelectStmt& select, Scope* outer) {
  const size_t visible = PushWith(select.with, outer);
  std::unique_ptr<SelectPlan> plan = select.set_arms.empty() && select.body == nullptr
                                         ? BindSelectBody(select, outer, /*core_only=*/false)
                                         : BindUnion(select, outer);
  ctes_.resize(visible);
  return plan;
}

// Makes `with` visible (after checking each query once, and the names) and
// returns how many were visible before, for ctes_.resize once the
// statement they belong to is bound.
size_t Binder::PushWith(const std::vector<SelectStmt::CommonTable>& with, Scope* outer) {
  const size_t visible = ctes_.size();
  for (const SelectStmt::CommonTable& table : with) {
    for (size_t idx = visible; idx < ctes_.size(); ++idx) {
      if (ctes_[idx]->name.name == table.name.name) {
        ThrowSql(SqlState::kDuplicateAlias,
                 fmt::format("WITH query name \"{}\" specified more than once", table.name.name),
                 table.name.pos);
      }
    }
    const std::unique_ptr<SelectPlan> checked = BindSelect(*table.select, outer);
    if (table.columns.size() > checked->names.size()) {
      ThrowSql(SqlState::kInvalidColumnReference,
               fmt::format("WITH query \"{}\" has {} columns available but {} columns specified",
                           table.name.name, checked->names.size(), table.columns.size()),
               table.columns[checked->names.size()].pos);
    }
    ctes_.push_back(&table);
  }
  return visible;
}

void Binder::AddCommonTable(size_t index, const BaseTableRef& base, std::vector<FromItem>* items,
                            uint32_t* slots, Scope* outer) {
  const SelectStmt::CommonTable& table = *ctes_[index];
  if (++with_bindings_ > kMaxWithBindings) {
    ThrowSql(SqlState::kStatementTooComplex,
             fmt::format("statement too complex: its FROM items name WITH queries more than {} "
                         "times, counting those inside WITH queries (each is bound where it is "
                         "named)",
                         kMaxWithBindings),
             base.name.pos);
  }
  // Its query sees the WITH queries before it, not itself or later ones.
  const std::vector<const SelectStmt::CommonTable*> later(ctes_.begin() + index, ctes_.end());
  ctes_.resize(index);
  FromItem item;
  item.derived = BindSelect(*table.select, outer);
  ctes_.insert(ctes_.end(), later.begin(), later.end());
  item.alias = base.alias.name.empty() ? base.name.name : base.alias.name;
  CheckAliasFree(*items, item.alias, base.name.pos);
  item.columns = DerivedColumns(*item.derived, table.columns);
  AppendFromItem(std::move(item), items, slots);
}

std::unique_ptr<SelectPlan> Binder::BindSelectBody(const SelectStmt& select, Scope* outer,
                                                   bool core_only) {
  // A UNION's first arm is the statement's own SELECT; its ORDER BY and
  // LIMIT belong to the whole UNION.
  static const std::vector<OrderItem> kNoOrder;
  const std::vector<OrderItem>& order_by = core_only ? kNoOrder : select.order_by;
  const Expr* limit = core_only ? nullptr : select.limit.get();
  const Expr* offset = core_only ? nullptr : select.offset.get();
  auto plan = std::make_unique<SelectPlan>();
  std::vector<FromItem> items;
  std::vector<const Expr*> where_parts;
  uint32_t slots = 0;
  for (const TableRefPtr& ref : select.from) AddFromItem(*ref, &items, &slots, &where_parts, outer);
  const bool full_join =
      std::any_of(items.begin(), items.end(), [](const FromItem& item) { return item.full_join; });
  if (full_join && items.size() != 2) FullJoinUnsupported(select.pos);
  if (items.size() > 64) {
    ThrowSql(SqlState::kProgramLimitExceeded, "at most 64 tables in one FROM", select.pos);
  }
  plan->slot_count = slots;
  Scope scope{&items, outer, {}};
  if (select.where) SplitConjuncts(select.where.get(), &where_parts);

  std::vector<Conjunct> conjuncts;
  for (const Expr* part : where_parts) {
    if (ContainsAggregate(*part)) {
      ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in WHERE", part->pos);
    }
    Conjunct conjunct;
    conjunct.expr = BindExpr(*part, &scope, nullptr);
    RequireBoolean(conjunct.expr.get(), items, "WHERE");
    conjunct.text = ToSql(*part);
    conjuncts.push_back(std::move(conjunct));
  }
  for (uint32_t item_idx = 0; item_idx < items.size(); ++item_idx) {
    for (const Expr* part : items[item_idx].on) {
      Conjunct conjunct;
      conjunct.expr = BindExpr(*part, &scope, nullptr);
      RequireBoolean(conjunct.expr.get(), items, "JOIN/ON");
      conjunct.text = ToSql(*part);
      conjunct.on_item = static_cast<int>(item_idx);
      conjuncts.push_back(std::move(conjunct));
    }
  }

  // The select list, with * expanded.
  struct OutputItem {
    const Expr* expr = nullptr;
    int item = -1, column = -1;  // an expanded * column
    std::string name;
  };
  std::vector<OutputItem> outputs;
  for (const SelectItem& select_item : select.items) {
    if (select_item.is_star()) {
      bool any = false;
      std::vector<size_t> written(items.size());
      for (size_t item_idx = 0; item_idx < items.size(); ++item_idx)
        written[items[item_idx].written] = item_idx;
      for (size_t item_idx : written) {
        if (!select_item.star_table.empty() && items[item_idx].alias != select_item.star_table) continue;
        any = true;
        for (size_t col = 0; col < items[item_idx].columns.size(); ++col) {
          if (IsHiddenColumn(items[item_idx].columns[col])) continue;
          outputs.push_back({nullptr, static_cast<int>(item_idx), static_cast<int>(col),
                             items[item_idx].columns[col].name});
        }
      }
      if (!any) {
        if (select_item.star_table.empty()) {
          ThrowSql(SqlState::kSyntaxError, "SELECT * with no tables specified is not valid",
                   select_item.pos);
        }
        ThrowSql(SqlState::kUndefinedTable,
                 fmt::format("missing FROM-clause entry for table \"{}\"", select_item.star_table),
                 select_item.pos);
      }
      continue;
    }
    OutputItem output;
    output.expr = select_item.expr.get();
    if (!select_item.alias.name.empty()) {
      output.name = select_item.alias.name;
    } else if (output.expr->kind == ExprKind::kColumnRef) {
      output.name = output.expr->As<ColumnRefExpr>().column;
    } else if (output.expr->kind == ExprKind::kFunction) {
      output.name = output.expr->As<FunctionExpr>().name;
    } else {
      output.name = "?column?";
    }
    outputs.push_back(output);
  }

  // ORDER BY items that name an output (by position or alias).
  std::vector<int> order_output(order_by.size(), -1);
  for (size_t order_idx = 0; order_idx < order_by.size(); ++order_idx) {
    const Expr& expr = *order_by[order_idx].expr;
    if (std::optional<int64_t> position = ConstantPosition(expr, "ORDER BY")) {
      if (*position < 1 || *position > static_cast<int64_t>(outputs.size())) {
        ThrowSql(SqlState::kInvalidColumnReference,
                 fmt::format("ORDER BY position {} is not in select list", *position), expr.pos);
      }
      order_output[order_idx] = static_cast<int>(*position - 1);
    } else if (expr.kind == ExprKind::kColumnRef && expr.As<ColumnRefExpr>().table.empty()) {
      for (size_t out_idx = 0; out_idx < outputs.size(); ++out_idx) {
        if (outputs[out_idx].expr != nullptr && outputs[out_idx].name == expr.As<ColumnRefExpr>().column &&
            select.items.size() > 0) {
          // An output alias; a plain column of the same name is the same thing.
          order_output[order_idx] = static_cast<int>(out_idx);
          break;
        }
      }
    }
  }

  plan->aggregate = !select.group_by.empty() || select.having != nullptr;
  for (const OutputItem& output : outputs) {
    if (output.expr != nullptr && ContainsAggregate(*output.expr)) plan->aggregate = true;
  }
  for (const OrderItem& order : order_by) {
    if (ContainsAggregate(*order.expr)) plan->aggregate = true;
  }

  AggContext agg_context;
  AggContext* agg = nullptr;
  if (plan->aggregate) {
    agg_context.plan = plan.get();
    agg = &agg_context;
    for (const ExprPtr& group : select.group_by) {
      const Expr* expr = group.get();
      if (std::optional<int64_t> position = ConstantPosition(*expr, "GROUP BY")) {
        if (*position < 1 || *position > static_cast<int64_t>(outputs.size()) ||
            outputs[*position - 1].expr == nullptr) {
          ThrowSql(SqlState::kInvalidColumnReference,
                   fmt::format("GROUP BY position {} is not in select list", *position), expr->pos);
        }
        expr = outputs[*position - 1].expr;
      } else if (expr->kind == ExprKind::kColumnRef && expr->As<ColumnRefExpr>().table.empty()) {
        // An output alias that is not an input column.
        bool input_column = false;
        for (const FromItem& item : items) {
          for (const solo::ColumnDef& column : item.columns) {
            input_column |= column.name == expr->As<ColumnRefExpr>().column;
          }
        }
        if (!input_column) {
          for (const OutputItem& output : outputs) {
            if (output.expr != nullptr && output.name == expr->As<ColumnRefExpr>().column) {
              expr = output.expr;
              break;
            }
          }
        }
      }
      if (ContainsAggregate(*expr)) {
        ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in GROUP BY",
                 expr->pos);
      }
      BExprPtr key = BindExpr(*expr, &scope, nullptr);
      agg_context.group_slot.push_back(key->kind == BKind::kColumn && key->depth == 0
                                           ? static_cast<int>(key->index)
                                           : -1);
      agg_context.group_text.push_back(ToSql(*expr));
      plan->group_text.push_back(agg_context.group_text.back());
      plan->group_keys.push_back(std::move(key));
    }
  }
  for (const OutputItem& output : outputs) {
    if (output.expr == nullptr) {
      ColumnRefExpr ref(select.pos);
      ref.table = items[output.item].alias;
      ref.column = output.name;
      // Bind through the scope so that grouping rules apply to * as well.
      BExprPtr expr;
      if (agg == nullptr) {
        items[output.item].needed[output.column] = true;
        expr = MakeExpr(BKind::kColumn, select.pos);
        expr->index = items[output.item].slot_base + output.column;
        SetColumnType(items[output.item], output.column, expr.get());
      } else {
        expr = BindColumn(ref, &scope, agg);
      }
      plan->outputs.push_back(std::move(expr));
    } else {
      plan->outputs.push_back(BindExpr(*output.expr, &scope, agg));
    }
    plan->names.push_back(output.name);
  }
  if (select.having) {
    plan->having = BindExpr(*select.having, &scope, agg);
    LiteralToBoolean(plan->having.get());  // HAVING 'yes'
  }
  plan->distinct = select.distinct;

  // ORDER BY.
  std::vector<std::pair<int, bool>> order_columns;  // input slot, descending
  bool order_by_columns = true;
  for (size_t order_idx = 0; order_idx < order_by.size(); ++order_idx) {
    SelectPlan::SortKey key;
    key.descending = order_by[order_idx].descending;
    key.nulls_first = order_by[order_idx].nulls_first.value_or(key.descending);
    key.text = ToSql(*order_by[order_idx].expr);
    key.output_index = order_output[order_idx];
    if (key.output_index < 0) key.expr = BindExpr(*order_by[order_idx].expr, &scope, agg);
    const BExpr* bound_expr = key.output_index >= 0 ? plan->outputs[key.output_index].get() : key.expr.get();
    if (bound_expr->kind == BKind::kColumn && bound_expr->depth == 0) {
      order_columns.emplace_back(static_cast<int>(bound_expr->index), key.descending);
    } else {
      order_by_columns = false;
    }
    plan->order.push_back(std::move(key));
  }
  plan->need_sort = !plan->order.empty();
  if (!order_by_columns || plan->distinct) order_columns.clear();
  BindLimit(limit, offset, scope, plan.get());

  // A FULL JOIN's unmatched rows come after the scan: its order is not the
  // first level's, and its groups are not together.
  PlanLevels(plan.get(), &items, &conjuncts,
             plan->need_sort && !order_columns.empty() && !full_join
                 ? order_columns
                 : std::vector<std::pair<int, bool>>{});
  if (plan->aggregate || plan->distinct) {
    plan->need_sort = !plan->order.empty();
  }
  plan->streaming = plan->aggregate && !full_join && GroupedByScanOrder(*plan);
  // A SELECT reads only its needed columns from a row's decoding.
  NarrowSelectLevels(plan.get());
  for (ScanLevel& level : plan->levels) {
    level.decode_columns = level.needed.empty() ? 0 : level.needed.back() + 1;
    if (level.table == kInvalidTree || level.derived) continue;
    for (uint32_t col : level.needed) {
      uint32_t offset;
      if (!solo::fixed_column_offset(level.schema, col, &offset)) break;
      level.needed_offsets.push_back(offset);
    }
    if (level.needed_offsets.size() != level.needed.size()) level.needed_offsets.clear();
    if (level.needed_offsets.empty() || level.range_filter_bounds == 0) continue;
    for (uint32_t col : level.needed_exact) {
      const size_t needed_idx =
          std::find(level.needed.begin(), level.needed.end(), col) - level.needed.begin();
      level.needed_exact_offsets.push_back(level.needed_offsets[needed_idx]);
    }
  }
  return plan;
}

void Binder::BindLimit(const Expr* limit, const Expr* offset, const Scope& scope,
                       SelectPlan* plan) {
  if (limit != nullptr) {
    Scope limit_scope = scope;
    limit_scope.columns_forbidden_in = "LIMIT";
    plan->limit = BindExpr(*limit, &limit_scope, nullptr);
  }
  if (offset != nullptr) {
    Scope offset_scope = scope;
    offset_scope.columns_forbidden_in = "OFFSET";
    plan->offset = BindExpr(*offset, &offset_scope, nullptr);
  }
}

// A plan that reads every row of `input` (a derived level) and outputs its
// columns as they are; `types`: the columns' static types (UNION's).
std::unique_ptr<SelectPlan> Binder::WrapUnionInput(std::unique_ptr<SelectPlan> input,
                                                   const std::vector<BExpr>& types, SourcePos pos) {
  auto plan = std::make_unique<SelectPlan>();
  const auto width = static_cast<uint32_t>(input->outputs.size());
  ScanLevel level;
  level.name = "union";
  level.columns = width;
  level.decode_columns = width;
  for (uint32_t col = 0; col < width; ++col) {
    level.needed.push_back(col);
    auto expr = MakeExpr(BKind::kColumn, pos);
    expr->index = col;
    expr->bpchar_length = types[col].bpchar_length;
    expr->varchar = types[col].varchar;
    expr->known_type = types[col].known_type;
    expr->known_boolean = types[col].known_boolean;
    plan->outputs.push_back(std::move(expr));
  }
  plan->names = input->names;
  plan->slot_count = width;
  level.derived = std::move(input);
  plan->levels.push_back(std::move(level));
  return plan;
}

// Where an operand of UNION, INTERSECT or EXCEPT begins: its first item.
SourcePos FirstItemPos(const SelectStmt& select) {
  return select.body != nullptr ? FirstItemPos(*select.body) : select.items[0].pos;
}

// SELECT ... UNION | INTERSECT | EXCEPT [ALL] SELECT ... [ORDER BY] [LIMIT]
// (sql/README.md "UNION, INTERSECT and EXCEPT"), and a parenthesized query
// with its own ORDER BY or LIMIT. The arms need the same number of columns
// (42601); each column's values are matched as a CASE's are (42804 across
// type families; a string literal takes the others' type: MatchValues).
// The arms combine left to right (the parser has grouped INTERSECT's
// operands). A UNION's DISTINCT covers everything to its left, so a run of
// UNION arms is those up to its last UNION without ALL, made distinct
// together with what comes before, followed by the rest as they come. An
// INTERSECT or EXCEPT wraps everything before it in a plan whose rows
// RunSelect keeps or drops by the arm's (SelectPlan::set_op). ORDER BY
// names a result column or gives its position (PostgreSQL: an expression
// there is 0A000).
std::unique_ptr<SelectPlan> Binder::BindUnion(const SelectStmt& select, Scope* outer) {
  std::vector<std::unique_ptr<SelectPlan>> arms;
  arms.push_back(select.body != nullptr ? BindSelect(*select.body, outer)
                                        : BindSelectBody(select, outer, /*core_only=*/true));
  // arms[0, compared_arms) have their rows compared with each other's: by a
  // UNION's DISTINCT, an INTERSECT or an EXCEPT.
  size_t compared_arms = 1;
  for (const SelectStmt::SetArm& arm : select.set_arms) {
    arms.push_back(BindSelect(*arm.select, outer));
    if (arms.back()->outputs.size() != arms[0]->outputs.size()) {
      ThrowSql(
          SqlState::kSyntaxError,
          fmt::format("each {} query must have the same number of columns", SetOpKeyword(arm.op)),
          FirstItemPos(*arm.select));
    }
    if (!arm.all || arm.op != SelectStmt::SetOp::kUnion) compared_arms = arms.size();
  }
  const size_t width = arms[0]->outputs.size();
  std::vector<BExpr> types(width);
  for (size_t col = 0; col < width; ++col) {
    std::vector<BExprPtr*> values;
    for (auto& arm : arms) values.push_back(&arm->outputs[col]);
    const std::vector<const BExpr*> matched = MatchValues(
        SetOpKeyword(select.set_arms.empty() ? SelectStmt::SetOp::kUnion : select.set_arms[0].op),
        values, select.pos);
    types[col].known_type = CommonType(matched);
    types[col].known_boolean = FirstKnownIsBoolean(matched);
    // Among doubles the other numbers become doubles, as in PostgreSQL (2.50
    // is 2.5, and a bigint may round), which resolves each operation in
    // turn: rows are compared in the type of the arms they come from, so
    // those are cast when one of them is a double, and every row at the end
    // otherwise.
    const std::vector<const BExpr*> compared(matched.begin(), matched.begin() + compared_arms);
    if (compared_arms > 1 && CommonType(compared) == Type::kDouble) {
      for (size_t arm = 0; arm < compared_arms; ++arm) {
        const std::optional<Type> type = KnownType(*arms[arm]->outputs[col]);
        if (type && *type != Type::kDouble) WrapInCast(&arms[arm]->outputs[col], Type::kDouble);
      }
    }
    types[col].bpchar_length = matched[0]->bpchar_length;
    types[col].varchar = matched[0]->varchar;
    for (const BExpr* value : matched) {
      // CHAR(n) or VARCHAR only when every arm's is; else text.
      if (value->bpchar_length != types[col].bpchar_length) types[col].bpchar_length = 0;
      if (value->varchar != types[col].varchar) types[col].varchar = false;
    }
  }

  std::unique_ptr<SelectPlan> input = std::move(arms[0]);
  size_t next = 1;
  while (next < arms.size()) {
    const SelectStmt::SetArm& arm = select.set_arms[next - 1];
    if (arm.op != SelectStmt::SetOp::kUnion) {
      input = WrapUnionInput(std::move(input), types, select.pos);
      input->set_op = arm.op == SelectStmt::SetOp::kIntersect ? SelectPlan::SetOp::kIntersect
                                                              : SelectPlan::SetOp::kExcept;
      input->set_all = arm.all;
      input->set_right = std::move(arms[next++]);
      continue;
    }
    // A run of UNION arms, [next, end); [next, distinct_end) under a DISTINCT.
    size_t end = next;
    size_t distinct_end = next;
    for (; end < arms.size() && select.set_arms[end - 1].op == SelectStmt::SetOp::kUnion; ++end) {
      if (!select.set_arms[end - 1].all) distinct_end = end + 1;
    }
    const bool distinct = distinct_end > next;
    // An INTERSECT's or EXCEPT's plan keeps or drops its union_arms' rows too.
    if (input->set_op != SelectPlan::SetOp::kNone) {
      input = WrapUnionInput(std::move(input), types, select.pos);
    }
    for (; next < distinct_end; ++next) input->union_arms.push_back(std::move(arms[next]));
    if (distinct) {
      input = WrapUnionInput(std::move(input), types, select.pos);
      input->distinct = true;
    }
    for (; next < end; ++next) input->union_arms.push_back(std::move(arms[next]));
  }
  std::unique_ptr<SelectPlan> plan = WrapUnionInput(std::move(input), types, select.pos);
  for (size_t col = 0; col < width; ++col) {
    if (types[col].known_type == Type::kDouble) WrapInCast(&plan->outputs[col], Type::kDouble);
  }

  for (const OrderItem& order : select.order_by) {
    const Expr& expr = *order.expr;
    SelectPlan::SortKey key;
    key.descending = order.descending;
    key.nulls_first = order.nulls_first.value_or(key.descending);
    key.text = ToSql(expr);
    if (std::optional<int64_t> position = ConstantPosition(expr, "ORDER BY")) {
      if (*position < 1 || *position > static_cast<int64_t>(width)) {
        ThrowSql(SqlState::kInvalidColumnReference,
                 fmt::format("ORDER BY position {} is not in select list", *position), expr.pos);
      }
      key.output_index = static_cast<int>(*position - 1);
    } else if (expr.kind == ExprKind::kColumnRef && expr.As<ColumnRefExpr>().table.empty()) {
      const std::string& name = expr.As<ColumnRefExpr>().column;
      for (size_t col = 0; col < width && key.output_index < 0; ++col) {
        if (plan->names[col] == name) key.output_index = static_cast<int>(col);
      }
      if (key.output_index < 0) {
        ThrowSql(SqlState::kUndefinedColumn, fmt::format("column \"{}\" does not exist", name),
                 expr.pos);
      }
    } else {
      ThrowSql(SqlState::kFeatureNotSupported,
               "invalid UNION/INTERSECT/EXCEPT ORDER BY clause: only result column names "
               "can be used, not expressions or functions",
               expr.pos);
    }
    plan->order.push_back(std::move(key));
  }
  plan->need_sort = !plan->order.empty();
  std::vector<FromItem> no_items;
  Scope scope{&no_items, outer, {}};
  BindLimit(select.limit.get(), select.offset.get(), scope, plan.get());
  return plan;
}

// --- INSERT, UPDATE, DELETE -----------------------------------------------------------

void Binder::BindInsert(const InsertStmt& insert) {
  auto out = std::make_unique<InsertPlan>();
  const TableInfo* table = FindTable(insert.table);
  RefuseSystemTableChange(table->schema.name, insert.table.pos);
  out->table = table->id;
  out->schema = table->schema;
  const auto& columns = table->schema.columns;
  out->source_of_column.assign(columns.size(), -1);
  out->defaults.resize(columns.size());
  std::vector<uint32_t> targets;
  if (insert.columns.empty()) {
    for (uint32_t col = 0; col < columns.size(); ++col) {
      if (!IsHiddenColumn(columns[col])) targets.push_back(col);
    }
  } else {
    for (const Identifier& name : insert.columns) {
      int found = -1;
      for (uint32_t col = 0; col < columns.size(); ++col) {
        if (columns[col].name == name.name && !IsHiddenColumn(columns[col])) found = static_cast<int>(col);
      }
      if (found < 0) {
        ThrowSql(SqlState::kUndefinedColumn,
                 fmt::format("column \"{}\" of relation \"{}\" does not exist", name.name,
                             table->schema.name),
                 name.pos);
      }
      if (out->source_of_column[found] >= 0) {
        ThrowSql(SqlState::kDuplicateColumn,
                 fmt::format("column \"{}\" specified more than once", name.name), name.pos);
      }
      out->source_of_column[found] = static_cast<int>(targets.size());
      targets.push_back(static_cast<uint32_t>(found));
    }
  }
  for (uint32_t col = 0; col < columns.size(); ++col) {
    if (IsHiddenColumn(columns[col])) out->rowid_column = static_cast<int>(col);
  }
  size_t value_count = insert.select ? 0 : insert.rows.front().size();
  Scope empty_scope;
  BindDefaults(*table, out.get());
  if (insert.select) {
    out->select = BindSelect(*insert.select, &empty_scope);
    value_count = out->select->outputs.size();
  }
  if (value_count > targets.size()) {
    ThrowSql(SqlState::kSyntaxError, "INSERT has more expressions than target columns",
             insert.pos);
  }
  if (insert.columns.empty()) {
    for (size_t value_idx = 0; value_idx < value_count; ++value_idx) {
      out->source_of_column[targets[value_idx]] = static_cast<int>(value_idx);
    }
  } else if (value_count < targets.size()) {
    ThrowSql(SqlState::kSyntaxError, "INSERT has more target columns than expressions", insert.pos);
  }
  if (out->select) {
    for (size_t value_idx = 0; value_idx < value_count; ++value_idx) {
      CheckAssignment(*out->select->outputs[value_idx], columns[targets[value_idx]]);
    }
  }
  for (const auto& row : insert.rows) {
    std::vector<BExprPtr> bound_row;
    for (const ExprPtr& value : row) {
      if (ContainsAggregate(*value)) {
        ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in VALUES",
                 value->pos);
      }
      bound_row.push_back(BindExpr(*value, &empty_scope, nullptr));
      CheckAssignment(*bound_row.back(), columns[targets[bound_row.size() - 1]]);
    }
    out->rows.push_back(std::move(bound_row));
  }
  plan_->insert = std::move(out);
}

void Binder::BindDefaults(const TableInfo& table, InsertPlan* insert) {
  const TableInfo* meta = catalog_.find_table(kDefaultsTable);
  if (meta == nullptr) return;
  std::string prefix;
  std::vector<solo::Value> key = {solo::Value::String(table.schema.name)};
  std::vector<uint32_t> key_columns = {0};
  if (!append_key(meta->schema, key_columns, key, &prefix).ok()) return;
  solo::Result<Cursor> cursor = view_.scan(meta->id, KeyRange::Prefix(prefix));
  if (!cursor.ok()) return;
  UseTree(meta->id, meta->schema.name);
  Scope empty_scope;
  for (; cursor->valid(); cursor->next()) {
    Row row;
    if (!decode_row(meta->schema, cursor->value(), &row).ok()) continue;
    size_t col = static_cast<size_t>(row[1].as_int());
    std::string sql = "SELECT " + row[2].as_string();
    Result<ParsedStatement> parsed = ParseStatement(sql);
    if (!parsed.ok() || col >= insert->defaults.size()) continue;
    const auto& select = parsed->statement->As<SelectStmt>();
    insert->defaults[col] = BindExpr(*select.items[0].expr, &empty_scope, nullptr);
  }
}

void Binder::BindModify(const Statement& statement) {
  bool is_update = statement.kind == StatementKind::kUpdate;
  const Identifier& name = is_update ? statement.As<UpdateStmt>().table : statement.As<DeleteStmt>().table;
  const Expr* where = is_update ? statement.As<UpdateStmt>().where.get()
                                : statement.As<DeleteStmt>().where.get();
  const TableInfo* table = FindTable(name);
  RefuseSystemTableChange(table->schema.name, name.pos);
  auto modify = std::make_unique<ModifyPlan>();
  auto scan = std::make_unique<SelectPlan>();
  std::vector<FromItem> items(1);
  items[0].table = table;
  items[0].alias = table->schema.name;
  items[0].columns = table->schema.columns;
  items[0].needed.assign(items[0].columns.size(), true);
  scan->slot_count = static_cast<uint32_t>(items[0].columns.size());
  Scope scope{&items, nullptr, {}};
  std::vector<Conjunct> conjuncts;
  if (where != nullptr) {
    std::vector<const Expr*> parts;
    SplitConjuncts(where, &parts);
    for (const Expr* part : parts) {
      if (ContainsAggregate(*part)) {
        ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in WHERE",
                 part->pos);
      }
      Conjunct conjunct;
      conjunct.expr = BindExpr(*part, &scope, nullptr);
      RequireBoolean(conjunct.expr.get(), items, "WHERE");
      conjunct.text = ToSql(*part);
      conjuncts.push_back(std::move(conjunct));
    }
  }
  if (is_update) {
    for (const Assignment& assignment : statement.As<UpdateStmt>().assignments) {
      int found = -1;
      for (uint32_t col = 0; col < items[0].columns.size(); ++col) {
        if (items[0].columns[col].name == assignment.column.name &&
            !IsHiddenColumn(items[0].columns[col])) {
          found = static_cast<int>(col);
        }
      }
      if (found < 0) {
        ThrowSql(SqlState::kUndefinedColumn,
                 fmt::format("column \"{}\" of relation \"{}\" does not exist",
                             assignment.column.name, table->schema.name),
                 assignment.column.pos);
      }
      for (const auto& previous : modify->assignments) {
        if (previous.first == static_cast<uint32_t>(found)) {
          ThrowSql(SqlState::kSyntaxError,
                   fmt::format("multiple assignments to same column \"{}\"", assignment.column.name),
                   assignment.column.pos);
        }
      }
      if (ContainsAggregate(*assignment.value)) {
        ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in UPDATE",
                 assignment.value->pos);
      }
      BExprPtr value = BindExpr(*assignment.value, &scope, nullptr);
      CheckAssignment(*value, items[0].columns[found]);
      modify->assignments.emplace_back(static_cast<uint32_t>(found), std::move(value));
    }
  }
  // RETURNING: over the changed row (UPDATE) or the deleted one (DELETE).
  const std::vector<SelectItem>& returning =
      is_update ? statement.As<UpdateStmt>().returning : statement.As<DeleteStmt>().returning;
  for (const SelectItem& item : returning) {
    if (item.is_star()) {
      if (!item.star_table.empty() && item.star_table != items[0].alias) {
        ThrowSql(SqlState::kUndefinedTable,
                 fmt::format("missing FROM-clause entry for table \"{}\"", item.star_table),
                 item.pos);
      }
      for (uint32_t col = 0; col < items[0].columns.size(); ++col) {
        if (IsHiddenColumn(items[0].columns[col])) continue;
        BExprPtr expr = MakeExpr(BKind::kColumn, item.pos);
        expr->index = items[0].slot_base + col;
        SetColumnType(items[0], col, expr.get());
        modify->returning.push_back(std::move(expr));
        plan_->column_names.push_back(items[0].columns[col].name);
      }
      continue;
    }
    if (ContainsAggregate(*item.expr)) {
      ThrowSql(SqlState::kGroupingError, "aggregate functions are not allowed in RETURNING",
               item.expr->pos);
    }
    BExprPtr expr = BindExpr(*item.expr, &scope, nullptr);
    std::vector<bool> ignored;
    if (!MarkColumns(*expr, &ignored)) {
      ThrowSql(SqlState::kFeatureNotSupported, "a subquery in RETURNING is not supported",
               item.expr->pos);
    }
    modify->returning.push_back(std::move(expr));
    if (!item.alias.name.empty()) {
      plan_->column_names.push_back(item.alias.name);
    } else if (item.expr->kind == ExprKind::kColumnRef) {
      plan_->column_names.push_back(item.expr->As<ColumnRefExpr>().column);
    } else if (item.expr->kind == ExprKind::kFunction) {
      plan_->column_names.push_back(item.expr->As<FunctionExpr>().name);
    } else {
      plan_->column_names.push_back("?column?");
    }
  }
  PlanLevels(scan.get(), &items, &conjuncts, {});
  modify->scan = std::move(scan);
  plan_->modify = std::move(modify);
}

void Binder::Bind(const Statement& statement) {
  switch (statement.kind) {
    case StatementKind::kSelect: {
      Scope scope;
      plan_->select = BindSelect(statement.As<SelectStmt>(), &scope);
      plan_->column_names = plan_->select->names;
      break;
    }
    case StatementKind::kInsert:
    case StatementKind::kUpdate:
    case StatementKind::kDelete: {
      // WITH before the statement: visible to its subqueries and INSERT's
      // SELECT, as to a SELECT's.
      const std::vector<SelectStmt::CommonTable>& with =
          statement.kind == StatementKind::kInsert   ? statement.As<InsertStmt>().with
          : statement.kind == StatementKind::kUpdate ? statement.As<UpdateStmt>().with
                                                     : statement.As<DeleteStmt>().with;
      Scope scope;
      const size_t visible = PushWith(with, &scope);
      if (statement.kind == StatementKind::kInsert) {
        BindInsert(statement.As<InsertStmt>());
      } else {
        BindModify(statement);
      }
      ctes_.resize(visible);
      break;
    }
    case StatementKind::kExplain: Bind(*statement.As<ExplainStmt>().statement); break;
    default: break;  // DDL and transaction control run from the AST
  }
}

}  // namespace

void CheckDefault(const TxnView& view, const Expr& expr, const solo::ColumnDef& column) {
  CheckDefaultParts(expr);
  Plan plan;
  Binder binder(view, &plan);
  BExprPtr bound = binder.BindStandalone(expr);
  // The parts allowed are all immutable, so one evaluation tells what every
  // INSERT would get (PostgreSQL folds such a default at CREATE TABLE too).
  ExecEnv env;
  env.view = &view;
  Frame frame;
  frame.env = &env;
  Value scratch;
  const Value& value = Eval(*bound, frame, &scratch);
  // NULL is checked against NOT NULL by the INSERT, as in PostgreSQL.
  if (value.is_null()) return;
  solo::Value stored;
  try {
    ToEngine(value, column, &stored);
  } catch (const ExecFailure& failure) {
    ThrowSql(failure.error.state(), failure.error.message(), expr.pos);
  }
  if (!solo::check_value(column, stored).ok()) {
    bool text =
        column.type == Type::kChar || column.type == Type::kVarChar || column.type == Type::kText;
    ThrowSql(text ? SqlState::kStringDataRightTruncation : SqlState::kNumericValueOutOfRange,
             fmt::format("DEFAULT value does not fit column \"{}\"", column.name), expr.pos);
  }
}

void BindStatement(const TxnView& view, Plan* plan) {
  Binder binder(view, plan);
  const Statement& statement = *plan->parsed.statement;
  binder.Bind(statement);
  const Statement* inner = &statement;
  if (statement.kind == StatementKind::kExplain) {
    plan->explain = true;
    inner = statement.As<ExplainStmt>().statement.get();
    plan->column_names = {"QUERY PLAN"};
  }
  plan->kind = inner->kind;
  switch (inner->kind) {
    case StatementKind::kSelect: plan->statement_class = StatementClass::kRead; break;
    case StatementKind::kInsert:
    case StatementKind::kUpdate:
    case StatementKind::kDelete: plan->statement_class = StatementClass::kWrite; break;
    case StatementKind::kBegin:
    case StatementKind::kCommit:
    case StatementKind::kRollback: plan->statement_class = StatementClass::kTransaction; break;
    default: plan->statement_class = StatementClass::kDdl; break;
  }
  if (plan->explain) plan->statement_class = StatementClass::kRead;
  // Result columns of type CHAR(n) show their padding, as PostgreSQL's do.
  const std::vector<BExprPtr>* outputs = nullptr;
  if (plan->explain) {
    outputs = nullptr;
  } else if (plan->kind == StatementKind::kSelect && plan->select) {
    outputs = &plan->select->outputs;
  } else if (plan->modify) {
    outputs = &plan->modify->returning;
  }
  if (outputs != nullptr) {
    for (size_t col = 0; col < outputs->size(); ++col) {
      if (uint32_t length = (*outputs)[col]->bpchar_length; length > 0) {
        plan->padded_columns.emplace_back(static_cast<uint32_t>(col), length);
      }
    }
  }
}

}  // namespace solo::sql
