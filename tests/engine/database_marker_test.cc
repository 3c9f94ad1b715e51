// The database's marker, DIR/solo.db (engine/README.md "Database marker"):
// written when a database is created, and again once its first round is
// durable, it says that the directory holds a database, which, and whether
// it has logged. Regression (session 44): a database without a checkpoint (a
// clean close writes one only after 32 MiB of log) whose log segments were
// all removed opened as a new, empty database, without a word; and (session
// 46) one whose segments were all emptied (zeroed, cut to 0 bytes) still did.
#include "database_marker.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "checkpoint_format.h"
#include "crc32c.h"
#include "database_id.h"
#include "durable_codec.h"
#include "durable_util.h"
#include "fault_file_system.h"
#include "log_format.h"

using namespace solo;
namespace fs = std::filesystem;
using test::CrashMode;
using test::FaultFileSystem;

namespace {

// 8 KiB segments, two to start with; only explicit checkpoints, none at close.
Options marker_options(const std::string& dir) {
  Options options = test::small_log_options(nullptr, dir, /*checkpoint_log_bytes=*/0);
  options.checkpoint_at_close_bytes = 0;
  return options;
}

// Inserts k = first..last (v = 5k), one round each, into table kv (made if missing).
void insert_rows(Database& db, int first, int last) {
  REQUIRE(db.write([&](WriteTxn& txn) {
              if (txn.catalog().tree_count() > 0) return Status::OK();
              return txn.create_table(test::kv_schema()).status();
            }).ok());
  for (int key = first; key <= last; ++key) {
    REQUIRE(db.write([&](WriteTxn& txn) {
                return txn.insert(0, {Value::Int(key), Value::Int(key * 5)});
              }).ok());
  }
}

void make_database(const std::string& dir, int rows) {
  auto db = test::open_dir(marker_options(dir));
  insert_rows(*db, 1, rows);
  REQUIRE(db->close().ok());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Every file of `dir` (name -> bytes).
std::map<std::string, std::string> files_of(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] = read_file(entry.path().string());
  }
  return files;
}

void remove_segments(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    uint32_t slot;
    if (internal::parse_segment_name(entry.path().filename().string(), &slot)) {
      fs::remove(entry.path());
    }
  }
}

std::string marker_path(const std::string& dir) {
  return dir + "/" + internal::kMarkerName;
}

// The id in DIR/solo.db (which must be whole).
uint64_t marker_id(const std::string& dir) {
  const std::string bytes = read_file(marker_path(dir));
  REQUIRE(bytes.size() == internal::kMarkerBytes);
  REQUIRE(bytes.substr(0, 8) == std::string(internal::kMarkerMagic, 8));
  REQUIRE(internal::load_u32(bytes.data() + internal::kMarkCrcOff) ==
          internal::crc32c_extend(0, bytes.data(), internal::kMarkCrcOff));
  return internal::load_u64(bytes.data() + internal::kMarkDbIdOff);
}

// The flags in DIR/solo.db (which must be whole).
uint32_t marker_flags(const std::string& dir) {
  (void)marker_id(dir);
  return internal::load_u32(read_file(marker_path(dir)).data() + internal::kMarkFlagsOff);
}

// Every log segment of `dir` zeroed whole, or cut to 0 bytes.
void empty_segments(const std::string& dir, bool cut) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    uint32_t slot;
    if (!internal::parse_segment_name(entry.path().filename().string(), &slot)) continue;
    const auto size = fs::file_size(entry.path());
    write_file(entry.path().string(), cut ? std::string() : std::string(size, '\0'));
  }
}

// The id in the header of DIR/wal-000000.log (started).
uint64_t first_segment_id(const std::string& dir) {
  const std::string header =
      read_file(dir + "/" + internal::segment_name(0)).substr(0, internal::kSegmentHeaderBytes);
  REQUIRE(header.size() == internal::kSegmentHeaderBytes);
  REQUIRE(internal::load_u32(header.data() + internal::kSegCrcOff) ==
          internal::crc32c_extend(0, header.data(), internal::kSegCrcOff));
  return internal::load_u64(header.data() + internal::kSegDbIdOff);
}

// Open must be refused with Corruption whose message contains every one of
// `parts`, and leave every file of `dir` byte for byte as it was.
void require_refused(const Options& options, std::initializer_list<std::string> parts) {
  const std::map<std::string, std::string> before = files_of(options.dir);
  auto opened = Database::open(options);
  INFO("open: " << opened.status().ToString());
  REQUIRE(!opened.ok());
  REQUIRE(opened.status().IsCorruption());
  const std::string message(opened.status().message());
  for (const std::string& part : parts) CHECK(message.find(part) != std::string::npos);
  CHECK(files_of(options.dir) == before);
}

}  // namespace

TEST_CASE("marker: a database without a checkpoint whose log segments were removed is refused") {
  test::TempDir dir;
  make_database(dir.path, 12);
  uint64_t lsn;
  for (const auto& [name, bytes] : files_of(dir.path)) {
    REQUIRE(!internal::parse_checkpoint_name(name, &lsn));  // no checkpoint: the log is everything
  }
  const uint64_t id = marker_id(dir.path);
  remove_segments(dir.path);
  const std::string message_start = "log segments missing: database marker " +
                                    marker_path(dir.path) + " says " + dir.path +
                                    " holds database " + internal::database_id_text(id);
  require_refused(marker_options(dir.path),
                  {message_start, dir.path + " holds no log segment (wal-NNNNNN.log) and no "
                                             "checkpoint: the log was removed"});
  // Again, asking for a larger ring: refused before any segment is made.
  Options more = marker_options(dir.path);
  more.log_segments = 6;
  require_refused(more, {message_start});
  // Without the marker too (an older build's directory, or the marker
  // removed as well) nothing can tell: a new database. Not a claim of this
  // test but the limit of what the marker does.
  fs::remove(marker_path(dir.path));
  auto db = test::open_dir(marker_options(dir.path));
  db->read([&](ReadTxn& txn) {
    CHECK(txn.catalog().tree_count() == 0);
    return Status::OK();
  });
}

TEST_CASE("marker: a damaged marker is refused, naming it, never ignored") {
  test::TempDir dir;
  make_database(dir.path, 5);
  const std::string path = marker_path(dir.path);
  const std::string good = read_file(path);
  REQUIRE(good.size() == internal::kMarkerBytes);
  struct Damage {
    const char* what;
    std::string bytes;
    std::string message;
  };
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string bad_crc = good;
  bad_crc[internal::kMarkDbIdOff] ^= 0x40;
  std::string unknown_flag = good;
  internal::store_u32(unknown_flag.data() + internal::kMarkFlagsOff, 4 | internal::kMarkerLogged);
  internal::store_u32(unknown_flag.data() + internal::kMarkCrcOff,
                      internal::crc32c_extend(0, unknown_flag.data(), internal::kMarkCrcOff));
  std::string newer = good;
  internal::store_u32(newer.data() + internal::kMarkVersionOff, internal::kMarkerVersion + 1);
  internal::store_u32(newer.data() + internal::kMarkCrcOff,
                      internal::crc32c_extend(0, newer.data(), internal::kMarkCrcOff));
  const Damage damages[] = {
      {"empty", "", "damaged database marker " + path + " at offset 0: 0 bytes, expected 32"},
      {"short", good.substr(0, 20), "at offset 20: 20 bytes, expected 32"},
      {"longer", good + "x", "at offset 32: 33 bytes, expected 32"},
      {"bad magic", bad_magic, "damaged database marker " + path + " at offset 0: bad magic"},
      {"bad checksum", bad_crc, "at offset 28: bad checksum"},
      {"zeroed", std::string(internal::kMarkerBytes, '\0'), "at offset 0: bad magic"},
      {"a flag this build does not know", unknown_flag,
       "damaged database marker " + path +
           " at offset 24: flags 5, of which this build knows only 1"},
      {"a newer format version", newer,
       "database marker " + path + " at offset 8 was written by a newer format version 2"},
  };
  for (const Damage& damage : damages) {
    INFO(damage.what);
    write_file(path, damage.bytes);
    require_refused(marker_options(dir.path), {damage.message});
  }
  // The marker put back: the database opens with its rows.
  write_file(path, good);
  auto db = test::open_dir(marker_options(dir.path));
  CHECK(test::kv_rows(*db).size() == 5);
}

TEST_CASE("marker: a marker of another database is refused, naming it and both ids") {
  test::TempDir a, b;
  make_database(a.path, 5);
  make_database(b.path, 8);
  const uint64_t a_id = marker_id(a.path);
  const uint64_t b_id = marker_id(b.path);
  REQUIRE(a_id != b_id);
  REQUIRE(first_segment_id(a.path) == a_id);
  const std::string a_marker = read_file(marker_path(a.path));
  write_file(marker_path(a.path), read_file(marker_path(b.path)));
  // A's segments outvote the stranger.
  require_refused(marker_options(a.path), {"database marker " + marker_path(a.path) +
                                               " at offset 16 is from another "
                                               "database: its id is " +
                                               internal::database_id_text(b_id),
                                           "this database's " + internal::database_id_text(a_id)});
  // And the other way round: A's marker and A's other segments outvote B's
  // first segment copied over A's.
  write_file(marker_path(a.path), a_marker);
  const std::string a_first = read_file(a.path + "/" + internal::segment_name(0));
  write_file(a.path + "/" + internal::segment_name(0),
             read_file(b.path + "/" + internal::segment_name(0)));
  require_refused(marker_options(a.path),
                  {"log segment " + a.path + "/" + internal::segment_name(0),
                   "is from another database: its id is " + internal::database_id_text(b_id),
                   "(carried by " + marker_path(a.path)});
  write_file(a.path + "/" + internal::segment_name(0), a_first);
  auto db = test::open_dir(marker_options(a.path));
  CHECK(test::kv_rows(*db).size() == 5);
}

TEST_CASE("marker: a directory of an older build (no marker) opens with its data and gets one") {
  test::TempDir dir;
  bool checkpoint = false;
  SECTION("log only") {}
  SECTION("a checkpoint and log") {
    checkpoint = true;
  }
  {
    auto db = test::open_dir(marker_options(dir.path));
    insert_rows(*db, 1, 20);
    if (checkpoint) REQUIRE(db->checkpoint().ok());
    insert_rows(*db, 21, 30);
  }
  const uint64_t id = first_segment_id(dir.path);
  fs::remove(marker_path(dir.path));  // as a build before the marker left it
  {
    auto db = test::open_dir(marker_options(dir.path));
    CHECK(test::kv_rows(*db).size() == 30);
    // Written at the open, before anything is logged.
    CHECK(marker_id(dir.path) == id);
    insert_rows(*db, 31, 35);
  }
  CHECK(marker_id(dir.path) == id);
  // From now on it guards the log like a new database's.
  auto db = test::open_dir(marker_options(dir.path));
  CHECK(test::kv_rows(*db).size() == 35);
}

TEST_CASE("marker: a new database gets its marker at creation, and keeps it") {
  test::TempDir dir;
  const std::string db_dir = dir.path + "/new";  // a directory the open makes
  SECTION("a missing directory") {}
  SECTION("an empty directory") {
    fs::create_directory(db_dir);
  }
  SECTION("a directory with the user's files only") {
    fs::create_directory(db_dir);
    write_file(db_dir + "/notes.txt", "mine\n");
    write_file(db_dir + "/solo.db.orig", "mine too\n");
  }
  {
    auto db = test::open_dir(marker_options(db_dir));
    // Before the first round: the segment files exist, none is started.
    REQUIRE(fs::exists(db_dir + "/" + internal::segment_name(0)));
    REQUIRE(fs::exists(marker_path(db_dir)));
  }
  const uint64_t id = marker_id(db_dir);
  CHECK(id != 0);
  CHECK(!fs::exists(db_dir + "/" + internal::kMarkerTempName));
  CHECK(Database::file_kind(internal::kMarkerName) == Database::FileKind::kMarker);
  CHECK(Database::file_kind(internal::kMarkerTempName) == Database::FileKind::kScratch);
  CHECK(Database::file_kind("solo.db.orig") == Database::FileKind::kOther);
  // Nothing was logged yet, and the marker says so.
  CHECK(marker_flags(db_dir) == 0);
  // Nothing was logged: it reopens empty, its marker as it was; once a
  // round is durable the marker says the database logged, with the same id,
  // the one the first segment then carries.
  const std::string marker_bytes = read_file(marker_path(db_dir));
  {
    auto db = test::open_dir(marker_options(db_dir));
    CHECK(read_file(marker_path(db_dir)) == marker_bytes);
    insert_rows(*db, 1, 3);
    CHECK(marker_flags(db_dir) == internal::kMarkerLogged);
  }
  CHECK(marker_id(db_dir) == id);
  CHECK(first_segment_id(db_dir) == id);
  CHECK(!fs::exists(db_dir + "/" + internal::kMarkerTempName));
  const std::string logged_bytes = read_file(marker_path(db_dir));
  auto db = test::open_dir(marker_options(db_dir));
  CHECK(test::kv_rows(*db).size() == 3);
  insert_rows(*db, 4, 5);
  // Written once more, and then never again.
  CHECK(read_file(marker_path(db_dir)) == logged_bytes);
}

TEST_CASE(
    "marker: a database without a checkpoint whose log segments were all emptied is refused") {
  test::TempDir dir;
  const bool cut = GENERATE(false, true);
  INFO((cut ? "segments cut to 0 bytes" : "segments zeroed whole"));
  make_database(dir.path, 12);
  const uint64_t id = marker_id(dir.path);
  REQUIRE(marker_flags(dir.path) == internal::kMarkerLogged);
  empty_segments(dir.path, cut);
  require_refused(marker_options(dir.path),
                  {"log segments emptied: database marker " + marker_path(dir.path) + " says " +
                   dir.path + " holds database " + internal::database_id_text(id) +
                   ", which has logged rounds, but none of the 2 log segments in " + dir.path +
                   " was started (no valid header) and " + dir.path +
                   " holds no checkpoint: the log was emptied or damaged"});
}

TEST_CASE("marker: emptied segments of a database that never logged open as it was: empty") {
  test::TempDir dir;
  const bool cut = GENERATE(false, true);
  {
    auto db = test::open_dir(marker_options(dir.path));  // made, nothing logged
  }
  REQUIRE(marker_flags(dir.path) == 0);
  empty_segments(dir.path, cut);
  auto db = test::open_dir(marker_options(dir.path));
  db->read([&](ReadTxn& txn) {
    CHECK(txn.catalog().tree_count() == 0);
    return Status::OK();
  });
  insert_rows(*db, 1, 2);
  CHECK(marker_flags(dir.path) == internal::kMarkerLogged);
}

TEST_CASE("marker: the marker of a build before its flags gets kMarkerLogged at the first open") {
  test::TempDir dir;
  make_database(dir.path, 7);
  // As a build before session 46 left it: the flags field zero.
  std::string bytes = read_file(marker_path(dir.path));
  internal::store_u32(bytes.data() + internal::kMarkFlagsOff, 0);
  internal::store_u32(bytes.data() + internal::kMarkCrcOff,
                      internal::crc32c_extend(0, bytes.data(), internal::kMarkCrcOff));
  write_file(marker_path(dir.path), bytes);
  const uint64_t id = marker_id(dir.path);
  {
    auto db = test::open_dir(marker_options(dir.path));
    // Written at the open: its segments were started.
    CHECK(marker_flags(dir.path) == internal::kMarkerLogged);
    CHECK(test::kv_rows(*db).size() == 7);
  }
  CHECK(marker_id(dir.path) == id);
  empty_segments(dir.path, /*cut=*/false);
  require_refused(marker_options(dir.path), {"log segments emptied: database marker"});
}

// A crash at every file operation of a new database's first open (segment
// files, then the marker) x power loss: the directory opens, empty (nothing
// was acknowledged), and then as the database it became. A crash after the
// marker is durable leaves its segment files whole (they were synced, with
// the directory, before it), so the refusal above never sees this state.
TEST_CASE("marker: a crash at any file operation of the creation opens as an empty database") {
  const CrashMode modes[] = {CrashMode::kDropUnsynced, CrashMode::kKeepUnsynced,
                             CrashMode::kTearLastWrite512, CrashMode::kTearLastWrite4K,
                             CrashMode::kGarbageUnsynced};
  int64_t create_ops = 0;
  {
    FaultFileSystem fs;
    Options options = test::small_log_options(&fs, "/db", 0);
    auto db = test::open_dir(options);
    create_ops = fs.mutating_ops();
  }
  REQUIRE(create_ops > 8);
  for (int64_t crash_at = 0; crash_at <= create_ops; ++crash_at) {
    for (CrashMode mode : modes) {
      INFO("crash at operation " << crash_at << ", mode " << static_cast<int>(mode));
      FaultFileSystem fs;
      Options options = test::small_log_options(&fs, "/db", 0);
      fs.crash_after_ops(crash_at);
      {
        auto opened = Database::open(options);
        if (opened.ok()) (void)(*opened)->close();
      }
      fs.crash(mode, static_cast<uint32_t>(crash_at));
      {
        auto db = test::open_dir(options);
        db->read([&](ReadTxn& txn) {
          CHECK(txn.catalog().tree_count() == 0);
          return Status::OK();
        });
        insert_rows(*db, 1, 4);
      }
      const std::vector<std::string> paths = fs.paths();
      CHECK(std::find(paths.begin(), paths.end(), "/db/solo.db") != paths.end());
      auto db = test::open_dir(options);
      CHECK(test::kv_rows(*db).size() == 4);
    }
  }
}

namespace {

// The flags of /db/solo.db in `fs` (which must be whole).
uint32_t marker_flags_of(const FaultFileSystem& fs) {
  const std::string bytes = fs.contents("/db/solo.db");
  REQUIRE(bytes.size() == internal::kMarkerBytes);
  REQUIRE(internal::load_u32(bytes.data() + internal::kMarkCrcOff) ==
          internal::crc32c_extend(0, bytes.data(), internal::kMarkCrcOff));
  return internal::load_u32(bytes.data() + internal::kMarkFlagsOff);
}

}  // namespace

// A crash at every file operation of a new database's first rounds (the
// first batch's write and sync, then the marker rewritten with
// kMarkerLogged: .tmp written, synced, renamed, directory synced) x power
// loss: the directory always opens (never refused as an emptied log), with
// every round that was acknowledged, and its marker whole.
TEST_CASE(
    "marker: a crash at any file operation of the first rounds opens with what was acknowledged") {
  const CrashMode modes[] = {CrashMode::kDropUnsynced, CrashMode::kKeepUnsynced,
                             CrashMode::kTearLastWrite512, CrashMode::kTearLastWrite4K,
                             CrashMode::kGarbageUnsynced};
  // Round 1 makes table kv, rounds 2.. insert k = 1, 2, 3.
  auto first_rounds = [](Database& db) {
    int acknowledged = 0;
    if (!db.write([&](WriteTxn& txn) {
             return txn.create_table(test::kv_schema()).status();
           }).ok()) {
      return acknowledged;
    }
    ++acknowledged;
    for (int key = 1; key <= 3; ++key) {
      if (!db.write([&](WriteTxn& txn) {
               return txn.insert(0, {Value::Int(key), Value::Int(key * 5)});
             }).ok()) {
        return acknowledged;
      }
      ++acknowledged;
    }
    return acknowledged;
  };
  int64_t create_ops = 0;
  int64_t rounds_ops = 0;
  {
    FaultFileSystem fs;
    Options options = test::small_log_options(&fs, "/db", 0);
    options.checkpoint_at_close_bytes = 0;
    auto db = test::open_dir(options);
    create_ops = fs.mutating_ops();
    REQUIRE(first_rounds(*db) == 4);
    rounds_ops = fs.mutating_ops();
  }
  // The first batch's write and sync, and the marker's four operations.
  REQUIRE(rounds_ops - create_ops >= 6);
  for (int64_t crash_at = create_ops; crash_at <= rounds_ops; ++crash_at) {
    for (CrashMode mode : modes) {
      INFO("crash at operation " << crash_at << ", mode " << static_cast<int>(mode));
      FaultFileSystem fs;
      Options options = test::small_log_options(&fs, "/db", 0);
      options.checkpoint_at_close_bytes = 0;
      int acknowledged = 0;
      {
        auto opened = Database::open(options);
        REQUIRE(opened.ok());  // the crash point is past the creation
        fs.crash_after_ops(crash_at - fs.mutating_ops());
        acknowledged = first_rounds(**opened);
        (void)(*opened)->close();
      }
      fs.crash(mode, static_cast<uint32_t>(crash_at));
      auto db = test::open_dir(options);
      size_t rows = 0;
      bool has_table = false;
      db->read([&](ReadTxn& txn) {
        has_table = txn.catalog().tree_count() > 0;
        return Status::OK();
      });
      if (has_table) rows = test::kv_rows(*db).size();
      if (acknowledged >= 1) CHECK(has_table);
      CHECK(rows + 1 >= static_cast<size_t>(acknowledged));
      if (has_table || acknowledged >= 1) CHECK(marker_flags_of(fs) == internal::kMarkerLogged);
    }
  }
}

// Regression (CI, session 47's try): a write refused with ENOSPC after the
// first segment's header was written (its own write) and before its frames:
// nothing acknowledged, the header never synced. The process lives on, and
// the next open saw a started segment in the page cache, so it wrote
// kMarkerLogged; a power loss then dropped the header, and the open after
// it was refused as "log segments emptied". Now LogWriter::open syncs
// every started segment before the database depends on it. Both log
// writers; and a checkpoint of the reopened state must survive the same.
TEST_CASE("marker: a started segment that was never synced is synced before the marker says so") {
  const auto log_on_owner = GENERATE(Options::LogOnOwner::kNever, Options::LogOnOwner::kAlways);
  const bool checkpoint = GENERATE(false, true);
  INFO("log on owner " << (log_on_owner == Options::LogOnOwner::kAlways)
                       << ", checkpoint at reopen " << checkpoint);
  FaultFileSystem fs;
  Options options = test::small_log_options(&fs, "/db", 0);
  options.checkpoint_at_close_bytes = 0;
  options.log_on_owner = log_on_owner;
  {
    auto db = test::open_dir(options);
    REQUIRE(marker_flags_of(fs) == 0);
    fs.enospc_after_bytes(internal::kSegmentHeaderBytes);  // the header fits, its frames do not
    Status status =
        db->write([&](WriteTxn& txn) { return txn.create_table(test::kv_schema()).status(); });
    REQUIRE(!status.ok());
    REQUIRE(fs.enospc_refusals() > 0);
    (void)db->close();
  }
  fs.enospc_after_bytes(-1);  // space freed; no power loss: the header is still there
  {
    auto db = test::open_dir(options);  // a started segment: kMarkerLogged now
    CHECK(marker_flags_of(fs) == internal::kMarkerLogged);
    if (checkpoint) CHECK(db->checkpoint().ok());
    CHECK(db->close().ok());
  }
  fs.crash(CrashMode::kDropUnsynced, 1);
  auto opened = Database::open(options);
  if (!opened.ok()) FAIL("reopen refused: " << opened.status().ToString());
  (*opened)->read([&](ReadTxn& txn) {
    CHECK(txn.catalog().tree_count() == 0);
    return Status::OK();
  });
}
