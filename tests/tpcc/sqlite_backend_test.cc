// Tests of the SQLite backend: types, transactions, retries, errors, files, profiles.
#include "tpcc/sqlite_backend.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "tests/tpcc/temp_dir.h"
#include "tpcc/schema.h"
#include "tpcc/sqlite_connection.h"

namespace tpcc {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A fresh directory removed at the end of the test.
class TempDir : public test::TempDir {
 public:
  explicit TempDir(const std::string& parent = "/dev/shm")
      : test::TempDir("solo-sqlite-test", parent) {}
};

BackendOptions ram_options(const TempDir& dir) {
  BackendOptions options;
  options.engine = "sqlite";
  options.storage = Storage::kRam;
  options.dir = dir.path();
  return options;
}

// Runs `sql` (no parameters) in its own write transaction.
void write_sql(Connection& connection, const std::string& sql, std::vector<Value> params = {}) {
  const StmtId stmt = connection.prepare(sql);
  connection.write([&](Txn& txn) {
    txn.exec(stmt, params);
    return Outcome::kCommit;
  });
}

Rows read_sql(Connection& connection, const std::string& sql, std::vector<Value> params = {}) {
  const StmtId stmt = connection.prepare(sql);
  Rows rows;
  connection.read([&](Txn& txn) {
    txn.exec(stmt, params, &rows);
    return Outcome::kCommit;
  });
  return rows;
}

int64_t count_rows(Connection& connection, const std::string& table) {
  return read_sql(connection, "SELECT count(*) FROM " + table).get_int(0, 0);
}

TEST_CASE("sqlite: values of each type round-trip", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script(
      "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, m DECIMAL(12,2), d DOUBLE PRECISION, "
      "s VARCHAR(24), ts TIMESTAMP, n INTEGER)");
  const int64_t stamp = 1709210096789012;
  write_sql(*connection, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)",
            {int64_t{1}, int64_t{-9'000'000'000'000'000'000}, Decimal{-1050, 2}, 0.1,
             std::string("héllo, world"), Timestamp{stamp}, null_value()});

  const Rows rows = read_sql(*connection, "SELECT id, i, m, d, s, ts, n FROM t");
  REQUIRE(rows.size() == 1);
  REQUIRE(rows.columns() == 7);
  CHECK(std::holds_alternative<int64_t>(rows.at(0, 1)));
  CHECK(rows.get_int(0, 1) == -9'000'000'000'000'000'000);
  CHECK(std::holds_alternative<double>(rows.at(0, 2)));  // REAL: SQLite has no exact decimal
  CHECK(rows.get_decimal(0, 2, 2) == -1050);
  CHECK(rows.get_double(0, 3) == 0.1);
  CHECK(std::holds_alternative<std::string>(rows.at(0, 4)));
  CHECK(rows.get_text(0, 4) == "héllo, world");
  CHECK(rows.get_text(0, 5) == "2024-02-29 12:34:56.789012");
  CHECK(rows.get_timestamp(0, 5) == stamp);
  CHECK(rows.is_null(0, 6));
  CHECK(std::holds_alternative<std::monostate>(rows.at(0, 6)));
}

TEST_CASE("sqlite: decimals round-trip at scale 2 and 4, and sum exactly", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script(
      "CREATE TABLE money (id INTEGER PRIMARY KEY, m2 DECIMAL(12,2), m4 DECIMAL(12,4))");
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> amount(-999'999'999'999, 999'999'999'999);  // 12 digits
  std::vector<std::pair<int64_t, int64_t>> expected = {
      {0, 0}, {1, 1}, {-1, -1}, {100, 10000}, {-5, -5}, {999'999'999'999, 999'999'999'999}};
  for (int row_idx = 0; row_idx < 500; ++row_idx) expected.emplace_back(amount(rng), amount(rng));

  const StmtId insert = connection->prepare("INSERT INTO money VALUES (?, ?, ?)");
  connection->write([&](Txn& txn) {
    for (size_t row_idx = 0; row_idx < expected.size(); ++row_idx) {
      txn.exec(insert, {static_cast<int64_t>(row_idx), Decimal{expected[row_idx].first, 2},
                        Decimal{expected[row_idx].second, 4}});
    }
    return Outcome::kCommit;
  });

  const Rows rows = read_sql(*connection, "SELECT m2, m4 FROM money ORDER BY id");
  REQUIRE(rows.size() == expected.size());
  for (size_t row_idx = 0; row_idx < expected.size(); ++row_idx) {
    INFO("row " << row_idx);
    CHECK(rows.get_decimal(row_idx, 0, 2) == expected[row_idx].first);
    CHECK(rows.get_decimal(row_idx, 1, 4) == expected[row_idx].second);
  }
  // A whole amount is stored as INTEGER (NUMERIC affinity) and still reads back.
  CHECK(std::holds_alternative<int64_t>(rows.at(3, 0)));

  // Typical TPC-C amounts (< 10,000.00): a SUM over a few thousand of them is
  // exact after rounding at the scale.
  connection->execute_script("DELETE FROM money");
  std::uniform_int_distribution<int64_t> payment(100, 500'000);
  int64_t total = 0;
  connection->write([&](Txn& txn) {
    for (int64_t row_idx = 0; row_idx < 3000; ++row_idx) {
      const int64_t cents = payment(rng);
      total += cents;
      txn.exec(insert, {row_idx, Decimal{cents, 2}, Decimal{cents * 100, 4}});
    }
    return Outcome::kCommit;
  });
  const Rows sums = read_sql(*connection, "SELECT SUM(m2), SUM(m4) FROM money");
  CHECK(sums.get_decimal(0, 0, 2) == total);
  CHECK(sums.get_decimal(0, 1, 4) == total * 100);
}

TEST_CASE("sqlite: timestamps round-trip through TEXT", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY, ts TIMESTAMP)");
  const std::vector<int64_t> stamps = {0, 1, -1, 1709210096789012, now_micros()};
  for (size_t row_idx = 0; row_idx < stamps.size(); ++row_idx) {
    write_sql(*connection, "INSERT INTO t VALUES (?, ?)",
              {static_cast<int64_t>(row_idx), Timestamp{stamps[row_idx]}});
  }
  const Rows rows = read_sql(*connection, "SELECT ts FROM t ORDER BY id");
  REQUIRE(rows.size() == stamps.size());
  for (size_t row_idx = 0; row_idx < stamps.size(); ++row_idx) {
    CHECK(rows.get_timestamp(row_idx, 0) == stamps[row_idx]);
  }
  // The text form orders like the time (the harness relies on ORDER BY ts).
  const Rows ordered = read_sql(*connection, "SELECT id FROM t ORDER BY ts");
  CHECK(ordered.get_int(0, 0) == 2);  // -1 µs is the earliest
}

TEST_CASE("sqlite: exec reports the rows a statement changed or returned", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script(
      "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); "
      "INSERT INTO t VALUES (1, 0), (2, 0), (3, 5)");
  const StmtId bump_small = connection->prepare("UPDATE t SET v = v + 1 WHERE v < ?");
  const StmtId remove = connection->prepare("DELETE FROM t WHERE id = ?");
  const StmtId select_all = connection->prepare("SELECT id FROM t");
  connection->write([&](Txn& txn) {
    CHECK(txn.exec(bump_small, {int64_t{5}}) == 2);
    CHECK(txn.exec(remove, {int64_t{3}}) == 1);
    CHECK(txn.exec(remove, {int64_t{3}}) == 0);  // already gone
    CHECK(txn.exec(select_all, {}) == 2);
    return Outcome::kCommit;
  });
}

TEST_CASE("sqlite: kRollback and exceptions leave no change", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)");
  write_sql(*connection, "INSERT INTO t VALUES (?, ?)", {int64_t{1}, int64_t{10}});
  const StmtId insert = connection->prepare("INSERT INTO t VALUES (?, ?)");
  const StmtId update = connection->prepare("UPDATE t SET v = v + 1 WHERE id = 1");

  const TxnResult result = connection->write([&](Txn& txn) {
    txn.exec(update, {});
    txn.exec(insert, {int64_t{2}, int64_t{20}});
    return Outcome::kRollback;
  });
  CHECK(result.outcome == Outcome::kRollback);
  CHECK(result.retries == 0);
  CHECK(count_rows(*connection, "t") == 1);
  CHECK(read_sql(*connection, "SELECT v FROM t WHERE id = 1").get_int(0, 0) == 10);

  CHECK_THROWS_AS(connection->write([&](Txn& txn) -> Outcome {
    txn.exec(update, {});
    throw std::runtime_error("body failed");
  }),
                  std::runtime_error);
  CHECK(read_sql(*connection, "SELECT v FROM t WHERE id = 1").get_int(0, 0) == 10);

  // A failing statement (duplicate key) after a successful one: all undone.
  CHECK_THROWS_AS(connection->write([&](Txn& txn) {
    txn.exec(update, {});
    txn.exec(insert, {int64_t{1}, int64_t{0}});
    return Outcome::kCommit;
  }),
                  BackendError);
  CHECK(read_sql(*connection, "SELECT v FROM t WHERE id = 1").get_int(0, 0) == 10);

  // And the connection still works.
  write_sql(*connection, "UPDATE t SET v = v + 1 WHERE id = 1");
  CHECK(read_sql(*connection, "SELECT v FROM t WHERE id = 1").get_int(0, 0) == 11);
}

TEST_CASE("sqlite: a writer blocked by another connection is retried and counted", "[sqlite]") {
  TempDir dir;
  SqliteProfile profile = sqlite_profile("", Storage::kRam);
  profile.writer_gate = false;
  profile.busy_give_up_ms = 20;  // give up quickly so the body is re-run
  SqliteBackend backend(ram_options(dir), profile);
  auto holder = backend.connect();
  auto waiter = backend.connect();
  holder->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  const StmtId hold_insert = holder->prepare("INSERT INTO t VALUES (1)");
  const StmtId wait_insert = waiter->prepare("INSERT INTO t VALUES (2)");

  std::promise<void> holding;
  std::thread holder_thread([&] {
    holder->write([&](Txn& txn) {
      txn.exec(hold_insert, {});
      holding.set_value();
      std::this_thread::sleep_for(250ms);  // keep the write lock
      return Outcome::kCommit;
    });
  });
  holding.get_future().wait();

  // A reader is not blocked by the writer (WAL) and sees the old state.
  const Rows before = read_sql(*waiter, "SELECT count(*) FROM t");
  CHECK(before.get_int(0, 0) == 0);

  int body_runs = 0;
  const TxnResult result = waiter->write([&](Txn& txn) {
    ++body_runs;
    txn.exec(wait_insert, {});
    return Outcome::kCommit;
  });
  holder_thread.join();
  CHECK(result.outcome == Outcome::kCommit);
  CHECK(result.retries >= 1);
  CHECK(static_cast<uint32_t>(body_runs) == 1);  // BEGIN IMMEDIATE failed before the body ran
  CHECK(count_rows(*waiter, "t") == 2);
}

TEST_CASE("sqlite: busy from another process-level handle is retried with the writer gate",
          "[sqlite]") {
  TempDir dir;
  SqliteProfile profile = sqlite_profile("", Storage::kRam);
  profile.writer_gate = true;
  profile.checkpoint = "passive";
  profile.busy_give_up_ms = 20;
  SqliteBackend backend(ram_options(dir), profile);
  auto connection = backend.connect();
  connection->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY)");

  // A raw handle stands for another process: the gate does not stop it.
  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(backend.path().c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO t VALUES (1)", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  std::thread releaser([&] {
    std::this_thread::sleep_for(200ms);
    sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  });
  const TxnResult result = connection->write([&](Txn& txn) {
    txn.exec(connection->prepare("INSERT INTO t VALUES (2)"), {});
    return Outcome::kCommit;
  });
  releaser.join();
  sqlite3_close(other);
  CHECK(result.retries >= 1);
  CHECK(count_rows(*connection, "t") == 2);
}

TEST_CASE("sqlite: concurrent writers on several connections all commit", "[sqlite]") {
  TempDir dir;
  for (const char* profile : {"ram-off", "ram-gate", "ram-restart"}) {
    INFO(profile);
    BackendOptions options = ram_options(dir);
    options.sqlite_profile = profile;
    SqliteBackend backend(options);
    backend.destroy();
    auto setup = backend.connect();
    setup->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)");
    constexpr int kThreads = 3;
    constexpr int kPerThread = 150;
    std::vector<std::thread> threads;
    for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
      threads.emplace_back([&, thread_idx] {
        auto connection = backend.connect();
        const StmtId insert = connection->prepare("INSERT INTO t VALUES (?, ?)");
        const StmtId select = connection->prepare("SELECT count(*) FROM t WHERE v = ?");
        Rows rows;
        for (int txn_idx = 0; txn_idx < kPerThread; ++txn_idx) {
          connection->write([&](Txn& txn) {
            txn.exec(insert, {int64_t{thread_idx * kPerThread + txn_idx}, int64_t{thread_idx}});
            return Outcome::kCommit;
          });
          connection->read([&](Txn& txn) {
            txn.exec(select, {int64_t{thread_idx}}, &rows);
            return Outcome::kCommit;
          });
          CHECK(rows.get_int(0, 0) == txn_idx + 1);  // sees its own commits
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(count_rows(*setup, "t") == kThreads * kPerThread);
  }
}

TEST_CASE("sqlite: statement errors", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  auto connection = backend.connect();
  connection->execute_script("CREATE TABLE t (id INTEGER PRIMARY KEY)");

  CHECK_THROWS_WITH(connection->prepare("SELEC 1"),
                    Catch::Contains("syntax error") && Catch::Contains("SELEC 1"));
  CHECK_THROWS_WITH(connection->prepare("SELECT * FROM missing"), Catch::Contains("no such table"));
  CHECK_THROWS_WITH(connection->prepare("SELECT 1; SELECT 2"), Catch::Contains("exactly one"));
  CHECK_THROWS_WITH(connection->execute_script("CREATE TABLEX t (a)"),
                    Catch::Contains("syntax error") && Catch::Contains("TABLEX"));

  const StmtId a = connection->prepare("INSERT INTO t VALUES (?)");
  CHECK(connection->prepare("INSERT INTO t VALUES (?)") == a);  // cached by text
  CHECK_THROWS_WITH(write_sql(*connection, "INSERT INTO t VALUES (?)", {}),
                    Catch::Contains("takes 1 parameters, got 0"));

  write_sql(*connection, "INSERT INTO t VALUES (?)", {int64_t{1}});
  try {
    write_sql(*connection, "INSERT INTO t VALUES (?)", {int64_t{1}});
    FAIL("duplicate key accepted");
  } catch (const BackendError& error) {
    CHECK_THAT(error.what(), Catch::Contains("UNIQUE constraint failed"));
    CHECK_FALSE(error.retryable());
  }

  // A read-only transaction refuses a statement that writes.
  CHECK_THROWS_WITH(read_sql(*connection, "INSERT INTO t VALUES (2)"),
                    Catch::Contains("read-only"));
  CHECK(count_rows(*connection, "t") == 1);

  CHECK_THROWS_AS(connection->write([](Txn& txn) {
    txn.exec(99, {});
    return Outcome::kCommit;
  }),
                  BackendError);
}

TEST_CASE("sqlite: a directory that cannot be created gives a clear error", "[sqlite]") {
  TempDir dir;
  fs::create_directories(dir.path());
  const std::string file = dir.path() + "/plain-file";
  std::ofstream(file) << "x";
  BackendOptions options = ram_options(dir);
  options.dir = file + "/db";
  SqliteBackend backend(options);
  CHECK_THROWS_WITH(backend.connect(), Catch::Contains(options.dir) &&
                                           Catch::Contains("cannot create directory") &&
                                           Catch::Contains("Not a directory"));

  if (::geteuid() != 0) {  // root writes anywhere; only meaningful for other users
    const std::string locked = dir.path() + "/locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    options.dir = locked;
    SqliteBackend locked_backend(options);
    CHECK_THROWS_WITH(locked_backend.connect(),
                      Catch::Contains(locked) && Catch::Contains("cannot write"));
    fs::permissions(locked, fs::perms::owner_all);
  }
}

TEST_CASE("sqlite: exists() and destroy()", "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  CHECK_FALSE(backend.exists());
  CHECK(backend.path() == dir.path() + "/tpcc.sqlite");
  {
    auto connection = backend.connect();
    CHECK(fs::exists(backend.path()));
    CHECK_FALSE(backend.exists());  // file, but no schema
    connection->execute_script("CREATE TABLE warehouse (w_id INTEGER PRIMARY KEY)");
    CHECK(backend.exists());
    CHECK(fs::exists(backend.path() + "-wal"));
  }
  CHECK(backend.exists());
  std::ofstream(backend.path() + "-wal") << "stale";
  std::ofstream(backend.path() + "-shm") << "stale";
  backend.destroy();
  CHECK_FALSE(fs::exists(backend.path()));
  CHECK_FALSE(fs::exists(backend.path() + "-wal"));
  CHECK_FALSE(fs::exists(backend.path() + "-shm"));
  CHECK_FALSE(backend.exists());
  backend.destroy();  // nothing left to remove is fine
}

// XORs `length` bytes of `path` at `offset` with 0xff.
void flip_bytes(const std::string& path, std::streamoff offset, size_t length) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(file);
  std::string bytes(length, '\0');
  file.seekg(offset);
  file.read(bytes.data(), static_cast<std::streamsize>(length));
  REQUIRE(file.gcount() == static_cast<std::streamsize>(length));
  for (char& byte : bytes) byte = static_cast<char>(~byte);
  file.seekp(offset);
  file.write(bytes.data(), static_cast<std::streamsize>(length));
}

// Regression (probe items 1 and 10): a damaged file passed `tpcc check` (no
// quick_check), and an unreadable one was reported as "no TPC-C database;
// run `tpcc load` first", which invites destroying it.
TEST_CASE("sqlite: a damaged file fails exists() and check_storage() with SQLite's message",
          "[sqlite]") {
  TempDir dir;
  SqliteBackend backend(ram_options(dir));
  {
    auto connection = backend.connect();
    connection->execute_script(
        "CREATE TABLE warehouse (w_id INTEGER PRIMARY KEY);"
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT);"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000) "
        "INSERT INTO t SELECT i, printf('%0200d', i) FROM n;"
        "PRAGMA wal_checkpoint(TRUNCATE);");
  }
  REQUIRE(backend.exists());
  StorageCheck sound = backend.check_storage();
  CHECK(sound.name == "quick_check");
  CHECK(sound.ok);
  const std::string path = backend.path();
  const auto size = static_cast<std::streamoff>(fs::file_size(path));
  REQUIRE(size > 64 * 4096);

  SECTION("a damaged page of a table") {
    flip_bytes(path, size / 2 / 4096 * 4096, 4096);
    CHECK(backend.exists());  // the schema is still readable
    StorageCheck damaged = backend.check_storage();
    INFO(damaged.detail);
    CHECK_FALSE(damaged.ok);
    CHECK_THAT(damaged.detail, Catch::Matchers::Contains("PRAGMA quick_check"));
    CHECK_THAT(damaged.detail, Catch::Matchers::Contains(path));
  }
  SECTION("a damaged header") {
    flip_bytes(path, 0, 16);
    try {
      backend.exists();
      FAIL("exists() returned on a file that is not a database");
    } catch (const BackendError& failure) {
      CHECK_THAT(failure.what(), Catch::Matchers::Contains("cannot read " + path));
      CHECK_THAT(failure.what(), Catch::Matchers::Contains("file is not a database"));
      CHECK_THAT(failure.what(), Catch::Matchers::Contains("the file is damaged"));
    }
  }
  SECTION("a truncated file") {
    fs::resize_file(path, static_cast<uintmax_t>(size / 8));
    bool refused = false;
    try {
      refused = !backend.exists() || !backend.check_storage().ok;
    } catch (const BackendError& failure) {
      CHECK_THAT(failure.what(), Catch::Matchers::Contains("malformed"));
      refused = true;
    }
    CHECK(refused);
  }
}

TEST_CASE("sqlite: default directories", "[sqlite]") {
  // Not opened here: another process may be using the default database.
  CHECK(sqlite_default_dir(Storage::kRam) == "/dev/shm/solo-tpcc");
  CHECK(sqlite_default_dir(Storage::kDisk) == "./tpcc-data");
  BackendOptions options;
  CHECK(SqliteBackend(options).path() == "/dev/shm/solo-tpcc/tpcc.sqlite");
  options.storage = Storage::kDisk;
  CHECK(SqliteBackend(options).path() == "./tpcc-data/tpcc.sqlite");
}

TEST_CASE("sqlite: profile table keeps its rules", "[sqlite][profile]") {
  for (Storage storage : {Storage::kRam, Storage::kDisk}) {
    const std::vector<std::string> names = sqlite_profiles(storage);
    REQUIRE_FALSE(names.empty());
    CHECK(names.front() == sqlite_default_profile(storage));
    CHECK(&sqlite_profile("", storage) == &sqlite_profile(names.front(), storage));
    for (const std::string& name : names) {
      INFO(name);
      const SqliteProfile& profile = sqlite_profile(name, storage);
      if (storage == Storage::kDisk) CHECK(profile.synchronous == "FULL");
      const std::vector<std::string> pragmas = sqlite_profile_pragmas(name, storage);
      CHECK(pragmas.at(0).rfind("PRAGMA page_size=", 0) == 0);
      CHECK(pragmas.at(1) == "PRAGMA journal_mode=WAL");
      for (const std::string& pragma : pragmas) {
        CHECK(pragma.find("EXCLUSIVE") == std::string::npos);
      }
    }
  }
  CHECK_THROWS_WITH(sqlite_profile("ram-off", Storage::kDisk), Catch::Contains("not durable"));
  CHECK_THROWS_WITH(sqlite_profile("nope", Storage::kRam),
                    Catch::Contains("nope") && Catch::Contains("ram-off"));
  BackendOptions options;
  options.storage = Storage::kDisk;
  options.sqlite_profile = "ram-normal";
  CHECK_THROWS_AS(SqliteBackend(options), std::invalid_argument);
}

TEST_CASE("sqlite: every profile opens, applies its pragmas and commits", "[sqlite][profile]") {
  for (Storage storage : {Storage::kRam, Storage::kDisk}) {
    for (const std::string& name : sqlite_profiles(storage)) {
      INFO(name);
      TempDir dir(storage == Storage::kRam ? "/dev/shm" : fs::temp_directory_path().string());
      BackendOptions options;
      options.storage = storage;
      options.dir = dir.path();
      options.sqlite_profile = name;
      SqliteBackend backend(options);
      const SqliteProfile& profile = backend.profile();
      auto connection = backend.connect();
      auto* sqlite = dynamic_cast<SqliteConnection*>(connection.get());
      REQUIRE(sqlite != nullptr);
      CHECK(sqlite->query_text("PRAGMA journal_mode") == "wal");
      CHECK(sqlite->query_text("PRAGMA page_size") == std::to_string(profile.page_size));
      CHECK(sqlite->query_text("PRAGMA locking_mode") == "normal");
      const char* levels[] = {"0", "1", "2", "3"};  // OFF NORMAL FULL EXTRA
      const std::string expected_sync = profile.synchronous == "OFF"      ? levels[0]
                                        : profile.synchronous == "NORMAL" ? levels[1]
                                                                          : levels[2];
      CHECK(sqlite->query_text("PRAGMA synchronous") == expected_sync);
      CHECK(sqlite->query_text("PRAGMA cache_size") == std::to_string(profile.cache_size));
      connection->execute_script(
          "CREATE TABLE warehouse (w_id INTEGER PRIMARY KEY, w_ytd DECIMAL(12,2))");
      write_sql(*connection, "INSERT INTO warehouse VALUES (?, ?)", {int64_t{1}, money(30000000)});
      CHECK(read_sql(*connection, "SELECT w_ytd FROM warehouse").get_decimal(0, 0, 2) == 30000000);
      const std::string config = backend.describe_config();
      CHECK_THAT(config, Catch::Contains("profile=" + name) &&
                             Catch::Contains("PRAGMA synchronous=" + profile.synchronous) &&
                             Catch::Contains("file page_size="));
      connection.reset();
      CHECK(backend.exists());
      backend.destroy();
    }
  }
}

TEST_CASE("sqlite: WITHOUT ROWID for composite keys by profile; ANALYZE after the load",
          "[sqlite][profile]") {
  for (const std::string name : {"ram-restart", "ram-norowid"}) {
    INFO(name);
    TempDir dir;
    BackendOptions options = ram_options(dir);
    options.sqlite_profile = name;
    SqliteBackend backend(options);
    const bool norowid = backend.profile().without_rowid;
    CHECK(norowid == (name == "ram-norowid"));
    auto connection = backend.connect();
    for (const std::string& ddl : schema_ddl()) {
      connection->execute_script(backend.schema_statement(ddl));
    }
    for (const std::string table : {"warehouse", "district", "customer", "history", "new_order",
                                    "orders", "order_line", "item", "stock", "tpcc_meta"}) {
      INFO(table);
      const std::string sql =
          read_sql(*connection, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                   {table})
              .get_text(0, 0);
      // Composite keys only: warehouse and item have an INTEGER key (the
      // rowid itself), history none, tpcc_meta a one-column text key.
      const bool composite = table != "warehouse" && table != "item" && table != "history" &&
                             table != "tpcc_meta";
      CHECK((sql.find("WITHOUT ROWID") != std::string::npos) == (norowid && composite));
    }
    // The statements run the same on either layout.
    write_sql(*connection,
              "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
              {int64_t{7}, int64_t{1}, int64_t{1}});
    CHECK(read_sql(*connection, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ?",
                   {int64_t{1}, int64_t{1}})
              .get_int(0, 0) == 7);
    CHECK(read_sql(*connection, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
              .get_int(0, 0) == 0);
    backend.finish_load(*connection);
    CHECK(read_sql(*connection, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'new_order'")
              .get_int(0, 0) > 0);
  }
}

TEST_CASE("make_backend dispatches on the engine name", "[sqlite]") {
  TempDir dir;
  BackendOptions options = ram_options(dir);
  const std::unique_ptr<Backend> backend = make_backend(options);
  CHECK(backend->name() == "sqlite");
  CHECK(backend->load_parallelism() == 2);
  CHECK(backend->server_pids().empty());
  options.engine = "oracle";
  CHECK_THROWS_AS(make_backend(options), std::invalid_argument);
  CHECK_THROWS_WITH(make_backend(options), Catch::Contains("oracle") && Catch::Contains("sqlite"));
}

}  // namespace
}  // namespace tpcc
