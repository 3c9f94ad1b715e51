#include "exec/value_ops.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "utf8.h"

namespace solo::sql {

const int64_t kPow10[19] = {1LL,
                            10LL,
                            100LL,
                            1000LL,
                            10000LL,
                            100000LL,
                            1000000LL,
                            10000000LL,
                            100000000LL,
                            1000000000LL,
                            10000000000LL,
                            100000000000LL,
                            1000000000000LL,
                            10000000000000LL,
                            100000000000000LL,
                            1000000000000000LL,
                            10000000000000000LL,
                            100000000000000000LL,
                            1000000000000000000LL};

void ThrowSql(SqlState state, std::string message, SourcePos pos) {
  throw ExecFailure{SqlError(state, std::move(message), pos)};
}

namespace {

[[noreturn]] void Overflow(SourcePos pos, std::string_view what = "numeric") {
  ThrowSql(SqlState::kNumericValueOutOfRange, fmt::format("{} value out of range", what), pos);
}

// Divides with rounding half away from zero.
__int128 DivRound(__int128 num, __int128 den) {
  __int128 quot = num / den;
  __int128 rem = num % den;
  if (rem != 0) {
    __int128 twice = rem < 0 ? -rem * 2 : rem * 2;
    __int128 abs_den = den < 0 ? -den : den;
    if (twice >= abs_den) quot += ((num < 0) != (den < 0)) ? -1 : 1;
  }
  return quot;
}

bool FitsInt64(__int128 value) { return value >= INT64_MIN && value <= INT64_MAX; }

double ToDouble(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kInt: return static_cast<double>(value.as_int());
    case ValueKind::kDecimal:
      return static_cast<double>(value.units()) / static_cast<double>(kPow10[value.scale()]);
    case ValueKind::kDouble: return value.as_double();
    default: return 0;
  }
}

// Numeric value as (units, scale).
void AsDecimal(const Value& value, int64_t* units, int* scale) {
  if (value.kind() == ValueKind::kDecimal) {
    *units = value.units();
    *scale = value.scale();
  } else {
    *units = value.as_int();
    *scale = 0;
  }
}

std::string_view KindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull: return "unknown";
    case ValueKind::kBool: return "boolean";
    case ValueKind::kInt: return "integer";
    case ValueKind::kDecimal: return "numeric";
    case ValueKind::kDouble: return "double precision";
    case ValueKind::kText: return "text";
    case ValueKind::kTimestamp: return "timestamp";
  }
  return "?";
}

// Reads text as a timestamp, or fails the statement: 22007 for text of
// another shape, 22008 for a time that does not exist (as PostgreSQL).
int64_t TimestampOrThrow(std::string_view text, SourcePos pos) {
  int64_t micros = 0;
  switch (ParseTimestamp(text, &micros)) {
    case TimestampParse::kOk:
      return micros;
    case TimestampParse::kFieldOutOfRange:
      ThrowSql(SqlState::kDatetimeFieldOverflow,
               fmt::format("date/time field value out of range: \"{}\"", text), pos);
    case TimestampParse::kBadSyntax:
      break;
  }
  ThrowSql(SqlState::kInvalidDatetimeFormat,
           fmt::format("invalid input syntax for type timestamp: \"{}\"", text), pos);
}

int Sign(int64_t diff) { return diff < 0 ? -1 : diff > 0 ? 1 : 0; }

int CompareNumbers(const Value& left, const Value& right) {
  if (left.kind() == ValueKind::kDouble || right.kind() == ValueKind::kDouble) {
    double l = ToDouble(left), r = ToDouble(right);
    return l < r ? -1 : l > r ? 1 : 0;
  }
  int64_t lu, ru;
  int ls, rs;
  AsDecimal(left, &lu, &ls);
  AsDecimal(right, &ru, &rs);
  if (ls == rs) return lu < ru ? -1 : lu > ru ? 1 : 0;
  __int128 l = lu, r = ru;
  if (ls < rs) l *= kPow10[rs - ls];
  else r *= kPow10[ls - rs];
  return l < r ? -1 : l > r ? 1 : 0;
}

}  // namespace

bool IsNumeric(const Value& value) {
  return value.kind() == ValueKind::kInt || value.kind() == ValueKind::kDecimal ||
         value.kind() == ValueKind::kDouble;
}

int CompareValues(const Value& left, const Value& right, SourcePos pos) {
  if (IsNumeric(left) && IsNumeric(right)) return CompareNumbers(left, right);
  if (left.kind() == right.kind()) {
    switch (left.kind()) {
      case ValueKind::kText: {
        int cmp = left.as_text().compare(right.as_text());
        return cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
      }
      case ValueKind::kBool:
      case ValueKind::kTimestamp: return Sign(left.as_int() - right.as_int());
      default: break;
    }
  }
  // Text against a number, timestamp or boolean: the text is read as that
  // type (as PostgreSQL reads an untyped literal or parameter; a literal
  // met a boolean already when it was bound).
  if (left.kind() == ValueKind::kText && IsNumeric(right)) {
    return CompareNumbers(ParseNumericText(left.as_text(), pos), right);
  }
  if (right.kind() == ValueKind::kText && IsNumeric(left)) {
    return CompareNumbers(left, ParseNumericText(right.as_text(), pos));
  }
  if (left.kind() == ValueKind::kText &&
      (right.kind() == ValueKind::kTimestamp || right.kind() == ValueKind::kBool)) {
    return -CompareValues(right, left, pos);
  }
  if (left.kind() == ValueKind::kBool && right.kind() == ValueKind::kText) {
    return Sign(left.as_int() - ParseBoolText(right.as_text(), pos).as_int());
  }
  if (left.kind() == ValueKind::kTimestamp && right.kind() == ValueKind::kText) {
    int64_t micros = TimestampOrThrow(right.as_text(), pos);
    return left.as_int() < micros ? -1 : left.as_int() > micros ? 1 : 0;
  }
  ThrowSql(SqlState::kUndefinedFunction,
           fmt::format("cannot compare {} with {}", KindName(left.kind()), KindName(right.kind())),
           pos);
}

bool Rescale(int64_t units, int from_scale, int to_scale, int64_t* out) {
  if (to_scale == from_scale) {
    *out = units;
    return true;
  }
  if (to_scale > from_scale) {
    __int128 scaled = static_cast<__int128>(units) * kPow10[to_scale - from_scale];
    if (!FitsInt64(scaled)) return false;
    *out = static_cast<int64_t>(scaled);
    return true;
  }
  *out = static_cast<int64_t>(DivRound(units, kPow10[from_scale - to_scale]));
  return true;
}

void Negate(const Value& operand, Value* out, SourcePos pos) {
  switch (operand.kind()) {
    case ValueKind::kInt:
      if (operand.as_int() == INT64_MIN) Overflow(pos, "bigint");
      out->SetInt(-operand.as_int());
      return;
    case ValueKind::kDecimal:
      if (operand.units() == INT64_MIN) Overflow(pos);
      out->SetDecimal(-operand.units(), operand.scale());
      return;
    case ValueKind::kDouble: out->SetDouble(-operand.as_double()); return;
    case ValueKind::kText: {
      Value number = ParseNumericText(operand.as_text(), pos);
      Negate(number, out, pos);
      return;
    }
    default:
      ThrowSql(SqlState::kUndefinedFunction,
               fmt::format("operator does not exist: - {}", KindName(operand.kind())), pos);
  }
}

void DivideDecimal(__int128 lu, int ls, __int128 ru, int rs, Value* out, SourcePos pos) {
  int scale = std::min(kMaxDecimalScale, std::max(ls, rs) + 6);
  // lu/10^ls / (ru/10^rs) * 10^scale = lu * 10^(scale - ls + rs) / ru
  int shift = scale - ls + rs;
  __int128 num = lu;
  __int128 den = ru;
  while (shift > 0) {
    int step = std::min(shift, 18);
    if (num > (static_cast<__int128>(1) << 100) / kPow10[step] ||
        num < -(static_cast<__int128>(1) << 100) / kPow10[step]) {
      Overflow(pos);
    }
    num *= kPow10[step];
    shift -= step;
  }
  if (shift < 0) den *= kPow10[-shift];
  __int128 result = DivRound(num, den);
  while (!FitsInt64(result) && scale > 0) {
    result = DivRound(result, 10);
    --scale;
  }
  if (!FitsInt64(result)) Overflow(pos);
  out->SetDecimal(static_cast<int64_t>(result), scale);
}

void Arithmetic(BinaryOp op, const Value& left_in, const Value& right_in, Value* out,
                SourcePos pos) {
  const Value* left = &left_in;
  const Value* right = &right_in;
  Value left_number, right_number;
  if (left->kind() == ValueKind::kText && IsNumeric(*right)) {
    left_number = ParseNumericText(left->as_text(), pos);
    left = &left_number;
  }
  if (right->kind() == ValueKind::kText && IsNumeric(*left)) {
    right_number = ParseNumericText(right->as_text(), pos);
    right = &right_number;
  }
  if (!IsNumeric(*left) || !IsNumeric(*right)) {
    const char* name = op == BinaryOp::kAdd   ? "+"
                       : op == BinaryOp::kSub ? "-"
                       : op == BinaryOp::kMul ? "*"
                       : op == BinaryOp::kDiv ? "/"
                                              : "%";
    ThrowSql(SqlState::kUndefinedFunction,
             fmt::format("operator does not exist: {} {} {}", KindName(left->kind()), name,
                         KindName(right->kind())),
             pos);
  }
  if (left->kind() == ValueKind::kDouble || right->kind() == ValueKind::kDouble) {
    double l = ToDouble(*left), r = ToDouble(*right), result = 0;
    switch (op) {
      case BinaryOp::kAdd: result = l + r; break;
      case BinaryOp::kSub: result = l - r; break;
      case BinaryOp::kMul: result = l * r; break;
      case BinaryOp::kDiv:
        if (r == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
        result = l / r;
        break;
      default:
        if (r == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
        result = std::fmod(l, r);
        break;
    }
    if (!std::isfinite(result)) Overflow(pos, "double precision");
    out->SetDouble(result);
    return;
  }
  if (left->kind() == ValueKind::kInt && right->kind() == ValueKind::kInt) {
    int64_t l = left->as_int(), r = right->as_int(), result = 0;
    bool overflow = false;
    switch (op) {
      case BinaryOp::kAdd: overflow = __builtin_add_overflow(l, r, &result); break;
      case BinaryOp::kSub: overflow = __builtin_sub_overflow(l, r, &result); break;
      case BinaryOp::kMul: overflow = __builtin_mul_overflow(l, r, &result); break;
      case BinaryOp::kDiv:
        if (r == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
        if (l == INT64_MIN && r == -1) overflow = true;
        else result = l / r;
        break;
      default:
        if (r == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
        result = r == -1 ? 0 : l % r;
        break;
    }
    if (overflow) Overflow(pos, "bigint");
    out->SetInt(result);
    return;
  }
  int64_t lu, ru;
  int ls, rs;
  AsDecimal(*left, &lu, &ls);
  AsDecimal(*right, &ru, &rs);
  __int128 result = 0;
  int scale = 0;
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: {
      scale = std::max(ls, rs);
      __int128 l = static_cast<__int128>(lu) * kPow10[scale - ls];
      __int128 r = static_cast<__int128>(ru) * kPow10[scale - rs];
      result = op == BinaryOp::kAdd ? l + r : l - r;
      break;
    }
    case BinaryOp::kMul: {
      result = static_cast<__int128>(lu) * ru;
      scale = ls + rs;
      if (scale > kMaxDecimalScale) {
        result = DivRound(result, kPow10[scale - kMaxDecimalScale]);
        scale = kMaxDecimalScale;
      }
      // Keep as many fraction digits as fit.
      while (!FitsInt64(result) && scale > std::max(ls, rs)) {
        result = DivRound(result, 10);
        --scale;
      }
      break;
    }
    case BinaryOp::kDiv:
      if (ru == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
      DivideDecimal(lu, ls, ru, rs, out, pos);
      return;
    default: {  // kMod
      if (ru == 0) ThrowSql(SqlState::kDivisionByZero, "division by zero", pos);
      scale = std::max(ls, rs);
      __int128 l = static_cast<__int128>(lu) * kPow10[scale - ls];
      __int128 r = static_cast<__int128>(ru) * kPow10[scale - rs];
      result = l % r;
      break;
    }
  }
  if (!FitsInt64(result)) Overflow(pos);
  out->SetDecimal(static_cast<int64_t>(result), scale);
}

void Concat(const Value& left, const Value& right, Value* out) {
  std::string text = left.kind() == ValueKind::kText ? left.as_text() : left.ToString();
  text += right.kind() == ValueKind::kText ? right.as_text() : right.ToString();
  out->SetText(text);
}

Value ParseNumber(std::string_view text, SourcePos pos, bool negative) {
  bool is_float = text.find_first_of("eE") != std::string_view::npos;
  if (is_float) {
    std::string copy(text);
    errno = 0;
    double value = std::strtod(copy.c_str(), nullptr);
    if (errno == ERANGE || !std::isfinite(value)) Overflow(pos, "double precision");
    return Value::Double(negative ? -value : value);
  }
  // An integer's magnitude may reach 2^63 if negative; a DECIMAL's units stay
  // within INT64_MAX either way (checked after the loop).
  const __int128 max_units = static_cast<__int128>(INT64_MAX) + (negative ? 1 : 0);
  __int128 units = 0;
  int scale = 0;
  bool after_dot = false;
  bool past_scale = false;  // a digit beyond kMaxDecimalScale places was seen
  for (char ch : text) {
    if (ch == '.') {
      after_dot = true;
      continue;
    }
    if (ch < '0' || ch > '9') {
      ThrowSql(SqlState::kInvalidTextRepresentation,
               fmt::format("invalid input syntax for type numeric: \"{}\"", text), pos);
    }
    if (after_dot) {
      if (scale == kMaxDecimalScale) {
        // Round half away from zero (the literal has no sign here): only the
        // first dropped digit decides, as with a cast to DECIMAL(p, 18).
        if (!past_scale && ch >= '5') ++units;
        past_scale = true;
        continue;
      }
      ++scale;
    }
    units = units * 10 + (ch - '0');
    if (units > max_units) Overflow(pos);
  }
  if (units > (after_dot ? INT64_MAX : max_units)) Overflow(pos);
  if (negative) units = -units;
  if (!after_dot) return Value::Int(static_cast<int64_t>(units));
  return Value::Decimal(static_cast<int64_t>(units), scale);
}

Value ParseNumericText(std::string_view text, SourcePos pos, std::string_view type_name) {
  std::string_view trimmed = text;
  while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
  bool negative = false;
  if (!trimmed.empty() && (trimmed.front() == '-' || trimmed.front() == '+')) {
    negative = trimmed.front() == '-';
    trimmed.remove_prefix(1);
  }
  // digits [. digits] [(e|E) [+|-] digits], a digit before or after the dot:
  // '1.2.3', '1e', '1e5e5' and '1-2' are no numbers (as in PostgreSQL), not
  // read up to where they stop making sense.
  size_t at = 0;
  auto skip_digits = [&] {  // returns how many it skipped
    const size_t from = at;
    while (at < trimmed.size() && trimmed[at] >= '0' && trimmed[at] <= '9') ++at;
    return at - from;
  };
  size_t mantissa_digits = skip_digits();
  if (at < trimmed.size() && trimmed[at] == '.') {
    ++at;
    mantissa_digits += skip_digits();
  }
  bool valid = mantissa_digits > 0;
  if (valid && at < trimmed.size() && (trimmed[at] == 'e' || trimmed[at] == 'E')) {
    ++at;
    if (at < trimmed.size() && (trimmed[at] == '+' || trimmed[at] == '-')) ++at;
    valid = skip_digits() > 0;
  }
  if (!valid || at != trimmed.size()) {
    ThrowSql(SqlState::kInvalidTextRepresentation,
             fmt::format("invalid input syntax for type {}: \"{}\"", type_name, text), pos);
  }
  return ParseNumber(trimmed, pos, negative);
}

Value ParseBoolText(std::string_view text, SourcePos pos) {
  // PostgreSQL's boolin: white space around the word is ignored, case is
  // not; a word may be cut to a prefix where the prefix names one word
  // ('t', 'tr', 'ye', 'of'), but 'o' alone could be on or off.
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  std::string_view word = text;
  const size_t first = word.find_first_not_of(kSpace);
  word = first == std::string_view::npos ? std::string_view() : word.substr(first);
  word = word.substr(0, word.find_last_not_of(kSpace) + 1);
  auto is_prefix_of = [&](std::string_view full, size_t min_length) {
    if (word.size() < min_length || word.size() > full.size()) return false;
    for (size_t idx = 0; idx < word.size(); ++idx) {
      if (std::tolower(static_cast<unsigned char>(word[idx])) != full[idx]) return false;
    }
    return true;
  };
  if (is_prefix_of("true", 1) || is_prefix_of("yes", 1) || is_prefix_of("on", 2) || word == "1") {
    return Value::Bool(true);
  }
  if (is_prefix_of("false", 1) || is_prefix_of("no", 1) || is_prefix_of("off", 2) || word == "0") {
    return Value::Bool(false);
  }
  ThrowSql(SqlState::kInvalidTextRepresentation,
           fmt::format("invalid input syntax for type boolean: \"{}\"", text), pos);
}

solo::ColumnDef ColumnForType(const TypeName& type) {
  solo::ColumnDef column;
  switch (type.kind) {
    case TypeName::Kind::kSmallInt: column.type = Type::kSmallInt; break;
    case TypeName::Kind::kInteger: column.type = Type::kInteger; break;
    case TypeName::Kind::kBigInt: column.type = Type::kBigInt; break;
    case TypeName::Kind::kTimestamp: column.type = Type::kTimestamp; break;
    case TypeName::Kind::kDouble:
    case TypeName::Kind::kReal: column.type = Type::kDouble; break;
    case TypeName::Kind::kText: column.type = Type::kText; break;
    case TypeName::Kind::kBoolean:
      column.type = Type::kBoolean;
      break;
    case TypeName::Kind::kChar:
      column.type = Type::kChar;
      column.length = type.length < 0 ? 1 : static_cast<uint32_t>(type.length);
      break;
    case TypeName::Kind::kVarchar:
      if (type.length < 0) {
        column.type = Type::kText;
      } else {
        column.type = Type::kVarChar;
        column.length = static_cast<uint32_t>(type.length);
      }
      break;
    case TypeName::Kind::kDecimal:
      if (type.precision < 0) {
        ThrowSql(SqlState::kFeatureNotSupported,
                 "DECIMAL without a precision is not supported (use DECIMAL(p, s), p <= 18)",
                 type.pos);
      }
      if (type.precision > 18) {
        ThrowSql(SqlState::kFeatureNotSupported,
                 fmt::format("DECIMAL precision {} is not supported (at most 18)", type.precision),
                 type.pos);
      }
      column.type = Type::kDecimal;
      column.precision = static_cast<uint8_t>(type.precision);
      column.scale = static_cast<uint8_t>(type.scale < 0 ? 0 : type.scale);
      break;
  }
  return column;
}

namespace {

// Whether an integer fits a column of `type` (other types: no range here).
bool IntFits(int64_t value, Type type) {
  switch (type) {
    case Type::kSmallInt: return value >= INT16_MIN && value <= INT16_MAX;
    case Type::kInteger: return value >= INT32_MIN && value <= INT32_MAX;
    default: return true;
  }
}

// Whether `units` fit a DECIMAL column's precision.
bool DecimalFits(int64_t units, const solo::ColumnDef& column) {
  return column.precision <= 0 || column.precision >= 19 ||
         (units < kPow10[column.precision] && units > -kPow10[column.precision]);
}

void CheckIntRange(int64_t value, Type type, SourcePos pos) {
  if (!IntFits(value, type)) Overflow(pos, type == Type::kSmallInt ? "smallint" : "integer");
}

// A number rounded to an integer (PostgreSQL rounds numeric to int).
int64_t ToInteger(const Value& value, SourcePos pos) {
  switch (value.kind()) {
    case ValueKind::kInt: return value.as_int();
    case ValueKind::kDecimal: {
      int64_t out;
      Rescale(value.units(), value.scale(), 0, &out);
      return out;
    }
    case ValueKind::kDouble: {
      double rounded = std::nearbyint(value.as_double());
      if (!(rounded >= -9.2233720368547758e18 && rounded < 9.2233720368547758e18)) {
        Overflow(pos, "bigint");
      }
      return static_cast<int64_t>(rounded);
    }
    default: return 0;
  }
}

[[noreturn]] void CannotCast(const Value& value, const solo::ColumnDef& column, SourcePos pos) {
  ThrowSql(SqlState::kDatatypeMismatch,
           fmt::format("cannot cast type {} to {}", KindName(value.kind()),
                       type_name(column.type)),
           pos);
}

// A double as PostgreSQL's float8_numeric converts it: its 15 significant
// digits (DBL_DIG, "%.15g"), then rounded half away from zero to `scale`
// places, so -0.5 gives -1 and 0.0025 at scale 3 gives 0.003 (scaling the
// binary value and rounding it to even gave 0 and 0.002). False when the
// units do not fit 64 bits or the double is not finite.
bool DoubleToUnits(double number, int scale, int64_t* units) {
  if (!std::isfinite(number)) return false;
  char text[40];
  std::snprintf(text, sizeof text, "%.14e", number);  // [-]d.dddddddddddddde[+-]XX
  const char* cursor = text;
  const bool negative = *cursor == '-';
  if (negative) ++cursor;
  __int128 mantissa = 0;  // the 15 digits
  for (; *cursor != 'e'; ++cursor) {
    if (*cursor != '.') mantissa = mantissa * 10 + (*cursor - '0');
  }
  const int shift = std::atoi(cursor + 1) - 14 + scale;  // units = mantissa * 10^shift
  if (shift > 18) return mantissa == 0 ? (*units = 0, true) : false;
  if (shift >= 0) {
    mantissa *= kPow10[shift];
  } else if (shift >= -18) {
    const __int128 divisor = kPow10[-shift];
    mantissa = (mantissa + divisor / 2) / divisor;
  } else {
    mantissa = 0;  // below half a unit: 15 digits are less than 10^15
  }
  if (negative) mantissa = -mantissa;
  if (!FitsInt64(mantissa)) return false;
  *units = static_cast<int64_t>(mantissa);
  return true;
}

// Shared by CastValue and ToEngine; `assign` selects assignment rules.
void Convert(const Value& value, const solo::ColumnDef& column, Value* out, SourcePos pos, bool assign) {
  if (value.is_null()) {
    out->SetNull();
    return;
  }
  switch (column.type) {
    case Type::kSmallInt:
    case Type::kInteger:
    case Type::kBigInt: {
      Value number;
      const Value* source = &value;
      if (value.kind() == ValueKind::kText) {
        const std::string_view name = PgTypeName(column.type);
        number = ParseNumericText(value.as_text(), pos, name);
        if (number.kind() != ValueKind::kInt) {
          ThrowSql(SqlState::kInvalidTextRepresentation,
                   fmt::format("invalid input syntax for type {}: \"{}\"", name, value.as_text()),
                   pos);
        }
        source = &number;
      } else if (value.kind() == ValueKind::kBool && !assign) {
        out->SetInt(value.as_int());
        return;
      } else if (!IsNumeric(value)) {
        CannotCast(value, column, pos);
      }
      int64_t result = ToInteger(*source, pos);
      CheckIntRange(result, column.type, pos);
      out->SetInt(result);
      return;
    }
    case Type::kDecimal: {
      Value number;
      const Value* source = &value;
      if (value.kind() == ValueKind::kText) {
        number = ParseNumericText(value.as_text(), pos);
        source = &number;
      } else if (!IsNumeric(value)) {
        CannotCast(value, column, pos);
      }
      int64_t units;
      if (source->kind() == ValueKind::kDouble) {
        if (!DoubleToUnits(source->as_double(), column.scale, &units)) Overflow(pos);
      } else {
        int64_t su;
        int ss;
        AsDecimal(*source, &su, &ss);
        if (!Rescale(su, ss, column.scale, &units)) Overflow(pos);
      }
      if (!DecimalFits(units, column)) Overflow(pos);
      out->SetDecimal(units, column.scale);
      return;
    }
    case Type::kDouble: {
      if (value.kind() == ValueKind::kText) {
        Value number = ParseNumericText(value.as_text(), pos, PgTypeName(column.type));
        out->SetDouble(ToDouble(number));
      } else if (IsNumeric(value)) {
        out->SetDouble(ToDouble(value));
      } else {
        CannotCast(value, column, pos);
      }
      return;
    }
    case Type::kBoolean: {
      // PostgreSQL's casts to boolean: from text (boolin) and, in a CAST
      // only, from an integer (0 is false); a boolean as it is.
      if (value.kind() == ValueKind::kBool) {
        out->SetBool(value.as_int() != 0);
      } else if (value.kind() == ValueKind::kText) {
        *out = ParseBoolText(value.as_text(), pos);
      } else if (value.kind() == ValueKind::kInt && !assign) {
        out->SetBool(value.as_int() != 0);
      } else {
        CannotCast(value, column, pos);
      }
      return;
    }
    case Type::kTimestamp: {
      if (value.kind() == ValueKind::kTimestamp) {
        out->SetTimestamp(value.as_int());
      } else if (value.kind() == ValueKind::kText) {
        out->SetTimestamp(TimestampOrThrow(value.as_text(), pos));
      } else {
        CannotCast(value, column, pos);
      }
      return;
    }
    case Type::kChar:
    case Type::kVarChar:
    case Type::kText: {
      if (value.kind() == ValueKind::kText) {
        if (out != &value) out->SetText(value.as_text());
      } else {
        out->SetText(value.ToString());
      }
      if (column.length > 0 && !solo::string_fits_length(out->as_text(), column.length)) {
        // n counts characters; a CAST cuts after the n-th, an assignment drops
        // only trailing spaces beyond it (SQL standard).
        std::string& text = out->mutable_text();
        const size_t cut = Utf8PrefixBytes(text, column.length);
        if (!assign || text.find_first_not_of(' ', cut) == std::string::npos) {
          text.resize(cut);
        } else {
          ThrowSql(SqlState::kStringDataRightTruncation,
                   fmt::format("value too long for type {}({})",
                               column.type == Type::kChar ? "character" : "character varying",
                               column.length),
                   pos);
        }
      }
      if (column.type == Type::kChar) {
        // A CHAR(n) is held without its trailing spaces (sql/README.md "CHAR(n)").
        std::string& text = out->mutable_text();
        text.resize(BpcharStripped(text).size());
      }
      return;
    }
  }
}

}  // namespace

void PadBpchar(uint32_t length, std::string* text) {
  if (text->size() >= length * size_t{4}) return;  // n characters take at most 4n bytes
  const size_t chars = Utf8Characters(*text);
  if (chars < length) text->append(length - chars, ' ');
}

void CastValue(const Value& value, const solo::ColumnDef& column, Value* out, SourcePos pos) {
  Convert(value, column, out, pos, /*assign=*/false);
}

void ToEngine(const Value& value, const solo::ColumnDef& column, solo::Value* out) {
  if (value.is_null()) {
    if (column.not_null) {
      ThrowSql(SqlState::kNotNullViolation,
               fmt::format("null value in column \"{}\" violates not-null constraint", column.name));
    }
    out->set_null();
    return;
  }
  // The commonest cases, each exactly what Convert gives, without its
  // temporaries: an integer for an integer column in its range, a decimal
  // of the column's scale within its precision, a timestamp.
  switch (value.kind()) {
    case ValueKind::kInt: {
      const int64_t number = value.as_int();
      if (IsIntegerColumn(column) && IntFits(number, column.type)) {
        out->set_int(number);
        return;
      }
      break;
    }
    case ValueKind::kDecimal:
      if (column.type == Type::kDecimal && value.scale() == column.scale &&
          DecimalFits(value.units(), column)) {
        out->set_int(value.units());
        return;
      }
      break;
    case ValueKind::kTimestamp:
      if (column.type == Type::kTimestamp) {
        out->set_int(value.as_int());
        return;
      }
      break;
    case ValueKind::kBool:
      if (column.type == Type::kBoolean) {
        out->set_int(value.as_int());
        return;
      }
      break;
    default: break;
  }
  const bool text_column =
      column.type == Type::kChar || column.type == Type::kVarChar || column.type == Type::kText;
  if (text_column && value.kind() == ValueKind::kText &&
      (column.length == 0 || solo::string_fits_length(value.as_text(), column.length))) {
    // What Convert would give, without its copy.
    out->set_string(column.type == Type::kChar ? BpcharStripped(value.as_text())
                                               : std::string_view(value.as_text()));
    return;
  }
  // Kept between calls (and its text capacity with it): the owner converts
  // values for every row it writes.
  thread_local Value converted;
  Convert(value, column, &converted, {}, /*assign=*/true);
  switch (converted.kind()) {
    case ValueKind::kInt:
    case ValueKind::kDecimal:
    case ValueKind::kTimestamp:
    case ValueKind::kBool:
      out->set_int(converted.as_int());
      break;
    case ValueKind::kDouble: out->set_double(converted.as_double()); break;
    case ValueKind::kText: out->set_string(converted.as_text()); break;
    default: out->set_null(); break;
  }
}

bool AppendToRowSlow(const Value& value, const solo::ColumnDef& column, solo::RowBuilder* row) {
  // ToEngine's other common cases written straight into the row: the
  // builder's checks are the column's (range, precision, length, NOT NULL),
  // and a value they refuse goes the long way, through ToEngine, which
  // converts it (trailing spaces dropped, a decimal rescaled) or throws its
  // error.
  switch (value.kind()) {
    case ValueKind::kNull:
      if (row->add_null()) return true;
      break;  // NOT NULL: ToEngine throws 23502
    case ValueKind::kInt:
      if (IsIntegerColumn(column) && row->add_int(value.as_int())) return true;
      break;
    case ValueKind::kDecimal:
      if (column.type == Type::kDecimal && value.scale() == column.scale &&
          row->add_int(value.units())) {
        return true;
      }
      break;
    case ValueKind::kTimestamp:
      if (column.type == Type::kTimestamp && row->add_int(value.as_int())) return true;
      break;
    case ValueKind::kBool:
      if (column.type == Type::kBoolean && row->add_int(value.as_int())) return true;
      break;
    case ValueKind::kText:
      if (row->add_string(column.type == Type::kChar ? BpcharStripped(value.as_text())
                                                     : std::string_view(value.as_text()))) {
        return true;
      }
      break;
    default:
      break;
  }
  thread_local solo::Value converted;  // its text capacity kept
  ToEngine(value, column, &converted);
  return row->add(converted);
}

void FromEngine(const solo::Value& value, const solo::ColumnDef& column, Value* out) {
  if (value.is_null()) {
    out->SetNull();
    return;
  }
  switch (column.type) {
    case Type::kSmallInt:
    case Type::kInteger:
    case Type::kBigInt: out->SetInt(value.as_int()); break;
    case Type::kDecimal: out->SetDecimal(value.as_int(), column.scale); break;
    case Type::kTimestamp: out->SetTimestamp(value.as_int()); break;
    case Type::kDouble: out->SetDouble(value.as_double()); break;
    case Type::kBoolean:
      out->SetBool(value.as_int() != 0);
      break;
    default: out->SetText(value.as_string()); break;
  }
}

void FromEngineSlow(const solo::ColumnView& value, const solo::ColumnDef& column, Value* out) {
  if (value.kind == solo::Value::Kind::kNull) {
    out->SetNull();
    return;
  }
  switch (column.type) {
    case Type::kSmallInt:
    case Type::kInteger:
    case Type::kBigInt: out->SetInt(value.int_value); break;
    case Type::kDecimal: out->SetDecimal(value.int_value, column.scale); break;
    case Type::kTimestamp: out->SetTimestamp(value.int_value); break;
    case Type::kDouble: out->SetDouble(value.double_value); break;
    case Type::kBoolean:
      out->SetBool(value.int_value != 0);
      break;
    default: out->SetText(value.string); break;
  }
}

namespace {

// A double's key as the DECIMAL of its shortest text would have it
// ("M{units}e{scale}", no trailing zeros), so that DISTINCT and GROUP BY
// put -2.25 the double and -2.25 the decimal together, as they compare
// equal. False (nothing appended) when that text has an exponent or more
// digits than a DECIMAL holds.
bool AppendDecimalKey(double number, std::string* out) {
  const std::string text = fmt::format("{}", number);
  if (text.find_first_of("eEn") != std::string::npos) return false;  // exponent, inf, nan
  const size_t point = text.find('.');
  if (point == std::string::npos) return false;
  const size_t scale = text.size() - point - 1;
  std::string digits = text.substr(0, point) + text.substr(point + 1);
  if (scale > 18 || digits.size() > 19) return false;  // '-' counted: safely within int64
  out->append(fmt::format("M{}e{}", std::stoll(digits), scale));
  return true;
}

}  // namespace

void AppendHashKey(const Value& value, std::string* out) {
  char tag;
  switch (value.kind()) {
    case ValueKind::kNull: out->push_back('N'); return;
    case ValueKind::kText:
      out->push_back('T');
      out->append(value.as_text());
      out->push_back('\0');
      out->append(std::to_string(value.as_text().size()));
      out->push_back(';');
      return;
    case ValueKind::kDouble: {
      double number = value.as_double();
      if (number == std::trunc(number) && std::fabs(number) < 9e18) {
        tag = 'I';
        out->push_back(tag);
        out->append(std::to_string(static_cast<int64_t>(number)));
      } else if (!AppendDecimalKey(number, out)) {
        out->append(fmt::format("D{}", number));
      }
      out->push_back(';');
      return;
    }
    case ValueKind::kDecimal: {
      // Normalize: drop trailing zeros of the fraction.
      int64_t units = value.units();
      int scale = value.scale();
      while (scale > 0 && units % 10 == 0) {
        units /= 10;
        --scale;
      }
      if (scale == 0) out->append(fmt::format("I{};", units));
      else out->append(fmt::format("M{}e{};", units, scale));
      return;
    }
    case ValueKind::kInt: out->append(fmt::format("I{};", value.as_int())); return;
    case ValueKind::kBool: out->append(value.as_bool() ? "B1;" : "B0;"); return;
    case ValueKind::kTimestamp: out->append(fmt::format("S{};", value.as_int())); return;
  }
}

namespace {

// The bytes of the character that starts at pattern[p] (cut at the end).
std::string_view CharAt(std::string_view pattern, size_t p) {
  return pattern.substr(p, Utf8CharLength(pattern[p]));
}

}  // namespace

bool IsLikeEscape(std::string_view text) {
  return text.empty() || CharAt(text, 0).size() == text.size();
}

bool LikePatternEndsInEscape(std::string_view pattern, std::string_view escape) {
  if (escape.empty()) return false;
  size_t p = 0;
  while (p < pattern.size()) {
    if (pattern.substr(p, escape.size()) != escape) {
      ++p;
      continue;
    }
    p += escape.size();
    if (p == pattern.size()) return true;
    p += CharAt(pattern, p).size();  // the escaped character
  }
  return false;
}

bool Like(std::string_view text, std::string_view pattern, std::string_view escape) {
  // Iterative matching with backtracking to the last %.
  size_t t = 0, p = 0, star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char pc = pattern[p];
      if (!escape.empty() && pc == escape[0] && pattern.substr(p, escape.size()) == escape &&
          p + escape.size() < pattern.size()) {
        std::string_view escaped = CharAt(pattern, p + escape.size());
        if (text.substr(t, escaped.size()) == escaped) {
          t += escaped.size();
          p += escape.size() + escaped.size();
          continue;
        }
      } else if (pc == '%') {
        star_p = p++;
        star_t = t;
        continue;
      } else if (pc == '_') {
        // One character: a whole UTF-8 sequence.
        t++;
        while (t < text.size() && (static_cast<unsigned char>(text[t]) & 0xC0) == 0x80) t++;
        p++;
        continue;
      } else if (pc == text[t]) {
        t++;
        p++;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '%') p++;
  return p == pattern.size();
}

// --- public value functions ---------------------------------------------------------------

// PostgreSQL's name of a type in its messages ("character varying").
std::string_view PgTypeName(Type type) {
  switch (type) {
    case Type::kSmallInt:
      return "smallint";
    case Type::kInteger:
      return "integer";
    case Type::kBigInt:
      return "bigint";
    case Type::kDecimal:
      return "numeric";
    case Type::kChar:
      return "character";
    case Type::kVarChar:
      return "character varying";
    case Type::kText:
      return "text";
    case Type::kTimestamp:
      return "timestamp without time zone";
    case Type::kDouble:
      return "double precision";
    case Type::kBoolean:
      return "boolean";
  }
  return "unknown";
}

std::string FormatDecimal(int64_t units, int scale) {
  if (scale == 0) return std::to_string(units);
  bool negative = units < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(-static_cast<__int128>(units)) : units;
  uint64_t whole = static_cast<uint64_t>(magnitude / kPow10[scale]);
  uint64_t fraction = static_cast<uint64_t>(magnitude % kPow10[scale]);
  return fmt::format("{}{}.{:0>{}}", negative ? "-" : "", whole, fraction, scale);
}

std::string FormatTimestamp(int64_t micros) {
  int64_t seconds = micros / 1000000;
  int64_t fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    seconds -= 1;
  }
  time_t time = static_cast<time_t>(seconds);
  struct tm parts;
  gmtime_r(&time, &parts);
  std::string out = fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", parts.tm_year + 1900,
                                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min,
                                parts.tm_sec);
  if (fraction != 0) {
    // As PostgreSQL prints it: no trailing zeros ('10:00:00.5', not '.500000').
    std::string digits = fmt::format("{:06}", fraction);
    out += '.';
    out.append(digits, 0, digits.find_last_not_of('0') + 1);
  }
  return out;
}

TimestampParse ParseTimestamp(std::string_view text, int64_t* micros) {
  // White space around the value is ignored, as in PostgreSQL.
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return TimestampParse::kBadSyntax;
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  int year, month, day, hour = 0, minute = 0, second = 0;
  char buffer[64];
  if (text.size() >= sizeof(buffer)) return TimestampParse::kBadSyntax;
  std::copy(text.begin(), text.end(), buffer);
  buffer[text.size()] = '\0';
  int consumed = 0;
  if (std::sscanf(buffer, "%4d-%2d-%2d%n", &year, &month, &day, &consumed) != 3) {
    return TimestampParse::kBadSyntax;
  }
  const char* rest = buffer + consumed;
  int64_t fraction = 0;
  if (*rest == ' ' || *rest == 'T') {
    // HH:MM, then optionally :SS and a fraction.
    int more = 0;
    if (std::sscanf(rest + 1, "%2d:%2d%n", &hour, &minute, &more) != 2) {
      return TimestampParse::kBadSyntax;
    }
    rest += 1 + more;
    bool has_seconds = *rest == ':';
    if (has_seconds) {
      if (std::sscanf(rest + 1, "%2d%n", &second, &more) != 1) return TimestampParse::kBadSyntax;
      rest += 1 + more;
    }
    if (has_seconds && *rest == '.') {
      // Rounded to microseconds as PostgreSQL does: rint() of the fraction,
      // read as a double, times 10^6 (so .9999995 carries into the seconds).
      const char* digits = rest + 1;
      const char* end = digits;
      while (*end >= '0' && *end <= '9') ++end;
      if (end == digits) return TimestampParse::kBadSyntax;
      std::string decimal = "0." + std::string(digits, end);
      fraction = static_cast<int64_t>(std::rint(std::strtod(decimal.c_str(), nullptr) * 1e6));
      rest = end;
    }
  }
  if (*rest != '\0') return TimestampParse::kBadSyntax;
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
    return TimestampParse::kBadSyntax;
  }
  // Second 60 is accepted as a leap second and rolls into the next minute, as
  // in PostgreSQL; every other field must name a time that exists.
  static constexpr int kDaysInMonth[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDaysInMonth[month - 1] ||
      (month == 2 && day == 29 && !leap) || hour > 23 || minute > 59 || second > 60) {
    return TimestampParse::kFieldOutOfRange;
  }
  // Days from civil (Howard Hinnant's algorithm).
  int y = year - (month <= 2 ? 1 : 0);
  int era = (y >= 0 ? y : y - 399) / 400;
  int yoe = y - era * 400;
  int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
  *micros = ((days * 24 + hour) * 60 + minute) * 60 * 1000000LL + second * 1000000LL + fraction;
  return TimestampParse::kOk;
}

std::string Value::ToString() const {
  switch (kind_) {
    case ValueKind::kNull: return "NULL";
    case ValueKind::kBool: return int_ ? "true" : "false";
    case ValueKind::kInt: return std::to_string(int_);
    case ValueKind::kDecimal: return FormatDecimal(int_, scale_);
    case ValueKind::kDouble: return fmt::format("{}", double_);
    case ValueKind::kText: return text_;
    case ValueKind::kTimestamp: return FormatTimestamp(int_);
  }
  return "";
}

bool Value::operator==(const Value& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case ValueKind::kNull: return true;
    case ValueKind::kDouble: return double_ == other.double_;
    case ValueKind::kText: return text_ == other.text_;
    case ValueKind::kDecimal: return int_ == other.int_ && scale_ == other.scale_;
    default: return int_ == other.int_;
  }
}

}  // namespace solo::sql
