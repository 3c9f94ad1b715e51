// Typed accessors of Rows (backend.h).
//
// Engines return the same logical value in different physical types: SQLite
// gives a DECIMAL column back as a double, or as an integer when the value is
// whole (NUMERIC affinity); PostgreSQL may give exact decimal text. The
// accessors accept every representation that denotes the requested value
// exactly (or, for a double read as a decimal, after rounding at the scale)
// and throw BackendError, naming row and column, for anything else.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tpcc/backend.h"

namespace tpcc {
namespace {

__extension__ typedef __int128 Int128;

constexpr int kMaxScale = 18;

const char* type_name(const Value& value) {
  switch (value.index()) {
    case 0:
      return "NULL";
    case 1:
      return "integer";
    case 2:
      return "decimal";
    case 3:
      return "double";
    case 4:
      return "text";
    case 5:
      return "timestamp";
  }
  return "?";
}

Int128 pow10_128(int exponent) {
  Int128 result = 1;
  for (int digit_idx = 0; digit_idx < exponent; ++digit_idx) result *= 10;
  return result;
}

bool fits_int64(Int128 value) {
  return value >= INT64_MIN && value <= INT64_MAX;
}

// Divides rounding half away from zero. Precondition: divisor > 0.
Int128 divide_rounded(Int128 value, Int128 divisor) {
  Int128 quotient = value / divisor;
  const Int128 remainder = value % divisor;
  const Int128 twice = (remainder < 0 ? -remainder : remainder) * 2;
  if (twice >= divisor) quotient += value < 0 ? -1 : 1;
  return quotient;
}

// Parses decimal text ("-12.345", "7", ".5") exactly into units at `scale`,
// rounding extra fraction digits half away from zero. False on malformed text
// or overflow.
bool parse_decimal_text(std::string_view text, int scale, int64_t* units) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) negative = text[pos++] == '-';
  Int128 value = 0;
  int fraction_digits = 0;
  int digits = 0;
  bool seen_point = false;
  bool round_up = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    ++digits;
    if (seen_point && fraction_digits >= scale) {
      // First digit past the scale decides the rounding; the rest cannot
      // change a half-away-from-zero result.
      if (fraction_digits == scale) round_up = c >= '5';
      ++fraction_digits;
      continue;
    }
    value = value * 10 + (c - '0');
    if (value > INT64_MAX) return false;
    if (seen_point) ++fraction_digits;
  }
  if (digits == 0) return false;
  for (int pad = fraction_digits; pad < scale; ++pad) value *= 10;
  if (round_up) value += 1;
  if (negative) value = -value;
  if (!fits_int64(value)) return false;
  *units = static_cast<int64_t>(value);
  return true;
}

}  // namespace

namespace {

[[noreturn]] void type_error(const Value& value, size_t row, size_t col, const char* wanted) {
  throw BackendError(fmt::format("Rows: row {} column {} holds {} where {} was expected", row, col,
                                 type_name(value), wanted));
}

void check_scale(int scale) {
  if (scale < 0 || scale > kMaxScale) {
    throw BackendError(fmt::format("Rows: decimal scale {} is outside [0, {}]", scale, kMaxScale));
  }
}

const Value& checked_at(const Rows& rows, size_t row, size_t col) {
  if (row >= rows.size() || col >= rows.columns()) {
    throw BackendError(
        fmt::format("Rows: row {} column {} is outside the result ({} rows, {} columns)", row, col,
                    rows.size(), rows.columns()));
  }
  return rows.at(row, col);
}

}  // namespace

bool Rows::is_null(size_t row, size_t col) const {
  return std::holds_alternative<std::monostate>(checked_at(*this, row, col));
}

int64_t Rows::get_int(size_t row, size_t col) const {
  const Value& value = checked_at(*this, row, col);
  if (const auto* integer = std::get_if<int64_t>(&value)) return *integer;
  if (const auto* real = std::get_if<double>(&value)) {
    // A whole double in int64 range (2^63 is exact as a double).
    if (std::trunc(*real) == *real && *real >= -9223372036854775808.0 &&
        *real < 9223372036854775808.0) {
      return static_cast<int64_t>(*real);
    }
  }
  if (const auto* decimal = std::get_if<Decimal>(&value)) {
    check_scale(decimal->scale);
    const Int128 factor = pow10_128(decimal->scale);
    if (decimal->units % factor == 0) return static_cast<int64_t>(decimal->units / factor);
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    int64_t units;
    if (parse_decimal_text(*text, 0, &units) && text->find('.') == std::string::npos) return units;
  }
  type_error(value, row, col, "an integer");
}

int64_t Rows::get_decimal(size_t row, size_t col, int scale) const {
  check_scale(scale);
  const Value& value = checked_at(*this, row, col);
  switch (value.index()) {
    case 1: {  // int64
      const Int128 units = static_cast<Int128>(std::get<int64_t>(value)) * pow10_128(scale);
      if (fits_int64(units)) return static_cast<int64_t>(units);
      break;
    }
    case 2: {  // Decimal: rescale, rounding half away from zero when narrowing
      const Decimal& decimal = std::get<Decimal>(value);
      check_scale(decimal.scale);
      const Int128 units =
          decimal.scale <= scale
              ? static_cast<Int128>(decimal.units) * pow10_128(scale - decimal.scale)
              : divide_rounded(decimal.units, pow10_128(decimal.scale - scale));
      if (fits_int64(units)) return static_cast<int64_t>(units);
      break;
    }
    case 3:  // double: round at the scale
      try {
        return double_to_units(std::get<double>(value), scale);
      } catch (const std::out_of_range&) {
      }
      break;
    case 4: {  // text: exact parse
      int64_t units;
      if (parse_decimal_text(std::get<std::string>(value), scale, &units)) return units;
      break;
    }
  }
  type_error(value, row, col, fmt::format("a decimal that fits at scale {}", scale).c_str());
}

double Rows::get_double(size_t row, size_t col) const {
  const Value& value = checked_at(*this, row, col);
  if (const auto* real = std::get_if<double>(&value)) return *real;
  if (const auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  if (const auto* decimal = std::get_if<Decimal>(&value)) {
    check_scale(decimal->scale);
    return static_cast<double>(decimal->units) / static_cast<double>(pow10_128(decimal->scale));
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    char* end = nullptr;
    const double parsed = std::strtod(text->c_str(), &end);
    if (!text->empty() && end == text->c_str() + text->size()) return parsed;
  }
  type_error(value, row, col, "a number");
}

std::string Rows::get_text(size_t row, size_t col) const {
  const Value& value = checked_at(*this, row, col);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* stamp = std::get_if<Timestamp>(&value)) return format_timestamp(stamp->micros);
  type_error(value, row, col, "text");
}

void Rows::copy_text(size_t row, size_t col, std::string* out) const {
  if (const auto* text = std::get_if<std::string>(&checked_at(*this, row, col))) {
    out->assign(*text);
    return;
  }
  *out = get_text(row, col);
}

int64_t Rows::get_timestamp(size_t row, size_t col) const {
  const Value& value = checked_at(*this, row, col);
  if (const auto* stamp = std::get_if<Timestamp>(&value)) return stamp->micros;
  if (const auto* text = std::get_if<std::string>(&value)) {
    int64_t micros;
    if (parse_timestamp(*text, &micros)) return micros;
  }
  type_error(value, row, col, "a timestamp");
}

}  // namespace tpcc
