// Values that cross the SQL layer's API: statement parameters and result
// columns. A plain value type: any thread may create, copy and read one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace solo::sql {

enum class ValueKind : uint8_t {
  kNull,
  kBool,       // a predicate's result (TRUE/FALSE)
  kInt,        // SMALLINT, INTEGER, BIGINT
  kDecimal,    // exact: units / 10^scale, scale 0..18
  kDouble,     // DOUBLE, REAL
  kText,       // CHAR, VARCHAR, TEXT
  kTimestamp,  // microseconds since 1970-01-01 00:00:00 UTC
};

class Value {
 public:
  Value() = default;  // NULL
  static Value Null() { return Value(); }
  static Value Bool(bool value) { return Value(ValueKind::kBool, value ? 1 : 0); }
  static Value Int(int64_t value) { return Value(ValueKind::kInt, value); }
  // Precondition: 0 <= scale <= 18.
  static Value Decimal(int64_t units, int scale) {
    Value value(ValueKind::kDecimal, units);
    value.scale_ = static_cast<int8_t>(scale);
    return value;
  }
  static Value Double(double value) {
    Value result(ValueKind::kDouble, 0);
    result.double_ = value;
    return result;
  }
  static Value Text(std::string_view text) {
    Value value(ValueKind::kText, 0);
    value.text_.assign(text);
    return value;
  }
  static Value Timestamp(int64_t micros) { return Value(ValueKind::kTimestamp, micros); }

  ValueKind kind() const { return kind_; }
  bool is_null() const { return kind_ == ValueKind::kNull; }

  // Preconditions: the matching kind().
  bool as_bool() const { return int_ != 0; }
  int64_t as_int() const { return int_; }
  int64_t units() const { return int_; }  // kDecimal
  int scale() const { return scale_; }    // kDecimal
  double as_double() const { return double_; }
  const std::string& as_text() const { return text_; }
  std::string& mutable_text() { return text_; }
  int64_t as_timestamp() const { return int_; }

  // Replaces the value, reusing this one's text buffer (no allocation for a
  // text that fits the capacity it already has).
  void SetNull() { kind_ = ValueKind::kNull; }
  void SetInt(int64_t value) { kind_ = ValueKind::kInt, int_ = value; }
  void SetBool(bool value) { kind_ = ValueKind::kBool, int_ = value ? 1 : 0; }
  void SetDecimal(int64_t units, int scale) {
    kind_ = ValueKind::kDecimal, int_ = units, scale_ = static_cast<int8_t>(scale);
  }
  void SetDouble(double value) { kind_ = ValueKind::kDouble, double_ = value; }
  void SetTimestamp(int64_t micros) { kind_ = ValueKind::kTimestamp, int_ = micros; }
  void SetText(std::string_view text) { kind_ = ValueKind::kText, text_.assign(text); }

  // The value as the shell prints it: NULL, 42, 5.75, 1.5, text as is,
  // true/false, timestamps as "YYYY-MM-DD HH:MM:SS[.ffffff]".
  std::string ToString() const;

  // Same kind and same value (decimals: same units and scale).
  bool operator==(const Value& other) const;

 private:
  Value(ValueKind kind, int64_t value) : kind_(kind), int_(value) {}

  ValueKind kind_ = ValueKind::kNull;
  int8_t scale_ = 0;
  int64_t int_ = 0;
  double double_ = 0;
  std::string text_;
};

// Formats units / 10^scale, e.g. (-1050, 2) -> "-10.50". Any thread.
std::string FormatDecimal(int64_t units, int scale);
// Formats microseconds since the epoch as "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC).
std::string FormatTimestamp(int64_t micros);
// Parses what FormatTimestamp prints, also "YYYY-MM-DD", "YYYY-MM-DD HH:MM",
// a 'T' separator, white space around the value and more than six fraction
// digits (rounded to microseconds as PostgreSQL rounds them). On success
// stores the microseconds since the epoch in *micros and returns kOk.
// Returns kBadSyntax for text of another shape and kFieldOutOfRange for a
// well-formed text naming a time that does not exist (month 13, February
// 30th, hour 24), leaving *micros unchanged. Any thread.
enum class TimestampParse : uint8_t { kOk, kBadSyntax, kFieldOutOfRange };
TimestampParse ParseTimestamp(std::string_view text, int64_t* micros);

}  // namespace solo::sql
