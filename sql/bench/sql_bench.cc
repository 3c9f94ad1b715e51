// SQL-layer benchmarks (issue 4), run by scripts/bench: the cost of a
// prepared statement over the engine call that does the same work.
//
// Targets, on one table of 1M rows of ~100 bytes, random keys:
//   prepared point SELECT by primary key   <= 2x the engine's direct get
//   prepared single-row UPDATE             <= 2x the direct update
//
// The baselines, through the engine's public API only:
//   DirectGet        append_key of the id, txn.get -> the row's bytes
//   DirectGetDecode  the same + decode_row (what a C++ caller needs to use it)
//   DirectUpdate     append_key, get, decode_row, b + 1, txn.update: the
//                    read-modify-write that UPDATE ... SET b = b + 1 does
// and the SQL statements:
//   SqlPointSelect   SELECT id, a, b, payload FROM bench WHERE id = ?
//   SqlUpdate        UPDATE bench SET b = b + 1 WHERE id = ?
// Reads run in one held ReadTxn; updates in write transactions of 1,024.
// The *Sequential reads take the keys in order, so the tree path stays in
// cache: what is left is the compute cost, where the SQL layer's share is
// largest (informational; the targets are for random keys).
// Each benchmark checks its answer. The pairs run alternating (direct, SQL,
// direct, SQL, ...: one run on these machines moves by several percent), and
// the end prints each pair's SQL / direct ratio and their median, of
//   cpu:  CPU time per operation: the reading thread's for reads; for updates
//         the whole process's (caller + owner thread, getrusage), counter
//         process_cpu_ns_per_op. The headline: the machine is shared, and
//         CPU time does not count the time other processes hold the core.
//   real: wall time per operation (updates: including the owner round trip).
// SOLO_SQL_BENCH_PAIRS sets the number of pairs (5); SOLO_SQL_BENCH_SUMMARY=
// FILE also writes the ratios as JSON.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "solo/codec.h"
#include "solo/database.h"
#include "solo/sql/statement.h"

namespace {

using solo::Database;
using solo::ReadTxn;
using solo::Status;
using solo::WriteTxn;
using solo::sql::PreparedStatement;
using solo::sql::ResultSet;
using solo::sql::SqlStatus;

constexpr int64_t kRows = 1000000;
constexpr int kUpdateBatch = 1024;
constexpr const char* kSelectSql = "SELECT id, a, b, payload FROM bench WHERE id = ?";
constexpr const char* kUpdateSql = "UPDATE bench SET b = b + 1 WHERE id = ?";

struct Fixture {
  std::unique_ptr<Database> db;
  solo::TableSchema schema;
  solo::TableId table = 0;
  std::optional<PreparedStatement> select;
  std::optional<PreparedStatement> update;

  Fixture() {
    db = std::move(*Database::open(solo::Options{}));
    Status status = db->write([&](WriteTxn& txn) {
      auto create = PreparedStatement::Prepare(
          txn, "CREATE TABLE bench (id BIGINT PRIMARY KEY, a INTEGER, b BIGINT, payload VARCHAR(100))");
      if (!create.ok() || !create->Execute(txn, {}, nullptr).ok()) return Status::Internal("create");
      return Status::OK();
    });
    if (!status.ok()) Die("cannot create the table");
    db->read([&](ReadTxn& txn) {
      const solo::TableInfo* info = txn.catalog().find_table("bench");
      if (info == nullptr) Die("no table bench");
      table = info->id;
      schema = info->schema;
      return Status::OK();
    });
    constexpr int64_t kLoadBatch = 50000;
    for (int64_t start = 0; start < kRows; start += kLoadBatch) {
      status = db->write([&](WriteTxn& txn) {
        std::string row;
        for (int64_t id = start; id < start + kLoadBatch; ++id) {
          Status s = solo::encode_row(schema, MakeRow(id), &row);
          if (s.ok()) s = txn.insert_encoded(table, row);
          if (!s.ok()) return s;
        }
        return Status::OK();
      });
      if (!status.ok()) Die("load: " + status.ToString());
    }
    db->read([&](ReadTxn& txn) {
      auto prepared_select = PreparedStatement::Prepare(txn, kSelectSql);
      auto prepared_update = PreparedStatement::Prepare(txn, kUpdateSql);
      if (!prepared_select.ok() || !prepared_update.ok()) Die("prepare");
      select.emplace(prepared_select.value());
      update.emplace(prepared_update.value());
      return Status::OK();
    });
  }

  static solo::Row MakeRow(int64_t id) {
    return {solo::Value::Int(id), solo::Value::Int(id % 1000), solo::Value::Int(0),
            solo::Value::String(std::string(80, static_cast<char>('a' + id % 26)))};
  }

  [[noreturn]] static void Die(const std::string& what) {
    std::fprintf(stderr, "sql_bench: %s\n", what.c_str());
    std::exit(1);
  }
};

Fixture& fixture() {
  static Fixture* instance = new Fixture();  // shared by all benchmarks, never freed
  return *instance;
}

// The engine's encoding of primary key `id`, into *key (reused).
void EncodeKey(const Fixture& f, int64_t id, std::string* key) {
  solo::Value value = solo::Value::Int(id);
  key->clear();
  solo::append_key(f.schema, f.schema.primary_key, std::span<const solo::Value>(&value, 1), key);
}

uint64_t ProcessCpuNs() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1000000000 + static_cast<uint64_t>(tv.tv_usec) * 1000;
  };
  return ns(usage.ru_utime) + ns(usage.ru_stime);
}

// For the update benchmarks: the owner's busy time and the process's CPU per
// operation (the work runs on the owner thread, not in the benchmark's).
void AddWriteCounters(benchmark::State& state, const solo::Stats& before, uint64_t cpu_before,
                      const solo::Stats& after) {
  if (state.iterations() == 0) return;
  double ops = static_cast<double>(state.iterations());
  state.counters["owner_ns_per_op"] = static_cast<double>(after.owner_busy_ns - before.owner_busy_ns) / ops;
  state.counters["process_cpu_ns_per_op"] = static_cast<double>(ProcessCpuNs() - cpu_before) / ops;
}

void BM_DirectGet(benchmark::State& state) {
  Fixture& f = fixture();
  solo::Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::mt19937_64 rng(1);
  std::string key;
  uint64_t found = 0;
  for (auto _ : state) {
    EncodeKey(f, static_cast<int64_t>(rng() % kRows), &key);
    std::string_view row;
    found += txn.get(f.table, key, &row).ok();
    benchmark::DoNotOptimize(row.data());
  }
  if (found != static_cast<uint64_t>(state.iterations())) state.SkipWithError("row not found");
  state.SetItemsProcessed(state.iterations());
}

// The next key in order, wrapping around.
int64_t NextSequential(int64_t* id) {
  *id = *id + 1 == kRows ? 0 : *id + 1;
  return *id;
}

void BM_DirectGetSequential(benchmark::State& state) {
  Fixture& f = fixture();
  solo::Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::string key;
  int64_t id = 0;
  uint64_t found = 0;
  for (auto _ : state) {
    EncodeKey(f, NextSequential(&id), &key);
    std::string_view row;
    found += txn.get(f.table, key, &row).ok();
    benchmark::DoNotOptimize(row.data());
  }
  if (found != static_cast<uint64_t>(state.iterations())) state.SkipWithError("row not found");
  state.SetItemsProcessed(state.iterations());
}

void BM_SqlPointSelectSequential(benchmark::State& state) {
  Fixture& f = fixture();
  solo::Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  ResultSet rows;
  solo::sql::Value param;
  int64_t id = 0;
  uint64_t right = 0;
  for (auto _ : state) {
    param.SetInt(NextSequential(&id));
    SqlStatus status = f.select->Execute(txn, std::span<const solo::sql::Value>(&param, 1), &rows);
    right += status.ok() && rows.row_count() == 1 && rows.at(0, 0).as_int() == id;
  }
  if (right != static_cast<uint64_t>(state.iterations())) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations());
}

void BM_DirectGetDecode(benchmark::State& state) {
  Fixture& f = fixture();
  solo::Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::mt19937_64 rng(1);
  std::string key;
  solo::Row row;
  uint64_t right = 0;
  for (auto _ : state) {
    int64_t id = static_cast<int64_t>(rng() % kRows);
    EncodeKey(f, id, &key);
    std::string_view bytes;
    if (txn.get(f.table, key, &bytes).ok() && solo::decode_row(f.schema, bytes, &row).ok()) {
      right += row[0].as_int() == id;
    }
  }
  if (right != static_cast<uint64_t>(state.iterations())) state.SkipWithError("wrong row");
  state.SetItemsProcessed(state.iterations());
}

void BM_SqlPointSelect(benchmark::State& state) {
  Fixture& f = fixture();
  solo::Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::mt19937_64 rng(1);
  ResultSet rows;
  solo::sql::Value param;
  uint64_t right = 0;
  for (auto _ : state) {
    int64_t id = static_cast<int64_t>(rng() % kRows);
    param.SetInt(id);
    SqlStatus status = f.select->Execute(txn, std::span<const solo::sql::Value>(&param, 1), &rows);
    right += status.ok() && rows.row_count() == 1 && rows.at(0, 0).as_int() == id &&
             rows.at(0, 3).as_text().size() == 80;
  }
  if (right != static_cast<uint64_t>(state.iterations())) state.SkipWithError("wrong result");
  state.SetItemsProcessed(state.iterations());
}

void BM_DirectUpdate(benchmark::State& state) {
  Fixture& f = fixture();
  std::mt19937_64 rng(2);
  std::string key;
  solo::Row row;
  solo::Stats before = f.db->stats();
  uint64_t cpu_before = ProcessCpuNs();
  while (state.KeepRunningBatch(kUpdateBatch)) {
    Status status = f.db->write([&](WriteTxn& txn) {
      for (int update = 0; update < kUpdateBatch; ++update) {
        EncodeKey(f, static_cast<int64_t>(rng() % kRows), &key);
        std::string_view bytes;
        Status s = txn.get(f.table, key, &bytes);
        if (s.ok()) s = solo::decode_row(f.schema, bytes, &row);
        if (!s.ok()) return s;
        row[2] = solo::Value::Int(row[2].as_int() + 1);
        s = txn.update(f.table, key, row);
        if (!s.ok()) return s;
      }
      return Status::OK();
    });
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  AddWriteCounters(state, before, cpu_before, f.db->stats());
  state.SetItemsProcessed(state.iterations());
}

void BM_SqlUpdate(benchmark::State& state) {
  Fixture& f = fixture();
  std::mt19937_64 rng(2);
  ResultSet result;
  solo::sql::Value param;
  solo::Stats before = f.db->stats();
  uint64_t cpu_before = ProcessCpuNs();
  while (state.KeepRunningBatch(kUpdateBatch)) {
    Status status = f.db->write([&](WriteTxn& txn) {
      for (int update = 0; update < kUpdateBatch; ++update) {
        param.SetInt(static_cast<int64_t>(rng() % kRows));
        SqlStatus s = f.update->Execute(txn, std::span<const solo::sql::Value>(&param, 1), &result);
        if (!s.ok()) return Status::Internal(s.error().ToString());
        if (result.affected_rows() != 1) return Status::Internal("not one row updated");
      }
      return Status::OK();
    });
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  AddWriteCounters(state, before, cpu_before, f.db->stats());
  state.SetItemsProcessed(state.iterations());
}

// The console output, and each run's times per operation kept for the
// ratios (ns: every benchmark here reports in ns).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      std::string name = run.benchmark_name();
      std::string base = name.substr(0, name.find('/'));
      real_[base].push_back(run.GetAdjustedRealTime());
      auto process_cpu = run.counters.find("process_cpu_ns_per_op");
      cpu_[base].push_back(process_cpu != run.counters.end() ? process_cpu->second.value
                                                             : run.GetAdjustedCPUTime());
    }
    ConsoleReporter::ReportRuns(runs);
  }
  const std::vector<double>& times(const std::string& name, bool cpu) {
    return cpu ? cpu_[name] : real_[name];
  }

 private:
  std::map<std::string, std::vector<double>> real_;
  std::map<std::string, std::vector<double>> cpu_;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* revision = std::getenv("SOLO_GIT_REV");
  const char* pairs_env = std::getenv("SOLO_SQL_BENCH_PAIRS");
  int pairs = pairs_env != nullptr ? std::max(1, std::atoi(pairs_env)) : 5;
  benchmark::AddCustomContext("git_revision", revision ? revision : "unknown");
  benchmark::AddCustomContext("rows", std::to_string(kRows));
  benchmark::AddCustomContext("select_sql", kSelectSql);
  benchmark::AddCustomContext("update_sql", kUpdateSql);
  benchmark::AddCustomContext("update_batch", std::to_string(kUpdateBatch));
  fixture();
  benchmark::AddCustomContext("state_bytes", std::to_string(fixture().db->stats().state_bytes));
  for (int pair = 1; pair <= pairs; ++pair) {
    std::string suffix = fmt::format("/pair:{}", pair);
    benchmark::RegisterBenchmark(("BM_DirectGet" + suffix).c_str(), BM_DirectGet);
    benchmark::RegisterBenchmark(("BM_SqlPointSelect" + suffix).c_str(), BM_SqlPointSelect);
    benchmark::RegisterBenchmark(("BM_DirectGetDecode" + suffix).c_str(), BM_DirectGetDecode);
    benchmark::RegisterBenchmark(("BM_DirectGetSequential" + suffix).c_str(), BM_DirectGetSequential);
    benchmark::RegisterBenchmark(("BM_SqlPointSelectSequential" + suffix).c_str(),
                                 BM_SqlPointSelectSequential);
    benchmark::RegisterBenchmark(("BM_DirectUpdate" + suffix).c_str(), BM_DirectUpdate)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_SqlUpdate" + suffix).c_str(), BM_SqlUpdate)->UseRealTime();
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  struct Ratio {
    const char* name;
    const char* sql;
    const char* direct;
    double limit;
  };
  const Ratio ratios[] = {
      {"select_vs_get", "BM_SqlPointSelect", "BM_DirectGet", 2.0},
      {"select_vs_get_decode", "BM_SqlPointSelect", "BM_DirectGetDecode", 0},
      {"select_vs_get_sequential", "BM_SqlPointSelectSequential", "BM_DirectGetSequential", 0},
      {"update_vs_update", "BM_SqlUpdate", "BM_DirectUpdate", 2.0},
  };
  std::string json = fmt::format("{{\n  \"git_revision\": \"{}\",\n  \"rows\": {},\n  \"pairs\": {},\n  \"ratios\": {{",
                                 revision ? revision : "unknown", kRows, pairs);
  bool first = true;
  for (bool cpu : {true, false}) {
    std::printf("\nSQL / direct, %s per operation (per pair; median):\n",
                cpu ? "CPU time" : "real time");
    for (const Ratio& ratio : ratios) {
      const std::vector<double>& sql = reporter.times(ratio.sql, cpu);
      const std::vector<double>& direct = reporter.times(ratio.direct, cpu);
      size_t count = std::min(sql.size(), direct.size());
      if (count == 0) continue;
      std::vector<double> per_pair;
      for (size_t idx = 0; idx < count; ++idx) per_pair.push_back(sql[idx] / direct[idx]);
      double median = Median(per_pair);
      std::string list;
      for (double value : per_pair) list += fmt::format("{}{:.2f}", list.empty() ? "" : ", ", value);
      std::string verdict =
          ratio.limit > 0 ? (median <= ratio.limit ? "  ok (<= 2x)" : "  OVER 2x") : "";
      std::printf("  %-26s %.2fx  [%s]  (%s %.0f ns / %s %.0f ns)%s\n", ratio.name, median,
                  list.c_str(), ratio.sql, Median(sql), ratio.direct, Median(direct), verdict.c_str());
      json += fmt::format(
          "{}\n    \"{}_{}\": {{\"median\": {:.3f}, \"per_pair\": [{}], \"sql_ns\": {:.1f}, "
          "\"direct_ns\": {:.1f}, \"limit\": {}}}",
          first ? "" : ",", ratio.name, cpu ? "cpu" : "real", median, list, Median(sql),
          Median(direct), ratio.limit);
      first = false;
    }
  }
  json += "\n  }\n}\n";
  if (const char* summary = std::getenv("SOLO_SQL_BENCH_SUMMARY")) {
    if (FILE* file = std::fopen(summary, "w")) {
      std::fputs(json.c_str(), file);
      std::fclose(file);
    }
  }
  return 0;
}
