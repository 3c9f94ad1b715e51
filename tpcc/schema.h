// The TPC-C schema (clause 1.3) as portable DDL: the same text runs on
// SQLite, PostgreSQL and solo. Money columns are DECIMAL.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace tpcc {

// Spec constants (clause 4.3.3.1 and 1.4).
inline constexpr int kItems = 100000;
inline constexpr int kDistrictsPerWarehouse = 10;
inline constexpr int kCustomersPerDistrict = 3000;
inline constexpr int kOrdersPerDistrict = 3000;
inline constexpr int kFirstNewOrder = 2101;  // orders 2101..3000 are undelivered
inline constexpr int kStockPerWarehouse = 100000;

// The nine TPC-C tables plus tpcc_meta (load seed and NURand load constants),
// in dependency-free creation order.
inline constexpr std::array<std::string_view, 10> kTableNames = {
    "warehouse", "district", "customer", "history", "new_order",
    "orders",    "order_line", "item",   "stock",   "tpcc_meta"};

// CREATE TABLE / CREATE INDEX statements, one per element.
const std::vector<std::string>& schema_ddl();

// DROP statements for every table (IF EXISTS), for a fresh load.
std::vector<std::string> drop_ddl();

enum class ColumnKind { kInteger, kDecimal, kTimestamp, kChar, kVarchar };

struct ColumnInfo {
  std::string name;
  ColumnKind kind = ColumnKind::kInteger;
  int scale = 0;  // DECIMAL(p,s): s
};

// The columns of `table` in declaration order, read from schema_ddl().
// Empty for an unknown table.
std::vector<ColumnInfo> table_columns(std::string_view table);
// The primary-key columns of `table`, in key order; empty for history.
std::vector<std::string> table_key_columns(std::string_view table);

// The primary-key (or, for history, full-row) ordering of each table, as an
// ORDER BY list: used to compare tables row by row across engines.
std::string table_order_by(std::string_view table);

}  // namespace tpcc
