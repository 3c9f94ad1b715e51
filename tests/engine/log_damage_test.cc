// Damage that is not a torn tail is refused with the file and offset; damage
// at the tail is where the log ends.
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "checkpoint_format.h"
#include "crc32c.h"
#include "durable_codec.h"
#include "durable_util.h"
#include "fault_file_system.h"
#include "log_format.h"

using namespace solo;
using test::FaultFileSystem;

namespace {

// 64 KiB segments, two to start with; only explicit checkpoints.
Options damage_options(FaultFileSystem* fs) {
  Options options = test::small_log_options(fs, "/db", 0);
  options.log_segment_bytes = 64 * 1024;
  return options;
}

using test::kv_schema;

// Table kv, then `rounds` rounds inserting k = 1..rounds (one round each).
void fill(FaultFileSystem* fs, int rounds, bool checkpoint_half_way = false) {
  auto db = test::open_dir(damage_options(fs));
  REQUIRE(db->write([&](WriteTxn& txn) { return txn.create_table(kv_schema()).status(); }).ok());
  for (int key = 1; key <= rounds; ++key) {
    if (checkpoint_half_way && key == rounds / 2) REQUIRE(db->checkpoint().ok());
    REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.insert(0, {Value::Int(key), Value::Int(key * 3)});
            }).ok());
  }
}

struct FrameAt {
  std::string path;
  uint64_t offset = 0;
  uint32_t length = 0;
};

// Where the frame of round `lsn` is (by walking each segment's frames).
FrameAt find_frame(FaultFileSystem* fs, uint64_t lsn) {
  for (const std::string& path : fs->paths()) {
    if (path.find("/wal-") == std::string::npos) continue;
    std::string data = fs->contents(path);
    uint64_t pos = internal::kSegmentHeaderBytes;
    while (pos + internal::kFrameHeaderBytes <= data.size()) {
      uint32_t length = internal::load_u32(data.data() + pos + 4);
      uint64_t frame_lsn = internal::load_u64(data.data() + pos + 8);
      if (length == 0) break;
      if (frame_lsn == lsn) return FrameAt{path, pos, length};
      pos += internal::align_frame(internal::kFrameHeaderBytes + length);
    }
  }
  FAIL("no frame for round " << lsn);
  return {};
}

// key -> v of table kv after a reopen.
std::map<int64_t, int64_t> kv_after_open(FaultFileSystem* fs) {
  auto db = test::open_dir(damage_options(fs));
  return test::kv_rows(*db);
}

uint64_t rows_after_open(FaultFileSystem* fs) { return kv_after_open(fs).size(); }

// 40 rounds with a checkpoint half way; returns the checkpoint's path.
std::string fill_with_checkpoint(FaultFileSystem* fs) {
  fill(fs, 40, /*checkpoint_half_way=*/true);
  std::string checkpoint;
  for (const std::string& path : fs->paths()) {
    if (path.find("/checkpoint-") != std::string::npos) checkpoint = path;
  }
  REQUIRE(!checkpoint.empty());
  return checkpoint;
}

}  // namespace

TEST_CASE("a bad record followed by good ones is refused, naming file and offset") {
  FaultFileSystem fs;
  fill(&fs, 30);
  FrameAt frame = find_frame(&fs, 10);
  fs.corrupt(frame.path, frame.offset + internal::kFrameHeaderBytes + 3, "\x5A\xA5");
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(!opened.ok());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  REQUIRE(opened.status().message().find(frame.path) != std::string::npos);
  REQUIRE(opened.status().message().find("offset " + std::to_string(frame.offset)) != std::string::npos);
}

TEST_CASE("a zeroed record in the middle is refused too") {
  FaultFileSystem fs;
  fill(&fs, 30);
  FrameAt frame = find_frame(&fs, 12);
  fs.corrupt(frame.path, frame.offset, std::string(internal::kFrameHeaderBytes + frame.length, '\0'));
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  REQUIRE(opened.status().message().find(frame.path) != std::string::npos);
}

TEST_CASE("a damaged last record is the tail: the log ends before it") {
  FaultFileSystem fs;
  fill(&fs, 30);
  // Round 1 is the DDL; round 31 inserted key 30.
  FrameAt frame = find_frame(&fs, 31);
  fs.corrupt(frame.path, frame.offset + internal::kFrameHeaderBytes + frame.length - 1, "\x01");
  REQUIRE(rows_after_open(&fs) == 29);
  // The next run continues in a new segment; the old tail stays behind and
  // is not mistaken for damage.
  {
    auto db = test::open_dir(damage_options(&fs));
    REQUIRE(db->write([&](WriteTxn& txn) { return txn.insert(0, {Value::Int(500), Value::Int(1)}); }).ok());
  }
  REQUIRE(rows_after_open(&fs) == 30);
}

TEST_CASE("a damaged checkpoint is refused, naming file and offset") {
  FaultFileSystem fs;
  const std::string checkpoint = fill_with_checkpoint(&fs);
  REQUIRE(rows_after_open(&fs) == 40);
  std::string data = fs.contents(checkpoint);
  fs.corrupt(checkpoint, data.size() / 2, "\xFF\x00\xFF");
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().message().find(checkpoint) != std::string::npos);
  REQUIRE(opened.status().message().find("offset") != std::string::npos);
}

TEST_CASE("a checkpoint with bytes after its end block is refused, naming file and offset") {
  FaultFileSystem fs;
  const std::string checkpoint = fill_with_checkpoint(&fs);
  const uint64_t size = fs.contents(checkpoint).size();
  {
    // What a reused file that was not cut would hold: an older tail.
    auto file = fs.open(checkpoint, OpenMode::kReadWrite);
    REQUIRE(file.ok());
    REQUIRE((*file)->write_at(size, "an older checkpoint's tail").ok());
    REQUIRE((*file)->sync().ok());
  }
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().message().find(checkpoint) != std::string::npos);
  REQUIRE(opened.status().message().find("offset " + std::to_string(size)) != std::string::npos);
  REQUIRE(opened.status().message().find("after the end block") != std::string::npos);
}

TEST_CASE("a damaged segment header is refused, not read as an empty log") {
  FaultFileSystem fs;
  fill(&fs, 20);
  FrameAt frame = find_frame(&fs, 2);
  fs.corrupt(frame.path, internal::kSegSeqOff, "\x77");
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().message().find(frame.path) != std::string::npos);
}

TEST_CASE("a segment cut short is refused, not read up to the cut") {
  // A segment is preallocated before it is started: a started one shorter
  // than its header says lost its end after the fact (a probe truncated the
  // last segment and the database opened with half its rows).
  FaultFileSystem fs;
  fill(&fs, 30);
  FrameAt frame = find_frame(&fs, 10);
  {
    auto file = fs.open(frame.path, OpenMode::kReadWrite);
    REQUIRE(file.ok());
    REQUIRE((*file)->truncate(frame.offset + 8).ok());
    REQUIRE((*file)->sync().ok());
  }
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(!opened.ok());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  REQUIRE(opened.status().message().find(frame.path) != std::string::npos);
  REQUIRE(opened.status().message().find("cut short") != std::string::npos);
}

TEST_CASE("a log or checkpoint of another format version is refused, not skipped") {
  FaultFileSystem fs;
  fill(&fs, 20, /*checkpoint_half_way=*/true);
  // A sound header (its CRC matches) that says `version`. Version 3 logs and
  // version 2 checkpoints are the formats before the database id.
  auto set_version = [&](const std::string& path, uint32_t header_bytes, uint32_t version_off,
                         uint32_t crc_off, uint32_t version) {
    std::string header = fs.contents(path).substr(0, header_bytes);
    internal::store_u32(header.data() + version_off, version);
    internal::store_u32(header.data() + crc_off,
                        internal::crc32c_extend(0, header.data(), crc_off));
    fs.corrupt(path, 0, header);
  };
  std::string path, expected;
  // Version 4 is version 5 without continuation frames: both are read.
  const std::string log_reads = "this build reads versions " +
                                std::to_string(internal::kOldestReadableLogVersion) + " to " +
                                std::to_string(internal::kLogVersion);
  SECTION("log segment, version 1") {
    path = find_frame(&fs, 15).path;
    set_version(path, internal::kSegmentHeaderBytes, internal::kSegVersionOff, internal::kSegCrcOff,
                1);
    expected = "older format version 1; " + log_reads;
  }
  SECTION("log segment, version 3 (no database id)") {
    path = find_frame(&fs, 15).path;
    set_version(path, internal::kSegmentHeaderBytes, internal::kSegVersionOff, internal::kSegCrcOff,
                3);
    expected = "older format version 3; " + log_reads;
  }
  SECTION("log segment, a newer version") {
    path = find_frame(&fs, 15).path;
    set_version(path, internal::kSegmentHeaderBytes, internal::kSegVersionOff, internal::kSegCrcOff,
                internal::kLogVersion + 1);
    expected =
        "newer format version " + std::to_string(internal::kLogVersion + 1) + "; " + log_reads;
  }
  SECTION("checkpoint, version 2 (no database id)") {
    for (const std::string& file : fs.paths()) {
      if (file.find("/checkpoint-") != std::string::npos) path = file;
    }
    REQUIRE(!path.empty());
    set_version(path, internal::kCheckpointHeaderBytes, internal::kCkpVersionOff,
                internal::kCkpCrcOff, 2);
    expected = "older format version 2; this build reads version " +
               std::to_string(internal::kCheckpointVersion);
  }
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().message().find(path + " at offset 8") != std::string::npos);
  REQUIRE(opened.status().message().find(expected) != std::string::npos);
}

TEST_CASE("the owner never stops for a checkpoint; rounds after it come from the log") {
  FaultFileSystem fs;
  fill(&fs, 50);
  auto db = test::open_dir(damage_options(&fs));
  // The checkpoint's file writes hang (a slow disk) while transactions go on.
  fs.hold_writes_to("/checkpoint-");
  Status checkpointed = Status::Internal("not run");
  std::thread checkpointer([&] { checkpointed = db->checkpoint(); });
  while (fs.held_writes() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (int key = 1000; key < 1200; ++key) {
    REQUIRE(db->write([&](WriteTxn& txn) { return txn.insert(0, {Value::Int(key), Value::Int(1)}); }).ok());
  }
  REQUIRE(db->stats().checkpoints == 0);
  REQUIRE(fs.held_writes() == 1);
  // Those 200 rounds ran while a checkpoint was being written, and are
  // filed so in the owner's round times.
  {
    Stats during = db->stats();
    REQUIRE(during.round_times_checkpoint.count() >= 200);
    REQUIRE(during.round_times_checkpoint.quantile_ns(0.99) > 0);
    REQUIRE(during.round_times.count() > 0);  // the rounds before it
  }
  fs.release_writes();
  checkpointer.join();
  REQUIRE(checkpointed.ok());
  Stats stats = db->stats();
  REQUIRE(stats.checkpoints == 1);
  // The checkpoint holds the snapshot it started from: the 200 later rounds are not in it.
  REQUIRE(stats.checkpoint_lsn + 200 <= stats.durable_lsn);
  db.reset();
  REQUIRE(rows_after_open(&fs) == 250);
}

namespace {

// Table kv with k = 1..20 (v = 3k), then round 22 + i sets v = 1000 + i of
// key 1 + i % 20 through update_columns (or patch_columns), for i < updates.
TEST_CASE("a checkpoint that comes due while one is being written follows it") {
  FaultFileSystem fs;
  Options options = damage_options(&fs);
  options.checkpoint_log_bytes = 16 * 1024;  // a fixed interval of 16 KiB of log
  options.checkpoint_state_ratio = 0;
  auto db = test::open_dir(options);
  REQUIRE(db->write([&](WriteTxn& txn) { return txn.create_table(kv_schema()).status(); }).ok());
  fs.hold_writes_to("/checkpoint-");
  int64_t key = 0;
  auto insert = [&] {
    ++key;
    REQUIRE(db->write([&](WriteTxn& txn) { return txn.insert(0, {Value::Int(key), Value::Int(key)}); }).ok());
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // The first checkpoint starts after 16 KiB of log and hangs in its first write.
  while (fs.held_writes() == 0) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    insert();
  }
  // Two more intervals of log while it hangs: the next checkpoint is due.
  const uint64_t log_at_hold = db->stats().log_bytes;
  while (db->stats().log_bytes < log_at_hold + 2 * options.checkpoint_log_bytes) insert();
  const uint64_t due_lsn = db->stats().durable_lsn;
  REQUIRE(db->stats().checkpoints == 0);
  fs.release_writes();
  // No more writes: only a kept request makes the second checkpoint (a
  // dropped one waited for another interval of log that never came).
  while (db->stats().checkpoints < 2) {
    INFO("checkpoints " << db->stats().checkpoints);
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(db->stats().checkpoint_lsn >= due_lsn);  // its snapshot is newer than the log that asked
  db.reset();
  REQUIRE(rows_after_open(&fs) == static_cast<uint64_t>(key));
}

void fill_patched(FaultFileSystem* fs, int updates, bool use_patch_columns = false) {
  fill(fs, 20);
  auto db = test::open_dir(damage_options(fs));
  const uint32_t changed[1] = {1};
  for (int update = 0; update < updates; ++update) {
    REQUIRE(db->write([&](WriteTxn& txn) {
              std::string key = test::int_key(kv_schema(), 1 + update % 20);
              if (use_patch_columns) {
                const Value value = Value::Int(1000 + update);
                std::string_view stored;
                Status status = txn.patch_columns(0, key, changed, std::span<const Value>(&value, 1), &stored);
                std::string expected;
                REQUIRE(encode_row(kv_schema(), {Value::Int(1 + update % 20), value}, &expected).ok());
                if (status.ok()) REQUIRE(stored == expected);
                return status;
              }
              std::string row;
              Status status =
                  encode_row(kv_schema(), {Value::Int(1 + update % 20), Value::Int(1000 + update)}, &row);
              if (status.ok()) status = txn.update_columns(0, key, row, changed);
              return status;
            }).ok());
  }
}

}  // namespace

TEST_CASE("an update of some columns is logged as a column patch and replayed") {
  FaultFileSystem fs;
  const bool use_patch_columns = GENERATE(false, true);
  INFO((use_patch_columns ? "patch_columns" : "update_columns"));
  fill_patched(&fs, 30, use_patch_columns);
  // Round 22 (the first update) holds one kPatch entry of column 1 only.
  FrameAt frame = find_frame(&fs, 22);
  std::string payload = fs.contents(frame.path).substr(frame.offset + internal::kFrameHeaderBytes, frame.length);
  REQUIRE(static_cast<uint8_t>(payload[0]) == static_cast<uint8_t>(internal::LogEntry::kPatch));
  std::string row;
  REQUIRE(encode_row(kv_schema(), {Value::Int(1), Value::Int(1000)}, &row).ok());
  // type, table, key, count, column, null flag, 8 value bytes: shorter than a whole row entry.
  REQUIRE(payload.find(row) == std::string::npos);
  std::map<int64_t, int64_t> rows = kv_after_open(&fs);
  REQUIRE(rows.size() == 20);
  for (int64_t key = 1; key <= 20; ++key) {
    // Keys 1..10 were updated twice (i and i + 20), 11..20 once.
    int64_t last = key <= 10 ? 1000 + key - 1 + 20 : 1000 + key - 1;
    REQUIRE(rows[key] == last);
  }
  // Reopened again (nothing new logged in between): the same.
  REQUIRE(kv_after_open(&fs) == rows);
}

TEST_CASE("a column patch that does not apply is refused, naming file and offset") {
  FaultFileSystem fs;
  fill_patched(&fs, 10);
  FrameAt frame = find_frame(&fs, 25);
  std::string data = fs.contents(frame.path);
  std::string payload = data.substr(frame.offset + internal::kFrameHeaderBytes, frame.length);
  REQUIRE(static_cast<uint8_t>(payload[0]) == static_cast<uint8_t>(internal::LogEntry::kPatch));
  // type u8 | table u32 | key (varint length + bytes) | count | column ...
  size_t key_length = static_cast<uint8_t>(payload[5]);
  size_t column_at = 1 + 4 + 1 + key_length + 1;
  SECTION("a column the table does not have") { payload[column_at] = 2; }
  SECTION("a patch of a row that is not there") {
    // The key of row 99 (keys of small ids are 1 byte after the tag).
    std::string key = test::int_key(kv_schema(), 99);
    REQUIRE(key.size() == key_length);
    payload.replace(6, key_length, key);
  }
  // Rewritten with a valid CRC: the frame is intact, its record is not.
  std::string frame_bytes = data.substr(frame.offset, internal::kFrameHeaderBytes);
  frame_bytes += payload;
  internal::store_u32(frame_bytes.data(),
                      internal::crc32c_extend(0, frame_bytes.data() + 4,
                                              internal::kFrameHeaderBytes - 4 + frame.length));
  fs.corrupt(frame.path, frame.offset, frame_bytes);
  auto opened = Database::open(damage_options(&fs));
  REQUIRE(opened.status().IsCorruption());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().message().find(frame.path) != std::string::npos);
  REQUIRE(opened.status().message().find("offset " + std::to_string(frame.offset)) != std::string::npos);
}
