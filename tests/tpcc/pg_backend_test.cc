// Tests of the PostgreSQL backend: placeholders, types, transactions,
// serialization and deadlock retries, errors, a start failure, and the key
// proof: a W=1 load and a 5-second run with 4 terminals after which every
// consistency condition holds.
//
// One private cluster (scripts/pg) is started in a fresh directory under
// /dev/shm for the whole process and stopped and removed at exit.
#include "tpcc/pg_backend.h"

#include <fmt/format.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "tpcc/checks.h"
#include "tpcc/driver.h"
#include "tpcc/loader.h"

namespace tpcc {
namespace {

namespace fs = std::filesystem;

std::string make_scratch_dir(const char* name) {
  std::string pattern = fmt::format("/dev/shm/solo-{}-XXXXXX", name);
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// The process's private cluster: started by the first test that needs it,
// stopped (by the backend, which started it) and removed at exit.
struct Cluster {
  std::string dir;
  std::unique_ptr<PgBackend> backend;
  ~Cluster() {
    backend.reset();
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

PgBackend& cluster() {
  static const std::unique_ptr<Cluster> cluster = [] {
    auto made = std::make_unique<Cluster>();
    made->dir = make_scratch_dir("pg-test");
    BackendOptions options;
    options.engine = "postgres";
    options.storage = Storage::kRam;
    options.dir = made->dir;
    options.terminals = 8;
    made->backend = std::make_unique<PgBackend>(options);
    return made;
  }();
  return *cluster->backend;
}

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

TEST_CASE("pg: placeholders become $n outside literals and comments", "[pg]") {
  size_t count = 0;
  CHECK(pg_placeholders("SELECT a FROM t WHERE b = ? AND c = ?", &count) ==
        "SELECT a FROM t WHERE b = $1 AND c = $2");
  CHECK(count == 2);
  CHECK(pg_placeholders("SELECT '?', 'it''s ?', \"odd?\" FROM t WHERE x = ? -- why?\n AND y = ? "
                        "/* ? */",
                        &count) ==
        "SELECT '?', 'it''s ?', \"odd?\" FROM t WHERE x = $1 -- why?\n AND y = $2 /* ? */");
  CHECK(count == 2);
  CHECK(pg_placeholders("SELECT 1", &count) == "SELECT 1");
  CHECK(count == 0);
}

TEST_CASE("pg: passwords are hidden in locations", "[pg]") {
  CHECK(pg_hide_password("postgresql://bob:s3cret@db.example:5432/tpcc") ==
        "postgresql://bob:***@db.example:5432/tpcc");
  CHECK(pg_hide_password("host=/tmp dbname=tpcc password=s3cret user=bob") ==
        "host=/tmp dbname=tpcc password=*** user=bob");
  CHECK(pg_hide_password("postgresql:///tpcc?host=/tmp") == "postgresql:///tpcc?host=/tmp");
}

TEST_CASE("pg: values of each type round-trip exactly", "[pg]") {
  auto connection = cluster().connect();
  connection->execute_script(
      "DROP TABLE IF EXISTS round_trip; CREATE TABLE round_trip (id INTEGER PRIMARY KEY, "
      "m2 DECIMAL(14,2), m4 DECIMAL(4,4), ts TIMESTAMP, t VARCHAR(40), d DOUBLE PRECISION, "
      "b BIGINT)");
  const std::string insert = "INSERT INTO round_trip VALUES (?, ?, ?, ?, ?, ?, ?)";
  const int64_t stamp = 1767225600LL * 1000000 + 123456;  // 2026-01-01 00:00:00.123456
  write_sql(*connection, insert,
            {Value{int64_t{1}}, Value{Decimal{-123456789012, 2}}, Value{Decimal{-9999, 4}},
             Value{Timestamp{stamp}}, Value{std::string("it's ? \xc3\xbcnicode")}, Value{0.1},
             Value{INT64_MAX}});
  write_sql(*connection, insert,
            {Value{int64_t{2}}, null_value(), null_value(), null_value(), null_value(),
             null_value(), null_value()});
  // Whole seconds and trailing zeros: the server prints fewer fraction digits.
  write_sql(*connection, insert,
            {Value{int64_t{3}}, Value{Decimal{5, 2}}, Value{Decimal{1, 4}},
             Value{Timestamp{1767225600LL * 1000000}}, Value{std::string()}, Value{-2.5e300},
             Value{INT64_MIN}});
  write_sql(*connection, insert,
            {Value{int64_t{4}}, Value{Decimal{0, 2}}, Value{Decimal{0, 4}},
             Value{Timestamp{1767225600LL * 1000000 + 120000}}, Value{std::string("x")},
             Value{0.0}, Value{int64_t{0}}});

  Rows rows = read_sql(*connection, "SELECT id, m2, m4, ts, t, d, b FROM round_trip ORDER BY id");
  REQUIRE(rows.size() == 4);
  REQUIRE(rows.columns() == 7);
  // Row 1: exact decimals as text, timestamp as micros.
  CHECK(rows.get_int(0, 0) == 1);
  CHECK(std::get<std::string>(rows.at(0, 1)) == "-1234567890.12");
  CHECK(rows.get_decimal(0, 1, 2) == -123456789012);
  CHECK(std::get<std::string>(rows.at(0, 2)) == "-0.9999");
  CHECK(rows.get_decimal(0, 2, 4) == -9999);
  CHECK(std::get<Timestamp>(rows.at(0, 3)).micros == stamp);
  CHECK(rows.get_timestamp(0, 3) == stamp);
  CHECK(rows.get_text(0, 4) == "it's ? \xc3\xbcnicode");
  CHECK(rows.get_double(0, 5) == 0.1);
  CHECK(rows.get_int(0, 6) == INT64_MAX);
  // Row 2: NULL in every column.
  for (size_t col = 1; col < 7; ++col) CHECK(rows.is_null(1, col));
  // Rows 3 and 4.
  CHECK(std::get<std::string>(rows.at(2, 1)) == "0.05");
  CHECK(rows.get_decimal(2, 2, 4) == 1);
  CHECK(rows.get_timestamp(2, 3) == 1767225600LL * 1000000);
  CHECK(rows.get_text(2, 4).empty());
  CHECK(rows.get_double(2, 5) == -2.5e300);
  CHECK(rows.get_int(2, 6) == INT64_MIN);
  CHECK(rows.get_decimal(3, 1, 2) == 0);
  CHECK(rows.get_timestamp(3, 3) == 1767225600LL * 1000000 + 120000);

  // Aggregates stay exact: SUM of numeric is numeric, COUNT is bigint.
  Rows sums = read_sql(*connection, "SELECT SUM(m2), COUNT(*), SUM(m4) FROM round_trip");
  CHECK(sums.get_decimal(0, 0, 2) == -123456789012 + 5);
  CHECK(std::holds_alternative<int64_t>(sums.at(0, 1)));
  CHECK(sums.get_int(0, 1) == 4);
  CHECK(sums.get_decimal(0, 2, 4) == -9998);
  // Parameters in comparisons are typed by the server from their context.
  Rows found = read_sql(*connection, "SELECT id FROM round_trip WHERE m2 = ? AND ts = ?",
                        {Value{Decimal{-123456789012, 2}}, Value{Timestamp{stamp}}});
  REQUIRE(found.size() == 1);
  CHECK(found.get_int(0, 0) == 1);
  connection->execute_script("DROP TABLE round_trip");
}

TEST_CASE("pg: a body that asks for rollback leaves nothing", "[pg]") {
  auto connection = cluster().connect();
  connection->execute_script("DROP TABLE IF EXISTS rb; CREATE TABLE rb (id INTEGER PRIMARY KEY)");
  const StmtId insert = connection->prepare("INSERT INTO rb VALUES (?)");
  TxnResult result = connection->write([&](Txn& txn) {
    txn.exec(insert, {Value{int64_t{1}}});
    txn.exec(insert, {Value{int64_t{2}}});
    return Outcome::kRollback;
  });
  CHECK(result.outcome == Outcome::kRollback);
  CHECK(result.retries == 0);
  CHECK(read_sql(*connection, "SELECT COUNT(*) FROM rb").get_int(0, 0) == 0);
  // The connection goes on normally.
  write_sql(*connection, "INSERT INTO rb VALUES (?)", {Value{int64_t{3}}});
  CHECK(read_sql(*connection, "SELECT COUNT(*) FROM rb").get_int(0, 0) == 1);
  connection->execute_script("DROP TABLE rb");
}

TEST_CASE("pg: exec reports the rows a statement changed", "[pg]") {
  auto connection = cluster().connect();
  connection->execute_script(
      "DROP TABLE IF EXISTS changed; CREATE TABLE changed (id INTEGER PRIMARY KEY, n INTEGER); "
      "INSERT INTO changed VALUES (1, 0), (2, 0), (3, 5)");
  const StmtId bump_small = connection->prepare("UPDATE changed SET n = n + 1 WHERE n < ?");
  const StmtId remove = connection->prepare("DELETE FROM changed WHERE id = ?");
  connection->write([&](Txn& txn) {
    CHECK(txn.exec(bump_small, {Value{int64_t{5}}}) == 2);
    CHECK(txn.exec(remove, {Value{int64_t{3}}}) == 1);
    CHECK(txn.exec(remove, {Value{int64_t{3}}}) == 0);  // already gone
    return Outcome::kCommit;
  });
  connection->execute_script("DROP TABLE changed");
}

TEST_CASE("pg: a serialization failure runs the body again and is counted", "[pg]") {
  // Write transactions run under READ COMMITTED by default, where this
  // conflict just waits; a REPEATABLE READ backend on the same server fails.
  BackendOptions repeatable_options;
  repeatable_options.engine = "postgres";
  repeatable_options.pg_url = cluster().cluster()->conninfo();
  PgBackend repeatable(repeatable_options, PgIsolation::kRepeatableRead);
  auto first = repeatable.connect();
  auto second = cluster().connect();
  first->execute_script(
      "DROP TABLE IF EXISTS counter; CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER); "
      "INSERT INTO counter VALUES (1, 0)");
  const StmtId read_n = first->prepare("SELECT n FROM counter WHERE id = ?");
  const StmtId bump = first->prepare("UPDATE counter SET n = n + 1 WHERE id = ?");
  int runs = 0;
  TxnResult result = first->write([&](Txn& txn) {
    ++runs;
    Rows rows;
    txn.exec(read_n, {Value{int64_t{1}}}, &rows);  // takes the snapshot
    if (runs == 1) {
      // Another connection commits a change of the row after our snapshot:
      // our update of it must fail with 40001 under REPEATABLE READ.
      write_sql(*second, "UPDATE counter SET n = n + 10 WHERE id = ?", {Value{int64_t{1}}});
    }
    txn.exec(bump, {Value{int64_t{1}}});
    return Outcome::kCommit;
  });
  CHECK(runs == 2);
  CHECK(result.retries == 1);
  CHECK(result.outcome == Outcome::kCommit);
  CHECK(read_sql(*first, "SELECT n FROM counter WHERE id = 1").get_int(0, 0) == 11);
  first->execute_script("DROP TABLE counter");
}

TEST_CASE("pg: a deadlock runs one body again and both commit", "[pg]") {
  auto setup = cluster().connect();
  setup->execute_script(
      "DROP TABLE IF EXISTS pair; CREATE TABLE pair (id INTEGER PRIMARY KEY, n INTEGER); "
      "INSERT INTO pair VALUES (1, 0), (2, 0)");
  std::atomic<int> first_updates{0};
  auto lock_both = [&](int first_id, int second_id, TxnResult* result) {
    auto connection = cluster().connect();
    const StmtId bump = connection->prepare("UPDATE pair SET n = n + 1 WHERE id = ?");
    bool first_run = true;
    *result = connection->write([&](Txn& txn) {
      txn.exec(bump, {Value{int64_t{first_id}}});
      if (first_run) {
        first_run = false;
        // Both hold their first row before either asks for the other one.
        first_updates.fetch_add(1);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (first_updates.load() < 2 && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      txn.exec(bump, {Value{int64_t{second_id}}});
      return Outcome::kCommit;
    });
  };
  TxnResult one, two;
  std::thread thread_one([&] { lock_both(1, 2, &one); });
  std::thread thread_two([&] { lock_both(2, 1, &two); });
  thread_one.join();
  thread_two.join();
  CHECK(one.retries + two.retries >= 1);
  Rows rows = read_sql(*setup, "SELECT n FROM pair ORDER BY id");
  CHECK(rows.get_int(0, 0) == 2);
  CHECK(rows.get_int(1, 0) == 2);
  setup->execute_script("DROP TABLE pair");
}

TEST_CASE("pg: errors carry the server's message", "[pg]") {
  auto connection = cluster().connect();
  SECTION("bad SQL fails at prepare") {
    try {
      connection->prepare("SELEC 1");
      FAIL("prepare accepted bad SQL");
    } catch (const BackendError& error) {
      CHECK_FALSE(error.retryable());
      const std::string message = error.what();
      CHECK(message.find("syntax error") != std::string::npos);
      CHECK(message.find("42601") != std::string::npos);
      CHECK(message.find("SELEC 1") != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
    CHECK_THROWS_AS(connection->prepare("SELECT nope FROM no_such_table"), BackendError);
    CHECK_THROWS_AS(connection->execute_script("CREATE TABLEX t (a INT)"), BackendError);
  }
  SECTION("a constraint violation is not retried and the connection goes on") {
    connection->execute_script(
        "DROP TABLE IF EXISTS dup; CREATE TABLE dup (id INTEGER PRIMARY KEY); "
        "INSERT INTO dup VALUES (1)");
    const StmtId insert = connection->prepare("INSERT INTO dup VALUES (?)");
    int runs = 0;
    try {
      connection->write([&](Txn& txn) {
        ++runs;
        txn.exec(insert, {Value{int64_t{1}}});
        return Outcome::kCommit;
      });
      FAIL("duplicate key accepted");
    } catch (const BackendError& error) {
      CHECK_FALSE(error.retryable());
      CHECK(std::string(error.what()).find("duplicate key") != std::string::npos);
      CHECK(std::string(error.what()).find("23505") != std::string::npos);
    }
    CHECK(runs == 1);
    write_sql(*connection, "INSERT INTO dup VALUES (?)", {Value{int64_t{2}}});
    CHECK(read_sql(*connection, "SELECT COUNT(*) FROM dup").get_int(0, 0) == 2);
    connection->execute_script("DROP TABLE dup");
  }
  SECTION("a write inside a read transaction is refused") {
    connection->execute_script("DROP TABLE IF EXISTS ro; CREATE TABLE ro (id INTEGER)");
    const StmtId insert = connection->prepare("INSERT INTO ro VALUES (?)");
    CHECK_THROWS_AS(connection->read([&](Txn& txn) {
      txn.exec(insert, {Value{int64_t{1}}});
      return Outcome::kCommit;
    }),
                    BackendError);
    connection->execute_script("DROP TABLE ro");
  }
  SECTION("a wrong parameter count is refused before the server sees it") {
    const StmtId select = connection->prepare("SELECT ?::integer + ?::integer");
    CHECK_THROWS_AS(connection->read([&](Txn& txn) {
      txn.exec(select, {Value{int64_t{1}}});
      return Outcome::kCommit;
    }),
                    BackendError);
  }
}

TEST_CASE("pg: a server that is not there is one clear error", "[pg]") {
  BackendOptions options;
  options.engine = "postgres";
  options.pg_url = "host=/nonexistent-solo-dir dbname=tpcc user=postgres password=s3cret";
  PgBackend backend(options);
  CHECK(backend.location().find("s3cret") == std::string::npos);
  try {
    backend.connect();
    FAIL("connected to nothing");
  } catch (const BackendError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("cannot connect to host=/nonexistent-solo-dir") != std::string::npos);
    CHECK(message.find("s3cret") == std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(backend.server_pids().empty());
}

// A process that the server's user may signal, standing in for another
// server: as root it runs as `postgres`, otherwise as ourselves. Killed at
// destruction.
class ForeignServer {
 public:
  ForeignServer() {
    const passwd* server_user = ::geteuid() == 0 ? ::getpwnam("postgres") : nullptr;
    pid_ = ::fork();
    if (pid_ == 0) {
      if (server_user != nullptr &&
          (::setgid(server_user->pw_gid) != 0 || ::setuid(server_user->pw_uid) != 0)) {
        ::_exit(1);
      }
      for (;;) ::pause();
    }
    uid_ = server_user != nullptr ? server_user->pw_uid : ::geteuid();
    gid_ = server_user != nullptr ? server_user->pw_gid : ::getegid();
  }
  ~ForeignServer() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  // Writes the socket lock file this server would hold in `dir`.
  void lock_socket_in(const std::string& dir) const {
    const std::string path = dir + "/.s.PGSQL.5432.lock";
    {
      std::ofstream lock(path);
      lock << pid_ << "\n" << dir << "\n";
    }
    if (::chown(path.c_str(), uid_, gid_) != 0) throw std::runtime_error("chown failed");
  }

 private:
  pid_t pid_ = -1;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

TEST_CASE("pg: a cluster that cannot start is one clear error and leaves no data", "[pg]") {
  // The socket is in use: another server's lock file is in the directory.
  const std::string dir = make_scratch_dir("pg-fail-test");
  ForeignServer other;
  other.lock_socket_in(dir);
  BackendOptions options;
  options.engine = "postgres";
  options.dir = dir;
  {
    PgBackend backend(options);
    try {
      backend.connect();
      FAIL("started over another server's socket lock");
    } catch (const BackendError& error) {
      const std::string message = error.what();
      INFO(message);
      CHECK(message.find("cannot start a private cluster") != std::string::npos);
      CHECK(message.find("lock file") != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
    CHECK_FALSE(fs::exists(dir + "/data"));
    CHECK_FALSE(backend.cluster()->started_here());
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST_CASE("pg: W=1 load and a 5 s run with 4 terminals keep every condition", "[pg]") {
  PgBackend& backend = cluster();
  LoadOptions load_options;
  load_options.warehouses = 1;
  load_options.seed = 7;
  load_options.progress = false;
  const auto load_start = std::chrono::steady_clock::now();
  const LoadInfo info = load_database(backend, load_options);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  CHECK(backend.exists());

  {
    auto plain = backend.connect();
    auto* connection = dynamic_cast<PgConnection*>(plain.get());
    REQUIRE(connection != nullptr);
    // finish_load vacuumed and analyzed every table before the run, so the
    // plans do not depend on when autovacuum gets to them.
    Rows unanalyzed = connection->query(
        "SELECT relname FROM pg_stat_user_tables WHERE last_vacuum IS NULL OR last_analyze IS NULL");
    for (size_t row = 0; row < unanalyzed.size(); ++row) {
      INFO("not vacuumed and analyzed after the load: " << unanalyzed.get_text(row, 0));
      CHECK(false);
    }
    Rows tables = connection->query("SELECT count(*) FROM pg_stat_user_tables");
    CHECK(tables.get_int(0, 0) >= 10);
  }
  {
    auto connection = backend.connect();
    for (const ConditionResult& condition : check_consistency(*connection, true)) {
      INFO("after load, condition " << condition.id << ": " << condition.detail);
      CHECK(condition.ok);
    }
  }

  RunOptions run_options;
  run_options.terminals = 4;
  run_options.duration_s = 5;
  run_options.seed = 7;
  run_options.progress = false;
  const RunResult result = run_terminals(backend, info, run_options);
  INFO("run error: " << result.error);
  CHECK(result.error.empty());
  CHECK(result.committed > 100);
  uint64_t retries = 0;
  for (const TypeStats& stats : result.per_type) retries += stats.retries;
  fmt::print("pg: W=1 loaded in {:.1f} s; 4 terminals for 5 s: {:.0f} tps, {} retries, {:.0f} "
             "us CPU/txn (server included)\n",
             load_s, result.tps, retries, result.cpu_us_per_txn);
  CHECK(result.cpu_us_per_txn > 0);
  CHECK(backend.server_pids().size() >= 2);
  // The split by thread: the server's processes and the terminal threads,
  // adding up to the whole.
  {
    std::map<std::string, double> split(result.cpu_by_thread.begin(), result.cpu_by_thread.end());
    CHECK(split["(server)"] > 0);
    CHECK(split["tpcc-terminal"] > 0);
    double sum = 0;
    for (const auto& [name, value] : split) sum += value;
    CHECK(sum == Approx(result.cpu_us_per_txn).epsilon(0.05));
  }

  auto connection = backend.connect();
  for (const ConditionResult& condition : check_consistency(*connection, false)) {
    INFO("after the run, condition " << condition.id << ": " << condition.detail);
    CHECK(condition.ok);
  }
  backend.destroy();
  CHECK_FALSE(backend.exists());
}

}  // namespace
}  // namespace tpcc
