// The segment that holds the newest rounds is named by another file (a
// continuation frame, log_format.h): deleting, emptying or zeroing it is
// refused at open, naming it, while the states a crash leaves (a segment
// started but not synced, a torn tail) and damage the checkpoint covers
// still open with every acknowledged row. A checkpoint whose segments are
// all gone (removed, emptied) is refused too, the files left as they were.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "checkpoint_format.h"
#include "crc32c.h"
#include "durable_codec.h"
#include "durable_util.h"
#include "fault_file_system.h"
#include "log_format.h"

using namespace solo;
using test::FaultFileSystem;

namespace {

// 8 KiB segments (~14 rounds of one row each), two to start with; only
// explicit checkpoints.
Options continuation_options(FaultFileSystem* fs) {
  return test::small_log_options(fs, "/db", 0);
}

// Inserts k = from..to (v = 3k) into db, one round each; creates table kv
// first if from == 1; a checkpoint before key `checkpoint_at` (0: none).
void write_rows(Database& db, int from, int to, int checkpoint_at = 0) {
  if (from == 1) {
    REQUIRE(
        db.write([&](WriteTxn& txn) { return txn.create_table(test::kv_schema()).status(); }).ok());
  }
  for (int key = from; key <= to; ++key) {
    if (key == checkpoint_at) REQUIRE(db.checkpoint().ok());
    REQUIRE(db.write([&](WriteTxn& txn) {
                return txn.insert(0, {Value::Int(key), Value::Int(key * 3)});
              }).ok());
  }
}

// The same in the database at /db of fs, opened for it.
void insert_rows(FaultFileSystem* fs, int from, int to, int checkpoint_at = 0) {
  auto db = test::open_dir(continuation_options(fs));
  write_rows(*db, from, to, checkpoint_at);
}

struct SegmentHeader {
  std::string path;
  uint64_t seq = 0;
  uint64_t first_lsn = 0;
};

// The started segments (valid header), by path.
std::map<std::string, SegmentHeader> started_segments(FaultFileSystem* fs) {
  std::map<std::string, SegmentHeader> started;
  for (const std::string& path : fs->paths()) {
    if (path.find("/wal-") == std::string::npos) continue;
    const std::string data = fs->contents(path);
    if (data.size() < internal::kSegmentHeaderBytes ||
        std::memcmp(data.data(), internal::kSegmentMagic, 8) != 0 ||
        internal::load_u32(data.data() + internal::kSegCrcOff) !=
            internal::crc32c_extend(0, data.data(), internal::kSegCrcOff)) {
      continue;
    }
    started[path] = SegmentHeader{path, internal::load_u64(data.data() + internal::kSegSeqOff),
                                  internal::load_u64(data.data() + internal::kSegFirstLsnOff)};
  }
  return started;
}

// The segment started last (the one that holds the newest rounds).
SegmentHeader newest_segment(FaultFileSystem* fs) {
  SegmentHeader newest;
  for (const auto& [path, header] : started_segments(fs)) {
    if (header.seq > newest.seq) newest = header;
  }
  REQUIRE(!newest.path.empty());
  return newest;
}

std::map<int64_t, int64_t> kv_after_open(FaultFileSystem* fs) {
  auto db = test::open_dir(continuation_options(fs));
  return test::kv_rows(*db);
}

void check_rows(FaultFileSystem* fs, int rows) {
  std::map<int64_t, int64_t> found = kv_after_open(fs);
  REQUIRE(found.size() == static_cast<size_t>(rows));
  for (int key = 1; key <= rows; ++key) REQUIRE(found[key] == key * 3);
}

void cut_to(FaultFileSystem* fs, const std::string& path, uint64_t size) {
  auto file = fs->open(path, OpenMode::kReadWrite);
  REQUIRE(file.ok());
  REQUIRE((*file)->truncate(size).ok());
  REQUIRE((*file)->sync().ok());
}

// How the log reached its newest segment.
const char* const kHistories[] = {"one segment of a new database (named by a stub)",
                                  "several segments", "a checkpoint, then more segments",
                                  "the segment recovery started, after a reopen",
                                  "the segment recovery started after a torn tail"};

void make_history(FaultFileSystem* fs, int history) {
  switch (history) {
    case 0:
      insert_rows(fs, 1, 4);
      break;
    case 1:
      insert_rows(fs, 1, 60);
      break;
    case 2:
      insert_rows(fs, 1, 60, /*checkpoint_at=*/30);
      break;
    case 3:
      insert_rows(fs, 1, 40);
      insert_rows(fs, 41, 43);
      break;
    default: {
      insert_rows(fs, 1, 40);
      // The last round's frame (key 40) torn: the log ends before it.
      const SegmentHeader last = newest_segment(fs);
      const std::string data = fs->contents(last.path);
      uint64_t pos = internal::kSegmentHeaderBytes;
      uint64_t last_frame = pos;
      while (internal::load_u64(data.data() + pos + 8) != 0 &&
             internal::load_u32(data.data() + pos + 4) != 0) {
        last_frame = pos;
        pos += internal::align_frame(internal::kFrameHeaderBytes +
                                     internal::load_u32(data.data() + pos + 4));
      }
      REQUIRE(internal::load_u64(data.data() + last_frame + 8) == 41);  // round 1 is the DDL
      fs->corrupt(last.path, last_frame + internal::kFrameHeaderBytes + 2, "\x7F");
      check_rows(fs, 39);
      insert_rows(fs, 40, 42);
      break;
    }
  }
}

// What happens to the newest segment.
const char* const kDamages[] = {"deleted", "cut to 0 bytes", "its header zeroed", "zeroed whole",
                                "its records zeroed, its header kept"};

void damage(FaultFileSystem* fs, const std::string& path, int kind) {
  const uint64_t size = fs->contents(path).size();
  switch (kind) {
    case 0:
      REQUIRE(fs->remove(path).ok());
      break;
    case 1:
      cut_to(fs, path, 0);
      break;
    case 2:
      fs->corrupt(path, 0, std::string(internal::kSegmentHeaderBytes, '\0'));
      break;
    case 3:
      fs->corrupt(path, 0, std::string(size, '\0'));
      break;
    default:
      fs->corrupt(path, internal::kSegmentHeaderBytes,
                  std::string(size - internal::kSegmentHeaderBytes, '\0'));
      break;
  }
}

}  // namespace

TEST_CASE("the segment with the newest rounds deleted, emptied or zeroed is refused, named") {
  for (int history = 0; history < 5; ++history) {
    for (int kind = 0; kind < 5; ++kind) {
      INFO(kHistories[history] << "; " << kDamages[kind]);
      FaultFileSystem fs;
      make_history(&fs, history);
      const int rows = static_cast<int>(kv_after_open(&fs).size());
      REQUIRE(rows == (history == 0 ? 4 : history < 3 ? 60 : history == 3 ? 43 : 42));
      const SegmentHeader newest = newest_segment(&fs);
      damage(&fs, newest.path, kind);
      auto opened = Database::open(continuation_options(&fs));
      INFO("open: " << opened.status().ToString());
      REQUIRE(!opened.ok());
      REQUIRE(opened.status().IsCorruption());
      REQUIRE(opened.status().message().find(newest.path) != std::string::npos);
    }
  }
}

TEST_CASE(
    "a segment started but not synced (its header written, no record) is a crash, not a loss") {
  FaultFileSystem fs;
  insert_rows(&fs, 1, 30);
  // The writer's next segment as a crash between its header write and its
  // first sync may leave it: a valid header, the next round, no frames.
  const SegmentHeader newest = newest_segment(&fs);
  std::string free_path;
  for (const std::string& path : fs.paths()) {
    if (path.find("/wal-") != std::string::npos && started_segments(&fs).count(path) == 0) {
      free_path = path;
    }
  }
  if (free_path.empty()) {  // every segment started: a new one, as the ring grows
    free_path = "/db/" + internal::segment_name(900);
    auto file = fs.open(free_path, OpenMode::kCreate);
    REQUIRE(file.ok());
    REQUIRE((*file)->write_at(0, std::string(8 * 1024, '\0')).ok());
    REQUIRE((*file)->sync().ok());
  }
  const uint64_t bytes = fs.contents(free_path).size();
  char header[internal::kSegmentHeaderBytes] = {};
  const std::string newest_data = fs.contents(newest.path);
  std::memcpy(header, newest_data.data(), internal::kSegmentHeaderBytes);
  internal::store_u64(header + internal::kSegSeqOff, newest.seq + 1);
  internal::store_u64(header + internal::kSegFirstLsnOff, 32);  // rounds 1..31 are logged
  internal::store_u64(header + internal::kSegBytesOff, bytes);
  internal::store_u32(header + internal::kSegCrcOff,
                      internal::crc32c_extend(0, header, internal::kSegCrcOff));
  fs.corrupt(free_path, 0, std::string_view(header, internal::kSegmentHeaderBytes));
  check_rows(&fs, 30);
  // The next run starts another segment at the same round; the torn start
  // (read through: it holds nothing) is not taken for the log's end.
  insert_rows(&fs, 31, 35);
  check_rows(&fs, 35);
  SECTION("and the log goes on") {
    insert_rows(&fs, 36, 60);
    check_rows(&fs, 60);
  }
  SECTION("the segment started after it is named by it: deleting that one is refused") {
    const SegmentHeader after = newest_segment(&fs);
    REQUIRE(after.path != free_path);
    REQUIRE(after.first_lsn == 32);
    REQUIRE(fs.remove(after.path).ok());
    auto opened = Database::open(continuation_options(&fs));
    INFO(opened.status().ToString());
    REQUIRE(opened.status().IsCorruption());
    REQUIRE(opened.status().message().find(after.path + " is missing, but " + free_path) !=
            std::string::npos);
  }
}

TEST_CASE("a crash at any point (torn tail, segment start) opens with every acknowledged row") {
  const test::CrashMode modes[] = {
      test::CrashMode::kDropUnsynced, test::CrashMode::kTearLastWrite512,
      test::CrashMode::kTearLastWrite4K, test::CrashMode::kGarbageUnsynced};
  for (int64_t crash_at = 1; crash_at <= 80; crash_at += 3) {
    for (int mode = 0; mode < 4; ++mode) {
      INFO("crash at op " << crash_at << ", mode " << mode);
      FaultFileSystem fs;
      insert_rows(&fs, 1, 20);
      fs.crash_after_ops(crash_at);
      int acked = 20;
      {
        auto opened = Database::open(continuation_options(&fs));
        if (opened.ok()) {
          for (int key = 21; key <= 60; ++key) {
            if (!(*opened)
                     ->write([&](WriteTxn& txn) {
                       return txn.insert(0, {Value::Int(key), Value::Int(key * 3)});
                     })
                     .ok()) {
              break;
            }
            acked = key;
          }
        }
      }
      fs.crash(modes[mode], static_cast<uint32_t>(crash_at * 5 + mode));
      // Every acknowledged row; a round written but not acknowledged may be there too.
      std::map<int64_t, int64_t> found = kv_after_open(&fs);
      REQUIRE(found.size() >= static_cast<size_t>(acked));
      const int rows = static_cast<int>(found.size());
      check_rows(&fs, rows);
      insert_rows(&fs, rows + 1, rows + 20);
      check_rows(&fs, rows + 20);
    }
  }
}

TEST_CASE("segments reused by the ring over checkpoints still open") {
  FaultFileSystem fs;
  insert_rows(&fs, 1, 20);
  for (int lap = 0; lap < 4; ++lap) {
    const int from = 21 + lap * 30;
    insert_rows(&fs, from, from + 29, /*checkpoint_at=*/from + 15);
    check_rows(&fs, from + 29);
  }
  {
    auto db = test::open_dir(continuation_options(&fs));
    REQUIRE(db->checkpoint().ok());
  }
  check_rows(&fs, 140);
  insert_rows(&fs, 141, 150);
  check_rows(&fs, 150);
}

namespace {

// Every file of `fs` with its bytes.
std::map<std::string, std::string> files_of(FaultFileSystem* fs) {
  std::map<std::string, std::string> files;
  for (const std::string& path : fs->paths()) files[path] = fs->contents(path);
  return files;
}

std::string checkpoint_of(FaultFileSystem* fs) {
  std::string found;
  for (const std::string& path : fs->paths()) {
    if (path.find("/checkpoint-") != std::string::npos && path.ends_with(".ckpt")) found = path;
  }
  REQUIRE(!found.empty());
  return found;
}

// Open must be refused as a log that is missing, naming the checkpoint and
// the directory, and leave every file as it was (no segment made).
void require_log_missing(FaultFileSystem* fs, const Options& options) {
  const std::map<std::string, std::string> before = files_of(fs);
  const std::string checkpoint = checkpoint_of(fs);
  auto opened = Database::open(options);
  INFO("open: " << opened.status().ToString());
  REQUIRE(!opened.ok());
  REQUIRE(opened.status().IsCorruption());
  const std::string message(opened.status().message());
  CHECK(message.find("log segments missing: checkpoint " + checkpoint + " ends at round ") == 0);
  CHECK(message.find("/db holds no log segment") != std::string::npos);
  CHECK(files_of(fs) == before);
}

}  // namespace

TEST_CASE("a checkpoint without its log segments is refused, and nothing is changed") {
  FaultFileSystem fs;
  SECTION("closed cleanly, the checkpoint at close covering every round") {
    Options options = continuation_options(&fs);
    options.checkpoint_at_close_bytes = 1;
    {
      auto db = test::open_dir(options);
      write_rows(*db, 1, 30);
      REQUIRE(db->close().ok());
    }
    check_rows(&fs, 30);  // it opens with its log (no new round: the checkpoint stays the newest)
  }
  SECTION("a crash, the rounds after the checkpoint only in the log") {
    insert_rows(&fs, 1, 20);
    insert_rows(&fs, 21, 40, /*checkpoint_at=*/25);
    fs.crash(test::CrashMode::kDropUnsynced, 1);
  }
  SECTION("a checkpoint of round 0 (nothing logged)") {
    auto db = test::open_dir(continuation_options(&fs));
    REQUIRE(db->checkpoint().ok());
    REQUIRE(checkpoint_of(&fs).ends_with(internal::checkpoint_name(0)));
  }
  for (const std::string& path : fs.paths()) {
    if (path.find("/wal-") != std::string::npos) REQUIRE(fs.remove(path).ok());
  }
  require_log_missing(&fs, continuation_options(&fs));
  // Again, asking for a larger ring: refused before any segment is made.
  Options other = continuation_options(&fs);
  other.log_segments = 6;
  require_log_missing(&fs, other);
}

TEST_CASE("a checkpoint whose log segments were all emptied or zeroed is refused") {
  const char* const kEmptied[] = {"cut to 0 bytes", "zeroed whole", "headers zeroed"};
  for (int kind = 0; kind < 3; ++kind) {
    INFO(kEmptied[kind]);
    FaultFileSystem fs;
    insert_rows(&fs, 1, 40, /*checkpoint_at=*/25);
    size_t emptied = 0;
    for (const std::string& path : fs.paths()) {
      if (path.find("/wal-") == std::string::npos) continue;
      emptied++;
      if (kind == 0) cut_to(&fs, path, 0);
      if (kind == 1) fs.corrupt(path, 0, std::string(fs.contents(path).size(), '\0'));
      if (kind == 2) fs.corrupt(path, 0, std::string(internal::kSegmentHeaderBytes, '\0'));
    }
    const std::map<std::string, std::string> before = files_of(&fs);
    auto opened = Database::open(continuation_options(&fs));
    INFO("open: " << opened.status().ToString());
    REQUIRE(opened.status().IsCorruption());
    CHECK(std::string(opened.status().message())
              .find("but none of the " + std::to_string(emptied) +
                    " log segments in /db was started (no valid header)") != std::string::npos);
    CHECK(files_of(&fs) == before);
  }
}

TEST_CASE("a new database, and one closed cleanly with or without a checkpoint, open") {
  FaultFileSystem fs;
  // An empty database opens (it has no table kv yet).
  auto check_empty = [&] {
    auto db = test::open_dir(continuation_options(&fs));
    db->read([&](ReadTxn& txn) {
      CHECK(txn.catalog().tree_count() == 0);
      return Status::OK();
    });
  };
  SECTION("new, nothing logged, reopened") {
    { auto db = test::open_dir(continuation_options(&fs)); }
    check_empty();
  }
  SECTION("new, checkpointed before its first round (round 0, no segment started)") {
    {
      auto db = test::open_dir(continuation_options(&fs));
      REQUIRE(db->checkpoint().ok());
    }
    REQUIRE(started_segments(&fs).empty());
    check_empty();
    insert_rows(&fs, 1, 10);
    check_rows(&fs, 10);
  }
  SECTION("closed cleanly without a checkpoint at close") {
    insert_rows(&fs, 1, 30);
    check_rows(&fs, 30);
  }
  SECTION("closed cleanly with a checkpoint at close, then more runs") {
    Options options = continuation_options(&fs);
    options.checkpoint_at_close_bytes = 1;
    for (int run = 0; run < 3; ++run) {
      auto db = test::open_dir(options);
      write_rows(*db, run * 20 + 1, run * 20 + 20);
      REQUIRE(db->close().ok());
      checkpoint_of(&fs);
    }
    check_rows(&fs, 60);
  }
}

TEST_CASE("real files: a checkpoint without its log segments is refused, its bytes kept") {
  test::TempDir dir;
  Options options;
  options.check_invariants = true;
  options.dir = dir.path;
  options.log_segment_bytes = 8 * 1024;
  options.log_segments = 2;
  options.checkpoint_log_bytes = 0;
  options.checkpoint_at_close_bytes = 1;
  {
    auto db = test::open_dir(options);
    write_rows(*db, 1, 30);
    REQUIRE(db->close().ok());
  }
  auto files = [&] {
    std::map<std::string, std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
      std::ifstream in(entry.path(), std::ios::binary);
      found[entry.path().filename().string()] =
          std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return found;
  };
  std::string checkpoint;
  for (const auto& [name, bytes] : files()) {
    uint32_t slot;
    uint64_t lsn;
    if (internal::parse_segment_name(name, &slot)) {
      std::filesystem::remove(dir.path + "/" + name);
    } else if (internal::parse_checkpoint_name(name, &lsn)) {
      checkpoint = dir.path + "/" + name;
    }
  }
  REQUIRE(!checkpoint.empty());
  const std::map<std::string, std::string> before = files();
  auto opened = Database::open(options);
  INFO("open: " << opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  CHECK(std::string(opened.status().message())
            .find("log segments missing: checkpoint " + checkpoint + " ends at round 31, but " +
                  dir.path + " holds no log segment") == 0);
  CHECK(files() == before);
}

TEST_CASE("a damaged record the checkpoint covers does not block the open; one after it does") {
  FaultFileSystem fs;
  insert_rows(&fs, 1, 12, /*checkpoint_at=*/8);  // the checkpoint holds rounds 1..8
  // Round r (r >= 2) inserted key r - 1; each frame is 512 bytes (one round, padded).
  auto frame_of = [&](uint64_t lsn) -> std::pair<std::string, uint64_t> {
    for (const auto& [path, header] : started_segments(&fs)) {
      const std::string data = fs.contents(path);
      for (uint64_t pos = internal::kSegmentHeaderBytes; pos + 16 <= data.size(); pos += 8) {
        if (internal::load_u64(data.data() + pos + 8) == lsn &&
            internal::load_u32(data.data() + pos + 4) != 0 &&
            internal::load_u32(data.data() + pos) ==
                internal::crc32c_extend(0, data.data() + pos + 4,
                                        12 + internal::load_u32(data.data() + pos + 4))) {
          return {path, pos};
        }
      }
    }
    FAIL("no frame of round " << lsn);
    return {};
  };
  SECTION("covered") {
    const auto [path, pos] = frame_of(5);
    fs.corrupt(path, pos + internal::kFrameHeaderBytes + 1, "\x5A\xA5");
    check_rows(&fs, 12);
  }
  SECTION("after the checkpoint") {
    const auto [path, pos] = frame_of(10);
    fs.corrupt(path, pos + internal::kFrameHeaderBytes + 1, "\x5A\xA5");
    auto opened = Database::open(continuation_options(&fs));
    INFO(opened.status().ToString());
    REQUIRE(opened.status().IsCorruption());
    REQUIRE(opened.status().message().find(path + " at offset " + std::to_string(pos)) !=
            std::string::npos);
  }
}
