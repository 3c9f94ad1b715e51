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

}  // namespace tpcc
