#include "generator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schema.h"

namespace solo::sql::differential {
namespace {

// A column as an expression sees it: its qualifier ("" when unqualified).
struct Ref {
  std::string qualifier;
  const Column* column;
  std::string Sql() const {
    return qualifier.empty() ? column->name : qualifier + "." + column->name;
  }
};

// The columns in scope of one query level, and what its subqueries may use.
struct Scope {
  std::vector<Ref> refs;
  int depth = 0;  // subquery nesting: none past 2
};

Scope ScopeOf(const Table& table, const std::string& qualifier) {
  Scope scope;
  for (const Column& column : table.columns) scope.refs.push_back({qualifier, &column});
  return scope;
}

std::vector<Ref> RefsOf(const Scope& scope, bool (*want)(Type)) {
  std::vector<Ref> found;
  for (const Ref& ref : scope.refs) {
    if (want(ref.column->type)) found.push_back(ref);
  }
  return found;
}

std::string Literal(Rng& rng, const Column& column) {
  return rng.Pick(*column.values);
}

std::string LiteralOf(Rng& rng, Type type) {
  switch (type) {
    case Type::kInt2:
      return rng.Pick(kInt2Values);
    case Type::kInt4:
      return rng.Pick(kSmallInt4Values);
    case Type::kInt8:
      return rng.Pick(kInt8Values);
    case Type::kNumeric:
      return rng.Pick(kNumeric102Values);
    case Type::kDouble:
      return rng.Pick(kDoubleValues);
    case Type::kChar:
      return rng.Pick(kCharValues);
    case Type::kVarchar:
    case Type::kText:
      return rng.Pick(kVarcharValues);
    case Type::kBool:
      return rng.Pick(kBoolValues);
    case Type::kTimestamp:
      return rng.Pick(kTimestampValues);
  }
  return "NULL";
}

class Gen {
 public:
  explicit Gen(Rng& rng) : rng_(rng) {}

  // A number literal, or one time in four the same as a string literal.
  std::string MaybeQuoted(const std::string& number) {
    return rng_.Chance(25) ? "'" + number + "'" : number;
  }

  std::string Pred(const Scope& scope, int depth);
  std::string Num(const Scope& scope, int depth);
  std::string Str(const Scope& scope, int depth);
  std::vector<Step> Statement();

 private:
  std::string Atom(const Scope& scope);
  std::string SubqueryPred(const Scope& scope);
  std::string SelectList(const Scope& scope, int* count);
  std::string BoolValue(const Scope& scope);
  std::string LimitedList(const Scope& scope, const std::string& limit, int* count);
  std::string OrderByAll(int count);
  std::string LimitOffset();
  std::vector<Step> SimpleSelect();
  std::vector<Step> KeyRange();
  std::vector<Step> Union();
  std::vector<Step> Aggregate();
  std::vector<Step> Join();
  std::vector<Step> Derived();
  std::vector<Step> Insert();
  std::vector<Step> Update();
  std::vector<Step> Delete();
  std::vector<Step> Failing();
  std::string Returning(const Table& table);
  std::string WhereOrNot(const Scope& scope) {
    return rng_.Chance(80) ? " WHERE " + Pred(scope, 0) : "";
  }

  Rng& rng_;
  // > 0 while a predicate or a RETURNING list is generated: its expressions
  // must not fail (no division by a zero, no arithmetic on int64 extremes),
  // because the engines evaluate AND and OR operands, and visit rows, in
  // different orders: which error comes first would differ (README.md).
  int no_fail_depth_ = 0;
};

// A number-valued expression. Integer columns are widened to BIGINT before
// arithmetic: PostgreSQL computes INTEGER and SMALLINT arithmetic in 32 and
// 16 bits, solo in 64 (README.md "Exclusions").
std::string Gen::Num(const Scope& scope, int depth) {
  std::vector<Ref> numbers = RefsOf(scope, IsNumber);
  const int choice = static_cast<int>(rng_.Below(depth > 1 ? 3 : 14));
  if (numbers.empty() || choice == 0)
    return LiteralOf(rng_, rng_.Chance(70) ? Type::kInt4 : Type::kNumeric);
  const Ref& ref = rng_.Pick(numbers);
  const Type type = ref.column->type;
  if (no_fail_depth_ > 0 && !ref.column->summable && choice != 5 && choice != 6) return ref.Sql();
  std::string widened =
      IsInteger(type) && type != Type::kInt8 ? "CAST(" + ref.Sql() + " AS BIGINT)" : ref.Sql();
  switch (choice) {
    case 1:
    case 2:
      return ref.Sql();
    case 3: {
      static const std::vector<std::string> kOps = {"+", "-", "*", "/", "%"};
      std::string op = rng_.Pick(kOps);
      if (type == Type::kNumeric && op == "/") op = "*";  // README.md: decimal division
      if (type == Type::kDouble && op == "%") op = "-";   // no % for DOUBLE in PostgreSQL
      static const std::vector<std::string> kSmall = {"1", "2", "3", "-2", "0", "7"};
      static const std::vector<std::string> kNonZero = {"1", "2", "3", "-2", "7"};
      const std::vector<std::string>& operands = no_fail_depth_ > 0 ? kNonZero : kSmall;
      // Only + and -, and not with the column of int64 extremes: c + n or
      // v * 99999999.99 would pass 64-bit DECIMAL units (README.md); the
      // right side of / may be a DECIMAL (README.md), of % a DOUBLE (no % in
      // PostgreSQL). Not where nothing may fail: the inner Num may return
      // the column of int64 extremes itself (t1.id + t1.c, 22003 in solo
      // for a row PostgreSQL's join order never evaluates; seed 1373).
      if (rng_.Chance(30) && no_fail_depth_ == 0 && type == Type::kInt8 && ref.column->summable &&
          (op == "+" || op == "-")) {
        return "(" + widened + " " + op + " " + Num(scope, depth + 1) + ")";
      }
      return "(" + widened + " " + op + " " + rng_.Pick(operands) + ")";
    }
    case 4:
      return "ABS(" + widened + ")";
    case 5:
      // Now and then the number as a string literal, which takes the
      // column's type: COALESCE(a, '5') is the integer 5.
      return "COALESCE(" + ref.Sql() + ", " + MaybeQuoted(LiteralOf(rng_, type)) + ")";
    case 6:
      return "LENGTH(" + Str(scope, depth + 1) + ")";
    case 7:
      return "CASE WHEN " + Pred(scope, depth + 1) + " THEN " + widened + " ELSE " +
             MaybeQuoted(type == Type::kDouble ? "0.5" : "-1") + " END";
    case 8:
      return "(-" + widened + ")";
    case 10: {
      // Where no failure is allowed, a type every value fits.
      static const std::vector<std::string> kIntegers = {"INTEGER", "SMALLINT", "BIGINT"};
      return "CAST(" + ref.Sql() + " AS " + (no_fail_depth_ > 0 ? "BIGINT" : rng_.Pick(kIntegers)) +
             ")";
    }
    case 11: {
      static const std::vector<std::string> kDecimals = {"NUMERIC(12,3)", "NUMERIC(5,1)",
                                                         "NUMERIC(18,0)"};
      return "CAST(" + ref.Sql() + " AS " +
             (no_fail_depth_ > 0 ? "NUMERIC(18,3)" : rng_.Pick(kDecimals)) + ")";
    }
    case 12:
      return "NULLIF(" + ref.Sql() + ", " + MaybeQuoted(LiteralOf(rng_, type)) + ")";
    case 13:
      return "CAST(" + ref.Sql() + " AS DOUBLE PRECISION)";
    default:
      return "(" + widened + " + " + widened + ")";
  }
}

std::string Gen::Str(const Scope& scope, int depth) {
  std::vector<Ref> strings = RefsOf(scope, IsString);
  const int choice = static_cast<int>(rng_.Below(depth > 1 ? 2 : 11));
  if (strings.empty() || choice == 0) return rng_.Pick(kTextValues);
  const std::string col = rng_.Pick(strings).Sql();
  switch (choice) {
    case 1:
    case 2:
      return col;
    case 3:
      return "UPPER(" + col + ")";
    case 4:
      return "LOWER(" + Str(scope, depth + 1) + ")";
    case 5:
      return "TRIM(" + col + ")";
    case 6: {
      static const std::vector<std::string> kStart = {"0", "1", "2", "-1", "3"};
      static const std::vector<std::string> kLength = {"0", "1", "2", "5"};
      std::string call = "SUBSTR(" + col + ", " + rng_.Pick(kStart);
      if (rng_.Chance(60)) call += ", " + rng_.Pick(kLength);
      return call + ")";
    }
    case 7:
      return "(" + col + " || " + Str(scope, depth + 1) + ")";
    case 9: {
      // Numbers as text (not timestamps: README.md "Exclusions").
      std::vector<Ref> numbers = RefsOf(scope, IsNumber);
      if (numbers.empty()) return col;
      return "CAST(" + rng_.Pick(numbers).Sql() + " AS TEXT)";
    }
    case 10:
      // An explicit cast cuts after the third character, never inside one.
      return "CAST(" + Str(scope, depth + 1) + " AS VARCHAR(3))";
    default: {
      // Not of a CHAR: PostgreSQL's COALESCE(c, 'x') is a bpchar whose rows
      // from c keep their padding, solo's is text (README.md "Exclusions").
      std::vector<Ref> others = RefsOf(scope, IsNonCharString);
      if (others.empty()) return col;
      return "COALESCE(" + rng_.Pick(others).Sql() + ", " + rng_.Pick(kVarcharValues) + ")";
    }
  }
}

// A comparison, IS NULL, IN, BETWEEN or LIKE over one column or expression.
std::string Gen::Atom(const Scope& scope) {
  static const std::vector<std::string> kCmp = {"=", "<>", "<", "<=", ">", ">=", "!="};
  const Ref& ref = rng_.Pick(scope.refs);
  const Column& column = *ref.column;
  const std::string col = ref.Sql();
  const std::string maybe_not = rng_.Chance(25) ? "NOT " : "";
  switch (rng_.Below(9)) {
    case 0:
      return col + " IS " + maybe_not + "NULL";
    case 1:
      if (column.type == Type::kBool) return rng_.Chance(50) ? col : "NOT " + col;
      return col + " " + rng_.Pick(kCmp) + " " + Literal(rng_, column);
    case 2: {
      if (column.type == Type::kBool) return col + " = " + rng_.Pick(kBoolValues);
      std::string list = Literal(rng_, column);
      const int more = static_cast<int>(rng_.Below(4));
      for (int item = 0; item < more; ++item) list += ", " + Literal(rng_, column);
      if (rng_.Chance(15)) list += ", NULL";
      return col + " " + maybe_not + "IN (" + list + ")";
    }
    case 3:
      if (column.type == Type::kBool) return col + " IS NOT NULL";
      return col + " " + maybe_not + "BETWEEN " + Literal(rng_, column) + " AND " +
             Literal(rng_, column);
    case 4: {
      static const std::vector<std::string> kPatterns = {
          "'a%'", "'%b'", "'_b%'", "'%\\%%'", "'a\\_%'", "'%'", "''", "'A%'", "'%a%'", "'__'"};
      std::vector<Ref> strings = RefsOf(scope, IsString);
      if (strings.empty()) return Num(scope, 1) + " > 0";
      std::string pattern = rng_.Pick(kPatterns);
      std::string like = rng_.Pick(strings).Sql() + " " + maybe_not + "LIKE " + pattern;
      if (rng_.Chance(10)) like = rng_.Pick(strings).Sql() + " LIKE 'a!%%' ESCAPE '!'";
      return like;
    }
    case 5:
      return Num(scope, 1) + " " + rng_.Pick(kCmp) + " " + Num(scope, 1);
    case 6:
      return Str(scope, 1) + " " + rng_.Pick(kCmp) + " " + Str(scope, 1);
    case 7:
      if (scope.depth < 2) return SubqueryPred(scope);
      return col + " IS NULL";
    default: {
      // Two columns of one kind compared with each other.
      for (const Ref& other : scope.refs) {
        if (&other != &ref && IsNumber(other.column->type) == IsNumber(column.type) &&
            IsString(other.column->type) == IsString(column.type) &&
            (other.column->type == column.type || IsNumber(column.type) || IsString(column.type)) &&
            rng_.Chance(40)) {
          return col + " " + rng_.Pick(kCmp) + " " + other.Sql();
        }
      }
      return col + " IS NOT NULL";
    }
  }
}

std::string Gen::Pred(const Scope& scope, int depth) {
  struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(d) { ++depth; }
    ~Nesting() { --depth; }
  } nesting(no_fail_depth_);
  if (depth >= 2) return Atom(scope);
  switch (rng_.Below(6)) {
    case 0:
      return "(" + Pred(scope, depth + 1) + " AND " + Pred(scope, depth + 1) + ")";
    case 1:
      return "(" + Pred(scope, depth + 1) + " OR " + Pred(scope, depth + 1) + ")";
    case 2:
      return "NOT (" + Pred(scope, depth + 1) + ")";
    default:
      return Atom(scope);
  }
}

// IN (SELECT ...), EXISTS (correlated), a scalar subquery.
std::string Gen::SubqueryPred(const Scope& scope) {
  const Table& inner = rng_.Pick(Tables());
  const std::string alias = "q" + std::to_string(scope.depth + 1);
  Scope inner_scope = ScopeOf(inner, alias);
  inner_scope.depth = scope.depth + 1;
  const std::string where = rng_.Chance(70) ? " WHERE " + Pred(inner_scope, 1) : "";
  const std::string from = " FROM " + inner.name + " " + alias;
  std::vector<Ref> outer_numbers = RefsOf(scope, IsNumber);
  std::vector<Ref> inner_numbers = RefsOf(inner_scope, IsNumber);
  // No CHAR: solo compares c IN (SELECT v ...) as text (README.md "Exclusions").
  std::vector<Ref> outer_strings = RefsOf(scope, IsNonCharString);
  std::vector<Ref> inner_strings = RefsOf(inner_scope, IsNonCharString);
  const std::string maybe_not = rng_.Chance(35) ? "NOT " : "";
  if (rng_.Chance(10) && !inner_numbers.empty()) {
    // NULL against an empty or non-empty subquery: FALSE or NULL.
    return "NULL " + maybe_not + "IN (SELECT " + rng_.Pick(inner_numbers).Sql() + from + where +
           ")";
  }
  switch (rng_.Below(4)) {
    case 0:
      if (!outer_strings.empty() && !inner_strings.empty()) {
        return rng_.Pick(outer_strings).Sql() + " " + maybe_not + "IN (SELECT " +
               rng_.Pick(inner_strings).Sql() + from + where + ")";
      }
      [[fallthrough]];
    case 1:
      if (!outer_numbers.empty() && !inner_numbers.empty()) {
        return rng_.Pick(outer_numbers).Sql() + " " + maybe_not + "IN (SELECT " +
               rng_.Pick(inner_numbers).Sql() + from + where + ")";
      }
      [[fallthrough]];
    case 2: {
      // Correlated: the inner level compares one of its columns with an outer one.
      std::string correlation;
      if (!outer_numbers.empty() && !inner_numbers.empty()) {
        correlation = rng_.Pick(inner_numbers).Sql() + " = " + rng_.Pick(outer_numbers).Sql();
      } else {
        correlation = "TRUE";
      }
      return maybe_not + "EXISTS (SELECT 1" + from + " WHERE " + correlation +
             (where.empty() ? "" : " AND " + where.substr(7)) + ")";
    }
    default: {
      if (outer_numbers.empty() || inner_numbers.empty()) return "TRUE";
      static const std::vector<std::string> kAgg = {"MIN", "MAX", "COUNT"};
      return rng_.Pick(outer_numbers).Sql() + " > (SELECT " + rng_.Pick(kAgg) + "(" +
             rng_.Pick(inner_numbers).Sql() + ")" + from + where + ")";
    }
  }
}

std::string Gen::SelectList(const Scope& scope, int* count) {
  const int items = 1 + static_cast<int>(rng_.Below(4));
  std::string list;
  for (int item = 0; item < items; ++item) {
    if (item > 0) list += ", ";
    switch (rng_.Below(6)) {
      case 0:
        list += Num(scope, 0);
        break;
      case 1:
        list += Str(scope, 1);
        break;
      case 2:
        list += BoolValue(scope);
        break;  // a BOOLEAN, or NULL
      default:
        list += rng_.Pick(scope.refs).Sql();
        break;
    }
  }
  *count = items;
  return list;
}

// A BOOLEAN (or NULL): a predicate, now and then matched with a string
// literal that both engines read as a boolean when they bind ('yes' = p,
// COALESCE(p, 'off'), a CASE of p and 'tr').
std::string Gen::BoolValue(const Scope& scope) {
  static const std::vector<std::string> kWords = {"'t'",  "'yes'", "'off'", "' No '",
                                                  "'1'",  "'0'",   "'tr'",  "'FALSE'",
                                                  "'of'", "'y'",   "'ON'",  "'f'"};
  const std::string pred = "(" + Pred(scope, 1) + ")";
  switch (rng_.Below(10)) {
    case 0:
      return pred + " = " + rng_.Pick(kWords);
    case 1:
      return rng_.Pick(kWords) + " <> " + pred;
    case 2:
      return "COALESCE(" + pred + ", " + rng_.Pick(kWords) + ")";
    case 3:
      return "CASE WHEN " + pred + " THEN " + rng_.Pick(kWords) + " ELSE " + pred + " END";
    case 4:
      return "NULLIF(" + pred + ", " + rng_.Pick(kWords) + ")";
    case 5:
      return pred + " IN (" + rng_.Pick(kWords) + ", " + rng_.Pick(kWords) + ")";
    default:
      return pred;
  }
}

// A select list that cannot fail when a LIMIT follows: PostgreSQL may read
// only the rows it needs (an index's order and an incremental sort), so a
// failing value in a row it never reads fails on solo alone.
std::string Gen::LimitedList(const Scope& scope, const std::string& limit, int* count) {
  if (!limit.empty()) ++no_fail_depth_;
  std::string list = SelectList(scope, count);
  if (!limit.empty()) --no_fail_depth_;
  return list;
}

std::string Gen::OrderByAll(int count) {
  std::string order = " ORDER BY ";
  for (int position = 1; position <= count; ++position) {
    if (position > 1) order += ", ";
    order += std::to_string(position) + (rng_.Chance(40) ? " DESC" : "");
  }
  return order;
}

std::string Gen::LimitOffset() {
  std::string text;
  if (rng_.Chance(60)) text += " LIMIT " + std::to_string(rng_.Below(12));
  if (rng_.Chance(30))
    text += (text.empty() ? " LIMIT 100 OFFSET " : " OFFSET ") + std::to_string(rng_.Below(8));
  return text;
}

std::vector<Step> Gen::SimpleSelect() {
  const Table& table = rng_.Pick(Tables());
  const Scope scope = ScopeOf(table, "");
  const bool ordered = rng_.Chance(50);
  const std::string limit = ordered ? LimitOffset() : "";
  int count = 0;
  std::string sql = "SELECT " + std::string(rng_.Chance(15) ? "DISTINCT " : "") +
                    LimitedList(scope, limit, &count) + " FROM " + table.name + WhereOrNot(scope);
  if (ordered) return {{sql + OrderByAll(count) + limit, true}};
  return {{sql, false}};
}

// Two or three arms over any tables joined by UNION, INTERSECT or EXCEPT,
// with or without ALL (INTERSECT binds tighter: the arms' grouping is the
// engines' to get right), each giving a number or a text at every position
// (the same shape); with three arms, now and then parentheses around two of
// them; sometimes as a WITH query, the whole sometimes ordered by every
// column and limited. Nothing in them may fail: which arm's row fails first
// is the engines' own order.
std::vector<Step> Gen::Union() {
  static const char* const kOps[] = {" UNION ALL ",     " UNION ",  " INTERSECT ",
                                     " INTERSECT ALL ", " EXCEPT ", " EXCEPT ALL "};
  static const int kOpWeights[] = {25, 20, 15, 10, 15, 15};
  const int width = 1 + static_cast<int>(rng_.Below(3));
  std::vector<bool> text(width);
  for (int col = 0; col < width; ++col) text[col] = rng_.Chance(40);
  const int arms = 2 + static_cast<int>(rng_.Below(2));
  ++no_fail_depth_;
  std::string sql;
  // Not t3 under a text column: its CHAR(4) q in the first arm makes the
  // column PostgreSQL's bpchar, which pads q's rows alone (sql/README.md
  // "UNION, INTERSECT and EXCEPT": solo pads only a column that is CHAR(n)
  // in every arm).
  const bool any_text = std::find(text.begin(), text.end(), true) != text.end();
  // 0: none; 1: (arm 0 OP arm 1) OP arm 2; 2: arm 0 OP (arm 1 OP arm 2).
  const int group = arms == 3 && rng_.Chance(30) ? 1 + static_cast<int>(rng_.Below(2)) : 0;
  for (int arm = 0; arm < arms; ++arm) {
    const Table& table = Tables()[rng_.Below(any_text ? 2 : Tables().size())];
    const Scope scope = ScopeOf(table, "");
    if (arm > 0) {
      int pick = static_cast<int>(rng_.Below(100));
      size_t op = 0;
      while (pick >= kOpWeights[op]) pick -= kOpWeights[op++];
      sql += kOps[op];
    }
    if ((group == 1 && arm == 0) || (group == 2 && arm == 1)) sql += "(";
    sql += "SELECT ";
    for (int col = 0; col < width; ++col) {
      if (col > 0) sql += ", ";
      sql += text[col] ? Str(scope, 1) : Num(scope, 0);
    }
    sql += " FROM " + table.name + WhereOrNot(scope);
    if ((group == 1 && arm == 1) || (group == 2 && arm == 2)) sql += ")";
  }
  --no_fail_depth_;
  // Now and then as a WITH query, read once or twice, or a derived table
  // or an IN subquery (whose text may begin with a parenthesis).
  const int wrap = static_cast<int>(rng_.Below(10));
  if (wrap < 3) {
    sql = "WITH w AS (" + sql + ") SELECT * FROM w" +
          (rng_.Chance(50) ? " UNION ALL SELECT * FROM w" : "");
  } else if (wrap < 5) {
    sql = "SELECT * FROM (" + sql + ") AS u";
  } else if (wrap < 6 && width == 1 && !text[0]) {
    // The operand may not fail either: PostgreSQL does not evaluate it
    // against an empty subquery, solo does.
    const Scope scope = ScopeOf(Tables()[0], "");
    ++no_fail_depth_;
    const std::string operand = Num(scope, 0);
    --no_fail_depth_;
    return {{"SELECT id FROM t1 WHERE " + operand + " IN (" + sql + ") ORDER BY id", true}};
  }
  if (rng_.Chance(50)) return {{sql + OrderByAll(width) + LimitOffset(), true}};
  return {{sql, false}};
}

// Bounds on indexed columns: one side, both, composite prefixes, IS NULL;
// ordered by an index's columns and the key, so that index-order scans run.
std::vector<Step> Gen::KeyRange() {
  static const std::vector<std::string> kCmp = {"=", "<", "<=", ">", ">="};
  const bool first = rng_.Chance(60);
  const Table& table = Tables()[first ? 0 : 1];
  std::string where;
  std::string order;
  auto bound = [&](const std::string& col, const std::vector<std::string>& values) {
    return col + " " + rng_.Pick(kCmp) + " " + rng_.Pick(values);
  };
  if (first) {
    switch (rng_.Below(8)) {
      case 0:
        where = bound("a", kSmallInt4Values);
        order = "a, s, id";
        break;
      case 1:
        where = bound("a", kSmallInt4Values) + " AND " + bound("a", kSmallInt4Values);
        order = "a DESC, id";
        break;
      case 2:
        where = "a = " + rng_.Pick(kSmallInt4Values) + " AND " +
                (rng_.Chance(25) ? "s IS NULL" : bound("s", kVarcharValues));
        order = "s, id";
        break;
      case 3:
        where = bound("b", kInt2Values);
        order = "b DESC, id";
        break;
      case 4:
        where = rng_.Chance(50) ? "b IS NULL" : "b IS NOT NULL";
        order = "b, id DESC";
        break;
      case 5:
        where = bound("n", kNumeric102Values) +
                (rng_.Chance(50) ? " AND " + bound("ts", kTimestampValues) : "");
        order = "n, ts DESC, id";
        break;
      case 6:
        where = "id BETWEEN " + rng_.Pick(kInt8Values) + " AND " + rng_.Pick(kInt8Values);
        order = "id DESC";
        break;
      default:
        where = bound("c", kWideInt8Values);
        order = "c";
        break;
    }
  } else {
    switch (rng_.Below(5)) {
      case 0:
        where = bound("k1", kSmallInt4Values);
        order = "k1, k2";
        break;
      case 1:
        where = "k1 = " + rng_.Pick(kSmallInt4Values) + " AND " + bound("k2", kKeyTextValues);
        order = "k2 DESC, k1";
        break;
      case 2:
        where = bound("x", kInt4Values);
        order = "x DESC, v, k1, k2";
        break;
      case 3:
        where = "x = " + rng_.Pick(kInt4Values) + " AND " + bound("v", kInt8Values);
        order = "v, k1, k2";
        break;
      default:
        where = bound("w", kNumeric63Values);
        order = "w, k1, k2";
        break;
    }
  }
  switch (rng_.Below(4)) {
    case 0:
      return {{"SELECT COUNT(*) FROM " + table.name + " WHERE " + where, false}};
    case 1:
      return {{"SELECT * FROM " + table.name + " WHERE " + where, false}};
    case 2: {
      std::vector<Step> steps = {
          {"DELETE FROM " + table.name + " WHERE " + where + " RETURNING *", false}};
      steps.push_back({"SELECT * FROM " + table.name, false});
      return steps;
    }
    default:
      return {
          {"SELECT * FROM " + table.name + " WHERE " + where + " ORDER BY " + order + LimitOffset(),
           true}};
  }
}

std::vector<Step> Gen::Aggregate() {
  const Table& table = rng_.Pick(Tables());
  const Scope scope = ScopeOf(table, "");
  std::vector<std::string> groups;
  const int group_count = static_cast<int>(rng_.Below(3));
  for (int group = 0; group < group_count; ++group) {
    const Ref& ref = rng_.Pick(scope.refs);
    if (ref.column->type != Type::kDouble) groups.push_back(ref.Sql());
  }
  std::string list;
  for (const std::string& group : groups) list += group + ", ";
  const int aggregates = 1 + static_cast<int>(rng_.Below(3));
  for (int agg = 0; agg < aggregates; ++agg) {
    if (agg > 0) list += ", ";
    const Ref& ref = rng_.Pick(scope.refs);
    switch (rng_.Below(6)) {
      case 0:
        list += "COUNT(*)";
        break;
      case 1:
        list += "COUNT(" + std::string(rng_.Chance(40) ? "DISTINCT " : "") + ref.Sql() + ")";
        break;
      case 2:
      case 3:
        if (IsNumber(ref.column->type) && ref.column->summable) {
          list += "SUM(" + ref.Sql() + ")";
        } else {
          list += "COUNT(" + ref.Sql() + ")";
        }
        break;
      default:
        // MIN/MAX of BOOLEAN does not exist in PostgreSQL (bool_and/bool_or).
        if (ref.column->type == Type::kBool) {
          list += "COUNT(*)";
        } else {
          list += std::string(rng_.Chance(50) ? "MIN(" : "MAX(") + ref.Sql() + ")";
        }
        break;
    }
  }
  std::string sql = "SELECT " + list + " FROM " + table.name + WhereOrNot(scope);
  if (!groups.empty()) {
    sql += " GROUP BY ";
    for (size_t group = 0; group < groups.size(); ++group)
      sql += (group > 0 ? ", " : "") + groups[group];
    if (rng_.Chance(40))
      sql +=
          rng_.Chance(50) ? " HAVING COUNT(*) > 1" : " HAVING MIN(" + groups[0] + ") IS NOT NULL";
  }
  if (rng_.Chance(50))
    return {{sql + OrderByAll(static_cast<int>(groups.size()) + aggregates) + LimitOffset(), true}};
  return {{sql, false}};
}

std::vector<Step> Gen::Join() {
  const std::vector<Table>& tables = Tables();
  Scope scope = ScopeOf(tables[0], "t1");
  Scope second = ScopeOf(tables[1], "t2");
  scope.refs.insert(scope.refs.end(), second.refs.begin(), second.refs.end());
  static const std::vector<std::string> kOn = {"t1.a = t2.k1", "t1.s = t2.k2", "t1.c = t2.v",
                                               "t1.b = t2.x", "t1.a = t2.k1 AND t1.s = t2.k2"};
  std::string from;
  bool third_joined = false;
  switch (rng_.Below(7)) {
    case 0:
      from = "t1 JOIN t2 ON " + rng_.Pick(kOn);
      break;
    case 1:
      from = "t1 LEFT JOIN t2 ON " + rng_.Pick(kOn) +
             (rng_.Chance(30) ? " AND " + Pred(second, 2) : "");
      break;
    case 2:
      from = "t1, t2";
      break;
    case 3:
      // t1 is the side that may be NULL; and written second, read first.
      from = rng_.Chance(50)
                 ? "t1 RIGHT JOIN t2 ON " + rng_.Pick(kOn) +
                       (rng_.Chance(30) ? " AND " + Pred(ScopeOf(tables[0], "t1"), 2) : "")
                 : "t2 RIGHT OUTER JOIN t1 ON " + rng_.Pick(kOn);
      break;
    case 4:
      third_joined = true;
      from = "t1 JOIN t2 ON " + rng_.Pick(kOn) + " LEFT JOIN t3 ON t3.g = t2.x";
      break;
    case 5:
      // Both sides may be NULL; an ON filter on either side only decides the match.
      from =
          "t1 FULL " + std::string(rng_.Chance(50) ? "OUTER " : "") + "JOIN t2 ON " +
          rng_.Pick(kOn) +
          (rng_.Chance(30) ? " AND " + Pred(rng_.Chance(50) ? second : ScopeOf(tables[0], "t1"), 2)
                           : "");
      break;
    default:
      third_joined = true;
      from = "t3 RIGHT JOIN (t1 JOIN t2 ON " + rng_.Pick(kOn) + ") ON t3.g = t2.x";
      break;
  }
  if (third_joined) {
    Scope third = ScopeOf(tables[2], "t3");
    scope.refs.insert(scope.refs.end(), third.refs.begin(), third.refs.end());
  }
  const std::string where =
      from == "t1, t2" ? " WHERE " + rng_.Pick(kOn) + " AND " + Pred(scope, 1) : WhereOrNot(scope);
  if (rng_.Chance(15)) return {{"SELECT COUNT(*), COUNT(t2.k1) FROM " + from + where, false}};
  const bool ordered = rng_.Chance(50);
  const std::string limit = ordered ? LimitOffset() : "";
  int count = 0;
  std::string sql = "SELECT " + LimitedList(scope, limit, &count) + " FROM " + from + where;
  if (ordered) return {{sql + OrderByAll(count) + limit, true}};
  return {{sql, false}};
}

std::vector<Step> Gen::Derived() {
  switch (rng_.Below(3)) {
    case 0:
      return {{"SELECT q.a, q.cnt FROM (SELECT a, COUNT(*) AS cnt FROM t1" +
                   WhereOrNot(ScopeOf(Tables()[0], "")) + " GROUP BY a) AS q WHERE q.cnt > " +
                   std::to_string(rng_.Below(3)),
               false}};
    case 1: {
      const Scope scope = ScopeOf(Tables()[0], "t1");
      return {{"SELECT t1.id, (SELECT MAX(t2.v) FROM t2 WHERE t2.k1 = t1.a) FROM t1" +
                   WhereOrNot(scope),
               false}};
    }
    default: {
      const Scope scope = ScopeOf(Tables()[1], "t2");
      return {
          {"SELECT t2.k1, t2.k2, (SELECT COUNT(*) FROM t1 WHERE t1.a = t2.k1 AND t1.s = t2.k2) "
           "FROM t2" +
               WhereOrNot(scope),
           false}};
    }
  }
}

// One row's values. `*faults` counts the deliberate faults left (NULL into
// NOT NULL, text too long): at most one per statement, because PostgreSQL
// converts every value (22001) before it checks NOT NULL (23502) while solo
// checks column by column (README.md "Known differences").
std::string RowValues(Rng& rng, const Table& table, int* faults) {
  std::string values;
  for (size_t col = 0; col < table.columns.size(); ++col) {
    const Column& column = table.columns[col];
    if (col > 0) values += ", ";
    if (column.nullable && rng.Chance(20)) {
      values += "NULL";
    } else if (*faults > 0 && rng.Chance(1)) {
      --*faults;
      values += "NULL";  // into NOT NULL too, now and then: 23502
    } else if (column.name == "id" && rng.Chance(85)) {
      values += std::to_string(rng.Between(-50, 10000));  // mostly new keys; some 23505
    } else if (column.type == Type::kChar && *faults > 0 && rng.Chance(3)) {
      --*faults;
      values += rng.Chance(50) ? "'abcde'" : "'abcd   '";  // 22001; trailing spaces cut
    } else if (column.type == Type::kVarchar && *faults > 0 && rng.Chance(3)) {
      --*faults;
      values +=
          rng.Chance(50) ? "'abcdefghijklm'" : "'abcdefghijkl  '";  // 22001; trailing spaces cut
    } else {
      values += Literal(rng, column);
    }
  }
  return values;
}

std::vector<Step> Gen::Insert() {
  const Table& table = rng_.Pick(Tables());
  if (table.name == "t3" && rng_.Chance(40)) {
    const Scope scope = ScopeOf(Tables()[0], "");
    if (rng_.Chance(30)) {
      return {{"WITH src AS (SELECT b, t, d, n FROM t1" + WhereOrNot(scope) +
                   ") INSERT INTO t3 SELECT * FROM src",
               false},
              {"SELECT * FROM t3", false}};
    }
    return {{"INSERT INTO t3 SELECT b, t, d, n FROM t1" + WhereOrNot(scope), false},
            {"SELECT * FROM t3", false}};
  }
  // Deliberate faults in one-row INSERTs only: PostgreSQL converts all rows'
  // constants (22001) before it inserts the first (23505).
  const bool two_rows = rng_.Chance(30);
  int faults = two_rows ? 0 : 1;
  std::string sql =
      "INSERT INTO " + table.name + " VALUES (" + RowValues(rng_, table, &faults) + ")";
  if (two_rows) sql += ", (" + RowValues(rng_, table, &faults) + ")";
  return {{sql, false}, {"SELECT * FROM " + table.name, false}};
}

std::string Gen::Returning(const Table& table) {
  if (!rng_.Chance(60)) return "";
  if (rng_.Chance(50)) return " RETURNING *";
  Scope scope = ScopeOf(table, "");
  scope.depth = 2;  // no subqueries: solo refuses them in RETURNING (0A000)
  int count = 0;
  ++no_fail_depth_;
  std::string list = SelectList(scope, &count);
  --no_fail_depth_;
  return " RETURNING " + list;
}

// A value for `column` computed from the row: assignments that overflow or
// do not fit fail the same way on both engines (22003, 22001).
std::vector<Step> Gen::Update() {
  const Table& table = rng_.Pick(Tables());
  const Scope scope = ScopeOf(table, "");
  std::vector<const Column*> settable;
  for (const Column& column : table.columns) {
    if (!column.key) settable.push_back(&column);
  }
  std::string sets;
  const int set_count = 1 + static_cast<int>(rng_.Below(2));
  for (int set = 0; set < set_count; ++set) {
    const Column& column = *rng_.Pick(settable);
    // One assignment that can fail per statement: which error comes first
    // depends on the order the engines visit rows in (README.md).
    const bool cannot_fail =
        column.nullable && (column.type == Type::kDouble || column.type == Type::kText ||
                            column.type == Type::kTimestamp);
    if (set > 0 && !cannot_fail) break;
    std::string value;
    if (rng_.Chance(30) || column.name == "c") {
      value = column.nullable && rng_.Chance(20) ? "NULL" : Literal(rng_, column);
    } else if (IsInteger(column.type)) {
      // Integer expressions only: PostgreSQL gives CASE and COALESCE their
      // branches' common type (0.5 among DOUBLEs is a DOUBLE, stored as
      // rint(0.5) = 0), solo each branch's own (a DECIMAL 0.5, stored as 1).
      value = "CAST(" + column.name + " AS BIGINT) " + (rng_.Chance(50) ? "+ " : "* ") +
              rng_.Pick(kSmallInt4Values);
    } else if (column.type == Type::kNumeric) {
      value = rng_.Chance(50) ? column.name + " * 2"
                              : column.name + " + " + rng_.Pick(kNumeric63Values);
    } else if (column.type == Type::kDouble) {
      value = column.name + " * 2.5";
    } else if (IsString(column.type)) {
      value = Str(scope, 1);
      // Constants longer than a CHAR(4) ('hello world') are 22001 in
      // PostgreSQL when it plans, even with no row to update, and in solo
      // only for a row (README.md "Exclusions"): the CHAR gets a cut value,
      // or one with its own column in it, evaluated per row on both.
      if (column.type == Type::kChar) {
        value = rng_.Chance(50) ? "SUBSTR(" + value + ", 1, 4)"
                                : "(" + column.name + " || " + value + ")";
      }
    } else if (column.type == Type::kBool) {
      value = "NOT " + column.name;
    } else {
      value = Literal(rng_, column);
    }
    sets += (set > 0 ? ", " : "") + column.name + " = " + value;
  }
  if (rng_.Chance(20)) {
    // WITH before the UPDATE, reading the table it changes: its rows as
    // they were before the statement, on both.
    const std::string& key = table.columns[0].name;
    return {{"WITH w AS (SELECT " + key + " FROM " + table.name + " WHERE " + Pred(scope, 0) +
                 ") UPDATE " + table.name + " SET " + sets + " WHERE " + key + " IN (SELECT " +
                 key + " FROM w)" + Returning(table),
             false},
            {"SELECT * FROM " + table.name, false}};
  }
  return {{"UPDATE " + table.name + " SET " + sets + WhereOrNot(scope) + Returning(table), false},
          {"SELECT * FROM " + table.name, false}};
}

std::vector<Step> Gen::Delete() {
  const Table& table = rng_.Pick(Tables());
  const Scope scope = ScopeOf(table, "");
  if (rng_.Chance(20)) {
    const std::string& key = table.columns[0].name;
    return {{"WITH d (dk) AS (SELECT " + key + " FROM " + table.name + " WHERE " + Pred(scope, 0) +
                 ") DELETE FROM " + table.name + " WHERE " + key + " IN (SELECT dk FROM d)" +
                 Returning(table),
             false},
            {"SELECT * FROM " + table.name, false}};
  }
  return {{"DELETE FROM " + table.name + " WHERE " + Pred(scope, 0) + Returning(table), false},
          {"SELECT * FROM " + table.name, false}};
}

// Statements that must fail, each with PostgreSQL's SQLSTATE.
std::vector<Step> Gen::Failing() {
  static const std::vector<std::string> kFailing = {
      "SELECT nosuch FROM t1",                            // 42703
      "SELECT * FROM nosuch",                             // 42P01
      "SELECT id FROM t1, t1 AS u",                       // 42702
      "SELECT * FROM t1 WHERE a",                         // 42804, also on an empty table
      "DELETE FROM t2 WHERE k2 || 'x'",                   // 42804
      "SELECT * FROM t1 JOIN t2 ON t2.x + 1 WHERE TRUE",  // 42804
      "SELECT COUNT(*) FROM t1 WHERE SUM(a) > 1",         // 42803
      "SELECT a, COUNT(*) FROM t1 GROUP BY b",            // 42803
      "SELECT (SELECT k1 FROM t2) FROM t1",               // 21000 when t2 has 2+ rows
      "SELECT 1 / 0",                                     // 22012
      "SELECT a % 0 FROM t1",                             // 22012 when t1 has rows
      "SELECT CAST('abc' AS INTEGER)",                    // 22P02
      "SELECT CAST(2147483648 AS INTEGER)",               // 22003
      "SELECT nosuchfn(1)",                               // 42883
      "SELECT UPPER('a', 'b')",                           // 42883
      "SELECT FROM WHERE",                                // 42601
      "SELECT a FROM t1 WHERE a = = 1",                   // 42601
      "SELECT SUBSTR('abc', 1, -1)",                      // 22011
      "SELECT a FROM t1 ORDER BY 0",                      // 42P10
      "SELECT a FROM t1 ORDER BY 2",                      // 42P10
      "SELECT 9223372036854775807 + CAST(1 AS BIGINT)",   // 22003
      "SELECT -CAST(-9223372036854775808 AS BIGINT)",     // 22003
      "SELECT CAST('2024-02-30' AS TIMESTAMP)",           // 22008
      "SELECT CAST('2024-13-01' AS TIMESTAMP)",           // 22008
      "SELECT CAST('noon' AS TIMESTAMP)",                 // 22007
      "SELECT 'ab' LIKE 'a\\'",  // 22025 (PostgreSQL only when matching reaches the end)
      "UPDATE t1 SET a = NULL",  // 23502 when t1 has rows
      "INSERT INTO t2 VALUES (1, 'toolongkey', 1, 1, 1)",  // 22001
      "INSERT INTO t2 (k1, k2) VALUES (1, 'a')",           // 23502: w is NOT NULL
      "UPDATE t2 SET w = w + 1000",                        // 22003 when t2 has rows
      "SELECT * FROM t1 LIMIT a",                          // 42P10
      "SELECT * FROM t1 WHERE s > 1",                      // 42883 (solo too, since session 41)
      "SELECT * FROM t1 WHERE a = 'x'",                    // 22P02
      // An untyped literal takes the type of the values it is matched
      // with, when the statement is bound (also on an empty table).
      "SELECT COALESCE(a, 'z') FROM t1",                            // 22P02
      "SELECT CASE WHEN id > 0 THEN 'x' ELSE b END FROM t1",        // 22P02
      "SELECT NULLIF('z', c) FROM t1",                              // 22P02
      "SELECT COALESCE(ts, '2024-02-30') FROM t1",                  // 22008
      "SELECT COALESCE(a, CASE WHEN id > 0 THEN '1' END) FROM t1",  // 42804: that CASE is text
      // Text of a known type stored into a number or a timestamp, a number
      // into a timestamp: no assignment cast in PostgreSQL.
      "UPDATE t1 SET a = s",                                 // 42804
      "UPDATE t1 SET ts = a",                                // 42804
      "UPDATE t2 SET w = k2 || '1'",                         // 42804
      "INSERT INTO t2 (k1, k2, w) SELECT id, s, t FROM t1",  // 42804
      "INSERT INTO t3 (g) VALUES (UPPER('1'))",              // 42804
      // A string literal that meets a BOOLEAN is read as one (session 44;
      // solo gave 'x' or 42883), and a BOOLEAN is matched with no other type.
      "SELECT CASE WHEN id > 0 THEN 'x' ELSE a > 0 END FROM t1",  // 22P02
      "SELECT (a > 0) = 'maybe' FROM t1",                         // 22P02
      "SELECT COALESCE(s IS NULL, 'o') FROM t1",                  // 22P02: on or off?
      "SELECT * FROM t2 WHERE (x > 0) IN ('t', 'x')",             // 22P02
      "SELECT * FROM t3 WHERE 'nope'",                            // 22P02
      "SELECT NULLIF('x', g > 0) FROM t3",                        // 22P02
      "SELECT * FROM t1 WHERE (a > 0) = a",                       // 42883
      "SELECT COALESCE(b, b > 0) FROM t1",                        // 42804
      "UPDATE t2 SET v = (x > 0)",                                // 42804
  };
  return {{rng_.Pick(kFailing), false}};
}

std::vector<Step> Gen::Statement() {
  const uint64_t kind = rng_.Below(100);
  if (kind < 16) return SimpleSelect();
  if (kind < 31) return KeyRange();
  if (kind < 43) return Aggregate();
  if (kind < 55) return Join();
  if (kind < 60) return Derived();
  if (kind < 65) return Union();
  if (kind < 72) return Insert();
  if (kind < 82) return Update();
  if (kind < 88) return Delete();
  return Failing();
}

}  // namespace

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<Step> SetupSteps(Rng& rng) {
  std::vector<Step> steps;
  for (const Table& table : Tables()) {
    steps.push_back({table.create, false});
    for (const std::string& index : table.indexes) steps.push_back({index, false});
  }
  for (const Table& table : Tables()) {
    const int64_t rows = rng.Between(10, 60);
    for (int64_t row = 0; row < rows; ++row) {
      int faults = 1;
      steps.push_back(
          {"INSERT INTO " + table.name + " VALUES (" + RowValues(rng, table, &faults) + ")",
           false});
    }
    steps.push_back({"SELECT * FROM " + table.name, false});
  }
  return steps;
}

std::vector<Step> NextSteps(Rng& rng) {
  Gen gen(rng);
  return gen.Statement();
}

}  // namespace solo::sql::differential
