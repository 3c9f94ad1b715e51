// The differential test's schema: three tables, their columns' types and
// the vocabularies their values are drawn from (README.md "What is
// generated"). Immutable; any thread.
#pragma once

#include <string>
#include <vector>

namespace solo::sql::differential {

enum class Type {
  kInt2,
  kInt4,
  kInt8,
  kChar,
  kVarchar,
  kText,
  kDouble,
  kNumeric,
  kBool,
  kTimestamp
};

struct Column {
  std::string name;
  Type type;
  bool nullable;
  // Values drawn for it: a vocabulary of literals (README.md "Values").
  const std::vector<std::string>* values;
  // Used in SUM: false for a BIGINT holding the int64 extremes, whose sum
  // overflows in solo and not in PostgreSQL (README.md "Exclusions").
  bool summable = true;
  // Part of the primary key: never assigned by UPDATE (README.md).
  bool key = false;
};

struct Table {
  std::string name;
  std::vector<Column> columns;
  std::string create;                // its CREATE TABLE
  std::vector<std::string> indexes;  // one CREATE INDEX each
};

// Vocabularies of SQL literals (schema.cc): duplicates, negatives and each
// type's boundaries on purpose.
extern const std::vector<std::string> kInt2Values;
extern const std::vector<std::string> kInt4Values;
extern const std::vector<std::string> kSmallInt4Values;
extern const std::vector<std::string> kWideInt8Values;
extern const std::vector<std::string> kInt8Values;
extern const std::vector<std::string> kNumeric102Values;
extern const std::vector<std::string> kNumeric63Values;
extern const std::vector<std::string> kNumeric41Values;
extern const std::vector<std::string> kDoubleValues;
extern const std::vector<std::string> kCharValues;
extern const std::vector<std::string> kVarcharValues;
extern const std::vector<std::string> kTextValues;
extern const std::vector<std::string> kKeyTextValues;
extern const std::vector<std::string> kBoolValues;
extern const std::vector<std::string> kTimestampValues;

// t1, t2, t3, built once.
const std::vector<Table>& Tables();

inline bool IsInteger(Type type) {
  return type == Type::kInt2 || type == Type::kInt4 || type == Type::kInt8;
}
inline bool IsNumber(Type type) {
  return IsInteger(type) || type == Type::kDouble || type == Type::kNumeric;
}
inline bool IsString(Type type) {
  return type == Type::kChar || type == Type::kVarchar || type == Type::kText;
}
// Text that is not a CHAR(n): where solo and PostgreSQL type a CHAR mixed with
// other text differently (COALESCE, IN (SELECT ...)), README.md "Exclusions".
inline bool IsNonCharString(Type type) {
  return type == Type::kVarchar || type == Type::kText;
}

}  // namespace solo::sql::differential
