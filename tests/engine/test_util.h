// Helpers shared by the engine tests.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "solo/codec.h"
#include "solo/database.h"

namespace solo::test {

inline std::unique_ptr<Database> open_db(Options options = {}) {
  options.check_invariants = true;
  auto db = Database::open(options);
  REQUIRE(db.ok());
  return std::move(*db);
}

// accounts(id BIGINT PK, name VARCHAR(40), balance DECIMAL(12,2) NOT NULL)
inline TableSchema accounts_schema() {
  TableSchema schema;
  schema.name = "accounts";
  schema.columns = {ColumnDef::BigInt("id", true), ColumnDef::VarChar("name", 40),
                    ColumnDef::Decimal("balance", 12, 2, true)};
  schema.primary_key = {0};
  return schema;
}

inline std::string int_key(const TableSchema& schema, int64_t id) {
  std::string key;
  Value value = Value::Int(id);
  REQUIRE(append_key(schema, schema.primary_key, std::span<const Value>(&value, 1), &key).ok());
  return key;
}

}  // namespace solo::test
