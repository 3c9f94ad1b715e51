// The C++ API of prepared statements: prepare once, execute in db.write and
// db.read with parameters; TPC-C statement shapes and their access paths;
// concurrent readers of one plan; plans whose table went away; sessions.
#include <catch2/catch.hpp>

#include <atomic>
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

std::unique_ptr<solo::Database> OpenDb() {
  solo::Options options;
  options.check_invariants = true;
  return std::move(solo::Database::open(options).value());
}

// Prepares against the newest snapshot.
PreparedStatement Prepare(solo::Database& db, std::string_view sql) {
  std::optional<PreparedStatement> out;
  db.read([&](solo::ReadTxn& txn) {
    auto prepared = PreparedStatement::Prepare(txn, sql);
    INFO(sql);
    REQUIRE(prepared.ok());
    out.emplace(prepared.value());
    return solo::Status::OK();
  });
  return *out;
}

SqlStatus Write(solo::Database& db, const PreparedStatement& stmt, std::vector<Value> params,
                ResultSet* out = nullptr) {
  SqlStatus result;
  db.write([&](solo::WriteTxn& txn) {
    result = stmt.Execute(txn, params, out);
    return result.ok() ? solo::Status::OK() : solo::Status::Aborted("statement failed");
  });
  return result;
}

SqlStatus Read(solo::Database& db, const PreparedStatement& stmt, std::vector<Value> params,
               ResultSet* out) {
  SqlStatus result;
  db.read([&](solo::ReadTxn& txn) {
    result = stmt.Execute(txn, params, out);
    return solo::Status::OK();
  });
  return result;
}

void Run(Session& session, std::string_view sql) {
  SqlStatus status = session.Exec(sql);
  INFO(sql);
  REQUIRE(status.ok());
}

const char* kSchema[] = {
    "CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT "
    "NULL, o_c_id INTEGER NOT NULL, o_entry_d TIMESTAMP NOT NULL, o_carrier_id INTEGER, o_ol_cnt "
    "INTEGER NOT NULL, o_all_local INTEGER NOT NULL, PRIMARY KEY (o_w_id, o_d_id, o_id))",
    "CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    "CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER "
    "NOT NULL, ol_number INTEGER NOT NULL, ol_i_id INTEGER NOT NULL, ol_amount DECIMAL(6,2) NOT "
    "NULL, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
    "CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER NOT "
    "NULL, s_ytd INTEGER NOT NULL, PRIMARY KEY (s_w_id, s_i_id))",
    "CREATE TABLE history (h_c_id INTEGER NOT NULL, h_amount DECIMAL(6,2) NOT NULL)",
};

std::string Explain(solo::Database& db, std::string_view sql) {
  std::string text;
  for (const std::string& line : Prepare(db, sql).Explain()) text += line + "\n";
  return text;
}

}  // namespace

TEST_CASE("prepared statements run TPC-C shapes with parameters") {
  auto db = OpenDb();
  {
    Session session(*db);
    for (const char* ddl : kSchema) Run(session, ddl);
  }
  // A multi-row INSERT with parameters, as the loader sends it.
  std::string insert = "INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_ytd) VALUES ";
  std::vector<Value> params;
  for (int item = 1; item <= 100; ++item) {
    insert += item > 1 ? ", (?, ?, ?, ?)" : "(?, ?, ?, ?)";
    for (int64_t value : {int64_t{item}, int64_t{1}, int64_t{item % 20}, int64_t{0}}) {
      params.push_back(Value::Int(value));
    }
  }
  ResultSet rows;
  REQUIRE(Write(*db, Prepare(*db, insert), params, &rows).ok());
  CHECK(rows.affected_rows() == 100);

  PreparedStatement new_order = Prepare(
      *db, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
           "o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)");
  PreparedStatement line = Prepare(
      *db, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_amount) "
           "VALUES (?, ?, ?, ?, ?, ?)");
  for (int order = 1; order <= 5; ++order) {
    REQUIRE(Write(*db, new_order,
                  {Value::Int(order), Value::Int(1), Value::Int(1), Value::Int(order % 2),
                   Value::Timestamp(1000 * order), Value::Int(2), Value::Int(1)})
                .ok());
    for (int number = 1; number <= 2; ++number) {
      REQUIRE(Write(*db, line,
                    {Value::Int(order), Value::Int(1), Value::Int(1), Value::Int(number),
                     Value::Int(order * 3 + number), Value::Decimal(1050 + number, 2)})
                  .ok());
    }
  }

  SECTION("point select and update by primary key") {
    PreparedStatement update = Prepare(
        *db, "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ? WHERE s_w_id = ? AND s_i_id = ?");
    REQUIRE(Write(*db, update, {Value::Int(77), Value::Int(5), Value::Int(1), Value::Int(42)}, &rows)
                .ok());
    CHECK(rows.affected_rows() == 1);
    PreparedStatement select =
        Prepare(*db, "SELECT s_quantity, s_ytd FROM stock WHERE s_w_id = ? AND s_i_id = ?");
    REQUIRE(Read(*db, select, {Value::Int(1), Value::Int(42)}, &rows).ok());
    REQUIRE(rows.row_count() == 1);
    CHECK(rows.at(0, 0) == Value::Int(77));
    CHECK(rows.at(0, 1) == Value::Int(5));
    CHECK(Explain(*db, "SELECT s_quantity FROM stock WHERE s_w_id = ? AND s_i_id = ?")
              .starts_with("Point lookup stock by primary key"));
  }

  SECTION("ORDER BY ... DESC LIMIT 1 scans the index backward, without a sort") {
    const char* sql =
        "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND "
        "o_c_id = ? ORDER BY o_id DESC LIMIT 1";
    std::string plan = Explain(*db, sql);
    CHECK(plan.find("index orders_by_customer") != std::string::npos);
    CHECK(plan.find("backward") != std::string::npos);
    CHECK(plan.find("Sort") == std::string::npos);
    REQUIRE(Read(*db, Prepare(*db, sql), {Value::Int(1), Value::Int(1), Value::Int(1)}, &rows).ok());
    REQUIRE(rows.row_count() == 1);
    CHECK(rows.at(0, 0) == Value::Int(5));
    CHECK(rows.at(0, 1) == Value::Timestamp(5000));
    CHECK(rows.at(0, 2).is_null());
  }

  SECTION("Stock-Level: index nested-loop join and COUNT(DISTINCT)") {
    const char* sql =
        "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
        "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?";
    std::string plan = Explain(*db, sql);
    CHECK(plan.find("Range scan order_line by primary key") != std::string::npos);
    CHECK(plan.find("Point lookup stock by primary key") != std::string::npos);
    CHECK(plan.find("batched") != std::string::npos);  // get_many for 32 order lines at a time
    REQUIRE(Read(*db, Prepare(*db, sql),
                 {Value::Int(1), Value::Int(1), Value::Int(6), Value::Int(1), Value::Int(1),
                  Value::Int(15)},
                 &rows)
                .ok());
    // Items 4,5,7,8,10,11,13,14,16,17 with quantity item % 20 < 15: all but 16, 17.
    CHECK(rows.at(0, 0) == Value::Int(8));
  }

  SECTION("SUM of exact decimals; overflow and division by zero are errors") {
    PreparedStatement sum = Prepare(*db, "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? "
                                         "AND ol_d_id = ? AND ol_o_id = ?");
    REQUIRE(Read(*db, sum, {Value::Int(1), Value::Int(1), Value::Int(2)}, &rows).ok());
    CHECK(rows.at(0, 0) == Value::Decimal(2103, 2));
    SqlStatus overflow = Read(*db, Prepare(*db, "SELECT ? * ?"),
                              {Value::Int(INT64_MAX), Value::Int(2)}, &rows);
    REQUIRE(!overflow.ok());
    CHECK(overflow.error().state() == SqlState::kNumericValueOutOfRange);
    SqlStatus zero = Read(*db, Prepare(*db, "SELECT ? / ?"), {Value::Decimal(100, 2), Value::Int(0)}, &rows);
    REQUIRE(!zero.ok());
    CHECK(zero.error().state() == SqlState::kDivisionByZero);
  }

  SECTION("a table without a primary key gets hidden row ids") {
    PreparedStatement history = Prepare(*db, "INSERT INTO history (h_c_id, h_amount) VALUES (?, ?)");
    for (int idx = 0; idx < 3; ++idx) {
      REQUIRE(Write(*db, history, {Value::Int(1), Value::Decimal(250, 2)}).ok());
    }
    REQUIRE(Read(*db, Prepare(*db, "SELECT * FROM history"), {}, &rows).ok());
    CHECK(rows.row_count() == 3);
    CHECK(rows.column_count() == 2);
  }

  SECTION("constraint errors are values") {
    SqlStatus duplicate = Write(*db, Prepare(*db, "INSERT INTO stock VALUES (1, 1, 1, 1)"), {});
    REQUIRE(!duplicate.ok());
    CHECK(duplicate.error().state() == SqlState::kUniqueViolation);
    SqlStatus null = Write(*db, Prepare(*db, "INSERT INTO stock VALUES (?, 1, NULL, 1)"), {Value::Int(500)});
    REQUIRE(!null.ok());
    CHECK(null.error().state() == SqlState::kNotNullViolation);
  }

  SECTION("one plan, many concurrent readers") {
    PreparedStatement select =
        Prepare(*db, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ?");
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int thread_idx = 0; thread_idx < 4; ++thread_idx) {
      readers.emplace_back([&, thread_idx] {
        ResultSet local;
        for (int round = 0; round < 500; ++round) {
          int item = 1 + (round * 7 + thread_idx) % 100;
          if (!Read(*db, select, {Value::Int(item)}, &local).ok() || local.row_count() != 1 ||
              !(local.at(0, 0) == Value::Int(item % 20))) {
            wrong++;
          }
        }
      });
    }
    for (auto& reader : readers) reader.join();
    CHECK(wrong == 0);
  }

  SECTION("a plan whose table was dropped is refused with 55000") {
    PreparedStatement select = Prepare(*db, "SELECT * FROM history");
    Session session(*db);
    Run(session, "DROP TABLE history");
    SqlStatus status = Read(*db, select, {}, &rows);
    REQUIRE(!status.ok());
    CHECK(status.error().state() == SqlState::kObjectNotInPrerequisiteState);
  }
}

TEST_CASE(
    "ExecuteBatch runs each parameter set in order, as Execute would, and stops at an error") {
  auto db = OpenDb();
  {
    Session session(*db);
    Run(session, kSchema[3]);  // stock
  }
  PreparedStatement insert =
      Prepare(*db, "INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_ytd) VALUES (?, 1, ?, 0)");
  for (int item = 1; item <= 40; ++item) {
    REQUIRE(Write(*db, insert, {Value::Int(item), Value::Int(item)}).ok());
  }
  // A point UPDATE (its rows are looked up together first), with an item
  // twice (the second sees the first's change), one that does not exist,
  // and a SELECT that scans (no point lookup: run as it is).
  PreparedStatement update =
      Prepare(*db,
              "UPDATE stock SET s_quantity = s_quantity - ?, s_ytd = s_ytd + 1 "
              "WHERE s_w_id = ? AND s_i_id = ? RETURNING s_quantity, s_ytd");
  PreparedStatement scan = Prepare(*db, "SELECT COUNT(*) FROM stock WHERE s_quantity < ?");
  const std::vector<std::vector<Value>> sets = {{Value::Int(1), Value::Int(1), Value::Int(30)},
                                                {Value::Int(2), Value::Int(1), Value::Int(5)},
                                                {Value::Int(3), Value::Int(1), Value::Int(30)},
                                                {Value::Int(4), Value::Int(1), Value::Int(99)},
                                                {Value::Int(5), Value::Int(2), Value::Int(7)},
                                                {Value::Int(6), Value::Int(1), Value::Int(12)}};
  std::vector<std::span<const Value>> spans(sets.begin(), sets.end());
  std::vector<std::string> seen;
  ResultSet rows;
  SqlStatus status;
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status =
                  update.ExecuteBatch(txn, spans, &rows, [&](size_t set, const ResultSet& result) {
                    std::string line =
                        std::to_string(set) + ":" + std::to_string(result.affected_rows());
                    for (size_t row = 0; row < result.row_count(); ++row) {
                      line += " " + std::to_string(result.at(row, 0).as_int()) + "/" +
                              std::to_string(result.at(row, 1).as_int());
                    }
                    seen.push_back(line);
                  });
              return solo::Status::OK();
            }).ok());
  REQUIRE(status.ok());
  CHECK(seen ==
        std::vector<std::string>{"0:1 29/1", "1:1 3/1", "2:1 26/2", "3:0", "4:0", "5:1 6/1"});
  // The changes are those of the statements one after another.
  PreparedStatement select =
      Prepare(*db, "SELECT s_quantity, s_ytd FROM stock WHERE s_w_id = 1 AND s_i_id = ?");
  REQUIRE(Read(*db, select, {Value::Int(30)}, &rows).ok());
  REQUIRE(rows.row_count() == 1);
  CHECK(rows.at(0, 0) == Value::Int(26));
  CHECK(rows.at(0, 1) == Value::Int(2));

  // The look-ahead's keys are handed to the statements, set by set: sets
  // whose key it cannot build (a NULL, a value no INTEGER column holds)
  // among those it builds must not shift the others' keys. A point UPDATE,
  // SELECT and DELETE, with and without RETURNING.
  seen.clear();
  const Value kTooBig = Value::Int(int64_t{1} << 40);
  const std::vector<std::vector<Value>> mixed = {{Value::Int(1), Value::Int(1), Value::Int(20)},
                                                 {Value::Int(1), Value::Int(1), Value()},
                                                 {Value::Int(1), Value::Int(1), Value::Int(21)},
                                                 {Value::Int(1), Value::Int(1), kTooBig},
                                                 {Value::Int(2), Value::Int(1), Value::Int(22)}};
  std::vector<std::span<const Value>> mixed_spans(mixed.begin(), mixed.end());
  auto record = [&](size_t set, const ResultSet& result) {
    std::string line = std::to_string(set) + ":" + std::to_string(result.affected_rows());
    for (size_t row = 0; row < result.row_count(); ++row) {
      line += " " + std::to_string(result.at(row, 0).as_int()) + "/" +
              std::to_string(result.at(row, 1).as_int());
    }
    seen.push_back(line);
  };
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status = update.ExecuteBatch(txn, mixed_spans, &rows, record);
              return solo::Status::OK();
            }).ok());
  REQUIRE(status.ok());
  CHECK(seen == std::vector<std::string>{"0:1 19/1", "1:0", "2:1 20/1", "3:0", "4:1 20/1"});
  PreparedStatement point_select =
      Prepare(*db, "SELECT s_i_id, s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ?");
  const std::vector<std::vector<Value>> items = {
      {Value::Int(22)}, {Value()}, {Value::Int(20)}, {kTooBig}, {Value::Int(41)}, {Value::Int(1)}};
  std::vector<std::span<const Value>> item_spans(items.begin(), items.end());
  seen.clear();
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status = point_select.ExecuteBatch(txn, item_spans, &rows, record);
              return solo::Status::OK();
            }).ok());
  REQUIRE(status.ok());
  CHECK(seen == std::vector<std::string>{"0:1 22/20", "1:0", "2:1 20/19", "3:0", "4:0", "5:1 1/1"});
  PreparedStatement remove =
      Prepare(*db, "DELETE FROM stock WHERE s_w_id = 1 AND s_i_id = ? RETURNING s_i_id, s_ytd");
  seen.clear();
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status = remove.ExecuteBatch(txn, item_spans, &rows, record);
              return solo::Status::Aborted("keep the rows");
            }).IsAborted());
  REQUIRE(status.ok());
  CHECK(seen == std::vector<std::string>{"0:1 22/1", "1:0", "2:1 20/1", "3:0", "4:0", "5:1 1/0"});

  // A statement that is no point lookup, and no output ResultSet.
  seen.clear();
  const std::vector<std::vector<Value>> limits = {{Value::Int(10)}, {Value::Int(27)}};
  std::vector<std::span<const Value>> limit_spans(limits.begin(), limits.end());
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status = scan.ExecuteBatch(txn, limit_spans, nullptr,
                                         [&](size_t set, const ResultSet& result) {
                                           seen.push_back(std::to_string(set) + ":" +
                                                          std::to_string(result.at(0, 0).as_int()));
                                         });
              return solo::Status::OK();
            }).ok());
  REQUIRE(status.ok());
  // Quantities 1..40, items 5, 12 and 30 now 3, 6 and 26: 10 below 10, 27 below 27.
  CHECK(seen == std::vector<std::string>{"0:10", "1:27"});

  // An error stops the batch: the sets before it ran, none after it.
  seen.clear();
  const std::vector<std::vector<Value>> bad = {{Value::Int(1), Value::Int(1), Value::Int(1)},
                                               {Value::Int(1), Value::Int(1)},
                                               {Value::Int(1), Value::Int(1), Value::Int(2)}};
  std::vector<std::span<const Value>> bad_spans(bad.begin(), bad.end());
  REQUIRE(db->write([&](solo::WriteTxn& txn) {
              status = update.ExecuteBatch(
                  txn, bad_spans, &rows,
                  [&](size_t set, const ResultSet&) { seen.push_back(std::to_string(set)); });
              return solo::Status::Aborted("undo the part that ran");
            }).IsAborted());
  CHECK(status.error().state() == SqlState::kUndefinedParameter);
  CHECK(seen == std::vector<std::string>{"0"});
  REQUIRE(Read(*db, select, {Value::Int(1)}, &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(1));  // undone with the transaction
}

TEST_CASE("sessions: autocommit, explicit transactions, 25P02, idle timeout") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (a INT PRIMARY KEY, b INT)");
  Run(session, "BEGIN");
  Run(session, "INSERT INTO t VALUES (1, 1)");
  // Another session's reads do not wait and do not see it.
  Session reader(*db);
  ResultSet rows;
  REQUIRE(reader.Exec("SELECT count(*) FROM t", &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(0));
  SqlStatus failed = session.Exec("INSERT INTO t VALUES (1, 2)");
  CHECK(failed.error().state() == SqlState::kUniqueViolation);
  CHECK(failed.error().message() == "duplicate key value violates unique constraint on \"t\"");
  CHECK(session.Exec("SELECT 1").error().state() == SqlState::kInFailedSqlTransaction);
  Run(session, "ROLLBACK");
  REQUIRE(session.Exec("SELECT count(*) FROM t", &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(0));

  // A unique index's violation names the index, not only the table.
  Run(session, "CREATE UNIQUE INDEX t_b ON t (b)");
  Run(session, "INSERT INTO t VALUES (1, 7)");
  SqlStatus taken = session.Exec("INSERT INTO t VALUES (2, 7)");
  CHECK(taken.error().state() == SqlState::kUniqueViolation);
  CHECK(taken.error().message() == "duplicate key value violates unique index \"t_b\" on \"t\"");
  Run(session, "DELETE FROM t");
  Run(session, "DROP INDEX t_b");

  Session::Options options;
  options.idle_timeout = std::chrono::milliseconds(50);
  Session idle(*db, options);
  Run(idle, "BEGIN");
  Run(idle, "INSERT INTO t VALUES (9, 9)");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Writers were not blocked for good.
  Run(session, "INSERT INTO t VALUES (2, 2)");
  CHECK(idle.Exec("COMMIT").error().state() == SqlState::kIdleInTransactionTimeout);
  REQUIRE(session.Exec("SELECT a FROM t ORDER BY a", &rows).ok());
  REQUIRE(rows.row_count() == 1);
  CHECK(rows.at(0, 0) == Value::Int(2));
}

TEST_CASE("one ResultSet serves statements in turn; copies and moves keep the names") {
  auto db = OpenDb();
  {
    Session session(*db);
    Run(session, "CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT)");
    Run(session, "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y')");
  }
  ResultSet rows;
  std::optional<PreparedStatement> two(Prepare(*db, "SELECT b, c FROM t WHERE a = ?"));
  PreparedStatement one = Prepare(*db, "SELECT a FROM t ORDER BY a");
  for (int turn = 0; turn < 3; ++turn) {
    REQUIRE(Read(*db, *two, {Value::Int(2)}, &rows).ok());
    REQUIRE(rows.column_names() == std::vector<std::string>{"b", "c"});
    REQUIRE(rows.row_count() == 1);
    CHECK(rows.at(0, 1) == Value::Text("y"));
    REQUIRE(Read(*db, one, {}, &rows).ok());
    REQUIRE(rows.column_names() == std::vector<std::string>{"a"});
    REQUIRE(rows.row_count() == 2);
    CHECK(rows.at(1, 0) == Value::Int(2));
  }
  REQUIRE(Read(*db, *two, {Value::Int(1)}, &rows).ok());
  ResultSet copy = rows;
  ResultSet moved = std::move(rows);
  CHECK(rows.column_count() == 0);  // NOLINT(bugprone-use-after-move): moved-from is empty
  two.reset();  // the statement goes; the copy and the moved set keep their names
  CHECK(copy.column_names() == std::vector<std::string>{"b", "c"});
  CHECK(moved.column_names() == std::vector<std::string>{"b", "c"});
  CHECK(moved.at(0, 0) == Value::Int(10));
  CHECK(copy.at(0, 1) == Value::Text("x"));
  CHECK(moved.tag() == "SELECT");
}

TEST_CASE("a scan's output rows are evaluated in the ResultSet's reused rows") {
  auto db = OpenDb();
  {
    Session session(*db);
    Run(session, "CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT)");
    Run(session,
        "INSERT INTO t VALUES (1, 10, 'a long text, longer than any small-string buffer'), "
        "(2, 20, 'another long text that fills a heap buffer'), (3, 30, 'x'), (4, 40, 'y'), "
        "(5, 50, 'z')");
  }
  ResultSet rows;
  PreparedStatement in_list =
      Prepare(*db, "SELECT a, c, c || '!', 600 / (b - ?) FROM t WHERE a IN (?, ?, ?)");
  PreparedStatement limited = Prepare(*db, "SELECT c FROM t WHERE a >= ? LIMIT 2");
  for (int turn = 0; turn < 2; ++turn) {
    // Long texts, then short ones in the same values: nothing of the old left.
    REQUIRE(Read(*db, in_list, {Value::Int(0), Value::Int(2), Value::Int(1), Value::Int(9)}, &rows)
                .ok());
    REQUIRE(rows.row_count() == 2);
    CHECK(rows.at(0, 0) == Value::Int(1));
    CHECK(rows.at(1, 1) == Value::Text("another long text that fills a heap buffer"));
    CHECK(rows.at(1, 2) == Value::Text("another long text that fills a heap buffer!"));
    CHECK(rows.at(0, 3) == Value::Int(60));
    REQUIRE(Read(*db, in_list, {Value::Int(0), Value::Int(5), Value::Int(4), Value::Int(3)}, &rows)
                .ok());
    REQUIRE(rows.row_count() == 3);
    CHECK(rows.at(0, 1) == Value::Text("x"));
    CHECK(rows.at(0, 2) == Value::Text("x!"));
    CHECK(rows.at(2, 1) == Value::Text("z"));
    CHECK(rows.at(2, 3) == Value::Int(12));
    // The third row's output fails: an error, and the next run starts clean.
    SqlStatus failed =
        Read(*db, in_list, {Value::Int(30), Value::Int(1), Value::Int(2), Value::Int(3)}, &rows);
    REQUIRE(!failed.ok());
    CHECK(failed.error().state() == SqlState::kDivisionByZero);
    // LIMIT without ORDER BY stops after two rows of the scan.
    REQUIRE(Read(*db, limited, {Value::Int(2)}, &rows).ok());
    REQUIRE(rows.row_count() == 2);
    CHECK(rows.at(0, 0) == Value::Text("another long text that fills a heap buffer"));
    CHECK(rows.at(1, 0) == Value::Text("x"));
  }
}

TEST_CASE("columns read only by key filters are not loaded; every other reader still sees them") {
  auto db = OpenDb();
  {
    Session session(*db);
    Run(session,
        "CREATE TABLE line (w INT, d INT, o INT, n INT, item INT, amount INT, info TEXT, "
        "PRIMARY KEY (w, d, o, n))");
    Run(session, "CREATE TABLE stock (w INT, i INT, qty INT, PRIMARY KEY (w, i))");
    Run(session,
        "INSERT INTO line VALUES (1, 2, 7, 1, 100, 5, 'p'), (1, 2, 7, 2, 101, 6, 'q'), "
        "(1, 2, 8, 1, 102, 7, 'r'), (1, 3, 7, 1, 100, 8, 's'), (2, 2, 7, 1, 101, 9, 't')");
    Run(session,
        "INSERT INTO stock VALUES (1, 100, 3), (1, 101, 30), (1, 102, 4), (2, 100, 50), "
        "(2, 101, 1)");
  }
  ResultSet rows;
  // The inner level's key is built from line.w and line.item: line.w is read
  // by line's own key filter only, and by stock's key value.
  PreparedStatement joined = Prepare(
      *db,
      "SELECT line.n, stock.qty FROM line, stock WHERE line.w = ? AND line.d = ? AND line.o = ? "
      "AND stock.w = line.w AND stock.i = line.item ORDER BY line.n");
  // A key column in an output and in ORDER BY, filtered by its key only.
  PreparedStatement outputs =
      Prepare(*db, "SELECT o, d + n, w FROM line WHERE w = ? AND d = ? ORDER BY o DESC, n");
  // An aggregate over a column that is also a key filter.
  PreparedStatement counted =
      Prepare(*db, "SELECT COUNT(DISTINCT w), SUM(o) FROM line WHERE w = ? AND d = ?");
  for (int turn = 0; turn < 2; ++turn) {
    REQUIRE(Read(*db, joined, {Value::Int(1), Value::Int(2), Value::Int(7)}, &rows).ok());
    REQUIRE(rows.row_count() == 2);
    CHECK(rows.at(0, 0) == Value::Int(1));
    CHECK(rows.at(0, 1) == Value::Int(3));
    CHECK(rows.at(1, 1) == Value::Int(30));
    REQUIRE(Read(*db, joined, {Value::Int(2), Value::Int(2), Value::Int(7)}, &rows).ok());
    REQUIRE(rows.row_count() == 1);
    CHECK(rows.at(0, 1) == Value::Int(1));  // stock (2, 101), not (1, 101)
    REQUIRE(Read(*db, outputs, {Value::Int(1), Value::Int(2)}, &rows).ok());
    REQUIRE(rows.row_count() == 3);
    CHECK(rows.at(0, 0) == Value::Int(8));
    CHECK(rows.at(0, 1) == Value::Int(3));
    CHECK(rows.at(0, 2) == Value::Int(1));
    CHECK(rows.at(2, 0) == Value::Int(7));
    CHECK(rows.at(2, 1) == Value::Int(4));
    REQUIRE(Read(*db, counted, {Value::Int(1), Value::Int(2)}, &rows).ok());
    REQUIRE(rows.row_count() == 1);
    CHECK(rows.at(0, 0) == Value::Int(1));
    CHECK(rows.at(0, 1) == Value::Int(22));
  }
  // A scanning UPDATE: RETURNING reads a key-filter column, an assigned one
  // (its new value) and another (as stored).
  PreparedStatement update =
      Prepare(*db,
              "UPDATE line SET amount = amount + ? WHERE w = ? AND d = ? AND o = ? "
              "RETURNING w, n, amount, info");
  REQUIRE(Write(*db, update, {Value::Int(10), Value::Int(1), Value::Int(2), Value::Int(7)}, &rows)
              .ok());
  REQUIRE(rows.row_count() == 2);
  CHECK(rows.at(0, 0) == Value::Int(1));
  CHECK(rows.at(0, 1) == Value::Int(1));
  CHECK(rows.at(0, 2) == Value::Int(15));
  CHECK(rows.at(1, 2) == Value::Int(16));
  CHECK(rows.at(1, 3) == Value::Text("q"));
  // One that reads no assigned column in RETURNING.
  PreparedStatement carrier =
      Prepare(*db, "UPDATE line SET info = ? WHERE w = ? AND d = ? AND o = ? RETURNING amount, o");
  REQUIRE(
      Write(*db, carrier, {Value::Text("done"), Value::Int(1), Value::Int(2), Value::Int(7)}, &rows)
          .ok());
  REQUIRE(rows.row_count() == 2);
  CHECK(rows.at(0, 0) == Value::Int(15));
  CHECK(rows.at(1, 0) == Value::Int(16));
  CHECK(rows.at(1, 1) == Value::Int(7));
  REQUIRE(Read(*db, Prepare(*db, "SELECT info, amount FROM line WHERE w = 1 AND d = 2 AND o = 7"),
               {}, &rows)
              .ok());
  REQUIRE(rows.row_count() == 2);
  CHECK(rows.at(0, 0) == Value::Text("done"));
  CHECK(rows.at(1, 1) == Value::Int(16));
}

TEST_CASE("regression: a DEFAULT that cannot work is refused by CREATE TABLE, at its position") {
  auto db = OpenDb();
  // A parameter: 42P02 even when the caller supplies a value for it, since
  // every later INSERT would have none.
  PreparedStatement with_parameter = Prepare(*db, "CREATE TABLE t (a INT DEFAULT (?), b INT)");
  SqlStatus failed = Write(*db, with_parameter, {Value::Int(1)});
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kUndefinedParameter);
  CHECK(failed.error().pos().column == 32);
  // A column reference: 0A000 at the column, not at some later INSERT.
  failed = Write(*db, Prepare(*db, "CREATE TABLE t (a INT DEFAULT (b + 1), b INT)"), {});
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kFeatureNotSupported);
  CHECK(failed.error().pos().column == 32);
  // Text that is no number: 22P02 at the literal.
  failed = Write(*db, Prepare(*db, "CREATE TABLE t (a INT DEFAULT 'x', b INT)"), {});
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kInvalidTextRepresentation);
  CHECK(failed.error().pos().column == 31);
  // None of them created the table.
  Session session(*db);
  Run(session, "CREATE TABLE t (a INT DEFAULT (2 * 3), b INT)");
  Run(session, "INSERT INTO t (b) VALUES (1)");
  ResultSet rows;
  REQUIRE(session.Exec("SELECT a, b FROM t", &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(6));
}

TEST_CASE("regression: a DEFAULT's parameter is 42P02 at its position also when none is given") {
  auto db = OpenDb();
  // Was "the statement needs 1 parameters, 0 given" without a position (the
  // shell gives none).
  SqlStatus failed = Write(*db, Prepare(*db, "CREATE TABLE t (a INT DEFAULT (?), b INT)"), {});
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kUndefinedParameter);
  CHECK(failed.error().message() == "there is no parameter $1");
  CHECK(failed.error().pos().column == 32);
  // Other statements still count their parameters.
  Session session(*db);
  Run(session, "CREATE TABLE u (a INT PRIMARY KEY)");
  failed = Write(*db, Prepare(*db, "INSERT INTO u VALUES (?)"), {});
  CHECK(failed.error().state() == SqlState::kUndefinedParameter);
}

TEST_CASE("regression: a text parameter that is not UTF-8 or holds a NUL byte is 22021") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, v TEXT)");
  PreparedStatement insert = Prepare(*db, "INSERT INTO t VALUES (?, ?)");
  const std::string bad_texts[] = {"\xff", std::string("a\0b", 3), "\xc3\x28",
                                   "a long ASCII text, then \xed\xa0\x80"};
  for (const std::string& bad : bad_texts) {
    SqlStatus failed = Write(*db, insert, {Value::Int(1), Value::Text(bad)});
    INFO(bad);
    REQUIRE(!failed.ok());
    CHECK(failed.error().state() == SqlState::kCharacterNotInRepertoire);
    CHECK(failed.error().message().find("(parameter $2)") != std::string::npos);
  }
  // Nor in a read.
  PreparedStatement select = Prepare(*db, "SELECT count(*) FROM t WHERE v = ?");
  ResultSet rows;
  CHECK(Read(*db, select, {Value::Text("\xff")}, &rows).error().state() ==
        SqlState::kCharacterNotInRepertoire);
  // Valid UTF-8 of every length is kept as given.
  std::string good = "a \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  REQUIRE(Write(*db, insert, {Value::Int(1), Value::Text(good)}).ok());
  REQUIRE(Read(*db, select, {Value::Text(good)}, &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(1));
}

TEST_CASE("regression: errors about a parameter's value point at the parameter") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, v TEXT)");
  // A bad text: at the parameter's first occurrence (was: no position).
  //                                         1234567890123456789012345678901234567890
  PreparedStatement select = Prepare(*db, "SELECT k FROM t WHERE v = $2 AND k = $1 OR v = $2");
  ResultSet rows;
  SqlStatus failed = Read(*db, select, {Value::Int(1), Value::Text("\xff")}, &rows);
  REQUIRE(failed.error().state() == SqlState::kCharacterNotInRepertoire);
  CHECK(failed.error().pos().line == 1);
  CHECK(failed.error().pos().column == 27);
  CHECK(failed.error().pos().offset == 26);
  failed = Write(*db, Prepare(*db, "INSERT INTO t VALUES (?,\n  ?)"),
                 {Value::Int(1), Value::Text(std::string("a\0b", 3))});
  REQUIRE(failed.error().state() == SqlState::kCharacterNotInRepertoire);
  CHECK(failed.error().pos().line == 2);
  CHECK(failed.error().pos().column == 3);
  // Too few values: at the first parameter without one (the lowest number
  // past those given, where it first occurs).
  failed = Read(*db, select, {Value::Int(1)}, &rows);
  REQUIRE(failed.error().state() == SqlState::kUndefinedParameter);
  CHECK(failed.error().message() ==
        "1 parameter given, but the statement requires 2: $2 has no value");
  CHECK(failed.error().pos().column == 27);
  failed = Read(*db, select, {}, &rows);
  CHECK(failed.error().message() ==
        "0 parameters given, but the statement requires 2: $1 has no value");
  CHECK(failed.error().pos().column == 38);
  //                                      123456789012345678901234567890123456
  PreparedStatement positional = Prepare(*db, "SELECT k FROM t WHERE k IN (?, ?, ?)");
  failed = Read(*db, positional, {Value::Int(1)}, &rows);
  REQUIRE(failed.error().state() == SqlState::kUndefinedParameter);
  CHECK(failed.error().pos().column == 32);
  // A number the text skips has no position, but the next one does.
  //                                     12345678901234567890123
  PreparedStatement gap = Prepare(*db, "SELECT k FROM t WHERE k = $1 OR k = $3");
  failed = Read(*db, gap, {Value::Int(1), Value::Text("\xff"), Value::Int(3)}, &rows);
  REQUIRE(failed.error().state() == SqlState::kCharacterNotInRepertoire);
  CHECK(!failed.error().pos().valid());
  failed = Read(*db, gap, {Value::Int(1)}, &rows);
  CHECK(failed.error().message() ==
        "1 parameter given, but the statement requires 3: $3 has no value");
  CHECK(failed.error().pos().column == 37);
}

TEST_CASE("regression: more values than the statement's parameters are 42P02, nothing run") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, v INT)");
  // Was: the third value was ignored and the row inserted.
  PreparedStatement insert = Prepare(*db, "INSERT INTO t VALUES ($1, $2)");
  SqlStatus failed = Write(*db, insert, {Value::Int(1), Value::Int(2), Value::Int(3)});
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kUndefinedParameter);
  CHECK(failed.error().message() == "3 parameters given, but the statement requires 2");
  CHECK(!failed.error().pos().valid());
  PreparedStatement positional = Prepare(*db, "INSERT INTO t VALUES (?, ?)");
  CHECK(Write(*db, positional, {Value::Int(1), Value::Int(2), Value::Int(3)}).error().state() ==
        SqlState::kUndefinedParameter);
  // A statement without parameters, read and write.
  ResultSet rows;
  failed = Read(*db, Prepare(*db, "SELECT count(*) FROM t"), {Value::Int(1)}, &rows);
  REQUIRE(!failed.ok());
  CHECK(failed.error().message() == "1 parameter given, but the statement requires 0");
  CHECK(Write(*db, Prepare(*db, "DELETE FROM t"), {Value::Int(1)}).error().state() ==
        SqlState::kUndefinedParameter);
  // Through a session, in autocommit, in a transaction and on BEGIN itself.
  std::vector<Value> extra = {Value::Int(1), Value::Int(2), Value::Int(3)};
  CHECK(session.Exec("INSERT INTO t VALUES (?, ?)", extra, nullptr).error().state() ==
        SqlState::kUndefinedParameter);
  CHECK(session.Exec("BEGIN", extra, nullptr).error().state() == SqlState::kUndefinedParameter);
  CHECK(!session.in_transaction());
  Run(session, "BEGIN");
  CHECK(session.Exec("INSERT INTO t VALUES (?, ?)", extra, nullptr).error().state() ==
        SqlState::kUndefinedParameter);
  Run(session, "ROLLBACK");
  // None of them inserted a row; exactly as many values still run.
  REQUIRE(Write(*db, insert, {Value::Int(1), Value::Int(2)}).ok());
  REQUIRE(session.Exec("SELECT count(*) FROM t", &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(1));
}

TEST_CASE("regression: an ESCAPE of more than one character is 22025 at the escape") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, v TEXT)");
  Run(session, "INSERT INTO t VALUES (1, 'a%b')");
  ResultSet rows;
  //                                       1234567890123456789012345678901
  SqlStatus failed = session.Exec("SELECT k FROM t WHERE v LIKE 'a' ESCAPE 'ab'", &rows);
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kInvalidEscapeSequence);  // was 22023
  CHECK(failed.error().message() == "invalid escape string: it must be empty or one character");
  CHECK(failed.error().pos().column == 41);
  // One character of two bytes escapes; as a parameter too.
  REQUIRE(session.Exec("SELECT k FROM t WHERE v LIKE 'aé%b' ESCAPE 'é'", &rows).ok());
  CHECK(rows.row_count() == 1);
  std::vector<Value> params = {Value::Text("\xc3\xa9")};
  REQUIRE(session.Exec("SELECT k FROM t WHERE v LIKE 'a\xc3\xa9_b' ESCAPE ?", params, &rows).ok());
  CHECK(rows.row_count() == 0);
  params = {Value::Text("\xc3\xa9\xc3\xa9")};
  failed = session.Exec("SELECT k FROM t WHERE v LIKE 'a' ESCAPE ?", params, &rows);
  CHECK(failed.error().state() == SqlState::kInvalidEscapeSequence);
}

TEST_CASE("regression: a column in LIMIT or OFFSET is 42P10 at prepare time, at the column") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (id INT, v INT)");
  Run(session, "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)");
  db->read([&](solo::ReadTxn& txn) {
    auto limit = PreparedStatement::Prepare(txn, "SELECT id FROM t LIMIT id");
    REQUIRE(!limit.ok());
    CHECK(limit.error().state() == SqlState::kInvalidColumnReference);
    CHECK(limit.error().pos().column == 24);
    auto offset = PreparedStatement::Prepare(txn, "SELECT id FROM t LIMIT 1 OFFSET 1 + v");
    REQUIRE(!offset.ok());
    CHECK(offset.error().state() == SqlState::kInvalidColumnReference);
    CHECK(offset.error().pos().column == 37);
    return solo::Status::OK();
  });
}

TEST_CASE("untyped literals and parameters take the type they meet, as in PostgreSQL") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, n INT, s VARCHAR(5), at TIMESTAMP)");
  Run(session, "INSERT INTO t VALUES (1, NULL, 'x', NULL)");
  db->read([&](solo::ReadTxn& txn) {
    // PostgreSQL's message, at the literal, when the statement is prepared.
    // Columns are 1-based.
    std::string_view sql = "SELECT COALESCE(n, 'z') FROM t";
    auto coalesce = PreparedStatement::Prepare(txn, sql);
    REQUIRE(!coalesce.ok());
    CHECK(coalesce.error().state() == SqlState::kInvalidTextRepresentation);
    CHECK(coalesce.error().message() == "invalid input syntax for type integer: \"z\"");
    CHECK(coalesce.error().pos().column == sql.find("'z'") + 1);
    sql = "SELECT CASE WHEN k = 1 THEN 'a' ELSE 2 END FROM t";
    auto when = PreparedStatement::Prepare(txn, sql);
    REQUIRE(!when.ok());
    CHECK(when.error().state() == SqlState::kInvalidTextRepresentation);
    CHECK(when.error().pos().column == sql.find("'a'") + 1);
    // Storing text of a known type into a number: at the expression.
    sql = "UPDATE t SET n = upper(s)";
    auto update = PreparedStatement::Prepare(txn, sql);
    REQUIRE(!update.ok());
    CHECK(update.error().state() == SqlState::kDatatypeMismatch);
    CHECK(update.error().message() ==
          "column \"n\" is of type integer but expression is of type text");
    CHECK(update.error().pos().column == sql.find("upper") + 1);
    auto insert = PreparedStatement::Prepare(txn, "INSERT INTO t (k, at) SELECT k, s FROM t");
    REQUIRE(!insert.ok());
    CHECK(insert.error().state() == SqlState::kDatatypeMismatch);
    CHECK(insert.error().message() ==
          "column \"at\" is of type timestamp without time zone but expression is of type "
          "character varying");
    return solo::Status::OK();
  });
  // A parameter among a COALESCE's or CASE's integers is read as an integer.
  ResultSet rows;
  PreparedStatement coalesce = Prepare(*db, "SELECT COALESCE(n, $1) FROM t");
  REQUIRE(Read(*db, coalesce, {Value::Text("05")}, &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(5));
  SqlStatus failed = Read(*db, coalesce, {Value::Text("z")}, &rows);
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kInvalidTextRepresentation);
  PreparedStatement when = Prepare(*db, "SELECT CASE WHEN k = 1 THEN ? ELSE 2 END FROM t");
  REQUIRE(Read(*db, when, {Value::Text("7")}, &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(7));
  // Parameters are still stored into any column, converted as they are.
  PreparedStatement insert = Prepare(*db, "INSERT INTO t (k, n, at) VALUES ($1, $2, $3)");
  REQUIRE(
      Write(*db, insert, {Value::Text("2"), Value::Text("20"), Value::Text("2024-01-02")}).ok());
  PreparedStatement update = Prepare(*db, "UPDATE t SET n = $1 WHERE k = 2");
  REQUIRE(Write(*db, update, {Value::Text("21")}).ok());
  REQUIRE(session.Exec("SELECT n FROM t WHERE k = 2", &rows).ok());
  CHECK(rows.at(0, 0) == Value::Int(21));
}

TEST_CASE("regression: a string literal that meets a BOOLEAN is read as one when prepared") {
  auto db = OpenDb();
  Session session(*db);
  Run(session, "CREATE TABLE t (k INT PRIMARY KEY, n INT)");  // empty: nothing runs per row
  struct Case {
    std::string_view sql;
    SqlState state;
    std::string_view message;
    std::string_view at;  // the error's position: where this text starts in sql
  };
  const Case cases[] = {
      // PostgreSQL's 22P02, at the literal; before, 'a' (CASE) or 42883.
      {"SELECT CASE WHEN 1 = 1 THEN 'a' ELSE TRUE END", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"a\"", "'a'"},
      {"SELECT 'a' = TRUE", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"a\"", "'a'"},
      {"SELECT TRUE = ' o '", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \" o \"", "' o '"},
      {"SELECT COALESCE(n > 0, 'x') FROM t", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"x\"", "'x'"},
      {"SELECT NULLIF('x', n > 0) FROM t", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"x\"", "'x'"},
      {"SELECT k FROM t WHERE (n > 0) IN ('t', 'x')", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"x\"", "'x'"},
      {"SELECT k FROM (SELECT k, n > 0 AS flag FROM t) s WHERE flag = 'maybe'",
       SqlState::kInvalidTextRepresentation, "invalid input syntax for type boolean: \"maybe\"",
       "'maybe'"},
      {"DELETE FROM t WHERE 'x'", SqlState::kInvalidTextRepresentation,
       "invalid input syntax for type boolean: \"x\"", "'x'"},
      // The ELSE is matched first, as in PostgreSQL.
      {"SELECT CASE WHEN 1 = 1 THEN 'a' WHEN 1 = 2 THEN TRUE ELSE 'b' END",
       SqlState::kInvalidTextRepresentation, "invalid input syntax for type boolean: \"b\"", "'b'"},
      // A boolean and a value of another known type.
      {"SELECT k FROM t WHERE (n > 0) = n", SqlState::kUndefinedFunction,
       "operator does not exist: boolean = integer", "= n"},
      {"SELECT CASE WHEN 1 = 1 THEN 1 ELSE TRUE END", SqlState::kDatatypeMismatch,
       "CASE types boolean and integer cannot be matched", "1 ELSE"},
      {"SELECT COALESCE(n, n > 0) FROM t", SqlState::kDatatypeMismatch,
       "COALESCE types integer and boolean cannot be matched", "n > 0"},
      {"UPDATE t SET n = (k > 0)", SqlState::kDatatypeMismatch,
       "column \"n\" is of type integer but expression is of type boolean", "k > 0"},
  };
  db->read([&](solo::ReadTxn& txn) {
    for (const Case& expected : cases) {
      INFO(expected.sql);
      auto prepared = PreparedStatement::Prepare(txn, expected.sql);
      REQUIRE(!prepared.ok());
      CHECK(prepared.error().state() == expected.state);
      CHECK(prepared.error().message() == expected.message);
      CHECK(prepared.error().pos().column == expected.sql.find(expected.at) + 1);
    }
    return solo::Status::OK();
  });
  // Valid literals are booleans, prepared once and run without re-reading.
  ResultSet rows;
  REQUIRE(session
              .Exec("SELECT 't' = TRUE, 'yes' = TRUE, 'off' <> FALSE, ' Of ' = FALSE, "
                    "CASE WHEN 1 = 1 THEN 'tr' ELSE FALSE END",
                    &rows)
              .ok());
  CHECK(rows.at(0, 0) == Value::Bool(true));
  CHECK(rows.at(0, 1) == Value::Bool(true));
  CHECK(rows.at(0, 2) == Value::Bool(false));
  CHECK(rows.at(0, 3) == Value::Bool(true));
  CHECK(rows.at(0, 4) == Value::Bool(true));
  // A text parameter compared with a boolean is read as one when it runs
  // (no CAST names a BOOLEAN to give it the type when it is prepared).
  PreparedStatement param = Prepare(*db, "SELECT (1 < 2) = $1");
  REQUIRE(Read(*db, param, {Value::Text("Yes")}, &rows).ok());
  CHECK(rows.at(0, 0) == Value::Bool(true));
  SqlStatus failed = Read(*db, param, {Value::Text("maybe")}, &rows);
  REQUIRE(!failed.ok());
  CHECK(failed.error().state() == SqlState::kInvalidTextRepresentation);
  CHECK(failed.error().message() == "invalid input syntax for type boolean: \"maybe\"");
}
