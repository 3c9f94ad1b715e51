// Cancelling a running statement (PreparedStatement::Execute's `cancel`,
// Session::set_cancel_flag): 57014, the statement undone, the explicit
// transaction failed; without the flag the same statements run to the end.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "db_impl.h"  // the engine's DDL cancel hook (ddl_cancel_check_for_test)
#include "solo/database.h"
#include "solo/sql/session.h"
#include "solo/sql/statement.h"

using solo::sql::PreparedStatement;
using solo::sql::ResultSet;
using solo::sql::Session;
using solo::sql::SqlState;
using solo::sql::SqlStatus;
using solo::sql::Value;

namespace {

constexpr int64_t kRows = 50'000;

std::unique_ptr<solo::Database> OpenDb() {
  return std::move(solo::Database::open(solo::Options{}).value());
}

void Run(Session& session, std::string_view sql) {
  SqlStatus status = session.Exec(sql);
  INFO(sql);
  REQUIRE(status.ok());
}

// t(id, v) with ids 1..kRows and v = id.
void FillTable(Session& session) {
  Run(session, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
  constexpr int64_t kRowsPerInsert = 1000;
  for (int64_t first = 1; first <= kRows; first += kRowsPerInsert) {
    std::string sql = "INSERT INTO t VALUES ";
    for (int64_t id = first; id < first + kRowsPerInsert; ++id) {
      if (id != first) sql += ", ";
      sql += "(" + std::to_string(id) + ", " + std::to_string(id) + ")";
    }
    Run(session, sql);
  }
}

// The single value of a one-row, one-column query.
Value Scalar(Session& session, std::string_view sql) {
  ResultSet rows;
  SqlStatus status = session.Exec(sql, &rows);
  INFO(sql);
  REQUIRE(status.ok());
  REQUIRE(rows.row_count() == 1);
  return rows.at(0, 0);
}

bool Canceled(const SqlStatus& status) {
  return !status.ok() && status.error().state() == SqlState::kQueryCanceled;
}

// A status as the test's report shows it: "ok", or the error's code and message.
std::string Describe(const SqlStatus& status) {
  if (status.ok()) return "ok";
  return std::string(status.error().code()) + " " + status.error().message();
}

// Runs sql on session while another thread sets *flag after `delay`.
SqlStatus ExecCanceledAfter(Session& session, std::string_view sql, std::atomic<bool>* flag,
                            std::chrono::milliseconds delay) {
  std::thread canceler([flag, delay] {
    std::this_thread::sleep_for(delay);
    flag->store(true);
  });
  SqlStatus status = session.Exec(sql);
  canceler.join();
  return status;
}

using Millis = std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

Millis Since(Clock::time_point start) {
  return std::chrono::duration_cast<Millis>(Clock::now() - start);
}

// How long sql takes on session, which must succeed.
Millis TimeOf(Session& session, std::string_view sql) {
  auto start = Clock::now();
  Run(session, sql);
  return Since(start);
}

// A statement run while another thread set its flag.
struct CanceledRun {
  SqlStatus status;
  // From the flag's setting to the statement's return; negative if the
  // statement returned first.
  Millis after_flag{0};
};

// Runs run() (a statement) while another thread sets *flag after `delay`.
template <class F>
CanceledRun RunCanceledAfter(F&& run, std::atomic<bool>* flag, Millis delay) {
  Clock::time_point set_at;
  std::thread canceler([flag, delay, &set_at] {
    std::this_thread::sleep_for(delay);
    set_at = Clock::now();
    flag->store(true);
  });
  CanceledRun result;
  result.status = run();
  auto returned_at = Clock::now();
  canceler.join();
  result.after_flag = std::chrono::duration_cast<Millis>(returned_at - set_at);
  return result;
}

// When a statement reads its rows and then spends much longer on them in a
// loop of its own (a sort, the groups, an INSERT's stores), a flag set after
// this delay finds that loop: twice the time of reading them (measured just
// before), and 50 ms for a thread's wake-up. On a machine that stalls, the
// flag may find the reading instead (the statement is still cancelled).
Millis DelayPast(Millis read) {
  return 2 * read + Millis(50);
}

// How long after its flag a cancelled statement may still run (a check
// comes within 1,024 comparisons, groups or rows, then the undo; some
// milliseconds here): generous for a loaded 2-core machine and ASan. The
// HAVING and the INSERTs below would run seconds more (debug build); the
// sort about 0.5 s more, so there 57014, not a finished statement, is
// what shows its check.
constexpr Millis kPromptly{1000};

// An expression that reads no row and takes some tens of microseconds: a
// 20,000-character literal turned upper case, then measured.
std::string SlowConstant() {
  return "length(upper('" + std::string(20'000, 'x') + "'))";
}

// u(id, v, pad), whose pad DEFAULT (SlowConstant) is evaluated for every
// row stored, so that storing rows costs far more than reading them; with
// one row, (0, 0).
void CreatePaddedTable(Session& session) {
  Run(session, "CREATE TABLE u (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, pad INTEGER DEFAULT (" +
                   SlowConstant() + "))");
  Run(session, "INSERT INTO u (id, v) VALUES (0, 0)");
}

// Sets *flag at the engine's `at`-th look at it inside CREATE INDEX's or
// DROP's loop over the rows (the engine's test hook, on the owner thread,
// just before the look). The statement's own check at its start has found
// the flag clear by then: a 57014 can only come from the engine's loop.
class CancelInEngineAt {
 public:
  CancelInEngineAt(solo::Database& db, std::atomic<bool>* flag, int at) : db_(db) {
    db.impl()->ddl_cancel_check_for_test = [this, flag, at] {
      if (++looks_ == at) flag->store(true);
    };
  }
  ~CancelInEngineAt() { db_.impl()->ddl_cancel_check_for_test = nullptr; }
  CancelInEngineAt(const CancelInEngineAt&) = delete;
  CancelInEngineAt& operator=(const CancelInEngineAt&) = delete;

  // How many looks the engine took (read while no statement runs).
  int looks() const { return looks_; }

 private:
  solo::Database& db_;
  int looks_ = 0;
};

// The rows of a query as text, one line per row, to compare results.
std::string RowsOf(Session& session, std::string_view sql) {
  ResultSet rows;
  SqlStatus status = session.Exec(sql, &rows);
  INFO(sql);
  REQUIRE(status.ok());
  std::string text;
  for (size_t row = 0; row < rows.row_count(); ++row) {
    for (size_t column = 0; column < rows.column_count(); ++column) {
      text += rows.at(row, column).ToString() + (column + 1 < rows.column_count() ? "|" : "\n");
    }
  }
  return text;
}

bool HasIndex(solo::Database& db, const std::string& name) {
  bool found = false;
  db.read([&](solo::ReadTxn& txn) {
    found = txn.catalog().find_index(name) != nullptr;
    return solo::Status::OK();
  });
  return found;
}

// Inside BEGIN, after a DELETE of `table`'s first 100 rows: `statement`
// cancelled at the engine's `look`-th look fails the transaction (25P02
// until ROLLBACK), and ROLLBACK undoes the DELETE too.
void CheckCanceledInsideBegin(solo::Database& db, Session& session, std::atomic<bool>* cancel,
                              const std::string& table, const std::string& statement, int look) {
  Run(session, "BEGIN");
  Run(session, "DELETE FROM " + table + " WHERE id <= 100");
  {
    CancelInEngineAt in_engine(db, cancel, look);
    CHECK(Canceled(session.Exec(statement)));
    CHECK(in_engine.looks() == look);
  }
  *cancel = false;
  CHECK(session.Exec("SELECT 1").error().state() == SqlState::kInFailedSqlTransaction);
  Run(session, "ROLLBACK");
  CHECK(Scalar(session, "SELECT count(*) FROM " + table) == Value::Int(kRows));
}

}  // namespace

TEST_CASE("cancel: a set flag ends a SELECT with 57014; a clear one lets it finish") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);

  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
  cancel = true;
  SqlStatus canceled = session.Exec("SELECT count(*) FROM t");
  REQUIRE(Canceled(canceled));
  CHECK(canceled.error().message() == "canceling statement due to user request");
  CHECK(canceled.error().code() == "57014");
  cancel = false;
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));

  // Set while it runs: a cross join of 2.5 billion rows, that would take
  // minutes, ends soon after the flag is set.
  auto start = std::chrono::steady_clock::now();
  SqlStatus cross = ExecCanceledAfter(session, "SELECT count(*) FROM t a, t b WHERE a.v <> b.v",
                                      &cancel, std::chrono::milliseconds(200));
  auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(Canceled(cross));
  CHECK(elapsed >= std::chrono::milliseconds(200));
  CHECK(elapsed < std::chrono::seconds(10));
  cancel = false;

  // Without a flag nothing looks (and nothing is cancelled).
  session.set_cancel_flag(nullptr);
  cancel = true;
  CHECK(Scalar(session, "SELECT sum(v) FROM t") == Value::Int(kRows * (kRows + 1) / 2));
}

TEST_CASE("cancel: PreparedStatement::Execute takes the flag for reads and writes") {
  auto db = OpenDb();
  {
    Session session(*db);
    FillTable(session);
  }
  std::atomic<bool> cancel{true};
  std::optional<PreparedStatement> count;
  db->read([&](solo::ReadTxn& txn) {
    auto prepared = PreparedStatement::Prepare(txn, "SELECT count(*) FROM t WHERE v > 10");
    REQUIRE(prepared.ok());
    count.emplace(prepared.value());
    ResultSet rows;
    CHECK(Canceled(count->Execute(txn, {}, &rows, &cancel)));
    REQUIRE(count->Execute(txn, {}, &rows).ok());
    CHECK(rows.at(0, 0) == Value::Int(kRows - 10));
    return solo::Status::OK();
  });
  SqlStatus deleted;
  db->write([&](solo::WriteTxn& txn) {
    auto prepared = PreparedStatement::Prepare(txn, "DELETE FROM t WHERE v > 10");
    REQUIRE(prepared.ok());
    deleted = prepared->Execute(txn, {}, nullptr, &cancel);
    return deleted.ok() ? solo::Status::OK() : solo::Status::Aborted("statement failed");
  });
  CHECK(Canceled(deleted));
  Session session(*db);
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
}

TEST_CASE("cancel: a cancelled UPDATE or DELETE leaves the table as it was") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);
  const int64_t sum = kRows * (kRows + 1) / 2;

  cancel = true;
  CHECK(Canceled(session.Exec("UPDATE t SET v = v + 1")));
  CHECK(Canceled(session.Exec("DELETE FROM t WHERE id > 10")));
  cancel = false;
  CHECK(Scalar(session, "SELECT sum(v) FROM t") == Value::Int(sum));
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));

  // Cancelled at whatever point the flag finds them (during the scan, or
  // among the changes): all of the statement is undone, or it finished and
  // all of it is there.
  int64_t expected_sum = sum;
  int canceled_updates = 0;
  for (int delay_ms = 0; delay_ms <= 40; delay_ms += 4) {
    cancel = false;
    SqlStatus status = ExecCanceledAfter(session, "UPDATE t SET v = v + 1", &cancel,
                                         std::chrono::milliseconds(delay_ms));
    if (status.ok()) {
      expected_sum += kRows;
    } else {
      CHECK(Canceled(status));
      ++canceled_updates;
    }
    cancel = false;
    INFO("delay " << delay_ms << " ms");
    CHECK(Scalar(session, "SELECT sum(v) FROM t") == Value::Int(expected_sum));
  }
  CHECK(canceled_updates > 0);
  for (int delay_ms = 0; delay_ms <= 40; delay_ms += 8) {
    cancel = false;
    SqlStatus status = ExecCanceledAfter(session, "DELETE FROM t WHERE id > 10", &cancel,
                                         std::chrono::milliseconds(delay_ms));
    cancel = false;
    if (status.ok()) break;  // (a DELETE that finished leaves nothing to cancel)
    CHECK(Canceled(status));
    CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
  }
}

TEST_CASE(
    "cancel: inside BEGIN the transaction is failed (25P02) until ROLLBACK, which undoes it") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);

  Run(session, "BEGIN");
  Run(session, "UPDATE t SET v = 0 WHERE id <= 100");
  SqlStatus long_select =
      ExecCanceledAfter(session, "SELECT count(*) FROM t a, t b WHERE a.v <> b.v", &cancel,
                        std::chrono::milliseconds(100));
  CHECK(Canceled(long_select));
  cancel = false;
  CHECK(session.in_transaction());
  CHECK(session.Exec("SELECT 1").error().state() == SqlState::kInFailedSqlTransaction);
  CHECK(session.Exec("DELETE FROM t").error().state() == SqlState::kInFailedSqlTransaction);
  // COMMIT of a failed transaction rolls it back.
  ResultSet tag;
  REQUIRE(session.Exec("COMMIT", &tag).ok());
  CHECK(tag.tag() == "ROLLBACK");
  CHECK_FALSE(session.in_transaction());
  CHECK(Scalar(session, "SELECT count(*) FROM t WHERE v = 0") == Value::Int(0));

  // A cancelled write inside BEGIN: the same, and ROLLBACK is not cancelled
  // by a flag still set.
  Run(session, "BEGIN");
  Run(session, "DELETE FROM t WHERE id <= 100");
  cancel = true;
  CHECK(Canceled(session.Exec("UPDATE t SET v = v + 1")));
  CHECK(session.Exec("SELECT 1").error().state() == SqlState::kInFailedSqlTransaction);
  Run(session, "ROLLBACK");
  cancel = false;
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
  CHECK(Scalar(session, "SELECT sum(v) FROM t") == Value::Int(kRows * (kRows + 1) / 2));
}

TEST_CASE("cancel: ORDER BY looks at the flag while it sorts the rows it read") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);

  // A million rows of a cross join in a scrambled order. Sorting them (20
  // million comparisons, most missing the cache) takes longer than reading
  // them, but not many times longer: the flag is set a quarter and 50 ms
  // after the time reading them into a ResultSet takes (a little less than
  // reading them for the sort takes), well before the sort would end
  // (debug build: read 0.4 s, sorted 0.6 s later; ASan: 1.2-1.5 s, 1.5 s).
  const std::string select =
      "SELECT (a.v * 7919 + b.v * 104729) % 1000003 AS k FROM t a, t b "
      "WHERE a.id <= 1000 AND b.id <= 1000";
  auto start = Clock::now();
  {
    ResultSet rows;
    REQUIRE(session.Exec(select, &rows).ok());
  }
  const Millis read = Since(start);
  CanceledRun run = RunCanceledAfter([&] { return session.Exec(select + " ORDER BY k"); }, &cancel,
                                     read + read / 4 + Millis(50));
  INFO("read in " << read.count() << " ms; " << Describe(run.status) << " "
                  << run.after_flag.count() << " ms after the flag");
  CHECK(Canceled(run.status));
  CHECK(run.after_flag < kPromptly);
  cancel = false;
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
}

TEST_CASE("cancel: GROUP BY looks at the flag while it finishes its groups") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);

  // 90,000 groups of a cross join, read quickly; HAVING, evaluated per
  // group after the scan, takes tens of microseconds for each.
  const std::string grouped =
      "SELECT a.id, b.id FROM t a, t b WHERE a.id <= 300 AND b.id <= 300 GROUP BY a.id, b.id";
  const Millis read = TimeOf(session, grouped);
  const std::string having = grouped + " HAVING " + SlowConstant() + " > a.id";
  CanceledRun run =
      RunCanceledAfter([&] { return session.Exec(having); }, &cancel, DelayPast(read));
  INFO("read in " << read.count() << " ms; " << Describe(run.status) << " "
                  << run.after_flag.count() << " ms after the flag");
  CHECK(Canceled(run.status));
  CHECK(run.after_flag < kPromptly);
}

TEST_CASE("cancel: a multi-row INSERT looks at the flag between its rows and inserts nothing") {
  auto db = OpenDb();
  Session session(*db);
  CreatePaddedTable(session);

  // 40,000 rows, each storing its pad DEFAULT.
  constexpr int64_t kValuesRows = 40'000;
  std::string sql = "INSERT INTO u (id, v) VALUES ";
  for (int64_t id = 1; id <= kValuesRows; ++id) {
    if (id != 1) sql += ", ";
    sql += "(" + std::to_string(id) + ", " + std::to_string(id) + ")";
  }
  std::atomic<bool> cancel{false};
  CanceledRun run;
  db->write([&](solo::WriteTxn& txn) {
    // Prepared first, so that the flag finds the rows being stored rather
    // than the statement's start.
    auto prepared = PreparedStatement::Prepare(txn, sql);
    REQUIRE(prepared.ok());
    run = RunCanceledAfter([&] { return prepared->Execute(txn, {}, nullptr, &cancel); }, &cancel,
                           Millis(100));
    return run.status.ok() ? solo::Status::OK() : solo::Status::Aborted("statement failed");
  });
  INFO(Describe(run.status) << " " << run.after_flag.count() << " ms after the flag");
  CHECK(Canceled(run.status));
  CHECK(run.after_flag < kPromptly);
  CHECK(Scalar(session, "SELECT count(*) FROM u") == Value::Int(1));
}

TEST_CASE("cancel: INSERT ... SELECT looks at the flag while it stores the rows it read") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  CreatePaddedTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);

  // Reading t's 50,000 rows is quick; storing each (its pad DEFAULT) is not.
  const Millis read = TimeOf(session, "SELECT id, v FROM t");
  const std::string copy = "INSERT INTO u (id, v) SELECT id, v FROM t";
  CanceledRun run = RunCanceledAfter([&] { return session.Exec(copy); }, &cancel, DelayPast(read));
  INFO("read in " << read.count() << " ms; " << Describe(run.status) << " "
                  << run.after_flag.count() << " ms after the flag");
  CHECK(Canceled(run.status));
  CHECK(run.after_flag < kPromptly);
  cancel = false;
  CHECK(Scalar(session, "SELECT count(*) FROM u") == Value::Int(1));

  // Inside BEGIN: the transaction is failed, and ROLLBACK undoes its
  // earlier statement too.
  Run(session, "BEGIN");
  Run(session, "DELETE FROM u");
  run = RunCanceledAfter([&] { return session.Exec(copy); }, &cancel, DelayPast(read));
  CHECK(Canceled(run.status));
  cancel = false;
  CHECK(session.Exec("SELECT 1").error().state() == SqlState::kInFailedSqlTransaction);
  Run(session, "ROLLBACK");
  CHECK(Scalar(session, "SELECT count(*) FROM u") == Value::Int(1));
  CHECK(Scalar(session, "SELECT sum(v) FROM u") == Value::Int(0));
}

TEST_CASE("cancel: CREATE INDEX stops in the engine's fill and leaves no index") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);
  const std::string query = "SELECT id, v FROM t WHERE v BETWEEN 1000 AND 1100 ORDER BY id";
  const std::string before = RowsOf(session, query);
  const std::string point = "SELECT id FROM t WHERE v = 1000";  // through t_v once it exists
  const std::string plan_before = RowsOf(session, "EXPLAIN " + point);

  // At the engine's 10th look: some 10,000 of the 50,000 rows are in the
  // new index, which the cancel drops.
  {
    CancelInEngineAt in_engine(*db, &cancel, 10);
    SqlStatus status = session.Exec("CREATE INDEX t_v ON t (v)");
    INFO(Describe(status));
    REQUIRE(Canceled(status));
    CHECK(status.error().message() == "canceling statement due to user request");
    CHECK(in_engine.looks() == 10);
  }
  cancel = false;
  CHECK_FALSE(HasIndex(*db, "t_v"));
  CHECK(session.Exec("DROP INDEX t_v").error().code() == "42704");
  CHECK(Scalar(session, "SELECT count(*) FROM t") == Value::Int(kRows));
  CHECK(Scalar(session, "SELECT sum(v) FROM t") == Value::Int(kRows * (kRows + 1) / 2));
  CHECK(RowsOf(session, query) == before);
  CHECK(RowsOf(session, "EXPLAIN " + point) == plan_before);

  // Inside BEGIN: the transaction is failed, and ROLLBACK undoes its
  // earlier statement too.
  CheckCanceledInsideBegin(*db, session, &cancel, "t", "CREATE UNIQUE INDEX t_v ON t (v)", 5);
  CHECK_FALSE(HasIndex(*db, "t_v"));

  // The same name is free: the index is built, and the query's answer is
  // the same through it.
  Run(session, "CREATE INDEX t_v ON t (v)");
  CHECK(HasIndex(*db, "t_v"));
  CHECK(plan_before.find("index t_v") == std::string::npos);
  CHECK(RowsOf(session, "EXPLAIN " + point).find("index t_v") != std::string::npos);
  CHECK(Scalar(session, point) == Value::Int(1000));
  CHECK(RowsOf(session, query) == before);
}

TEST_CASE("cancel: DROP TABLE stops in the engine's erasing and leaves the table whole") {
  auto db = OpenDb();
  Session session(*db);
  FillTable(session);
  // d: t's rows, an index and a DEFAULT (kept in __solo_defaults).
  Run(session, "CREATE TABLE d (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, w INTEGER DEFAULT 7)");
  Run(session, "INSERT INTO d (id, v) SELECT id, v FROM t");
  Run(session, "CREATE INDEX d_v ON d (v)");
  std::atomic<bool> cancel{false};
  session.set_cancel_flag(&cancel);
  const std::string query = "SELECT id, v, w FROM d WHERE v BETWEEN 1000 AND 1100 ORDER BY id";
  const std::string before = RowsOf(session, query);

  // DROP TABLE d takes 4 x 50,000 steps (the index's entries read and
  // removed, the rows read and erased) and looks every 1,024: its 180th
  // look is among the rows' erasing, some 34,000 of them erased.
  const int kErasingLook = 180;
  static_assert(kErasingLook * solo::kDdlCancelCheckRows > 3 * kRows);
  static_assert(kErasingLook * solo::kDdlCancelCheckRows < 4 * kRows);
  {
    CancelInEngineAt in_engine(*db, &cancel, kErasingLook);
    SqlStatus status = session.Exec("DROP TABLE d");
    INFO(Describe(status));
    REQUIRE(Canceled(status));
    CHECK(status.error().message() == "canceling statement due to user request");
    CHECK(in_engine.looks() == kErasingLook);
  }
  cancel = false;
  CHECK(HasIndex(*db, "d_v"));
  CHECK(Scalar(session, "SELECT count(*) FROM d") == Value::Int(kRows));
  CHECK(Scalar(session, "SELECT sum(v) FROM d") == Value::Int(kRows * (kRows + 1) / 2));
  CHECK(Scalar(session, "SELECT count(*) FROM d WHERE v < 100") == Value::Int(99));
  CHECK(RowsOf(session, query) == before);
  // Usable, its DEFAULT too.
  Run(session, "INSERT INTO d (id, v) VALUES (0, 0)");
  CHECK(Scalar(session, "SELECT w FROM d WHERE id = 0") == Value::Int(7));
  Run(session, "UPDATE d SET v = v + 1 WHERE id <= 10");
  Run(session, "DELETE FROM d WHERE id = 0");
  CHECK(Scalar(session, "SELECT sum(v) FROM d") == Value::Int(kRows * (kRows + 1) / 2 + 10));

  // Inside BEGIN, cancelled while it reads the index: 25P02, and ROLLBACK
  // undoes the earlier statement.
  CheckCanceledInsideBegin(*db, session, &cancel, "d", "DROP TABLE d", 3);

  // With the flag clear it is dropped, and the name is free.
  Run(session, "DROP TABLE d");
  CHECK(session.Exec("SELECT count(*) FROM d").error().code() == "42P01");
  CHECK_FALSE(HasIndex(*db, "d_v"));
  Run(session, "CREATE TABLE d (id INTEGER PRIMARY KEY)");
  CHECK(Scalar(session, "SELECT count(*) FROM d") == Value::Int(0));
}
