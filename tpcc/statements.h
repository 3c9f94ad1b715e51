// The SQL text of the five transactions: one portable text per statement,
// run unchanged on every engine. Each connection prepares all of them once.
#pragma once

#include <array>
#include <string_view>

#include "tpcc/backend.h"

namespace tpcc {

enum class Stmt : int {
  // New-Order (clause 2.4.2)
  kNoGetWarehouse,
  kNoGetCustomer,
  kNoGetDistrict,
  kNoBumpNextOrderId,
  kNoInsertOrder,
  kNoInsertNewOrder,
  kNoGetItem,
  kNoGetStock01,  // kNoGetStock01 + (d_id - 1): S_DIST_xx of the district
  kNoGetStock02,
  kNoGetStock03,
  kNoGetStock04,
  kNoGetStock05,
  kNoGetStock06,
  kNoGetStock07,
  kNoGetStock08,
  kNoGetStock09,
  kNoGetStock10,
  kNoUpdateStock,
  kNoInsertOrderLine,
  // Payment (clause 2.5.2)
  kPayUpdateWarehouse,
  kPayGetWarehouse,
  kPayUpdateDistrict,
  kPayGetDistrict,
  kPayCustomersByName,
  kPayGetCustomer,
  kPayUpdateCustomer,
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
  kDlGetOrderCustomer,
  kDlUpdateOrderCarrier,
  kDlUpdateOrderLines,
  kDlSumOrderLines,
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
