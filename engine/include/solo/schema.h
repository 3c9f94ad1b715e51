// Column types, values, rows and table/index definitions.
// All of these are plain values: any thread may create, copy and read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace solo {

// Column types. See engine/README.md "Encodings" for their byte formats.
enum class Type : uint8_t {
  kSmallInt,   // 16-bit signed integer
  kInteger,    // 32-bit signed integer
  kBigInt,     // 64-bit signed integer
  kDecimal,    // DECIMAL(p,s): exact fixed point, stored as int64 = value * 10^s
  kChar,       // CHAR(n): at most n bytes (the SQL layer stores it without trailing spaces)
  kVarChar,    // VARCHAR(n): at most n bytes
  kText,       // unbounded string (a row must stay below 16 MiB)
  kTimestamp,  // int64 microseconds since 1970-01-01 UTC
  kDouble,     // IEEE 754 binary64
  kBoolean,    // 0 (false) or 1 (true), one byte (session 48; last, so that the others keep their
               // numbers)
};

// Returns the SQL name of a type, e.g. "INTEGER".
std::string_view type_name(Type type);

// True for the string types; for the types whose Value is kInt (all but
// strings and DOUBLE). Inline: every column of every encoded row asks.
inline bool type_is_string(Type type) {
  return type == Type::kChar || type == Type::kVarChar || type == Type::kText;
}
inline bool type_is_integral(Type type) { return !type_is_string(type) && type != Type::kDouble; }

struct ColumnDef {
  std::string name;
  Type type = Type::kBigInt;
  uint32_t length = 0;     // CHAR(n)/VARCHAR(n): n; 0 for the others
  uint8_t precision = 0;   // DECIMAL(p,s): p in 1..18
  uint8_t scale = 0;       // DECIMAL(p,s): s in 0..p
  bool not_null = false;   // required for primary key columns

  static ColumnDef SmallInt(std::string name, bool not_null = false);
  static ColumnDef Integer(std::string name, bool not_null = false);
  static ColumnDef BigInt(std::string name, bool not_null = false);
  static ColumnDef Decimal(std::string name, uint8_t precision, uint8_t scale,
                           bool not_null = false);
  static ColumnDef Char(std::string name, uint32_t length, bool not_null = false);
  static ColumnDef VarChar(std::string name, uint32_t length, bool not_null = false);
  static ColumnDef Text(std::string name, bool not_null = false);
  static ColumnDef Timestamp(std::string name, bool not_null = false);
  static ColumnDef Double(std::string name, bool not_null = false);
  static ColumnDef Boolean(std::string name, bool not_null = false);
};

// The most columns a table may have (validate_schema), and the most a log or
// checkpoint record's table may name when it is read back (durable_codec.cc).
// SQL's CREATE TABLE allows 1,600, as PostgreSQL, and adds a row id column
// when there is no primary key.
inline constexpr size_t kMaxTableColumns = 4096;

struct TableSchema {
  std::string name;
  std::vector<ColumnDef> columns;
  std::vector<uint32_t> primary_key;  // column positions, in key order; not empty; NOT NULL
};

struct IndexSchema {
  std::string name;
  std::string table;
  std::vector<uint32_t> columns;  // column positions of the table, in key order
  bool unique = false;            // unique among rows whose key columns are all non-NULL
};

// One column value. Integral types (see type_is_integral) use kInt; a DECIMAL
// holds its scaled integer, a TIMESTAMP its microseconds.
class Value {
 public:
  enum class Kind : uint8_t { kNull, kInt, kDouble, kString };

  Value() = default;  // NULL
  static Value Null() { return Value(); }
  static Value Int(int64_t v) {
    Value value;
    value.kind_ = Kind::kInt;
    value.int_ = v;
    return value;
  }
  static Value Double(double v) {
    Value value;
    value.kind_ = Kind::kDouble;
    value.double_ = v;
    return value;
  }
  static Value String(std::string_view v) {
    Value value;
    value.kind_ = Kind::kString;
    value.string_.assign(v);
    return value;
  }

  // In place: a string keeps its capacity (no allocation when the new one fits).
  void set_null() { kind_ = Kind::kNull; }
  void set_int(int64_t v) {
    kind_ = Kind::kInt;
    int_ = v;
  }
  void set_double(double v) {
    kind_ = Kind::kDouble;
    double_ = v;
  }
  void set_string(std::string_view v) {
    kind_ = Kind::kString;
    string_.assign(v);
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  // Preconditions: the matching kind().
  int64_t as_int() const { return int_; }
  double as_double() const { return double_; }
  const std::string& as_string() const { return string_; }

  bool operator==(const Value& other) const;
  // Debug form: NULL, 42, 1.5, 'text'.
  std::string ToString() const;

 private:
  Kind kind_ = Kind::kNull;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
};

using Row = std::vector<Value>;

}  // namespace solo
