// Fault injection (FaultFileSystem): power loss that drops unsynced bytes,
// tears the last write at 512 B / 4 KiB boundaries or fills unsynced sectors
// with garbage; fsync failing with EIO; ENOSPC; crash points at every
// mutating file operation of the log writer, the checkpointer and recovery.
// Each run must end with every acknowledged transaction recovered (and the
// state a prefix of the committed ones) or a clean refusal.
#include <cstring>
#include <thread>
#include <vector>

#include "durable_util.h"
#include "fault_file_system.h"

using namespace solo;
using test::CrashMode;
using test::FaultFileSystem;

namespace {

const char* kDir = "/db";
constexpr int kTxns = 40;

// Who writes the log in this run of a test case: every case runs once with
// the log writer thread and once with the owner writing (Options::log_on_owner).
Options::LogOnOwner g_log_on_owner = Options::LogOnOwner::kNever;

#define EACH_LOG_WRITER()                                                                      \
  g_log_on_owner = GENERATE(Options::LogOnOwner::kNever, Options::LogOnOwner::kAlways);        \
  INFO("log written by " << (g_log_on_owner == Options::LogOnOwner::kAlways ? "the owner" : "its thread"))

// A checkpoint every 6 KiB of log: checkpoints at many crash points.
Options fault_options(FaultFileSystem* fs) {
  Options options = test::small_log_options(fs, kDir, 6 * 1024);
  options.log_on_owner = g_log_on_owner;
  return options;
}

TableSchema items_schema() {
  return TableSchema{"items", {ColumnDef::BigInt("id", true), ColumnDef::VarChar("pad", 200)}, {0}};
}
TableSchema counter_schema() {
  return TableSchema{"counter", {ColumnDef::Integer("k", true), ColumnDef::BigInt("n", true)}, {0}};
}

struct RunResult {
  int acked = 0;          // transactions acknowledged OK (a prefix: one writer)
  Status first_error;     // the first failure
  bool opened = false;
};

// Opens, creates the tables (transaction 0), then runs transactions 1..kTxns:
// transaction i inserts item i and sets the counter to i. Stops at the
// first failure after checking that the next writes fail too (invariant 7).
// checkpoint_every > 0: also an explicit checkpoint before every such
// transaction (each one after the second overwrites the spare file).
RunResult run_workload(FaultFileSystem* fs, int explicit_checkpoint_at = kTxns / 2,
                       int checkpoint_every = 0) {
  RunResult result;
  auto opened = Database::open(fault_options(fs));
  if (!opened.ok()) {
    result.first_error = opened.status();
    return result;
  }
  result.opened = true;
  auto db = std::move(*opened);
  Status status = db->write([&](WriteTxn& txn) {
    auto items = txn.create_table(items_schema());
    if (!items.ok()) return items.status();
    auto counter = txn.create_table(counter_schema());
    if (!counter.ok()) return counter.status();
    if (!txn.create_index(IndexSchema{"items_pad", "items", {1, 0}, true}).ok()) {
      return Status::Internal("index");
    }
    return txn.insert(*counter, {Value::Int(0), Value::Int(0)});
  });
  if (status.ok()) result.acked = 1;  // transaction 0
  for (int txn_idx = 1; status.ok() && txn_idx <= kTxns; ++txn_idx) {
    if (txn_idx == explicit_checkpoint_at ||
        (checkpoint_every > 0 && txn_idx % checkpoint_every == 0)) {
      (void)db->checkpoint();
    }
    status = db->write([&](WriteTxn& txn) {
      TableId items = txn.catalog().find_table("items")->id;
      TableId counter = txn.catalog().find_table("counter")->id;
      Status s = txn.insert(items, {Value::Int(txn_idx), Value::String(std::string(150, 'a' + txn_idx % 26))});
      std::string key = test::int_key(counter_schema(), 0);
      if (s.ok()) s = txn.update(counter, key, {Value::Int(0), Value::Int(txn_idx)});
      return s;
    });
    if (status.ok()) result.acked = txn_idx + 1;
  }
  if (!status.ok()) {
    result.first_error = status;
    // Nothing is acknowledged after a fatal error.
    for (int extra = 0; extra < 2; ++extra) {
      Status later = db->write([&](WriteTxn&) { return Status::OK(); });
      REQUIRE(!later.ok());
    }
  }
  Status closed = db->close();
  if (!status.ok()) {
    // close() reports the earlier failure too (it returned OK before).
    INFO("close(): " << closed.ToString() << "; the failure: " << status.ToString());
    CHECK(closed.IsIOError());
    CHECK(closed.message().find(status.message()) != std::string::npos);
  }
  return result;
}

// Reopens and checks: every acknowledged transaction is there, and the state
// is exactly that after transactions 0..n for some n (atomic, no holes).
void verify(FaultFileSystem* fs, const RunResult& run, const std::string& context) {
  INFO(context << "; acked " << run.acked << "; first error " << run.first_error.ToString());
  auto opened = Database::open(fault_options(fs));
  if (!opened.ok()) FAIL("reopen refused: " << opened.status().ToString());
  auto db = std::move(*opened);
  db->read([&](ReadTxn& txn) {
    const TableInfo* items = txn.catalog().find_table("items");
    const TableInfo* counter = txn.catalog().find_table("counter");
    if (items == nullptr) {
      REQUIRE(run.acked == 0);
      REQUIRE(counter == nullptr);
      return Status::OK();
    }
    REQUIRE(counter != nullptr);
    Row row;
    REQUIRE(txn.get_row(counter->id, test::int_key(counter_schema(), 0), &row).ok());
    int64_t last = row[1].as_int();
    REQUIRE(last + 1 >= run.acked);
    REQUIRE(last <= kTxns);
    REQUIRE(txn.entry_count(items->id) == static_cast<uint64_t>(last));
    REQUIRE(txn.entry_count(txn.catalog().find_index("items_pad")->id) == static_cast<uint64_t>(last));
    for (int64_t id = 1; id <= last; ++id) {
      std::string_view found;
      REQUIRE(txn.get(items->id, test::int_key(items_schema(), id), &found).ok());
    }
    return Status::OK();
  });
  // The recovered database accepts new work (undone again, so that the
  // directory can be verified once more).
  for (int step = 0; step < 2; ++step) {
    REQUIRE(db->write([&](WriteTxn& txn) {
              const TableInfo* items = txn.catalog().find_table("items");
              if (items == nullptr) return Status::OK();
              if (step == 1) return txn.erase(items->id, test::int_key(items_schema(), 100000));
              return txn.insert(items->id, {Value::Int(100000), Value::String("post")});
            }).ok());
  }
}

const CrashMode kModes[] = {CrashMode::kDropUnsynced, CrashMode::kTearLastWrite512,
                            CrashMode::kTearLastWrite4K, CrashMode::kGarbageUnsynced,
                            CrashMode::kKeepUnsynced};
const char* kModeNames[] = {"drop unsynced", "tear 512", "tear 4K", "garbage", "keep unsynced"};

}  // namespace

TEST_CASE("without faults the workload completes and recovers") {
  EACH_LOG_WRITER();
  FaultFileSystem fs;
  RunResult run = run_workload(&fs);
  REQUIRE(run.first_error.ok());
  REQUIRE(run.acked == kTxns + 1);
  for (int mode_idx = 0; mode_idx < 5; ++mode_idx) {
    // Every crash mode after a clean close loses nothing (all was synced).
    fs.crash(kModes[mode_idx], 1);
    verify(&fs, run, kModeNames[mode_idx]);
  }
}

TEST_CASE("a crash at every file operation, then power loss of each kind") {
  EACH_LOG_WRITER();
  FaultFileSystem probe;
  run_workload(&probe);
  const int64_t total_ops = probe.mutating_ops();
  REQUIRE(total_ops > 50);
  for (int64_t crash_at = 0; crash_at <= total_ops; ++crash_at) {
    for (int mode_idx = 0; mode_idx < 5; ++mode_idx) {
      if ((crash_at + mode_idx) % 2 != 0 && mode_idx != 0) continue;  // keep it fast
      FaultFileSystem fs;
      fs.crash_after_ops(crash_at);
      RunResult run = run_workload(&fs);
      fs.crash(kModes[mode_idx], static_cast<uint32_t>(crash_at * 7 + mode_idx));
      verify(&fs, run, "crash at op " + std::to_string(crash_at) + " of " +
                           std::to_string(total_ops) + ", " + kModeNames[mode_idx]);
    }
  }
}

TEST_CASE("a crash at every file operation while checkpoints overwrite the spare file") {
  EACH_LOG_WRITER();
  // A checkpoint every 4 transactions: ten, eight of them into the spare
  // (renamed to .tmp, overwritten, cut, synced, renamed), and the old
  // checkpoint renamed to the spare after each.
  FaultFileSystem probe;
  RunResult clean = run_workload(&probe, kTxns / 2, 4);
  REQUIRE(clean.first_error.ok());
  const int64_t total_ops = probe.mutating_ops();
  bool spare = false;
  for (const std::string& path : probe.paths()) spare = spare || path == "/db/checkpoint.spare";
  REQUIRE(spare);
  for (int64_t crash_at = 0; crash_at <= total_ops; ++crash_at) {
    const int mode_idx = static_cast<int>(crash_at % 5);
    FaultFileSystem fs;
    fs.crash_after_ops(crash_at);
    RunResult run = run_workload(&fs, kTxns / 2, 4);
    fs.crash(kModes[mode_idx], static_cast<uint32_t>(crash_at * 13 + mode_idx));
    verify(&fs, run,
           "crash at op " + std::to_string(crash_at) + " of " + std::to_string(total_ops) + ", " +
               kModeNames[mode_idx]);
    // And once more after the recovered database took a checkpoint of its own.
    {
      auto opened = Database::open(fault_options(&fs));
      REQUIRE(opened.ok());
      REQUIRE((*opened)->checkpoint().ok());
      (*opened)->close();
    }
    verify(&fs, run, "crash at op " + std::to_string(crash_at) + ", then a checkpoint");
  }
}

TEST_CASE("a crash inside recovery leaves a recoverable directory") {
  EACH_LOG_WRITER();
  FaultFileSystem probe;
  run_workload(&probe);
  const int64_t total_ops = probe.mutating_ops();
  for (int64_t crash_at = 5; crash_at < total_ops; crash_at += 9) {
    FaultFileSystem fs;
    fs.crash_after_ops(crash_at);
    RunResult run = run_workload(&fs);
    fs.crash(CrashMode::kTearLastWrite512, static_cast<uint32_t>(crash_at));
    // Recovery's own file operations (removing a .tmp checkpoint, creating
    // segments, starting a segment) fail one after another.
    for (int64_t recovery_crash = 0; recovery_crash < 12; ++recovery_crash) {
      fs.crash_after_ops(recovery_crash);
      auto opened = Database::open(fault_options(&fs));
      if (opened.ok()) {
        (void)(*opened)->write([&](WriteTxn&) { return Status::OK(); });
        (*opened)->close();
      }
      fs.crash(kModes[recovery_crash % 5], static_cast<uint32_t>(recovery_crash));
    }
    verify(&fs, run, "crash at op " + std::to_string(crash_at) + " then in recovery");
  }
}

TEST_CASE("fsync failing with EIO is fatal; reopening recovers") {
  EACH_LOG_WRITER();
  // Not 34: since the continuation frames' syncs (log_format.h) the 35th
  // sync is the directory sync after the older checkpoint is renamed to the
  // spare, whose failure is not fatal by design (the spare is removed).
  for (int64_t syncs_ok : {0, 1, 3, 5, 8, 13, 21, 33}) {
    FaultFileSystem fs;
    fs.fail_sync_after(syncs_ok);
    RunResult run = run_workload(&fs);
    INFO("syncs before the failure " << syncs_ok);
    REQUIRE(!run.first_error.ok());
    REQUIRE(run.first_error.IsIOError());
    REQUIRE(run.first_error.message().find("Input/output error") != std::string::npos);
    fs.crash(CrashMode::kDropUnsynced, 3);
    verify(&fs, run, "EIO after " + std::to_string(syncs_ok) + " syncs");
  }
}

TEST_CASE("ENOSPC is reported clearly; once space is freed the database opens again") {
  EACH_LOG_WRITER();
  FaultFileSystem probe;
  run_workload(&probe);
  const int64_t total = probe.bytes_written();
  // Checkpoints (triggered by the log's size) and log preallocation run on
  // their own thread, so how much a run writes varies from run to run: a
  // budget may suffice for one run and not for the next. A run that failed
  // must have failed on a refused write; one that did not must have
  // acknowledged everything (a refusal after the last acknowledgement, in a
  // checkpoint, is reported by nothing the run sees). 100 and 20,000 bytes
  // fail every time: opening writes two 8 KiB segments, and the log of
  // kTxns rounds is more than the remaining 3,616 bytes.
  int failed_runs = 0;
  for (int64_t bytes : {int64_t{100}, int64_t{20000}, total / 4, total / 3, total / 2}) {
    FaultFileSystem fs;
    fs.enospc_after_bytes(bytes);
    RunResult run = run_workload(&fs);
    INFO("bytes before ENOSPC " << bytes << " of the probe's " << total);
    if (run.first_error.ok()) {
      REQUIRE(run.acked == kTxns + 1);
      fs.enospc_after_bytes(-1);
      verify(&fs, run, "a budget of " + std::to_string(bytes) + " bytes that sufficed");
      continue;
    }
    failed_runs++;
    REQUIRE(fs.enospc_refusals() > 0);
    REQUIRE(run.first_error.IsIOError());
    REQUIRE(run.first_error.message().find("ENOSPC") != std::string::npos);
    fs.enospc_after_bytes(-1);  // space freed; the process did not crash
    verify(&fs, run, "ENOSPC after " + std::to_string(bytes) + " bytes");
    fs.crash(CrashMode::kDropUnsynced, 5);
    verify(&fs, run, "ENOSPC, then power loss");
  }
  REQUIRE(failed_runs >= 2);
}

TEST_CASE("crash points with concurrent writers: grouped rounds lose nothing acknowledged") {
  EACH_LOG_WRITER();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 15;
  auto run = [](FaultFileSystem* fs, std::vector<int>* acked) {
    acked->assign(kThreads, 0);
    auto opened = Database::open(fault_options(fs));
    if (!opened.ok()) return;
    auto db = std::move(*opened);
    if (!db->write([&](WriteTxn& txn) { return txn.create_table(items_schema()).status(); }).ok()) {
      return;
    }
    std::vector<std::thread> writers;
    for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
      writers.emplace_back([&, thread_idx] {
        for (int txn_idx = 0; txn_idx < kPerThread; ++txn_idx) {
          Status s = db->write([&](WriteTxn& txn) {
            return txn.insert(0, {Value::Int(thread_idx * 1000 + txn_idx), Value::String("w")});
          });
          if (!s.ok()) return;
          (*acked)[thread_idx] = txn_idx + 1;
        }
      });
    }
    for (auto& writer : writers) writer.join();
    db->close();
  };
  FaultFileSystem probe;
  std::vector<int> acked;
  run(&probe, &acked);
  const int64_t total_ops = probe.mutating_ops();
  for (int64_t crash_at = 0; crash_at <= total_ops; crash_at += 2) {
    FaultFileSystem fs;
    fs.crash_after_ops(crash_at);
    run(&fs, &acked);
    fs.crash(kModes[crash_at % 5], static_cast<uint32_t>(crash_at));
    INFO("crash at op " << crash_at << " of " << total_ops << ", " << kModeNames[crash_at % 5]);
    auto opened = Database::open(fault_options(&fs));
    if (!opened.ok()) FAIL("reopen refused: " << opened.status().ToString());
    (*opened)->read([&](ReadTxn& txn) {
      bool has_table = txn.catalog().find_table("items") != nullptr;
      for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
        // Each thread's rows are a prefix of its transactions, covering what was acknowledged.
        int present = 0;
        for (int txn_idx = 0; has_table && txn_idx < kPerThread; ++txn_idx) {
          std::string_view row;
          bool found = txn.get(0, test::int_key(items_schema(), thread_idx * 1000 + txn_idx), &row).ok();
          if (found) REQUIRE(present == txn_idx);
          present += found;
        }
        REQUIRE(present >= acked[thread_idx]);
      }
      return Status::OK();
    });
  }
}
