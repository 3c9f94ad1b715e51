#include "tpcc/statements.h"

#include <string>

#include "tpcc/transactions.h"

namespace tpcc {
namespace {

// S_QUANTITY drops by the quantity, and rises by 91 if it would fall below
// 10 (clause 2.4.2.2); parameters: quantity + 10, quantity, quantity,
// quantity, remote (0/1), S_W_ID, S_I_ID.
#define TPCC_STOCK_SQL(dist)                                                          \
  "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= ? THEN s_quantity - ? "        \
  "ELSE s_quantity - ? + 91 END, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, "  \
  "s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ? "                   \
  "RETURNING s_quantity, s_data, s_dist_" dist

constexpr std::array<std::string_view, kStmtCount> kSql = {
    // New-Order
    "SELECT w_tax FROM warehouse WHERE w_id = ?",
    "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ? "
    "RETURNING d_tax, d_next_o_id",
    "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
    "o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
    "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
    // All of a New-Order's items in one statement: 15 (the most order lines)
    // values, the unused ones repeating the first item.
    "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    TPCC_STOCK_SQL("01"),
    TPCC_STOCK_SQL("02"),
    TPCC_STOCK_SQL("03"),
    TPCC_STOCK_SQL("04"),
    TPCC_STOCK_SQL("05"),
    TPCC_STOCK_SQL("06"),
    TPCC_STOCK_SQL("07"),
    TPCC_STOCK_SQL("08"),
    TPCC_STOCK_SQL("09"),
    TPCC_STOCK_SQL("10"),
    // kNoInsertOrderLines01..15: made by order_lines_sql().
    "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
    // Payment
    "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
    "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?",
    "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
    "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district "
    "WHERE d_w_id = ? AND d_id = ?",
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
    "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, "
    "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? "
    "RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, "
    "c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance",
    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "UPDATE customer SET c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    // Order-Status
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
    "SELECT c_balance, c_first, c_middle, c_last FROM customer "
    "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? "
    "AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
    "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    // Delivery
    "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1",
    "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
    "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? "
    "RETURNING o_c_id",
    "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? "
    "RETURNING ol_amount",
    "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 "
    "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    // Stock-Level
    "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
    "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
    "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
};

#undef TPCC_STOCK_SQL

constexpr int kFirstLines = static_cast<int>(Stmt::kNoInsertOrderLines01);
constexpr int kLastLines = static_cast<int>(Stmt::kNoInsertOrderLines15);
static_assert(kLastLines - kFirstLines + 1 == kMaxOrderLines);

// INSERT INTO order_line ... VALUES (9 parameters and a NULL) x `lines`.
const std::array<std::string, kMaxOrderLines>& order_lines_sql() {
  static const std::array<std::string, kMaxOrderLines> texts = [] {
    std::array<std::string, kMaxOrderLines> made;
    for (int lines = 1; lines <= kMaxOrderLines; ++lines) {
      std::string& sql = made[lines - 1];
      sql = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
            "ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ";
      for (int line = 0; line < lines; ++line) {
        sql += line == 0 ? "" : ", ";
        sql += "(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)";
      }
    }
    return made;
  }();
  return texts;
}

}  // namespace

std::string_view statement_sql(Stmt stmt) {
  int idx = static_cast<int>(stmt);
  if (idx >= kFirstLines && idx <= kLastLines) return order_lines_sql()[idx - kFirstLines];
  return kSql[idx];
}

PreparedStatements::PreparedStatements(Connection& conn) {
  for (int stmt_idx = 0; stmt_idx < kStmtCount; ++stmt_idx) {
    ids_[stmt_idx] = conn.prepare(std::string(statement_sql(static_cast<Stmt>(stmt_idx))));
  }
}

}  // namespace tpcc
