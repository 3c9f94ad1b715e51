// Cancelling a running statement (PreparedStatement::Execute's `cancel`,
// Session::set_cancel_flag): 57014, the statement undone, the explicit
// transaction failed; without the flag the same statements run to the end.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

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
