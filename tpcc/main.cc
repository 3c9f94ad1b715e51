// tpcc: load, run and check TPC-C against an engine. See `tpcc --help`.
#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "tpcc/audit.h"
#include "tpcc/backend.h"
#include "tpcc/checks.h"
#include "tpcc/cli.h"
#include "tpcc/driver.h"
#include "tpcc/loader.h"
#include "tpcc/report.h"

namespace {

using tpcc::CliOptions;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* storage_name(tpcc::Storage storage) {
  return storage == tpcc::Storage::kRam ? "ram" : "disk";
}

tpcc::LoadInfo load(tpcc::Backend& backend, const CliOptions& options, double* seconds) {
  tpcc::LoadOptions load_options;
  load_options.warehouses = options.warehouses;
  load_options.seed = options.seed;
  load_options.progress = !options.quiet;
  auto start = std::chrono::steady_clock::now();
  tpcc::LoadInfo info = tpcc::load_database(backend, load_options);
  *seconds = seconds_since(start);
  if (!options.quiet) {
    fmt::print(stderr, "loaded {} warehouse(s) into {} in {:.1f} s\n", options.warehouses,
               backend.name(), *seconds);
  }
  return info;
}

// Opens an existing, completely loaded database or throws with a message
// that says what to do.
std::unique_ptr<tpcc::Connection> open_existing(tpcc::Backend& backend, tpcc::LoadInfo* info) {
  if (!backend.exists()) {
    throw tpcc::BackendError(fmt::format("no TPC-C database at {}; run `tpcc load` first",
                                         backend.location()));
  }
  auto conn = backend.connect();
  *info = tpcc::read_load_info(*conn);
  return conn;
}

std::vector<tpcc::ConditionResult> run_checks(tpcc::Connection& conn, bool include_11,
                                              bool quiet) {
  auto start = std::chrono::steady_clock::now();
  if (!quiet) fmt::print(stderr, "checking the consistency conditions...\n");
  auto conditions = tpcc::check_consistency(conn, include_11);
  if (!quiet) fmt::print(stderr, "checked in {:.1f} s\n", seconds_since(start));
  return conditions;
}

int command_load(tpcc::Backend& backend, const CliOptions& options) {
  double seconds = 0;
  load(backend, options, &seconds);
  if (options.no_check) return kExitOk;
  auto conn = backend.connect();
  auto conditions = run_checks(*conn, /*include_11=*/true, options.quiet);
  tpcc::print_conditions(conditions);
  for (const auto& condition : conditions) {
    if (!condition.ok) return kExitFailed;
  }
  return kExitOk;
}

int command_check(tpcc::Backend& backend, const CliOptions& options) {
  tpcc::LoadInfo info;
  auto conn = open_existing(backend, &info);
  auto conditions = run_checks(*conn, options.after_load, options.quiet);
  fmt::print("{} warehouse(s) in {}\n", info.warehouses, backend.location());
  tpcc::print_conditions(conditions);
  for (const auto& condition : conditions) {
    if (!condition.ok) return kExitFailed;
  }
  return kExitOk;
}

int command_run(tpcc::Backend& backend, const CliOptions& options) {
  tpcc::RunReport report;
  tpcc::LoadInfo info;
  if (!options.no_load) {
    info = load(backend, options, &report.load_s);
  }
  auto check_conn = open_existing(backend, &info);
  if (options.no_load && info.warehouses != options.warehouses && !options.quiet) {
    fmt::print(stderr, "note: the database holds {} warehouse(s); running with W={}\n",
               info.warehouses, info.warehouses);
  }

  tpcc::RunOptions run_options;
  run_options.terminals = options.terminals;
  run_options.duration_s = options.duration_s;
  run_options.warmup_s = options.warmup_s;
  run_options.seed = options.seed;
  run_options.think = options.think;
  run_options.progress = !options.quiet;

  report.engine = backend.name();
  report.storage = storage_name(options.backend.storage);
  report.config = backend.describe_config();
  report.warehouses = info.warehouses;
  report.terminals = options.terminals;
  report.duration_s = options.duration_s;
  report.warmup_s = options.warmup_s;
  report.seed = options.seed;
  report.think = options.think;
  report.result = tpcc::run_terminals(backend, info, run_options);
  if (!options.no_check) {
    report.conditions = run_checks(*check_conn, /*include_11=*/false, options.quiet);
    report.checks_ran = true;
  }
  report.audit = tpcc::audit_mix(report.result.mix, info.warehouses);
  tpcc::print_summary(report);
  if (!options.json_path.empty()) tpcc::write_json(report, options.json_path);
  return tpcc::all_ok(report) ? kExitOk : kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  auto options = tpcc::parse_cli(args, &error);
  if (!options) {
    fmt::print(stderr, "tpcc: error: {}\n", error);
    return kExitUsage;
  }
  if (options->command == "help") {
    fmt::print("{}", tpcc::usage_text());
    return kExitOk;
  }
  std::unique_ptr<tpcc::Backend> backend;
  try {
    backend = tpcc::make_backend(options->backend);
  } catch (const std::exception& failure) {
    fmt::print(stderr, "tpcc: error: {}\n", failure.what());
    return kExitUsage;
  }
  try {
    if (options->command == "load") return command_load(*backend, *options);
    if (options->command == "check") return command_check(*backend, *options);
    return command_run(*backend, *options);
  } catch (const std::exception& failure) {
    fmt::print(stderr, "tpcc: error: {}\n", failure.what());
    return kExitFailed;
  }
}
