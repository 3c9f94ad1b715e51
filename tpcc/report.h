// Results of a run: the summary table on stdout and the JSON file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tpcc/audit.h"
#include "tpcc/checks.h"
#include "tpcc/owner_profile.h"
#include "tpcc/driver.h"

namespace tpcc {

struct RunReport {
  std::string engine;
  std::string storage;  // "ram" | "disk"
  std::string config;   // backend settings (pragmas, ...)
  int warehouses = 0;
  int terminals = 0;
  double duration_s = 0;
  double warmup_s = 0;
  uint64_t seed = 0;
  bool think = false;
  double load_s = 0;  // 0 when --no-load
  RunResult result;
  bool checks_ran = false;
  std::vector<ConditionResult> conditions;
  // The fixed-size tables' row counts against W, when the checks ran.
  std::optional<CardinalityResult> cardinality;
  std::vector<AuditResult> audit;
  std::optional<OwnerProfile> owner_profile;  // run --profile
};

// Prints the per-type table, totals, checks and audit as text.
void print_summary(const RunReport& report);
// Writes the report as JSON to `path`. Throws std::runtime_error when the file
// cannot be written.
void write_json(const RunReport& report, const std::string& path);
// Prints the conditions (for `tpcc check`).
void print_conditions(const std::vector<ConditionResult>& conditions);
// True when the run had no error and every condition, the cardinality and
// every audit entry are ok.
bool all_ok(const RunReport& report);

}  // namespace tpcc
