// tpcc: load, run and check TPC-C against an engine. See `tpcc --help`.
#include <fcntl.h>
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tpcc/audit.h"
#include "tpcc/backend.h"
#include "tpcc/checks.h"
#include "tpcc/cli.h"
#include "tpcc/driver.h"
#include "tpcc/durability.h"
#include "tpcc/interrupt.h"
#include "tpcc/journal.h"
#include "tpcc/loader.h"
#include "tpcc/memory_check.h"
#include "tpcc/owned_dir.h"
#include "tpcc/owner_profile.h"
#include "tpcc/replay.h"
#include "tpcc/report.h"
#include "tpcc/table_compare.h"

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

// Throws BackendError (with the reason) unless `path` can be written, so that
// a bad output path is found before a run and not after it, when the run's
// results would be lost. Leaves an existing file as it was, and no new one.
void check_writable(const std::string& path, const char* what) {
  const bool existed = ::access(path.c_str(), F_OK) == 0;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw tpcc::BackendError(
        fmt::format("cannot write the {} file {}: {}", what, path, std::strerror(errno)));
  }
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
}

// Opens an existing, completely loaded database or throws with a message
// that says what to do.
std::unique_ptr<tpcc::Connection> open_existing(tpcc::Backend& backend, tpcc::LoadInfo* info) {
  if (!backend.exists()) throw tpcc::BackendError(tpcc::no_database_message(backend.location()));
  auto conn = backend.connect();
  *info = tpcc::read_load_info(*conn);
  return conn;
}

// Throws BackendError when loading W warehouses into each of `engines`
// (held at the same time) would not fit in the memory available, before
// anything is created: such a load ran for minutes and then ended in the
// kernel's out-of-memory kill (memory_check.h). --no-memory-check skips it.
void check_memory(const CliOptions& options, const std::vector<tpcc::BackendOptions>& engines,
                  int warehouses) {
  if (!options.memory_check) return;
  int64_t needed = 0;
  std::string what;
  for (const tpcc::BackendOptions& engine : engines) {
    const int64_t bytes = tpcc::load_memory_bytes(engine, warehouses);
    if (bytes == 0) continue;
    needed += bytes;
    what += (what.empty() ? "" : " and ") + engine.engine;
  }
  if (needed == 0) return;
  std::string shortfall =
      tpcc::memory_shortfall(what, warehouses, needed, tpcc::available_memory_bytes());
  if (!shortfall.empty()) throw tpcc::BackendError(shortfall);
}

// RunOptions::memory_floor_bytes from --memory-floor-mib (-1: the default).
int64_t memory_floor_bytes(const CliOptions& options) {
  return options.memory_floor_mib < 0 ? tpcc::default_memory_floor_bytes()
                                      : options.memory_floor_mib << 20;
}

std::vector<tpcc::ConditionResult> run_checks(tpcc::Connection& conn, bool include_11,
                                              bool quiet) {
  auto start = std::chrono::steady_clock::now();
  if (!quiet) fmt::print(stderr, "checking the consistency conditions...\n");
  auto conditions = tpcc::check_consistency(conn, include_11);
  if (!quiet) fmt::print(stderr, "checked in {:.1f} s\n", seconds_since(start));
  return conditions;
}

bool conditions_hold(const std::vector<tpcc::ConditionResult>& conditions) {
  for (const auto& condition : conditions) {
    if (!condition.ok) return false;
  }
  return true;
}

int command_load(tpcc::Backend& backend, const CliOptions& options) {
  double seconds = 0;
  tpcc::LoadInfo info = load(backend, options, &seconds);
  if (options.no_check) return kExitOk;
  auto conn = backend.connect();
  auto conditions = run_checks(*conn, /*include_11=*/true, options.quiet);
  tpcc::print_conditions(conditions);
  tpcc::CardinalityResult cardinality = tpcc::check_cardinality(*conn, info.warehouses);
  tpcc::print_cardinality(cardinality);
  return conditions_hold(conditions) && cardinality.ok ? kExitOk : kExitFailed;
}

int command_check(tpcc::Backend& backend, const CliOptions& options) {
  tpcc::LoadInfo info;
  auto conn = open_existing(backend, &info);
  // First, so that a damaged file is named as such before a query trips on it.
  tpcc::StorageCheck storage = backend.check_storage();
  if (!storage.ok) throw tpcc::BackendError(storage.detail);
  auto conditions = run_checks(*conn, options.after_load, options.quiet);
  fmt::print("{} warehouse(s) in {}\n", info.warehouses, backend.location());
  tpcc::print_conditions(conditions);
  tpcc::CardinalityResult cardinality = tpcc::check_cardinality(*conn, info.warehouses);
  tpcc::print_cardinality(cardinality);
  if (!storage.name.empty()) fmt::print("  {:<12}  ok    {}\n", storage.name, storage.detail);
  bool ok = conditions_hold(conditions) && cardinality.ok;
  if (!options.success_file.empty()) {
    tpcc::DurabilityResult durable =
        tpcc::check_durability(*conn, info.warehouses, options.success_file);
    fmt::print("durability: {}  {}\n", durable.ok ? "ok  " : "FAIL", durable.detail);
    ok = ok && durable.ok;
  }
  return ok ? kExitOk : kExitFailed;
}

int command_run(tpcc::Backend& backend, const CliOptions& options) {
  if (!options.json_path.empty()) check_writable(options.json_path, "JSON");
  if (!options.journal_path.empty()) check_writable(options.journal_path, "journal");
  tpcc::RunReport report;
  tpcc::LoadInfo info;
  if (!options.no_load) {
    info = load(backend, options, &report.load_s);
  }
  auto check_conn = open_existing(backend, &info);
  // Condition 11 holds only right after the initial load, so a fresh load is
  // checked once before the terminals start (all twelve, which also catches a
  // bad load); condition 11's result joins the eleven checked after the run.
  std::optional<tpcc::ConditionResult> condition_11;
  if (!options.no_load && !options.no_check) {
    auto after_load = run_checks(*check_conn, /*include_11=*/true, options.quiet);
    if (!conditions_hold(after_load)) {
      fmt::print(stderr, "tpcc: the fresh load breaks consistency conditions; not running\n");
      tpcc::print_conditions(after_load);
      return kExitFailed;
    }
    for (const auto& condition : after_load) {
      if (condition.id == 11) condition_11 = condition;
    }
    if (condition_11) condition_11->detail += ", checked right after the load";
  }
  if (options.no_load && info.warehouses != options.warehouses && !options.quiet) {
    fmt::print(stderr, "note: the database holds {} warehouse(s); running with W={}\n",
               info.warehouses, info.warehouses);
  }

  // What the load and the checks freed (the check connection's result
  // buffers, the loader threads' row batches: ~100 MB at W=1, kept by glibc
  // in its heaps) goes back to the system before the terminals start, so
  // that the resident memory measured after the run (rss ÷ state) is the
  // engine's and not the harness's leftovers.
  check_conn.reset();
  malloc_trim(0);

  tpcc::RunOptions run_options;
  run_options.terminals = options.terminals;
  run_options.duration_s = options.duration_s;
  run_options.warmup_s = options.warmup_s;
  run_options.seed = options.seed;
  run_options.think = options.think;
  run_options.drivers = options.drivers;
  if (options.connections > 0 && options.backend.engine == "solo" && options.drivers > 0) {
    fmt::print(stderr, "note: --connections applies to a thread per terminal; solo's terminals run "
                       "on {} driver thread(s) (--drivers 0 for a thread each)\n", options.drivers);
  }
  // PostgreSQL behind a pool of 4 connections per core unless told
  // otherwise (tpcc/README.md, "PostgreSQL behind a connection pool").
  run_options.connections =
      options.connections >= 0 ? options.connections
      : options.backend.engine == "postgres"
          ? 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
          : 0;
  run_options.delivery_districts = options.delivery_districts;
  run_options.progress = !options.quiet;
  run_options.max_transactions = options.transactions;
  run_options.memory_floor_bytes = memory_floor_bytes(options);
  run_options.interrupt_ends_window = true;
  tpcc::Journal journal;
  if (!options.journal_path.empty()) run_options.journal = &journal;
  std::unique_ptr<tpcc::SuccessFile> success;
  if (!options.success_file.empty()) {
    success = std::make_unique<tpcc::SuccessFile>(options.success_file);
    run_options.success = success.get();
  }

  report.engine = backend.name();
  report.storage = storage_name(options.backend.storage);
  report.config = backend.describe_config();
  report.warehouses = info.warehouses;
  report.terminals = options.terminals;
  report.duration_s = options.duration_s;
  report.warmup_s = options.warmup_s;
  report.seed = options.seed;
  report.think = options.think;
  std::unique_ptr<tpcc::OwnerProfiler> profiler;
  if (options.profile) {
    profiler = std::make_unique<tpcc::OwnerProfiler>(
        options.json_path.empty() ? "owner-profile.perf.data" : options.json_path + ".perf.data");
    profiler->start(options.warmup_s, options.duration_s);
  }
  report.result = tpcc::run_terminals(backend, info, run_options);
  if (profiler) {
    double utilization = 0;
    for (const auto& [name, value] : report.result.engine_metrics) {
      if (name == "owner_utilization") utilization = value;
    }
    report.owner_profile = profiler->finish(utilization);
  }
  if (run_options.journal != nullptr) {
    tpcc::write_journal(options.journal_path, {info.warehouses, info.seed, backend.name()},
                        journal.sorted());
    if (!options.quiet) {
      fmt::print(stderr, "journal: {} committed write transactions in {}\n", journal.size(),
                 options.journal_path);
    }
  }
  if (!options.no_check) {
    check_conn = backend.connect();
    report.conditions = run_checks(*check_conn, /*include_11=*/false, options.quiet);
    if (condition_11) {
      auto after_10 = std::find_if(report.conditions.begin(), report.conditions.end(),
                                   [](const tpcc::ConditionResult& c) { return c.id > 11; });
      report.conditions.insert(after_10, *condition_11);
    }
    // The conditions look only at the rows present (a missing warehouse
    // passes them), as in load, check and replay.
    report.cardinality = tpcc::check_cardinality(*check_conn, info.warehouses);
    report.checks_ran = true;
  }
  report.audit = tpcc::audit_mix(report.result.mix, info.warehouses);
  tpcc::print_summary(report);
  if (report.owner_profile) tpcc::print_owner_profile(*report.owner_profile);
  if (!options.json_path.empty()) tpcc::write_json(report, options.json_path);
  // A SIGINT ended the window: its exit status, once the results are out.
  if (const int signal_number = tpcc::deferred_interrupt(); signal_number != 0) {
    return 128 + signal_number;
  }
  return tpcc::all_ok(report) ? kExitOk : kExitFailed;
}

int command_replay(tpcc::Backend& backend, CliOptions options) {
  tpcc::JournalHeader header;
  std::vector<tpcc::JournalEntry> entries = tpcc::read_journal(options.journal_path, &header);
  options.warehouses = header.warehouses;
  options.seed = header.seed;
  check_memory(options, {options.backend}, options.warehouses);
  double load_seconds = 0;
  load(backend, options, &load_seconds);
  auto conn = backend.connect();
  tpcc::replay_journal(*conn, entries, !options.quiet);
  if (options.no_check) return kExitOk;
  auto conditions = run_checks(*conn, false, options.quiet);
  tpcc::print_conditions(conditions);
  tpcc::CardinalityResult cardinality = tpcc::check_cardinality(*conn, header.warehouses);
  tpcc::print_cardinality(cardinality);
  return conditions_hold(conditions) && cardinality.ok ? kExitOk : kExitFailed;
}

int command_crosscheck(const CliOptions& options) {
  std::string base = options.backend.dir;
  if (base.empty()) {
    base = options.backend.storage == tpcc::Storage::kRam ? "/dev/shm/solo-crosscheck"
                                                          : "tpcc-crosscheck";
  }
  // crosscheck writes its journal into DIR and removes it, the engines'
  // directories and DIR itself afterwards: DIR must be tpcc's (owned_dir.h).
  std::vector<tpcc::BackendOptions> engines;
  for (const std::string& engine : options.engines) {
    engines.push_back(options.backend);
    engines.back().engine = engine;
  }
  check_memory(options, engines, options.warehouses);
  tpcc::claim_dir(base, /*adopt=*/options.backend.dir.empty(), "crosscheck");
  std::string journal_path =
      options.journal_path.empty() ? base + "/journal.txt" : options.journal_path;
  check_writable(journal_path, "journal");
  std::vector<std::unique_ptr<tpcc::Backend>> backends;
  for (const std::string& engine : options.engines) {
    tpcc::BackendOptions backend_options = options.backend;
    backend_options.engine = engine;
    backend_options.dir = base + "/" + engine;
    // The default base is tpcc's by name: an engine's directory there from a
    // version without the marker is adopted, as the engines' defaults are.
    std::error_code exists_error;
    if (options.backend.dir.empty() && std::filesystem::exists(backend_options.dir, exists_error)) {
      tpcc::claim_dir(backend_options.dir, /*adopt=*/true, engine);
    }
    backends.push_back(tpcc::make_backend(backend_options));
  }

  // 1. Run on the first engine, journaling.
  tpcc::Backend& first = *backends.front();
  double load_seconds = 0;
  tpcc::LoadInfo info = load(first, options, &load_seconds);
  tpcc::Journal journal;
  tpcc::RunOptions run_options;
  run_options.terminals = options.terminals;
  run_options.seed = options.seed;
  run_options.think = false;
  run_options.drivers = options.drivers;
  // Replayed on every engine as journaled: one database transaction per
  // journal record.
  run_options.delivery_districts = options.delivery_districts;
  run_options.progress = !options.quiet;
  run_options.max_transactions = options.transactions;
  run_options.journal = &journal;
  run_options.memory_floor_bytes = memory_floor_bytes(options);
  if (!options.quiet) {
    fmt::print(stderr, "running {} transactions on {} with {} terminals\n", options.transactions,
               first.name(), options.terminals);
  }
  tpcc::RunResult result = tpcc::run_terminals(first, info, run_options);
  if (!result.error.empty()) {
    throw tpcc::BackendError("run on " + first.name() + " failed: " + result.error);
  }
  if (!result.ended_early.empty()) {
    throw tpcc::BackendError("run on " + first.name() + " ended early: " + result.ended_early);
  }
  std::vector<tpcc::JournalEntry> entries = journal.sorted();
  tpcc::write_journal(journal_path, {info.warehouses, info.seed, first.name()}, entries);
  fmt::print("{}: {} transactions, {} committed write transactions journaled to {}\n",
             first.name(), result.completed, entries.size(), journal_path);

  // 2. Replay on each other engine and compare.
  auto first_conn = first.connect();
  bool all_same = true;
  bool all_hold = true;
  for (size_t engine_idx = 1; engine_idx < backends.size(); ++engine_idx) {
    tpcc::Backend& other = *backends[engine_idx];
    load(other, options, &load_seconds);
    auto other_conn = other.connect();
    // Both databases must come from the same load, or a comparison means nothing.
    tpcc::LoadInfo other_info = tpcc::read_load_info(*other_conn);
    if (other_info.seed != info.seed || other_info.warehouses != info.warehouses ||
        other_info.load_c.c_last != info.load_c.c_last ||
        other_info.load_c.c_id != info.load_c.c_id ||
        other_info.load_c.ol_i_id != info.load_c.ol_i_id) {
      throw tpcc::BackendError(fmt::format(
          "refusing to compare {} (seed {}, W={}) with {} (seed {}, W={}): different loads",
          first.name(), info.seed, info.warehouses, other.name(), other_info.seed,
          other_info.warehouses));
    }
    if (!options.quiet) fmt::print(stderr, "replaying on {}\n", other.name());
    tpcc::replay_journal(*other_conn, entries, !options.quiet);
    fmt::print("\n{} vs {}:\n", first.name(), other.name());
    uint64_t different_tables = 0;
    for (const tpcc::TableDiff& diff : tpcc::compare_tables(*first_conn, *other_conn)) {
      if (diff.identical()) {
        fmt::print("  {:<12} identical ({} rows)\n", diff.table, diff.rows_a);
      } else {
        ++different_tables;
        fmt::print("  {:<12} DIFFERENT: {} differing rows ({}: {} rows, {}: {} rows)\n{}",
                   diff.table, diff.differing, first.name(), diff.rows_a, other.name(),
                   diff.rows_b, diff.examples);
      }
    }
    fmt::print("  {} of 9 tables differ\n", different_tables);
    all_same = all_same && different_tables == 0;
  }

  // 3. The consistency conditions on every engine.
  fmt::print("\nconsistency:\n");
  for (auto& backend : backends) {
    auto conn = backend->connect();
    auto conditions = tpcc::check_consistency(*conn, false);
    size_t held = 0;
    for (const auto& condition : conditions) held += condition.ok ? 1 : 0;
    fmt::print("  {:<10} {}/{} conditions hold\n", backend->name(), held, conditions.size());
    for (const auto& condition : conditions) {
      if (!condition.ok) fmt::print("    condition {} FAILED: {}\n", condition.id, condition.detail);
    }
    all_hold = all_hold && held == conditions.size();
  }
  const bool agreed = all_same && all_hold;
  fmt::print("\ncrosscheck: {}\n", agreed ? "all engines end with the same tables" : "DIFFERENCES FOUND");
  // The databases (a private PostgreSQL cluster is ~650 MB, in RAM under
  // /dev/shm) go once they have agreed; after a difference they stay.
  first_conn.reset();
  for (auto& backend : backends) backend->close();  // throws if solo's checkpoint at close fails
  backends.clear();                                 // closes SQLite, stops a private PostgreSQL
  if (agreed && !options.keep) {
    std::error_code remove_error;
    for (const std::string& engine : options.engines) {
      // Each was claimed before its load (owned_dir.h); checked again, as
      // this removes the whole directory.
      if (tpcc::dir_is_owned(base + "/" + engine)) {
        std::filesystem::remove_all(base + "/" + engine, remove_error);
      }
    }
    if (options.journal_path.empty()) std::filesystem::remove(journal_path, remove_error);
    // DIR goes when nothing but its marker is left in it; with anything
    // else there it stays, marker and all.
    bool only_marker = true;
    for (const auto& entry : std::filesystem::directory_iterator(base, remove_error)) {
      only_marker = only_marker && entry.path().filename() == tpcc::kOwnedMarker;
    }
    if (only_marker && !remove_error) std::filesystem::remove_all(base, remove_error);
    fmt::print("removed the databases under {} (--keep keeps them)\n", base);
  } else if (!agreed) {
    fmt::print("the databases and the journal are kept under {}\n", base);
  }
  return agreed ? kExitOk : kExitFailed;
}

int tpcc_main(int argc, char** argv) {
  // Blocks of 256 KiB and more come from mmap and go back to the system when
  // freed. By default glibc raises this threshold after the first large free
  // (up to 32 MiB); growing vectors then leave freed but resident holes in
  // the threads' heaps (~20 MB at W=1 within a 10 s run): memory no engine
  // uses that would count in solo's rss ÷ state. Hot paths reuse their
  // buffers, so the extra mmap calls are rare (tps unchanged).
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
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
  if (options->command == "crosscheck") {
    try {
      return command_crosscheck(*options);
    } catch (const std::invalid_argument& failure) {
      fmt::print(stderr, "tpcc: error: {}\n", failure.what());
      return kExitUsage;
    } catch (const std::exception& failure) {
      tpcc::wait_if_interrupted();  // a failure the interrupt's cleanup caused
      fmt::print(stderr, "tpcc: error: {}\n", failure.what());
      return kExitFailed;
    }
  }
  // check and run --no-load create nothing (solo would create an empty
  // database in the directory).
  options->backend.must_exist =
      options->command == "check" || (options->command == "run" && options->no_load);
  std::unique_ptr<tpcc::Backend> backend;
  try {
    if (options->command == "load" || (options->command == "run" && !options->no_load)) {
      check_memory(*options, {options->backend}, options->warehouses);
    }
    backend = tpcc::make_backend(options->backend);
  } catch (const std::invalid_argument& failure) {  // an unknown engine or profile
    fmt::print(stderr, "tpcc: error: {}\n", failure.what());
    return kExitUsage;
  } catch (const std::exception& failure) {  // solo's open: damaged, locked, no permission
    fmt::print(stderr, "tpcc: error: {}\n", failure.what());
    return kExitFailed;
  }
  try {
    int exit_code;
    if (options->command == "load") {
      exit_code = command_load(*backend, *options);
    } else if (options->command == "check") {
      exit_code = command_check(*backend, *options);
    } else if (options->command == "replay") {
      exit_code = command_replay(*backend, *options);
    } else {
      exit_code = command_run(*backend, *options);
    }
    // Closing can fail too (solo's checkpoint at close: ENOSPC).
    backend->close();
    return exit_code;
  } catch (const std::exception& failure) {
    tpcc::wait_if_interrupted();  // a failure the interrupt's cleanup caused
    fmt::print(stderr, "tpcc: error: {}\n", failure.what());
    return kExitFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: SIGINT and SIGTERM stop a private PostgreSQL
  // cluster this run started before the process exits (tpcc/interrupt.h).
  tpcc::install_interrupt_handler();
  // A write past a file size limit (ulimit -f) fails with EFBIG, which the
  // engines report naming the file, instead of killing the process with
  // SIGXFSZ mid-write (no message; a private PostgreSQL left running).
  signal(SIGXFSZ, SIG_IGN);
  const int status = tpcc_main(argc, argv);
  tpcc::wait_if_interrupted();
  return status;
}
