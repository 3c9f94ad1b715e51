// Durability benchmark: write transactions (one ~100-byte row update each)
// from T threads against an in-memory database, a log on tmpfs and a log on
// the real disk. Reports per mode: transactions/s, rounds, fdatasyncs,
// transactions per sync and log bytes; checks that every acknowledged
// update is there after a reopen. Prints one JSON object.
//
//   durability_bench [threads=8] [seconds=3] [disk dir=./durability-bench]
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "solo/codec.h"
#include "solo/database.h"

namespace {

using namespace solo;

constexpr int64_t kRows = 10000;

TableSchema bench_schema() {
  TableSchema schema;
  schema.name = "bench";
  schema.columns = {ColumnDef::BigInt("id", true), ColumnDef::BigInt("counter", true),
                    ColumnDef::VarChar("payload", 100)};
  schema.primary_key = {0};
  return schema;
}

std::string key_of(const TableSchema& schema, int64_t id) {
  std::string key;
  Value value = Value::Int(id);
  (void)append_key(schema, schema.primary_key, std::span<const Value>(&value, 1), &key);
  return key;
}

struct ModeResult {
  std::string mode;
  double tps = 0;
  uint64_t txns = 0, rounds = 0, syncs = 0, log_bytes = 0, checkpoints = 0;
  double cpu_us_per_txn = 0;
  bool verified = true;
};

double cpu_seconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

ModeResult run_mode(const std::string& mode, const std::string& dir, int threads, double seconds) {
  ModeResult result;
  result.mode = mode;
  if (!dir.empty()) std::filesystem::remove_all(dir);
  Options options;
  options.dir = dir;
  TableSchema schema = bench_schema();
  std::vector<std::atomic<int64_t>> acked(kRows);
  {
    auto db = std::move(*Database::open(options));
    TableId table = 0;
    db->write([&](WriteTxn& txn) {
      table = *txn.create_table(schema);
      for (int64_t id = 0; id < kRows; ++id) {
        Status s = txn.insert(table, {Value::Int(id), Value::Int(0), Value::String(std::string(90, 'p'))});
        if (!s.ok()) return s;
      }
      return Status::OK();
    });
    Stats before = db->stats();
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> done{0};
    double cpu_start = cpu_seconds();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int thread_idx = 0; thread_idx < threads; ++thread_idx) {
      workers.emplace_back([&, thread_idx] {
        // Each thread owns the rows id % threads == thread_idx: its counters are exact.
        int64_t id = thread_idx;
        while (!stop.load(std::memory_order_relaxed)) {
          int64_t next = acked[id].load() + 1;
          std::string key = key_of(schema, id);
          Status s = db->write([&](WriteTxn& txn) {
            return txn.update(table, key, {Value::Int(id), Value::Int(next), Value::String(std::string(90, 'q'))});
          });
          if (!s.ok()) {
            std::fprintf(stderr, "write failed: %s\n", s.ToString().c_str());
            std::abort();
          }
          acked[id].store(next);
          done.fetch_add(1, std::memory_order_relaxed);
          id += threads;
          if (id >= kRows) id = thread_idx;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& worker : workers) worker.join();
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = cpu_seconds() - cpu_start;
    Stats after = db->stats();
    result.txns = done.load();
    result.tps = static_cast<double>(result.txns) / elapsed;
    result.rounds = after.rounds - before.rounds;
    result.syncs = after.log_syncs - before.log_syncs;
    result.log_bytes = after.log_bytes - before.log_bytes;
    result.checkpoints = after.checkpoints;
    result.cpu_us_per_txn = cpu * 1e6 / static_cast<double>(std::max<uint64_t>(result.txns, 1));
  }
  if (!dir.empty()) {
    // Every acknowledged counter survives the reopen.
    auto db = std::move(*Database::open(options));
    db->read([&](ReadTxn& txn) {
      for (int64_t id = 0; id < kRows; ++id) {
        Row row;
        if (!txn.get_row(0, key_of(schema, id), &row).ok() || row[1].as_int() != acked[id].load()) {
          result.verified = false;
        }
      }
      return Status::OK();
    });
    if (!db->close().ok()) result.verified = false;
    std::filesystem::remove_all(dir);
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  std::string disk_dir = argc > 3 ? argv[3] : "./durability-bench";
  std::vector<ModeResult> results;
  results.push_back(run_mode("memory", "", threads, seconds));
  results.push_back(run_mode("tmpfs", "/dev/shm/solo-durability-bench", threads, seconds));
  results.push_back(run_mode("disk", disk_dir, threads, seconds));
  std::printf("{\"rev\": \"%s\", \"threads\": %d, \"seconds\": %.1f, \"nproc\": %u, \"modes\": [\n",
              std::getenv("SOLO_GIT_REV") ? std::getenv("SOLO_GIT_REV") : "", threads, seconds,
              std::thread::hardware_concurrency());
  bool all_verified = true;
  for (size_t idx = 0; idx < results.size(); ++idx) {
    const ModeResult& r = results[idx];
    all_verified &= r.verified;
    std::printf(
        "  {\"mode\": \"%s\", \"tps\": %.0f, \"txns\": %llu, \"rounds\": %llu, \"syncs\": %llu, "
        "\"txns_per_sync\": %.2f, \"log_bytes_per_txn\": %.1f, \"checkpoints\": %llu, "
        "\"cpu_us_per_txn\": %.2f, \"verified\": %s}%s\n",
        r.mode.c_str(), r.tps, static_cast<unsigned long long>(r.txns),
        static_cast<unsigned long long>(r.rounds), static_cast<unsigned long long>(r.syncs),
        r.syncs ? static_cast<double>(r.txns) / static_cast<double>(r.syncs) : 0.0,
        r.txns ? static_cast<double>(r.log_bytes) / static_cast<double>(r.txns) : 0.0,
        static_cast<unsigned long long>(r.checkpoints), r.cpu_us_per_txn,
        r.verified ? "true" : "false", idx + 1 < results.size() ? "," : "");
  }
  std::printf("]}\n");
  return all_verified ? 0 : 1;
}
