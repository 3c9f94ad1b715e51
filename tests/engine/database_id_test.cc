// Every database has an id, made when it is created and written into each
// log segment's and checkpoint's header; recovery refuses a checkpoint or a
// segment copied in from another database (found by a probe: a W=1 TPC-C
// database opened with a W=2 checkpoint's data), naming the file.
#include "database_id.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "checkpoint_format.h"
#include "crc32c.h"
#include "durable_codec.h"
#include "durable_util.h"
#include "log_format.h"

using namespace solo;
namespace fs = std::filesystem;

namespace {

Options id_options(const std::string& dir) {
  Options options;
  options.check_invariants = true;
  options.dir = dir;
  options.log_segment_bytes = 8 * 1024;  // segments roll over every few dozen rounds
  options.log_segments = 2;
  options.checkpoint_log_bytes = 0;
  return options;
}

using test::kv_rows;
using test::kv_schema;

// Inserts k = first..last (one round each) into table kv, made if missing.
void insert_rows(Database& db, int first, int last) {
  REQUIRE(db.write([&](WriteTxn& txn) {
              if (txn.catalog().tree_count() > 0) return Status::OK();
              return txn.create_table(kv_schema()).status();
            }).ok());
  for (int key = first; key <= last; ++key) {
    REQUIRE(db.write([&](WriteTxn& txn) {
                return txn.insert(0, {Value::Int(key), Value::Int(key * 7)});
              }).ok());
  }
}

// A database in `dir` with rows 1..rows, checkpointed after them if asked.
void make_database(const std::string& dir, int rows, bool checkpoint) {
  auto db = test::open_dir(id_options(dir));
  insert_rows(*db, 1, rows);
  if (checkpoint) REQUIRE(db->checkpoint().ok());
}

std::string read_bytes(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string data(bytes, '\0');
  in.read(data.data(), static_cast<std::streamsize>(bytes));
  data.resize(static_cast<size_t>(in.gcount()));
  return data;
}

// The paths of `dir`'s complete checkpoints and of its segments whose
// header is valid (started), each with the database id in its header.
std::map<std::string, uint64_t> identified_files(const std::string& dir) {
  std::map<std::string, uint64_t> ids;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string path = entry.path().string();
    uint32_t slot;
    uint64_t lsn;
    if (internal::parse_segment_name(name, &slot)) {
      std::string header = read_bytes(path, internal::kSegmentHeaderBytes);
      if (header.size() < internal::kSegmentHeaderBytes ||
          internal::load_u32(header.data() + internal::kSegCrcOff) !=
              internal::crc32c_extend(0, header.data(), internal::kSegCrcOff)) {
        continue;  // never started (zeros)
      }
      REQUIRE(internal::load_u32(header.data() + internal::kSegVersionOff) ==
              internal::kLogVersion);
      ids[path] = internal::load_u64(header.data() + internal::kSegDbIdOff);
    } else if (internal::parse_checkpoint_name(name, &lsn)) {
      std::string header = read_bytes(path, internal::kCheckpointHeaderBytes);
      REQUIRE(header.size() == internal::kCheckpointHeaderBytes);
      ids[path] = internal::load_u64(header.data() + internal::kCkpDbIdOff);
    }
  }
  return ids;
}

// The one id every identified file of `dir` carries (fails if they differ).
uint64_t database_id(const std::string& dir) {
  std::set<uint64_t> ids;
  for (const auto& [path, id] : identified_files(dir)) ids.insert(id);
  INFO(dir);
  REQUIRE(ids.size() == 1);
  REQUIRE(*ids.begin() != 0);
  return *ids.begin();
}

std::string newest_checkpoint(const std::string& dir) {
  std::string newest;
  for (const auto& entry : fs::directory_iterator(dir)) {
    uint64_t lsn;
    if (internal::parse_checkpoint_name(entry.path().filename().string(), &lsn) &&
        entry.path().string() > newest) {
      newest = entry.path().string();
    }
  }
  REQUIRE(!newest.empty());
  return newest;
}

// Open must fail with Corruption naming `path`, both ids and the cause.
void require_refused(const std::string& dir, const std::string& path, uint64_t expected,
                     uint64_t found) {
  auto opened = Database::open(id_options(dir));
  REQUIRE(!opened.ok());
  INFO(opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  const std::string message(opened.status().message());
  CHECK(message.find(path) != std::string::npos);
  CHECK(message.find("another database") != std::string::npos);
  CHECK(message.find(internal::database_id_text(expected)) != std::string::npos);
  CHECK(message.find(internal::database_id_text(found)) != std::string::npos);
}

}  // namespace

TEST_CASE("database ids are random, never 0, shown as 16 hex digits") {
  std::set<uint64_t> ids;
  for (int draw = 0; draw < 100; ++draw) {
    uint64_t id = internal::new_database_id();
    REQUIRE(id != 0);
    ids.insert(id);
  }
  CHECK(ids.size() == 100);
  CHECK(internal::database_id_text(0x1234abcd) == "0x000000001234abcd");
}

TEST_CASE("settle_database_id: the id most files carry, a tie to the first, none a new one") {
  using internal::IdentifiedFile;
  uint64_t id = 0;
  REQUIRE(internal::settle_database_id({}, &id).ok());
  CHECK(id != 0);
  uint64_t other = 0;
  REQUIRE(internal::settle_database_id({}, &other).ok());
  CHECK(other != id);
  const IdentifiedFile seg0{"log segment", "/d/wal-000000.log", 40, 5};
  const IdentifiedFile seg1{"log segment", "/d/wal-000001.log", 40, 5};
  const IdentifiedFile stranger_seg{"log segment", "/d/wal-000000.log", 40, 9};
  const IdentifiedFile ckpt{"checkpoint", "/d/checkpoint-1.ckpt", 40, 5};
  const IdentifiedFile stranger_ckpt{"checkpoint", "/d/checkpoint-1.ckpt", 40, 9};
  REQUIRE(internal::settle_database_id({seg0, seg1, ckpt}, &id).ok());
  CHECK(id == 5);
  Status refused = internal::settle_database_id({seg0, seg1, stranger_ckpt}, &id);
  REQUIRE(refused.IsCorruption());
  CHECK(id == 5);
  CHECK(std::string(refused.message()) ==
        "checkpoint /d/checkpoint-1.ckpt at offset 40 is from another database: its id is "
        "0x0000000000000009, this database's 0x0000000000000005 (carried by /d/wal-000000.log "
        "and 1 other file)");
  // The first segment is outvoted by the second and the checkpoint.
  refused = internal::settle_database_id({stranger_seg, seg1, ckpt}, &id);
  REQUIRE(refused.IsCorruption());
  CHECK(id == 5);
  CHECK(std::string(refused.message()).find("log segment /d/wal-000000.log at offset 40") == 0);
  // One against one: the first listed (the lowest segment) is the database's.
  refused = internal::settle_database_id({stranger_seg, ckpt}, &id);
  REQUIRE(refused.IsCorruption());
  CHECK(id == 9);
  CHECK(std::string(refused.message()).find("checkpoint /d/checkpoint-1.ckpt") == 0);
}

TEST_CASE("a checkpoint copied in from another database is refused, naming it") {
  test::TempDir a, b;
  make_database(a.path, 5, /*checkpoint=*/false);
  // B's checkpoint is newer than anything of A's: recovery would take it.
  make_database(b.path, 60, /*checkpoint=*/true);
  const uint64_t a_id = database_id(a.path);
  const uint64_t b_id = database_id(b.path);
  REQUIRE(a_id != b_id);
  std::string from_b = newest_checkpoint(b.path);
  std::string copied = a.path + "/" + fs::path(from_b).filename().string();
  SECTION("into a database with no checkpoint") {}
  SECTION("into a database with an older checkpoint of its own") {
    {
      auto db = test::open_dir(id_options(a.path));
      REQUIRE(db->checkpoint().ok());
    }
    REQUIRE(newest_checkpoint(a.path) < copied);
  }
  fs::copy_file(from_b, copied);
  require_refused(a.path, copied, a_id, b_id);
  // Nothing was changed by the refusal: without the stranger A opens as A.
  fs::remove(copied);
  auto db = test::open_dir(id_options(a.path));
  auto rows = kv_rows(*db);
  CHECK(rows.size() == 5);
  CHECK(rows[5] == 35);
}

TEST_CASE("a log segment copied in from another database is refused, naming it") {
  test::TempDir a, b;
  make_database(a.path, 5, /*checkpoint=*/true);
  make_database(b.path, 8, /*checkpoint=*/false);
  const uint64_t a_id = database_id(a.path);
  const uint64_t b_id = database_id(b.path);
  REQUIRE(a_id != b_id);
  const std::string from_b = b.path + "/" + internal::segment_name(0);
  std::string copied;
  SECTION("as a new segment file") {
    copied = a.path + "/" + internal::segment_name(7);
  }
  SECTION("over a segment A preallocated but never started") {
    // A's two segments are both started (the first one and the stub that
    // names it, log_format.h): a third one, preallocated as the writer does.
    copied = a.path + "/" + internal::segment_name(2);
    REQUIRE(!fs::exists(copied));
    std::ofstream(copied, std::ios::binary) << std::string(8 * 1024, '\0');
    REQUIRE(identified_files(a.path).count(copied) == 0);
  }
  fs::copy_file(from_b, copied, fs::copy_options::overwrite_existing);
  require_refused(a.path, copied, a_id, b_id);
}

TEST_CASE("a segment copied over the first one is outvoted by the database's other files") {
  test::TempDir a, b;
  // 60 rounds of 512 bytes: A's log spans several started segments.
  make_database(a.path, 60, /*checkpoint=*/true);
  make_database(b.path, 8, /*checkpoint=*/false);
  const uint64_t a_id = database_id(a.path);
  const uint64_t b_id = database_id(b.path);
  REQUIRE(identified_files(a.path).size() >= 3);
  const std::string first = a.path + "/" + internal::segment_name(0);
  fs::copy_file(b.path + "/" + internal::segment_name(0), first,
                fs::copy_options::overwrite_existing);
  require_refused(a.path, first, a_id, b_id);
}

TEST_CASE("one segment against one checkpoint: the log's id is the database's") {
  // A tie between the files: the lowest-numbered segment decides (the
  // first segment a database starts), so the checkpoint is the one named.
  test::TempDir a, b;
  make_database(a.path, 5, /*checkpoint=*/true);
  make_database(b.path, 8, /*checkpoint=*/false);
  const uint64_t a_id = database_id(a.path);
  const uint64_t b_id = database_id(b.path);
  // A's first segment is named by a stub (log_format.h), a second started
  // segment: its header zeroed (as if never started), and its marker
  // (solo.db, which would outvote the stranger: database_marker_test)
  // removed, as a build before the marker left it: the files tie.
  REQUIRE(fs::remove(a.path + "/solo.db"));
  const std::string stub = a.path + "/" + internal::segment_name(1);
  REQUIRE(identified_files(a.path).count(stub) == 1);
  {
    std::fstream file(stub, std::ios::in | std::ios::out | std::ios::binary);
    file << std::string(internal::kSegmentHeaderBytes, '\0');
  }
  REQUIRE(identified_files(a.path).size() == 2);
  fs::copy_file(b.path + "/" + internal::segment_name(0), a.path + "/" + internal::segment_name(0),
                fs::copy_options::overwrite_existing);
  require_refused(a.path, newest_checkpoint(a.path), b_id, a_id);
}

TEST_CASE("the id survives reopen, checkpoints, segment rollover and recovery") {
  test::TempDir dir;
  {
    auto db = test::open_dir(id_options(dir.path));
    insert_rows(*db, 1, 3);
  }
  const uint64_t id = database_id(dir.path);
  for (int session = 0; session < 4; ++session) {
    auto db = test::open_dir(id_options(dir.path));  // recovery: checkpoint + log
    insert_rows(*db, 4 + session * 100, 3 + (session + 1) * 100);
    if (session % 2 == 0) REQUIRE(db->checkpoint().ok());
    insert_rows(*db, 1000 + session, 1000 + session);
  }
  // The small segments were rolled over and reused many times.
  size_t segments = 0;
  for (const auto& [path, file_id] : identified_files(dir.path)) {
    if (path.find("/wal-") != std::string::npos) segments++;
  }
  CHECK(segments >= 3);
  CHECK(database_id(dir.path) == id);
  auto db = test::open_dir(id_options(dir.path));
  CHECK(kv_rows(*db).size() == 3 + 400 + 4);
}

TEST_CASE("with its segments removed after a checkpoint, the database is refused") {
  // Until session 43 the checkpoint alone opened (and named the database
  // for the new segments): the rounds after it were lost without a word.
  test::TempDir dir;
  make_database(dir.path, 30, /*checkpoint=*/true);
  const std::string checkpoint = newest_checkpoint(dir.path);
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    uint32_t slot;
    if (internal::parse_segment_name(entry.path().filename().string(), &slot)) {
      fs::remove(entry.path());
    }
  }
  auto opened = Database::open(id_options(dir.path));
  INFO(opened.status().ToString());
  REQUIRE(opened.status().IsCorruption());
  CHECK(std::string(opened.status().message())
            .find("log segments missing: checkpoint " + checkpoint) == 0);
  CHECK(identified_files(dir.path).size() == 1);  // the checkpoint, no new segment
}

TEST_CASE("a checkpoint.spare of another database is never read, and is overwritten") {
  test::TempDir a, b;
  make_database(a.path, 5, /*checkpoint=*/false);
  make_database(b.path, 60, /*checkpoint=*/true);
  const uint64_t a_id = database_id(a.path);
  fs::copy_file(newest_checkpoint(b.path), a.path + "/" + internal::kCheckpointSpareName);
  auto db = test::open_dir(id_options(a.path));
  CHECK(kv_rows(*db).size() == 5);
  REQUIRE(db->checkpoint().ok());  // reuses the spare's file
  CHECK(!fs::exists(a.path + "/" + internal::kCheckpointSpareName));
  CHECK(database_id(a.path) == a_id);
}
