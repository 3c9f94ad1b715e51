// WritebackPacer (engine/src/writeback_pacer.h) and the checkpointer's use
// of it: large files are written back in chunks as they are written, with
// at most two chunks not yet waited for; a write_back error is fatal like a
// failed fdatasync; a paced checkpoint is still durable only through its
// final sync (a crash right after it recovers every acknowledged commit).
#include <string>
#include <vector>

#include "durable_util.h"
#include "fault_file_system.h"
#include "writeback_pacer.h"

using namespace solo;
using test::CrashMode;
using test::FaultFileSystem;

namespace {

constexpr uint64_t kChunk = 128 * 1024;

// Checks a file's write_back calls: the started ranges are back to back from
// offset 0, each wait covers exactly the ranges started before the last
// start (in order), and at most two chunks' worth was ever started and not
// waited for (a started range is a chunk plus at most one write).
void check_pattern(const std::vector<FaultFileSystem::WriteBack>& calls, uint64_t write_bytes) {
  uint64_t started = 0;
  uint64_t waited = 0;
  uint64_t started_before_last = 0;
  for (const FaultFileSystem::WriteBack& call : calls) {
    if (!call.wait) {
      REQUIRE(call.offset == started);
      REQUIRE(call.size >= kChunk);
      started_before_last = started;
      started = call.offset + call.size;
      REQUIRE(started - waited <= 2 * (kChunk + write_bytes));
    } else {
      REQUIRE(call.offset == waited);
      REQUIRE(call.offset + call.size == started_before_last);
      waited = started_before_last;
    }
  }
}

TableSchema blobs_schema() {
  return TableSchema{"blobs", {ColumnDef::BigInt("id", true), ColumnDef::Text("pad")}, {0}};
}

// Options with a paced checkpointer and log segments large enough (256 KiB)
// that their preallocation is paced as well.
Options paced_options(FaultFileSystem* fs) {
  Options options = test::small_log_options(fs, "/db", 0);  // explicit checkpoints only
  options.log_segment_bytes = 256 * 1024;
  options.checkpoint_writeback_bytes = kChunk;
  return options;
}

// ~3 MB of rows in 30 rounds: a checkpoint of ~3 MB (three 1 MiB writes).
Status fill(Database& db, int first_round, int rounds) {
  for (int round = first_round; round < first_round + rounds; ++round) {
    Status status = db.write([&](WriteTxn& txn) {
      TableId table;
      if (const TableInfo* found = txn.catalog().find_table("blobs")) {
        table = found->id;
      } else {
        auto made = txn.create_table(blobs_schema());
        if (!made.ok()) return made.status();
        table = *made;
      }
      for (int row = 0; row < 100; ++row) {
        Status s = txn.insert(table, {Value::Int(round * 100 + row),
                                      Value::String(std::string(1000, 'a' + (round + row) % 26))});
        if (!s.ok()) return s;
      }
      return Status::OK();
    });
    if (!status.ok()) return status;
  }
  return Status::OK();
}

std::vector<FaultFileSystem::WriteBack> calls_for(const FaultFileSystem& fs,
                                                  const std::string& part) {
  std::vector<FaultFileSystem::WriteBack> calls;
  for (const auto& call : fs.write_backs()) {
    if (call.path.find(part) != std::string::npos) calls.push_back(call);
  }
  return calls;
}

}  // namespace

TEST_CASE("the pacer starts each chunk and waits for the one before it") {
  for (uint64_t write_bytes : {uint64_t{4096}, uint64_t{100'000}, kChunk, 3 * kChunk}) {
    INFO("writes of " << write_bytes << " bytes");
    FaultFileSystem fs;
    auto file = fs.open("/f", OpenMode::kCreate);
    REQUIRE(file.ok());
    internal::WritebackPacer pacer(file->get(), kChunk);
    const std::string data(write_bytes, 'x');
    uint64_t end = 0;
    while (end < 20 * kChunk) {
      REQUIRE((*file)->write_at(end, data).ok());
      end += write_bytes;
      REQUIRE(pacer.wrote_up_to(end).ok());
    }
    const auto calls = fs.write_backs();
    check_pattern(calls, write_bytes);
    uint64_t starts = 0, waits = 0;
    for (const auto& call : calls) (call.wait ? waits : starts)++;
    REQUIRE(starts >= end / (kChunk + write_bytes));  // a started range: < a chunk + a write
    REQUIRE(waits + 1 == starts);
  }
}

TEST_CASE("chunk size 0: the pacer does nothing") {
  FaultFileSystem fs;
  auto file = fs.open("/f", OpenMode::kCreate);
  REQUIRE(file.ok());
  internal::WritebackPacer pacer(file->get(), 0);
  REQUIRE((*file)->write_at(0, std::string(4 * kChunk, 'x')).ok());
  REQUIRE(pacer.wrote_up_to(4 * kChunk).ok());
  REQUIRE(fs.write_backs().empty());
}

TEST_CASE("checkpoints and new segments are paced, and still durable only through their sync") {
  FaultFileSystem fs;
  std::string before;
  {
    auto db = test::open_dir(paced_options(&fs));
    REQUIRE(fill(*db, 0, 30).ok());
    REQUIRE(db->checkpoint().ok());
    before = test::dump_state(*db);
    Stats stats = db->stats();
    REQUIRE(stats.checkpoints == 1);
    // Two of the three 1 MiB writes waited for the chunk before them.
    REQUIRE(stats.checkpoint_writeback_wait_ns > 0);
    REQUIRE(stats.checkpoint_ns >= stats.checkpoint_sync_ns + stats.checkpoint_writeback_wait_ns);
    const auto checkpoint_calls = calls_for(fs, ".tmp");
    REQUIRE(checkpoint_calls.size() >= 4);
    check_pattern(checkpoint_calls, 1 << 20);
    const auto segment_calls = calls_for(fs, "wal-");
    REQUIRE(!segment_calls.empty());
    db->close();
  }
  // Only what was synced survives: the checkpoint and the log are whole.
  fs.crash(CrashMode::kDropUnsynced, 1);
  auto db = test::open_dir(paced_options(&fs));
  REQUIRE(test::dump_state(*db) == before);
  REQUIRE(db->stats().recovered_checkpoint_bytes > 2'900'000);
}

TEST_CASE("a write_back error in a checkpoint is fatal; reopening recovers") {
  for (int64_t calls_ok : {0, 1, 2, 3}) {
    INFO("write_back calls before the failure " << calls_ok);
    FaultFileSystem fs;
    std::string acked;
    {
      auto db = test::open_dir(paced_options(&fs));
      REQUIRE(fill(*db, 0, 30).ok());
      acked = test::dump_state(*db);
      fs.fail_write_back_after(calls_ok);
      Status status = db->checkpoint();
      REQUIRE(status.IsIOError());
      REQUIRE(status.message().find("sync_file_range") != std::string::npos);
      // Invariant 7: nothing runs any more.
      REQUIRE(!fill(*db, 30, 1).ok());
      db->close();
    }
    fs.crash(CrashMode::kDropUnsynced, 2);
    auto db = test::open_dir(paced_options(&fs));
    REQUIRE(test::dump_state(*db) == acked);
  }
}

TEST_CASE("the POSIX write_back (sync_file_range) on a real file, then sync") {
  test::TempDir dir;
  FileSystem* fs = posix_file_system();
  const std::string path = dir.path + "/paced";
  auto file = fs->open(path, OpenMode::kCreate);
  REQUIRE(file.ok());
  internal::WritebackPacer pacer(file->get(), kChunk);
  std::string expected;
  for (int write_idx = 0; write_idx < 40; ++write_idx) {
    const std::string data(50'000, static_cast<char>('a' + write_idx % 26));
    REQUIRE((*file)->write_at(expected.size(), data).ok());
    expected += data;
    REQUIRE(pacer.wrote_up_to(expected.size()).ok());
  }
  REQUIRE((*file)->sync().ok());
  file->reset();
  auto reopened = fs->open(path, OpenMode::kRead);
  REQUIRE(reopened.ok());
  std::string read(expected.size() + 1, '\0');
  size_t got = 0;
  REQUIRE((*reopened)->read_at(0, read.size(), read.data(), &got).ok());
  REQUIRE(got == expected.size());
  read.resize(got);
  REQUIRE(read == expected);
}
