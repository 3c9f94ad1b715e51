// The twelve consistency conditions of TPC-C clause 3.3.2.
//
// Each condition is evaluated from simple sorted queries (one read-only
// transaction, so one consistent state) and compared in C++, which avoids the
// classic pitfall of an aggregate over no rows being NULL and a check passing
// silently. Money is compared exactly, at the column's scale.
#pragma once

#include <string>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

struct ConditionResult {
  int id = 0;          // 1..12
  bool ok = false;
  std::string detail;  // on failure: the first offending row(s) and the count
};

// Runs conditions 1-10 and 12, plus 11 when `include_condition_11` (it holds
// only right after the initial load). Results are in id order.
// Throws BackendError if the database cannot be read.
std::vector<ConditionResult> check_consistency(Connection& conn, bool include_condition_11);

struct CardinalityResult {
  bool ok = false;
  // On success the counts checked; on failure every table whose row count is
  // wrong, with the expected and the found count.
  std::string detail;
};

// Compares the row counts of the tables whose size never changes (WAREHOUSE
// = W, DISTRICT = 10·W, CUSTOMER = 30,000·W, STOCK = 100,000·W, ITEM =
// 100,000) with `warehouses`, the W of tpcc_meta. The conditions above look
// only at the rows that are present, so a missing warehouse passes them.
// One COUNT(*) per table in one read-only transaction. Throws BackendError
// if the database cannot be read.
CardinalityResult check_cardinality(Connection& conn, int warehouses);

// Prints `result` as one line after the conditions.
void print_cardinality(const CardinalityResult& result);

}  // namespace tpcc
