// Recovery is idempotent: a crash anywhere inside recovery, then power loss,
// then recovery again gives exactly the state and the next LSN of a clean
// recovery (and so does recovering that result once more).
//
// What recovery and the open that follows it write: they remove left-over
// .tmp checkpoints, create the log segment files that are missing
// (LogWriter::open) and the ones the checkpointer preallocates
// (LogWriter::provision), and the marker solo.db where there is none (a
// new database's first open: engine_fault_injection and
// engine_database_marker crash through it; the directory here has one). They never rewrite or truncate a segment or a
// checkpoint: a torn log tail is left where it is and the writer starts a
// new segment behind it (engine/README.md "Recovery"). Loading the
// checkpoint and replaying the log write nothing at all, so a crash there
// (a failing read here) leaves the directory as it was. Both kinds of crash
// point are tried: every mutating file operation of an open, and every
// reading one.
#include <string>

#include "checkpoint_format.h"
#include "durable_util.h"
#include "fault_file_system.h"

using namespace solo;
using test::CrashMode;
using test::FaultFileSystem;

namespace {

const char* kDir = "/db";

TableSchema items_schema() {
  return TableSchema{"items", {ColumnDef::BigInt("id", true), ColumnDef::VarChar("pad", 200)}, {0}};
}

// Only explicit checkpoints: the directory is deterministic.
Options make_options(FaultFileSystem* fs) { return test::small_log_options(fs, kDir, 0); }

// Recovery opens with more preallocated segments than the directory has, so
// that it has files to create.
Options recover_options(FaultFileSystem* fs) {
  Options options = make_options(fs);
  options.log_segments = 6;
  return options;
}

Status insert_items(Database& db, int first, int count) {
  return db.write([&](WriteTxn& txn) {
    TableId items = txn.catalog().find_table("items")->id;
    for (int id = first; id < first + count; ++id) {
      Status s = txn.insert(items, {Value::Int(id), Value::String(std::string(180, 'a' + id % 26))});
      if (!s.ok()) return s;
    }
    return Status::OK();
  });
}

// A directory with a checkpoint, 30 logged rounds after it over several
// segments, a torn last round (never acknowledged) and a left-over .tmp
// checkpoint. The same every time.
void make_dir(FaultFileSystem* fs) {
  {
    auto db = test::open_dir(make_options(fs));
    REQUIRE(db->write([&](WriteTxn& txn) {
              if (!txn.create_table(items_schema()).ok()) return Status::Internal("table");
              return txn.create_index(IndexSchema{"items_pad", "items", {1, 0}, true}).status();
            }).ok());
    for (int txn_idx = 0; txn_idx < 10; ++txn_idx) REQUIRE(insert_items(*db, txn_idx, 1).ok());
    REQUIRE(db->checkpoint().ok());
    for (int txn_idx = 10; txn_idx < 40; ++txn_idx) REQUIRE(insert_items(*db, txn_idx, 1).ok());
    // A rolled-back transaction leaves nothing in the log either.
    REQUIRE(db->write([&](WriteTxn& txn) {
                      (void)txn.insert(0, {Value::Int(999), Value::String("x")});
                      txn.rollback();
                      return Status::OK();
                    })
                .IsAborted());
    // The last round's write reaches the file, its sync fails: the process
    // "dies" with it unsynced, and power loss tears it.
    fs->crash_after_ops(1);
    REQUIRE(!insert_items(*db, 1000, 12).ok());
    db->close();
  }
  fs->crash(CrashMode::kTearLastWrite512, 7);
  auto tmp = fs->open(std::string(kDir) + "/" + internal::checkpoint_temp_name(77), OpenMode::kCreate);
  REQUIRE(tmp.ok());
  REQUIRE((*tmp)->write_at(0, "an unfinished checkpoint").ok());
  REQUIRE((*tmp)->sync().ok());
  REQUIRE(fs->sync_dir(kDir).ok());
}

struct Recovered {
  std::string state;
  uint64_t durable_lsn = 0;  // next LSN - 1
  uint64_t items = 0;
};

// Recovers cleanly and closes without writing. With probe_next_lsn, also
// checks that the next round gets durable_lsn + 1 (and leaves that round
// and one more, its undo, in the log).
Recovered recover_cleanly(FaultFileSystem* fs, bool probe_next_lsn = false) {
  auto opened = Database::open(recover_options(fs));
  if (!opened.ok()) FAIL("recovery refused: " << opened.status().ToString());
  auto db = std::move(*opened);
  Recovered result;
  result.state = test::dump_state(*db);
  result.durable_lsn = db->stats().durable_lsn;
  db->read([&](ReadTxn& txn) {
    result.items = txn.entry_count(txn.catalog().find_table("items")->id);
    return Status::OK();
  });
  if (probe_next_lsn) {
    REQUIRE(insert_items(*db, 5000, 1).ok());
    REQUIRE(db->stats().durable_lsn == result.durable_lsn + 1);
    REQUIRE(db->write([&](WriteTxn& txn) {
                return txn.erase(txn.catalog().find_table("items")->id, test::int_key(items_schema(), 5000));
              }).ok());
  }
  db->close();
  return result;
}

// An open that crashes at the armed crash point (or succeeds, and is closed
// without writing), then power loss of the given kind.
void crashing_open(FaultFileSystem* fs, CrashMode mode, uint32_t seed) {
  auto opened = Database::open(recover_options(fs));
  if (opened.ok()) (*opened)->close();
  fs->crash(mode, seed);
}

const CrashMode kModes[] = {CrashMode::kDropUnsynced, CrashMode::kTearLastWrite512,
                            CrashMode::kTearLastWrite4K, CrashMode::kGarbageUnsynced,
                            CrashMode::kKeepUnsynced};

}  // namespace

TEST_CASE("a crash at any point of recovery, then recovery again = a clean recovery") {
  FaultFileSystem reference_fs;
  make_dir(&reference_fs);
  const Recovered reference = recover_cleanly(&reference_fs);
  INFO("reference: " << reference.items << " items, durable LSN " << reference.durable_lsn);
  REQUIRE(reference.items == 40);  // the torn round is not there
  REQUIRE(reference.durable_lsn == 41);  // DDL, 40 inserts; the rollback logged nothing
  // Recovering the recovered directory again gives the same.
  {
    Recovered again = recover_cleanly(&reference_fs);
    REQUIRE(again.state == reference.state);
    REQUIRE(again.durable_lsn == reference.durable_lsn);
    // The recovered log continues at the next LSN.
    Recovered continued = recover_cleanly(&reference_fs, /*probe_next_lsn=*/true);
    REQUIRE(continued.durable_lsn == reference.durable_lsn);
  }

  // How many file operations one open (recovery + start) makes.
  FaultFileSystem probe;
  make_dir(&probe);
  const int64_t ops_before = probe.mutating_ops();
  const int64_t reads_before = probe.reads();
  {
    auto db = test::open_dir(recover_options(&probe));
    db->close();
  }
  const int64_t open_ops = probe.mutating_ops() - ops_before;
  const int64_t open_reads = probe.reads() - reads_before;
  INFO("an open makes " << open_ops << " mutating and " << open_reads << " reading operations");
  REQUIRE(open_ops >= 10);   // the .tmp removal and 4+ segments (zeros, sync, dir sync)
  REQUIRE(open_reads >= 5);  // listing, the checkpoint, the segments

  SECTION("crash at each mutating operation of recovery") {
    for (int64_t crash_at = 0; crash_at <= open_ops; ++crash_at) {
      FaultFileSystem fs;
      make_dir(&fs);
      fs.crash_after_ops(crash_at);
      crashing_open(&fs, kModes[crash_at % 5], static_cast<uint32_t>(crash_at));
      INFO("crash at mutating op " << crash_at << " of " << open_ops);
      Recovered recovered = recover_cleanly(&fs);
      REQUIRE(recovered.state == reference.state);
      REQUIRE(recovered.durable_lsn == reference.durable_lsn);
      Recovered again = recover_cleanly(&fs);
      REQUIRE(again.state == reference.state);
      REQUIRE(again.durable_lsn == reference.durable_lsn);
    }
  }

  SECTION("crash at each read of recovery (checkpoint load, log replay)") {
    for (int64_t crash_at = 0; crash_at <= open_reads; ++crash_at) {
      FaultFileSystem fs;
      make_dir(&fs);
      fs.crash_after_reads(crash_at);
      crashing_open(&fs, kModes[crash_at % 5], static_cast<uint32_t>(crash_at));
      INFO("crash at read " << crash_at << " of " << open_reads);
      Recovered recovered = recover_cleanly(&fs);
      REQUIRE(recovered.state == reference.state);
      REQUIRE(recovered.durable_lsn == reference.durable_lsn);
    }
  }

  SECTION("two crashed recoveries in a row, then a clean one") {
    for (int64_t first = 0; first <= open_ops; first += 3) {
      FaultFileSystem fs;
      make_dir(&fs);
      fs.crash_after_ops(first);
      crashing_open(&fs, CrashMode::kTearLastWrite4K, static_cast<uint32_t>(first));
      fs.crash_after_ops(first / 2);
      crashing_open(&fs, CrashMode::kGarbageUnsynced, static_cast<uint32_t>(first + 1));
      INFO("crashes at mutating ops " << first << " then " << first / 2);
      Recovered recovered = recover_cleanly(&fs);
      REQUIRE(recovered.state == reference.state);
      REQUIRE(recovered.durable_lsn == reference.durable_lsn);
    }
  }
}
