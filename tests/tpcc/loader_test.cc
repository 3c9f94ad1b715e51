#include "tpcc/loader.h"

#include <catch2/catch.hpp>

#include "tests/tpcc/loaded_db.h"
#include "tpcc/random.h"
#include "tpcc/schema.h"

namespace {

int64_t scalar(tpcc::Connection& conn, const std::string& sql) {
  tpcc::StmtId stmt = conn.prepare(sql);
  tpcc::Rows rows;
  conn.read([&](tpcc::Txn& txn) {
    txn.exec(stmt, {}, &rows);
    return tpcc::Outcome::kCommit;
  });
  REQUIRE(rows.size() == 1);
  return rows.get_int(0, 0);
}

}  // namespace

TEST_CASE("the loader populates exactly what the spec says for W=1") {
  auto& db = tpcc_test::loaded_w1();
  auto conn = db.backend->connect();
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM item") == 100000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM warehouse") == 1);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM district") == 10);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM customer") == 30000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM history") == 30000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM orders") == 30000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM new_order") == 9000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM stock") == 100000);
  int64_t lines = scalar(*conn, "SELECT COUNT(*) FROM order_line");
  CHECK(lines == scalar(*conn, "SELECT SUM(o_ol_cnt) FROM orders"));
  CHECK(lines > 297000);  // 10 per order on average; +-1% is > 5 sigma
  CHECK(lines < 303000);
  // Every district: 900 new orders, for orders 2101..3000, and 3,000 orders.
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM new_order WHERE no_o_id < 2101") == 0);
  CHECK(scalar(*conn, "SELECT MIN(no_o_id) FROM new_order") == 2101);
  CHECK(scalar(*conn, "SELECT COUNT(DISTINCT o_c_id) FROM orders WHERE o_d_id = 3") == 3000);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL") == 9000);
  CHECK(scalar(*conn, "SELECT MIN(d_next_o_id) FROM district") == 3001);
}

TEST_CASE("loaded values follow clause 4.3.3.1") {
  auto& db = tpcc_test::loaded_w1();
  auto conn = db.backend->connect();
  // About 10% ORIGINAL in I_DATA and S_DATA, about 10% bad credit.
  int64_t original_items = scalar(*conn, "SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'");
  CHECK(original_items > 9000);
  CHECK(original_items < 11000);
  int64_t original_stock = scalar(*conn, "SELECT COUNT(*) FROM stock WHERE s_data LIKE '%ORIGINAL%'");
  CHECK(original_stock > 9000);
  CHECK(original_stock < 11000);
  int64_t bad_credit = scalar(*conn, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'");
  CHECK(bad_credit > 2500);
  CHECK(bad_credit < 3500);
  // The first 1,000 customers of each district take the 1,000 names in order.
  tpcc::StmtId names = conn->prepare(
      "SELECT c_id, c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 7 AND c_id <= 1000 "
      "ORDER BY c_id");
  tpcc::Rows rows;
  conn->read([&](tpcc::Txn& txn) {
    txn.exec(names, {}, &rows);
    return tpcc::Outcome::kCommit;
  });
  REQUIRE(rows.size() == 1000);
  for (size_t row = 0; row < rows.size(); ++row) {
    REQUIRE(rows.get_text(row, 1) == tpcc::last_name(rows.get_int(row, 0) - 1));
  }
  // Delivered order lines have amount 0 and a delivery date; the rest not.
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM order_line WHERE ol_o_id < 2101 AND "
                      "(ol_amount <> 0 OR ol_delivery_d IS NULL)") == 0);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM order_line WHERE ol_o_id >= 2101 AND "
                      "(ol_amount = 0 OR ol_delivery_d IS NOT NULL)") == 0);
  CHECK(scalar(*conn, "SELECT COUNT(*) FROM stock WHERE s_quantity < 10 OR s_quantity > 100") ==
        0);
}

TEST_CASE("tpcc_meta records the load and reads back") {
  auto& db = tpcc_test::loaded_w1();
  auto conn = db.backend->connect();
  tpcc::LoadInfo info = tpcc::read_load_info(*conn);
  CHECK(info.warehouses == 1);
  CHECK(info.seed == db.info.seed);
  CHECK(info.load_c.c_last == db.info.load_c.c_last);
  CHECK(info.load_c.c_id == db.info.load_c.c_id);
  CHECK(info.load_c.ol_i_id == db.info.load_c.ol_i_id);
  CHECK(info.load_time_micros == db.info.load_time_micros);
}
