// The SQL text of the five transactions: one portable text per statement,
// run unchanged on every engine. Each connection prepares all of them once.
// A row that is changed and then read is changed with UPDATE ... RETURNING
// (PostgreSQL, SQLite >= 3.35 and solo): one statement, and the values read
// are those the change left.
#pragma once

#include <array>
#include <string_view>

#include "tpcc/backend.h"

namespace tpcc {

enum class Stmt : int {
  // New-Order (clause 2.4.2)
  kNoGetWarehouse,
  kNoGetCustomer,
  kNoBumpNextOrderId,  // RETURNING d_tax, d_next_o_id
  kNoInsertOrder,
  kNoInsertNewOrder,
  kNoGetItems,  // every line's item: i_id IN (15 values)
  kNoUpdateStock01,  // kNoUpdateStock01 + (d_id - 1): RETURNING S_DIST_xx of the district
  kNoUpdateStock02,
  kNoUpdateStock03,
  kNoUpdateStock04,
  kNoUpdateStock05,
  kNoUpdateStock06,
  kNoUpdateStock07,
  kNoUpdateStock08,
  kNoUpdateStock09,
  kNoUpdateStock10,
  // kNoInsertOrderLines01 + (ol_cnt - 1): all lines of an order in one
  // multi-row INSERT (ol_cnt rows of 9 parameters).
  kNoInsertOrderLines01,
  kNoInsertOrderLines15 = kNoInsertOrderLines01 + 14,
  // Payment (clause 2.5.2)
  kPayUpdateWarehouse,
  kPayGetWarehouse,
  kPayUpdateDistrict,
  kPayGetDistrict,
  kPayCustomersByName,
  kPayUpdateCustomer,  // RETURNING the customer's columns
  kPayGetCustomerData,
  kPayUpdateCustomerBc,
  kPayInsertHistory,
  // Order-Status (clause 2.6.2)
  kOsCustomersByName,
  kOsGetCustomer,
  kOsGetLastOrder,
  kOsGetOrderLines,
  // Delivery (clause 2.7.4)
  kDlOldestNewOrder,
  kDlDeleteNewOrder,
  kDlUpdateOrderCarrier,  // RETURNING o_c_id
  kDlUpdateOrderLines,    // RETURNING ol_amount
  kDlUpdateCustomer,
  // Stock-Level (clause 2.8.2)
  kSlGetNextOrderId,
  kSlCountLowStock,
  kCount
};

inline constexpr int kStmtCount = static_cast<int>(Stmt::kCount);

// The SQL text of `stmt`.
std::string_view statement_sql(Stmt stmt);

// The statements of one connection, prepared.
class PreparedStatements {
 public:
  // Prepares every statement on `conn`. Throws BackendError.
  explicit PreparedStatements(Connection& conn);
  StmtId operator[](Stmt stmt) const { return ids_[static_cast<int>(stmt)]; }

 private:
  std::array<StmtId, kStmtCount> ids_{};
};

}  // namespace tpcc
