#include "solo/schema.h"

#include <cstdio>

namespace solo {

std::string_view type_name(Type type) {
  switch (type) {
    case Type::kSmallInt: return "SMALLINT";
    case Type::kInteger: return "INTEGER";
    case Type::kBigInt: return "BIGINT";
    case Type::kDecimal: return "DECIMAL";
    case Type::kChar: return "CHAR";
    case Type::kVarChar: return "VARCHAR";
    case Type::kText: return "TEXT";
    case Type::kTimestamp: return "TIMESTAMP";
    case Type::kDouble: return "DOUBLE";
    case Type::kBoolean:
      return "BOOLEAN";
  }
  return "?";
}

static ColumnDef make_column(std::string name, Type type, bool not_null) {
  ColumnDef column;
  column.name = std::move(name);
  column.type = type;
  column.not_null = not_null;
  return column;
}

ColumnDef ColumnDef::SmallInt(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kSmallInt, not_null);
}
ColumnDef ColumnDef::Integer(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kInteger, not_null);
}
ColumnDef ColumnDef::BigInt(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kBigInt, not_null);
}
ColumnDef ColumnDef::Decimal(std::string name, uint8_t precision, uint8_t scale, bool not_null) {
  ColumnDef column = make_column(std::move(name), Type::kDecimal, not_null);
  column.precision = precision;
  column.scale = scale;
  return column;
}
ColumnDef ColumnDef::Char(std::string name, uint32_t length, bool not_null) {
  ColumnDef column = make_column(std::move(name), Type::kChar, not_null);
  column.length = length;
  return column;
}
ColumnDef ColumnDef::VarChar(std::string name, uint32_t length, bool not_null) {
  ColumnDef column = make_column(std::move(name), Type::kVarChar, not_null);
  column.length = length;
  return column;
}
ColumnDef ColumnDef::Text(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kText, not_null);
}
ColumnDef ColumnDef::Timestamp(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kTimestamp, not_null);
}
ColumnDef ColumnDef::Double(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kDouble, not_null);
}
ColumnDef ColumnDef::Boolean(std::string name, bool not_null) {
  return make_column(std::move(name), Type::kBoolean, not_null);
}

bool Value::operator==(const Value& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNull: return true;
    case Kind::kInt: return int_ == other.int_;
    case Kind::kDouble: return double_ == other.double_;
    case Kind::kString: return string_ == other.string_;
  }
  return false;
}

std::string Value::ToString() const {
  switch (kind_) {
    case Kind::kNull: return "NULL";
    case Kind::kInt: return std::to_string(int_);
    case Kind::kDouble: {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.17g", double_);
      return buffer;
    }
    case Kind::kString: return "'" + string_ + "'";
  }
  return "?";
}

}  // namespace solo
