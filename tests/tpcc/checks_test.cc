// Tests for tpcc/checks.h: the twelve consistency conditions of TPC-C clause
// 3.3.2 hold on a freshly loaded database, and each one fails when the
// invariant it states is broken by a minimal change.
//
// One W=1 SQLite database is loaded once per process on tmpfs. Each break
// runs on a copy of it (the database directory copied file by file), so the
// breaks cannot leak into each other. Breaks are chosen to violate only the
// targeted condition; where the conditions are linked (1 and 8 follow from
// each other through 9, 4 follows from 6, 11 and 5 share the NEW-ORDER count)
// the expected set names every condition that must fail, and the test asserts
// that exactly that set fails.

#include "tpcc/checks.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/loader.h"
#include "tpcc/schema.h"
#include "tpcc/value.h"

namespace tpcc {
namespace {

namespace fs = std::filesystem;

// A fresh directory under /dev/shm, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = "/dev/shm/solo-checks-test-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The scratch root of this process: holds the loaded database and the copies.
ScratchDir& scratch() {
  static ScratchDir dir;
  return dir;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::unique_ptr<Backend> sqlite_at(const fs::path& dir) {
  BackendOptions options;
  options.engine = "sqlite";
  options.storage = Storage::kRam;
  options.dir = dir.string();
  return make_backend(options);
}

// The directory of a W=1 database loaded on first use (once per process).
// All its connections are closed, so its files can be copied.
const fs::path& loaded_database() {
  static const fs::path dir = [] {
    fs::path path = scratch().path() / "loaded";
    auto start = std::chrono::steady_clock::now();
    auto backend = sqlite_at(path);
    LoadOptions options;
    options.warehouses = 1;
    options.seed = 1;
    options.progress = false;
    load_database(*backend, options);
    std::fprintf(stderr, "checks_test: loaded W=1 in %.2f s\n", seconds_since(start));
    return path;
  }();
  return dir;
}

// Copies the loaded database to a new directory `name` under the scratch
// root (replacing any earlier copy) and returns the copy's path.
fs::path copy_of_loaded(const std::string& name) {
  const fs::path& source = loaded_database();
  fs::path copy = scratch().path() / name;
  fs::remove_all(copy);
  fs::copy(source, copy, fs::copy_options::recursive);
  return copy;
}

// Runs `statements` (no parameters) as one write transaction.
void apply(Connection& conn, const std::vector<std::string>& statements) {
  std::vector<StmtId> ids;
  for (const std::string& sql : statements) ids.push_back(conn.prepare(sql));
  conn.write([&](Txn& txn) {
    for (StmtId id : ids) txn.exec(id, {});
    return Outcome::kCommit;
  });
}

// Runs the checks (condition 11 included) and reports how long they took.
std::vector<ConditionResult> timed_checks(Connection& conn, const std::string& label) {
  auto start = std::chrono::steady_clock::now();
  std::vector<ConditionResult> results = check_consistency(conn, true);
  std::fprintf(stderr, "checks_test: checks after %s took %.2f s\n", label.c_str(),
               seconds_since(start));
  return results;
}

std::set<int> failing_ids(const std::vector<ConditionResult>& results) {
  std::set<int> ids;
  for (const ConditionResult& result : results) {
    if (!result.ok) ids.insert(result.id);
  }
  return ids;
}

// All results as text, for failure messages.
std::string describe(const std::vector<ConditionResult>& results) {
  std::string text;
  for (const ConditionResult& result : results) {
    text += fmt::format("\n  {:2} {} {}", result.id, result.ok ? "ok  " : "FAIL", result.detail);
  }
  return text;
}

const ConditionResult& result_of(const std::vector<ConditionResult>& results, int id) {
  for (const ConditionResult& result : results) {
    if (result.id == id) return result;
  }
  FAIL("no result for condition " << id);
  throw std::logic_error("unreachable");
}

// One minimal change to the loaded database and the conditions it must
// (exactly) break.
struct Break {
  int target = 0;
  std::string how;
  std::vector<std::string> statements;
  std::set<int> expected_failures;
  std::string detail_mentions;  // text the target's detail must contain
};

// In district (1,1) at load: orders 1..2100 are delivered (carrier set, lines
// delivered with OL_AMOUNT 0.00), orders 2101..3000 are undelivered with a
// NEW-ORDER row each, and every customer has one history row of 10.00 paid
// at its own district.
std::vector<Break> breaks() {
  return {
      {1, "W_YTD raised by 1.00 (W_YTD = sum(H_AMOUNT) of 8 breaks with it)",
       {"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"},
       {1, 8},
       "warehouse 1"},
      {2, "D_NEXT_O_ID raised by one",
       {"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 1"},
       {2},
       "district (w=1, d=1)"},
      {3, "undelivered order 2500 removed entirely: a gap in NO_O_ID, counts still match",
       {"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2500",
        "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2500",
        "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2500"},
       {3},
       "district (w=1, d=1)"},
      {4, "O_OL_CNT of one order raised (its per-order count of 6 breaks with it)",
       {"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1"},
       {4, 6},
       "district (w=1, d=1)"},
      {5, "oldest NEW-ORDER row deleted (the NEW-ORDER count of 11 changes with it)",
       {"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101"},
       {5, 11},
       "order (w=1, d=1, o=2101)"},
      {6, "O_OL_CNT moved by one from order 2 to order 1: district sums unchanged",
       {"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
        "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2"},
       {6},
       "order (w=1, d=1, o=1)"},
      {7, "one line of delivered order 1 loses its delivery date (OL_AMOUNT is 0.00)",
       {"UPDATE order_line SET ol_delivery_d = NULL "
        "WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1"},
       {7},
       "order (w=1, d=1, o=1)"},
      {8, "a payment moved to warehouse 2 (its district of 9 breaks with it)",
       {"UPDATE history SET h_w_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1"},
       {8, 9},
       "warehouse 1"},
      {9, "a payment moved to another district of the same warehouse",
       {"UPDATE history SET h_d_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1"},
       {9},
       "district (w=1, d=1)"},
      {10, "customer 1's payment credited to customer 2",
       {"UPDATE history SET h_c_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1"},
       {10},
       "customer (w=1, d=1, c=1)"},
      {12, "C_YTD_PAYMENT raised by 1.00",
       {"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 "
        "WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1"},
       {12},
       "customer (w=1, d=1, c=1)"},
      // Extra: a missing aggregate group is a failure, not a silent pass.
      {6, "all lines of order 2500 deleted (no ORDER-LINE group for it)",
       {"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2500"},
       {4, 6},
       "count(ORDER-LINE) = 0"},
      {5, "a NEW-ORDER row for an order that does not exist, below the others",
       {"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (0, 1, 1)"},
       {3, 5, 11},
       "order (w=1, d=1, o=0)"},
  };
}

// Delivers the oldest undelivered order of district (1,1) the way the
// Delivery transaction does (clause 2.7.4.2): NEW-ORDER row deleted,
// O_CARRIER_ID set, OL_DELIVERY_D set, C_BALANCE raised by the lines' sum and
// C_DELIVERY_CNT by one. Returns the sum of the order's OL_AMOUNT in cents.
int64_t deliver_oldest_order(Connection& conn) {
  StmtId select_customer =
      conn.prepare("SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = ?");
  StmtId select_amount = conn.prepare(
      "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = ?");
  StmtId delete_new_order =
      conn.prepare("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = ?");
  StmtId set_carrier = conn.prepare(
      "UPDATE orders SET o_carrier_id = 7 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = ?");
  StmtId set_delivery_date = conn.prepare(
      "UPDATE order_line SET ol_delivery_d = ? "
      "WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = ?");
  StmtId credit_customer = conn.prepare(
      "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 "
      "WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = ?");

  const Value o_id = int64_t{kFirstNewOrder};
  int64_t amount = 0;
  conn.write([&](Txn& txn) {
    Rows rows;
    txn.exec(select_customer, {o_id}, &rows);
    const int64_t c_id = rows.get_int(0, 0);
    txn.exec(select_amount, {o_id}, &rows);
    amount = rows.get_decimal(0, 0, 2);
    txn.exec(delete_new_order, {o_id});
    txn.exec(set_carrier, {o_id});
    txn.exec(set_delivery_date, {Timestamp{now_micros()}, o_id});
    txn.exec(credit_customer, {money(amount), c_id});
    return Outcome::kCommit;
  });
  return amount;
}

TEST_CASE("all consistency conditions hold right after the load", "[tpcc][checks]") {
  auto backend = sqlite_at(loaded_database());
  auto conn = backend->connect();

  std::vector<ConditionResult> results = timed_checks(*conn, "the load");
  INFO(describe(results));
  REQUIRE(results.size() == 12);
  for (size_t result_idx = 0; result_idx < results.size(); ++result_idx) {
    CHECK(results[result_idx].id == static_cast<int>(result_idx) + 1);
    CHECK(results[result_idx].ok);
  }
  CHECK(result_of(results, 1).detail == "1 warehouses");
  CHECK(result_of(results, 2).detail == "10 districts");
  CHECK(result_of(results, 6).detail == "30000 orders");
  CHECK(result_of(results, 10).detail == "30000 customers");

  SECTION("condition 11 is left out on request") {
    std::vector<ConditionResult> without_11 = check_consistency(*conn, false);
    REQUIRE(without_11.size() == 11);
    std::vector<int> ids;
    for (const ConditionResult& result : without_11) ids.push_back(result.id);
    CHECK(ids == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12});
    CHECK(failing_ids(without_11).empty());
  }
}

TEST_CASE("each condition fails when its invariant is broken", "[tpcc][checks]") {
  int break_idx = 0;
  for (const Break& change : breaks()) {
    ++break_idx;
    DYNAMIC_SECTION("condition " << change.target << ": " << change.how) {
      fs::path dir = copy_of_loaded(fmt::format("break-{}", break_idx));
      {
        auto backend = sqlite_at(dir);
        auto conn = backend->connect();
        apply(*conn, change.statements);

        std::vector<ConditionResult> results =
            timed_checks(*conn, fmt::format("break of condition {}", change.target));
        INFO(change.how << describe(results));
        REQUIRE(results.size() == 12);
        CHECK(failing_ids(results) == change.expected_failures);
        const ConditionResult& target = result_of(results, change.target);
        REQUIRE_FALSE(target.ok);
        CHECK_THAT(target.detail, Catch::Matchers::Contains(change.detail_mentions));
        CHECK_THAT(target.detail, Catch::Matchers::Contains("offending"));
      }
      fs::remove_all(dir);
    }
  }
}

TEST_CASE("a Delivery breaks condition 11 only", "[tpcc][checks]") {
  fs::path dir = copy_of_loaded("delivery");
  {
    auto backend = sqlite_at(dir);
    auto conn = backend->connect();
    int64_t amount = deliver_oldest_order(*conn);
    REQUIRE(amount > 0);  // undelivered lines carry OL_AMOUNT in [0.01, 9999.99]

    std::vector<ConditionResult> results = timed_checks(*conn, "a delivery");
    INFO(describe(results));
    CHECK(failing_ids(results) == std::set<int>{11});
    CHECK_THAT(result_of(results, 11).detail,
               Catch::Matchers::Contains("district (w=1, d=1): count(ORDER) - count(NEW-ORDER) = "
                                         "3000 - 899 = 2101, expected 2100 (1 of 10 districts"));

    // Conditions 10 and 12 now compare non-zero delivered sums.
    CHECK(failing_ids(check_consistency(*conn, false)).empty());
  }
  fs::remove_all(dir);
}

// Regression (probe item 2): the conditions look only at the rows present,
// so a database missing a whole warehouse, or whose tpcc_meta names more
// warehouses than it holds, passed every one of them.
TEST_CASE("the cardinality check compares the fixed-size tables with W", "[tpcc][checks]") {
  SECTION("it holds right after the load") {
    auto backend = sqlite_at(loaded_database());
    auto conn = backend->connect();
    CardinalityResult result = check_cardinality(*conn, 1);
    INFO(result.detail);
    CHECK(result.ok);
    CHECK(result.detail ==
          "rows: warehouse 1, district 10, customer 30000, stock 100000, item 100000");
  }
  SECTION("tpcc_meta names more warehouses than there are") {
    auto backend = sqlite_at(loaded_database());
    auto conn = backend->connect();
    CardinalityResult result = check_cardinality(*conn, 2);
    CHECK_FALSE(result.ok);
    CHECK_THAT(result.detail, Catch::Matchers::StartsWith("warehouse: 1 rows, expected 2; "
                                                          "district: 10 rows, expected 20; "));
    CHECK_THAT(result.detail, Catch::Matchers::EndsWith(" (W=2 in tpcc_meta)"));
  }
  SECTION("rows of a warehouse are missing") {
    fs::path dir = copy_of_loaded("cardinality");
    {
      auto backend = sqlite_at(dir);
      auto conn = backend->connect();
      apply(*conn, {"DELETE FROM district WHERE d_w_id = 1 AND d_id = 10",
                    "DELETE FROM customer WHERE c_w_id = 1 AND c_d_id = 10 AND c_id <= 5",
                    "DELETE FROM item WHERE i_id = 7"});
      CardinalityResult result = check_cardinality(*conn, 1);
      CHECK_FALSE(result.ok);
      CHECK(result.detail ==
            "district: 9 rows, expected 10; customer: 29995 rows, expected 30000; "
            "item: 99999 rows, expected 100000 (W=1 in tpcc_meta)");
    }
    fs::remove_all(dir);
  }
}

TEST_CASE("checking a database that does not exist is a BackendError", "[tpcc][checks]") {
  SECTION("a directory without a database") {
    fs::path dir = scratch().path() / "no-database-here";
    auto backend = sqlite_at(dir);
    CHECK_FALSE(backend->exists());
    REQUIRE_THROWS_AS(
        [&] {
          auto conn = backend->connect();
          check_consistency(*conn, true);
        }(),
        BackendError);
  }
  SECTION("a directory that cannot be created") {
    fs::path blocker = scratch().path() / "plain-file";
    std::ofstream(blocker) << "not a directory\n";
    auto backend = sqlite_at(blocker / "db");
    REQUIRE_THROWS_AS(
        [&] {
          auto conn = backend->connect();
          check_consistency(*conn, true);
        }(),
        BackendError);
  }
}

}  // namespace
}  // namespace tpcc
