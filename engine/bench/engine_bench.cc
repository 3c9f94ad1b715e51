// Engine micro-benchmarks (issue 3), run by scripts/bench. Each checks its
// answer and reports through Google benchmark's JSON, with the git revision
// (SOLO_GIT_REV) in the context.
//
// Targets on this machine, 1M rows of ~100 bytes:
//   point get <= 250 ns; in-place update <= 400 ns; copy-on-write update
//   after a publish <= 2 us; full scan >= 20M rows/s; empty write txn from 16
//   threads >= 1M/s; snapshot publish + release <= 1 us + nodes copied.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "solo/codec.h"
#include "solo/database.h"

#include "bench_clock.h"

namespace {

using solo::bench::process_cpu_ns;

using namespace solo;

constexpr int64_t kRows = 1000000;

struct Fixture {
  std::unique_ptr<Database> db;
  TableSchema schema;
  TableId table = 0;
  std::vector<std::string> keys;  // keys[id]
  std::string row_template;       // an encoded row of ~100 bytes

  Fixture() {
    db = std::move(*Database::open(Options{}));
    schema.name = "bench";
    schema.columns = {ColumnDef::BigInt("id", true), ColumnDef::Integer("a"),
                      ColumnDef::BigInt("b"), ColumnDef::VarChar("payload", 100)};
    schema.primary_key = {0};
    db->write([&](WriteTxn& txn) {
      table = *txn.create_table(schema);
      return Status::OK();
    });
    keys.resize(kRows);
    for (int64_t id = 0; id < kRows; ++id) {
      Value value = Value::Int(id);
      append_key(schema, schema.primary_key, std::span<const Value>(&value, 1), &keys[id]);
    }
    constexpr int64_t kBatch = 50000;
    for (int64_t start = 0; start < kRows; start += kBatch) {
      Status status = db->write([&](WriteTxn& txn) {
        std::string row;
        for (int64_t id = start; id < start + kBatch; ++id) {
          Status s = encode_row(schema, make_row(id, 0), &row);
          if (s.ok()) s = txn.insert_encoded(table, row);
          if (!s.ok()) return s;
        }
        return Status::OK();
      });
      if (!status.ok()) std::abort();
    }
  }

  Row make_row(int64_t id, int64_t version) const {
    return {Value::Int(id), Value::Int(id % 1000), Value::Int(version),
            Value::String(std::string(80, static_cast<char>('a' + id % 26)))};
  }
};

Fixture& fixture() {
  static Fixture* instance = new Fixture();  // shared by all benchmarks, never freed
  return *instance;
}

// Context switches of the whole process: voluntary (sleeps in futex calls)
// plus involuntary (sched_yield and preemption).
uint64_t process_voluntary_switches() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_nvcsw);
}
uint64_t process_involuntary_switches() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_nivcsw);
}

// Counters for benchmarks that write: the owner's share and the CPU of the
// whole process (caller threads + owner) per item.
//
// Where a round trip's time goes: the futex calls of the round protocol
// (owner wakes per round, caller sleeps per transaction, owner sleeps per
// round) and the process's voluntary context switches per item.
struct SwitchCounts {
  uint64_t voluntary = process_voluntary_switches();
  uint64_t involuntary = process_involuntary_switches();
};

void add_db_counters(benchmark::State& state, const Stats& before, const Stats& after,
                     uint64_t cpu_before, const SwitchCounts& switches_before) {
  if (state.iterations() > 0) {
    double items = static_cast<double>(state.iterations() * state.threads());
    state.counters["process_cpu_ns_per_op"] =
        static_cast<double>(process_cpu_ns() - cpu_before) / items;
    state.counters["vol_switches_per_op"] =
        static_cast<double>(process_voluntary_switches() - switches_before.voluntary) / items;
    state.counters["invol_switches_per_op"] =
        static_cast<double>(process_involuntary_switches() - switches_before.involuntary) / items;
  }
  if (after.rounds > before.rounds) {
    double rounds = static_cast<double>(after.rounds - before.rounds);
    state.counters["wakes_per_round"] =
        static_cast<double>(after.round_wakes - before.round_wakes) / rounds;
    state.counters["caller_wakes_per_round"] =
        static_cast<double>(after.caller_wakes - before.caller_wakes) / rounds;
    state.counters["owner_sleeps_per_round"] =
        static_cast<double>(after.owner_sleeps - before.owner_sleeps) / rounds;
  }
  if (after.rounds > before.rounds) {
    // The owner's own CPU per round (thread CPU clock): without the time
    // callers or other processes held its core.
    state.counters["owner_cpu_ns_per_round"] =
        static_cast<double>(after.owner_cpu_ns - before.owner_cpu_ns) /
        static_cast<double>(after.rounds - before.rounds);
  }
  if (after.commits > before.commits) {
    state.counters["caller_sleeps_per_txn"] =
        static_cast<double>(after.caller_sleeps - before.caller_sleeps) /
        static_cast<double>(after.commits - before.commits);
  }
  uint64_t commits = after.commits - before.commits;
  uint64_t rounds = after.rounds - before.rounds;
  if (commits > 0) {
    state.counters["owner_ns_per_txn"] =
        static_cast<double>(after.owner_busy_ns - before.owner_busy_ns) /
        static_cast<double>(commits);
    state.counters["txn_per_round"] = static_cast<double>(commits) / static_cast<double>(rounds);
  }
  uint64_t busy = after.owner_busy_ns - before.owner_busy_ns;
  uint64_t idle = after.owner_idle_ns - before.owner_idle_ns;
  // The owner's busy time per benchmark item: its side of the cost, without
  // the caller's wait for the answer (a loaded machine delays wake-ups).
  if (state.iterations() > 0) {
    state.counters["owner_ns_per_op"] =
        static_cast<double>(busy) / static_cast<double>(state.iterations() * state.threads());
  }
  if (busy + idle > 0) {
    state.counters["owner_utilization"] =
        static_cast<double>(busy) / static_cast<double>(busy + idle);
  }
}

// The key of row `id` (>= 0) without touching the keys array (a cache miss
// of its own): the engine's integer key form (engine/README.md "Key encoding").
inline std::string_view bigint_key(int64_t id, char (&buffer)[9]) {
  if (id < 240) {
    buffer[0] = static_cast<char>(0x08 + id);
    return {buffer, 1};
  }
  uint64_t rest = static_cast<uint64_t>(id) - 240;
  int bytes = 1;
  while (bytes < 8 && (rest >> (8 * bytes)) != 0) bytes++;
  buffer[0] = static_cast<char>(0xF7 + bytes);
  for (int byte_idx = 0; byte_idx < bytes; ++byte_idx) {
    buffer[1 + byte_idx] = static_cast<char>(rest >> (8 * (bytes - 1 - byte_idx)));
  }
  return {buffer, static_cast<size_t>(1 + bytes)};
}

void BM_PointGet(benchmark::State& state) {
  Fixture& f = fixture();
  Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::mt19937_64 rng(1);
  uint64_t found = 0;
  char buffer[9];
  if (bigint_key(12345, buffer) != f.keys[12345]) state.SkipWithError("key encoding differs");
  for (auto _ : state) {
    std::string_view row;
    found += txn.get(f.table, bigint_key(static_cast<int64_t>(rng() % kRows), buffer), &row).ok();
    benchmark::DoNotOptimize(row.data());
  }
  if (found != static_cast<uint64_t>(state.iterations())) state.SkipWithError("row not found");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointGet);

// Random lookups 16 at a time through ReadTxn::get_many: the lookups go
// down the tree side by side, so their misses overlap instead of adding up.
void BM_PointGetBatch(benchmark::State& state) {
  Fixture& f = fixture();
  Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  std::mt19937_64 rng(1);
  constexpr int kBatch = 16;
  char buffers[kBatch][9];
  std::string_view keys[kBatch];
  std::string_view rows[kBatch];
  uint64_t found = 0;
  while (state.KeepRunningBatch(kBatch)) {
    for (int key_idx = 0; key_idx < kBatch; ++key_idx) {
      keys[key_idx] = bigint_key(static_cast<int64_t>(rng() % kRows), buffers[key_idx]);
    }
    found += *txn.get_many(f.table, keys, rows);
    benchmark::DoNotOptimize(rows[kBatch - 1].data());
  }
  if (found != static_cast<uint64_t>(state.iterations())) state.SkipWithError("row not found");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointGetBatch);

// The same lookups in key order: the path stays in cache, leaving the
// compute cost of a lookup (the difference to BM_PointGet is memory latency).
void BM_PointGetSequential(benchmark::State& state) {
  Fixture& f = fixture();
  Snapshot snapshot = f.db->snapshot();
  ReadTxn txn(snapshot);
  uint64_t found = 0;
  char buffer[9];
  int64_t id = 0;
  for (auto _ : state) {
    std::string_view row;
    found += txn.get(f.table, bigint_key(id, buffer), &row).ok();
    id = id + 1 == kRows ? 0 : id + 1;
    benchmark::DoNotOptimize(row.data());
  }
  if (found != static_cast<uint64_t>(state.iterations())) state.SkipWithError("row not found");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointGetSequential);

// Updates of rows whose nodes this transaction already copied (made in the
// current generation): changed in place, only a new record. Transactions of
// 4,096 updates cycle over 256 hot rows, so 256 of the 4,096 copy a path;
// records come back from the spare arrays round after round.
void BM_UpdateInPlace(benchmark::State& state) {
  Fixture& f = fixture();
  constexpr int kHot = 256;
  constexpr int kBatch = 4096;
  std::vector<std::string> rows(kHot);
  std::vector<int64_t> ids(kHot);
  std::mt19937_64 rng(2);
  for (int hot = 0; hot < kHot; ++hot) {
    ids[hot] = static_cast<int64_t>(rng() % kRows);
    encode_row(f.schema, f.make_row(ids[hot], 1), &rows[hot]);
  }
  Stats before = f.db->stats();
  uint64_t cpu_before = process_cpu_ns();
  SwitchCounts switches_before;
  while (state.KeepRunningBatch(kBatch)) {
    Status status = f.db->write([&](WriteTxn& txn) {
      for (int update = 0; update < kBatch; ++update) {
        int hot = update % kHot;
        Status s = txn.update_encoded(f.table, f.keys[ids[hot]], rows[hot]);
        if (!s.ok()) return s;
      }
      return Status::OK();
    });
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  add_db_counters(state, before, f.db->stats(), cpu_before, switches_before);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UpdateInPlace)->UseRealTime();

// One write transaction per update, each right after the previous round's
// publish: the update copies its whole leaf-to-root path. Time per iteration
// includes the round trip through the owner; owner_ns_per_txn is the owner's
// own time (copy, publish, reclaim).
void BM_CowUpdateAfterPublish(benchmark::State& state) {
  Fixture& f = fixture();
  std::mt19937_64 rng(3);
  std::string row;
  Stats before = f.db->stats();
  uint64_t cpu_before = process_cpu_ns();
  SwitchCounts switches_before;
  for (auto _ : state) {
    int64_t id = static_cast<int64_t>(rng() % kRows);
    encode_row(f.schema, f.make_row(id, 2), &row);
    Status status =
        f.db->write([&](WriteTxn& txn) { return txn.update_encoded(f.table, f.keys[id], row); });
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  add_db_counters(state, before, f.db->stats(), cpu_before, switches_before);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CowUpdateAfterPublish)->UseRealTime();

// Copy-on-write updates without the round trip: transactions of 1,024
// updates, 40 rows apart, so that every update copies a leaf (and often an
// inner node) made in an older generation. In steady state the copies come
// from the spare arrays (the previous transaction's retired nodes).
void BM_CowUpdateInTxn(benchmark::State& state) {
  Fixture& f = fixture();
  constexpr int kBatch = 1024;
  constexpr int64_t kStride = 40;  // > 32 rows: a different leaf each time
  std::string row;
  int64_t next_id = 0;
  auto run_batch = [&]() {
    return f.db->write([&](WriteTxn& txn) {
      for (int update = 0; update < kBatch; ++update) {
        next_id = (next_id + kStride) % kRows;
        encode_row(f.schema, f.make_row(next_id, 3), &row);
        Status s = txn.update_encoded(f.table, f.keys[next_id], row);
        if (!s.ok()) return s;
      }
      return Status::OK();
    });
  };
  for (int warm = 0; warm < 8; ++warm) run_batch();
  Stats before = f.db->stats();
  uint64_t cpu_before = process_cpu_ns();
  SwitchCounts switches_before;
  while (state.KeepRunningBatch(kBatch)) {
    Status status = run_batch();
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  add_db_counters(state, before, f.db->stats(), cpu_before, switches_before);
  state.counters["fresh_objects"] =
      static_cast<double>(f.db->stats().fresh_objects - before.fresh_objects);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CowUpdateInTxn)->UseRealTime();

void BM_FullScan(benchmark::State& state) {
  Fixture& f = fixture();
  uint64_t rows = 0;
  for (auto _ : state) {
    Snapshot snapshot = f.db->snapshot();
    ReadTxn txn(snapshot);
    auto cursor = txn.scan(f.table, KeyRange::All());
    uint64_t count = 0;
    uint64_t bytes = 0;
    for (; cursor->valid(); cursor->next()) {
      bytes += cursor->value().size();
      count++;
    }
    benchmark::DoNotOptimize(bytes);
    if (count != static_cast<uint64_t>(kRows)) state.SkipWithError("scan missed rows");
    rows += count;
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_FullScan)->Unit(benchmark::kMillisecond);

Stats empty_before;
uint64_t empty_cpu_before = 0;
SwitchCounts empty_switches_before;

void BM_EmptyWrite(benchmark::State& state) {
  Fixture& f = fixture();
  if (state.thread_index() == 0) {
    empty_before = f.db->stats();
    empty_cpu_before = process_cpu_ns();
    empty_switches_before = SwitchCounts();
  }
  for (auto _ : state) {
    Status status = f.db->write([](WriteTxn&) { return Status::OK(); });
    if (!status.ok()) state.SkipWithError("write failed");
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    add_db_counters(state, empty_before, f.db->stats(), empty_cpu_before, empty_switches_before);
  }
}
BENCHMARK(BM_EmptyWrite)->Threads(1)->Threads(16)->UseRealTime();

// Take and release a snapshot (any thread): the reader's side of publication.
void BM_SnapshotTakeRelease(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    Snapshot snapshot = f.db->snapshot();
    benchmark::DoNotOptimize(snapshot.generation());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SnapshotTakeRelease);

// Publish + release: a one-row write (publishes a RootSet, copies one path)
// while a snapshot is taken before and released after it.
void BM_PublishRelease(benchmark::State& state) {
  Fixture& f = fixture();
  std::string row;
  encode_row(f.schema, f.make_row(7, 4), &row);
  Stats before = f.db->stats();
  uint64_t cpu_before = process_cpu_ns();
  SwitchCounts switches_before;
  for (auto _ : state) {
    Snapshot snapshot = f.db->snapshot();
    f.db->write([&](WriteTxn& txn) { return txn.update_encoded(f.table, f.keys[7], row); });
    snapshot.release();
  }
  add_db_counters(state, before, f.db->stats(), cpu_before, switches_before);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PublishRelease)->UseRealTime();

}  // namespace

// Resident and transparent-huge-page kilobytes of the process: the arenas
// ask for THP (madvise mode here); this shows whether they got them.
std::string smaps_rollup_kb(const char* field) {
  std::ifstream rollup("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(rollup, line)) {
    if (line.rfind(field, 0) == 0) {
      return std::to_string(std::strtoull(line.c_str() + std::strlen(field), nullptr, 10));
    }
  }
  return "unknown";
}

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* revision = std::getenv("SOLO_GIT_REV");
  benchmark::AddCustomContext("git_revision", revision ? revision : "unknown");
  benchmark::AddCustomContext("rows", std::to_string(kRows));
  fixture();
  Stats stats = fixture().db->stats();
  benchmark::AddCustomContext("state_bytes", std::to_string(stats.state_bytes));
  benchmark::AddCustomContext("node_bytes", std::to_string(stats.node_bytes));
  benchmark::AddCustomContext("record_bytes", std::to_string(stats.record_bytes));
  benchmark::AddCustomContext("arena_bytes", std::to_string(stats.arena_bytes));
  benchmark::AddCustomContext("rss_kb", smaps_rollup_kb("Rss:"));
  benchmark::AddCustomContext("anon_huge_pages_kb", smaps_rollup_kb("AnonHugePages:"));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
