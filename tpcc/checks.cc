// The consistency conditions of TPC-C clause 3.3.2; see checks.h.
//
// How the checks work
//
//   1. A handful of single-table or inner-join queries, sorted by key, read
//      one consistent state inside one read-only transaction. The SQL stays
//      within what every backend (solo's small SQL layer included) supports:
//      no derived tables, no outer joins, no COALESCE.
//   2. The rows are turned into small structs right away (the Rows buffer is
//      reused), and per-district and per-warehouse figures are rolled up in
//      C++.
//   3. Each condition walks two key-sorted sequences in step (a merge join,
//      linear in the rows). A key present on one side only is never skipped:
//      a missing aggregate counts as the aggregate of no rows (0 lines, no
//      payments), which then fails where the other side says otherwise, and
//      a group that names a missing parent row (order lines of a missing
//      order, payments of a missing customer) is a failure in itself.
//
// Money is exact: SQL sums run only over small groups (one customer's
// payments or delivered lines), each read at scale 2 with
// Rows::get_decimal, and every larger sum is added up in C++ in integer
// cents. SQLite sums REAL values with plain doubles, so summing a whole
// district's history in SQL could drift after a long run.

#include "tpcc/checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tpcc/schema.h"
#include "tpcc/value.h"

namespace tpcc {

namespace {

// Condition 11 (clause 3.3.2.11): orders 1..2100 of each district are
// delivered at load, so ORDER holds 2100 more rows than NEW-ORDER.
constexpr int64_t kDeliveredAtLoad = kFirstNewOrder - 1;

constexpr int kMoneyScale = 2;

// ---------------------------------------------------------------------------
// Keys and the merge walk.

// (warehouse, district, order or customer id). Coarser keys leave trailing
// parts 0. Compared lexicographically, the order ORDER BY gives the same
// integer columns on every engine.
using Key = std::array<int64_t, 3>;

Key district_of(const Key& key) { return {key[0], key[1], 0}; }
Key warehouse_of(const Key& key) { return {key[0], 0, 0}; }

std::string warehouse_name(const Key& key) { return fmt::format("warehouse {}", key[0]); }
std::string district_name(const Key& key) {
  return fmt::format("district (w={}, d={})", key[0], key[1]);
}
std::string order_name(const Key& key) {
  return fmt::format("order (w={}, d={}, o={})", key[0], key[1], key[2]);
}
std::string customer_name(const Key& key) {
  return fmt::format("customer (w={}, d={}, c={})", key[0], key[1], key[2]);
}

std::string money_text(int64_t cents) { return format_decimal(cents, kMoneyScale); }

// Walks two vectors sorted by their `key` member in step and calls
// `visit(left, right)` once per key found on either side; the pointer of the
// side that lacks the key is null. Linear in the total size.
template <typename Left, typename Right, typename Visit>
void merge_by_key(const std::vector<Left>& left, const std::vector<Right>& right, Visit&& visit) {
  size_t left_idx = 0;
  size_t right_idx = 0;
  while (left_idx < left.size() || right_idx < right.size()) {
    if (right_idx == right.size() ||
        (left_idx < left.size() && left[left_idx].key < right[right_idx].key)) {
      visit(&left[left_idx++], nullptr);
    } else if (left_idx == left.size() || right[right_idx].key < left[left_idx].key) {
      visit(nullptr, &right[right_idx++]);
    } else {
      visit(&left[left_idx++], &right[right_idx++]);
    }
  }
}

// Collects the verdicts of one condition: how many items were checked, how
// many failed, and a description of the first failure.
class Tally {
 public:
  // `unit` names what is counted, plural ("districts").
  Tally(int id, std::string unit) : id_(id), unit_(std::move(unit)) {}

  // Records one checked item. When `ok` is false, `describe()` is called for
  // the first failure only, so that formatting costs nothing on success.
  template <typename Describe>
  void check(bool ok, Describe&& describe) {
    ++checked_;
    if (ok) return;
    if (failed_ == 0) first_failure_ = describe();
    ++failed_;
  }

  ConditionResult result() const {
    ConditionResult result;
    result.id = id_;
    result.ok = failed_ == 0;
    if (result.ok) {
      result.detail = fmt::format("{} {}", checked_, unit_);
    } else {
      result.detail =
          fmt::format("{} ({} of {} {} offending)", first_failure_, failed_, checked_, unit_);
    }
    return result;
  }

 private:
  int id_;
  std::string unit_;
  int64_t checked_ = 0;
  int64_t failed_ = 0;
  std::string first_failure_;
};

// ---------------------------------------------------------------------------
// What the read transaction fetches, one struct per result row.

struct WarehouseRow {
  Key key{};
  int64_t ytd = 0;  // cents
};

struct DistrictRow {
  Key key{};
  int64_t ytd = 0;  // cents
  int64_t next_o_id = 0;
};

struct OrderRow {
  Key key{};
  bool carrier_null = false;
  int64_t carrier_id = 0;  // meaningful when !carrier_null
  int64_t ol_cnt = 0;
};

struct NewOrderRow {
  Key key{};
};

// COUNT(*) of order lines of one order.
struct LineCount {
  Key key{};
  int64_t lines = 0;
};

struct CustomerRow {
  Key key{};
  int64_t balance = 0;      // cents
  int64_t ytd_payment = 0;  // cents
};

// SUM(OL_AMOUNT) of one customer's delivered lines.
struct DeliveredSum {
  Key key{};  // the customer
  int64_t amount = 0;
};

// SUM(H_AMOUNT) of the payments of one customer made through one district
// (H_C_* names the customer, H_W_ID/H_D_ID the district paid at).
struct PaymentSum {
  Key key{};       // the customer
  Key district{};  // (h_w_id, h_d_id, 0)
  int64_t amount = 0;
};

struct Snapshot {
  std::vector<WarehouseRow> warehouses;
  std::vector<DistrictRow> districts;
  std::vector<OrderRow> orders;
  std::vector<NewOrderRow> new_orders;
  std::vector<LineCount> lines_per_order;
  std::vector<LineCount> undelivered_lines_per_order;
  std::vector<CustomerRow> customers;
  std::vector<DeliveredSum> delivered_per_customer;
  std::vector<PaymentSum> payments;
};

// All result sets are sorted by the key columns that lead them.
struct Statements {
  StmtId warehouses;
  StmtId districts;
  StmtId orders;
  StmtId new_orders;
  StmtId lines_per_order;
  StmtId undelivered_lines_per_order;
  StmtId customers;
  StmtId delivered_per_customer;
  StmtId payments;
};

Statements prepare_statements(Connection& conn) {
  Statements stmts;
  stmts.warehouses = conn.prepare("SELECT w_id, w_ytd FROM warehouse ORDER BY w_id");
  stmts.districts = conn.prepare(
      "SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district ORDER BY d_w_id, d_id");
  stmts.orders = conn.prepare(
      "SELECT o_w_id, o_d_id, o_id, o_carrier_id, o_ol_cnt FROM orders "
      "ORDER BY o_w_id, o_d_id, o_id");
  stmts.new_orders = conn.prepare(
      "SELECT no_w_id, no_d_id, no_o_id FROM new_order ORDER BY no_w_id, no_d_id, no_o_id");
  stmts.lines_per_order = conn.prepare(
      "SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) FROM order_line "
      "GROUP BY ol_w_id, ol_d_id, ol_o_id ORDER BY ol_w_id, ol_d_id, ol_o_id");
  stmts.undelivered_lines_per_order = conn.prepare(
      "SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) FROM order_line "
      "WHERE ol_delivery_d IS NULL "
      "GROUP BY ol_w_id, ol_d_id, ol_o_id ORDER BY ol_w_id, ol_d_id, ol_o_id");
  stmts.customers = conn.prepare(
      "SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment FROM customer "
      "ORDER BY c_w_id, c_d_id, c_id");
  stmts.delivered_per_customer = conn.prepare(
      "SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) FROM orders, order_line "
      "WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id "
      "AND ol_delivery_d IS NOT NULL "
      "GROUP BY o_w_id, o_d_id, o_c_id ORDER BY o_w_id, o_d_id, o_c_id");
  stmts.payments = conn.prepare(
      "SELECT h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id, SUM(h_amount) FROM history "
      "GROUP BY h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id "
      "ORDER BY h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id");
  return stmts;
}

// The key made of columns [0, parts) of `row`, padded with zeros.
Key key_of(const Rows& rows, size_t row, size_t parts) {
  Key key = {0, 0, 0};
  for (size_t part = 0; part < parts; ++part) key[part] = rows.get_int(row, part);
  return key;
}

// Runs every query of `stmts` in `txn` and fills `*snapshot` (replacing its
// contents, so that a retried transaction body starts afresh). Throws
// BackendError.
void read_snapshot(Txn& txn, const Statements& stmts, Snapshot* snapshot) {
  *snapshot = Snapshot{};
  Rows rows;

  txn.exec(stmts.warehouses, {}, &rows);
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->warehouses.push_back({key_of(rows, row, 1), rows.get_decimal(row, 1, kMoneyScale)});
  }

  txn.exec(stmts.districts, {}, &rows);
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->districts.push_back(
        {key_of(rows, row, 2), rows.get_decimal(row, 2, kMoneyScale), rows.get_int(row, 3)});
  }

  txn.exec(stmts.orders, {}, &rows);
  snapshot->orders.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    OrderRow order;
    order.key = key_of(rows, row, 3);
    order.carrier_null = rows.is_null(row, 3);
    if (!order.carrier_null) order.carrier_id = rows.get_int(row, 3);
    order.ol_cnt = rows.get_int(row, 4);
    snapshot->orders.push_back(order);
  }

  txn.exec(stmts.new_orders, {}, &rows);
  snapshot->new_orders.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->new_orders.push_back({key_of(rows, row, 3)});
  }

  auto read_line_counts = [&](StmtId stmt, std::vector<LineCount>* counts) {
    txn.exec(stmt, {}, &rows);
    counts->reserve(rows.size());
    for (size_t row = 0; row < rows.size(); ++row) {
      counts->push_back({key_of(rows, row, 3), rows.get_int(row, 3)});
    }
  };
  read_line_counts(stmts.lines_per_order, &snapshot->lines_per_order);
  read_line_counts(stmts.undelivered_lines_per_order, &snapshot->undelivered_lines_per_order);

  txn.exec(stmts.customers, {}, &rows);
  snapshot->customers.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->customers.push_back({key_of(rows, row, 3), rows.get_decimal(row, 3, kMoneyScale),
                                   rows.get_decimal(row, 4, kMoneyScale)});
  }

  txn.exec(stmts.delivered_per_customer, {}, &rows);
  snapshot->delivered_per_customer.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->delivered_per_customer.push_back(
        {key_of(rows, row, 3), rows.get_decimal(row, 3, kMoneyScale)});
  }

  txn.exec(stmts.payments, {}, &rows);
  snapshot->payments.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    snapshot->payments.push_back({key_of(rows, row, 3),
                                  {rows.get_int(row, 3), rows.get_int(row, 4), 0},
                                  rows.get_decimal(row, 5, kMoneyScale)});
  }
}

// ---------------------------------------------------------------------------
// Figures rolled up in C++.

// Everything known about one district key from the ORDER, NEW-ORDER,
// ORDER-LINE and HISTORY tables. Counts are 0 when the district has no rows
// in a table.
struct DistrictStats {
  Key key{};
  int64_t orders = 0;
  int64_t max_o_id = 0;  // 0 without orders
  int64_t ol_cnt_sum = 0;
  int64_t new_orders = 0;
  int64_t min_no_o_id = 0;  // meaningful when new_orders > 0
  int64_t max_no_o_id = 0;  // meaningful when new_orders > 0
  int64_t order_lines = 0;
  int64_t payment_groups = 0;  // PaymentSum rows paid at this district
  int64_t history_amount = 0;  // cents, by H_W_ID/H_D_ID
};

// Per-warehouse sums of district and history figures.
struct WarehouseStats {
  Key key{};
  int64_t districts = 0;
  int64_t district_ytd_sum = 0;  // cents
  int64_t payment_groups = 0;    // PaymentSum rows paid at this warehouse
  int64_t history_amount = 0;    // cents, by H_W_ID
};

// One order's ORDER-LINE counts.
struct LineStats {
  Key key{};
  int64_t lines = 0;
  int64_t undelivered = 0;  // lines with OL_DELIVERY_D NULL
};

// One customer key's delivered amount and payments, for conditions 10, 12.
struct CustomerSums {
  Key key{};
  bool has_delivered = false;
  int64_t delivered = 0;  // cents
  int64_t paid = 0;       // cents, by H_C_*
};

// Returns the entry of `key` in `stats`, creating it. Reuses `*cached` while
// the key does not change, so key-sorted input costs one map lookup per
// district rather than one per row.
DistrictStats& district_entry(std::map<Key, DistrictStats>& stats, const Key& key,
                              DistrictStats** cached) {
  if (*cached == nullptr || (*cached)->key != key) {
    *cached = &stats[key];
    (*cached)->key = key;
  }
  return **cached;
}

// Per-district figures of every district key that appears in ORDER,
// NEW-ORDER, ORDER-LINE or HISTORY, in key order.
std::vector<DistrictStats> district_stats(const Snapshot& snapshot) {
  std::map<Key, DistrictStats> stats;
  DistrictStats* cached = nullptr;
  for (const OrderRow& order : snapshot.orders) {
    DistrictStats& district = district_entry(stats, district_of(order.key), &cached);
    ++district.orders;
    district.max_o_id = std::max(district.max_o_id, order.key[2]);
    district.ol_cnt_sum += order.ol_cnt;
  }
  for (const NewOrderRow& new_order : snapshot.new_orders) {
    DistrictStats& district = district_entry(stats, district_of(new_order.key), &cached);
    int64_t o_id = new_order.key[2];
    if (district.new_orders == 0) {
      district.min_no_o_id = o_id;
      district.max_no_o_id = o_id;
    }
    district.min_no_o_id = std::min(district.min_no_o_id, o_id);
    district.max_no_o_id = std::max(district.max_no_o_id, o_id);
    ++district.new_orders;
  }
  for (const LineCount& order_lines : snapshot.lines_per_order) {
    district_entry(stats, district_of(order_lines.key), &cached).order_lines += order_lines.lines;
  }
  for (const PaymentSum& payment : snapshot.payments) {
    DistrictStats& district = district_entry(stats, payment.district, &cached);
    ++district.payment_groups;
    district.history_amount += payment.amount;
  }

  std::vector<DistrictStats> sorted;
  sorted.reserve(stats.size());
  for (auto& [key, district] : stats) sorted.push_back(district);
  return sorted;
}

// Per-warehouse sums of D_YTD (from DISTRICT) and H_AMOUNT (by H_W_ID), for
// every warehouse key named by a district row or a history row.
std::vector<WarehouseStats> warehouse_stats(const std::vector<DistrictRow>& districts,
                                            const std::vector<DistrictStats>& stats) {
  std::map<Key, WarehouseStats> sums;
  for (const DistrictRow& district : districts) {
    WarehouseStats& warehouse = sums[warehouse_of(district.key)];
    warehouse.key = warehouse_of(district.key);
    ++warehouse.districts;
    warehouse.district_ytd_sum += district.ytd;
  }
  for (const DistrictStats& district : stats) {
    if (district.payment_groups == 0) continue;
    WarehouseStats& warehouse = sums[warehouse_of(district.key)];
    warehouse.key = warehouse_of(district.key);
    warehouse.payment_groups += district.payment_groups;
    warehouse.history_amount += district.history_amount;
  }
  std::vector<WarehouseStats> sorted;
  sorted.reserve(sums.size());
  for (auto& [key, warehouse] : sums) sorted.push_back(warehouse);
  return sorted;
}

// Joins the total and undelivered line counts per order.
std::vector<LineStats> line_stats(const Snapshot& snapshot) {
  std::vector<LineStats> stats;
  stats.reserve(snapshot.lines_per_order.size());
  merge_by_key(snapshot.lines_per_order, snapshot.undelivered_lines_per_order,
               [&](const LineCount* all, const LineCount* undelivered) {
                 LineStats order;
                 order.key = all != nullptr ? all->key : undelivered->key;
                 if (all != nullptr) order.lines = all->lines;
                 if (undelivered != nullptr) order.undelivered = undelivered->lines;
                 stats.push_back(order);
               });
  return stats;
}

// Joins delivered amounts and payments per customer key. Payments arrive
// split by the district paid at; consecutive rows of one customer are added.
std::vector<CustomerSums> customer_sums(const Snapshot& snapshot) {
  std::vector<CustomerSums> paid;
  for (const PaymentSum& payment : snapshot.payments) {
    if (paid.empty() || paid.back().key != payment.key) {
      paid.push_back(CustomerSums{});
      paid.back().key = payment.key;
    }
    paid.back().paid += payment.amount;
  }

  std::vector<CustomerSums> sums;
  sums.reserve(std::max(paid.size(), snapshot.delivered_per_customer.size()));
  merge_by_key(snapshot.delivered_per_customer, paid,
               [&](const DeliveredSum* delivered, const CustomerSums* payments) {
                 CustomerSums customer = payments != nullptr ? *payments : CustomerSums{};
                 if (delivered != nullptr) {
                   customer.key = delivered->key;
                   customer.has_delivered = true;
                   customer.delivered = delivered->amount;
                 }
                 sums.push_back(customer);
               });
  return sums;
}

// ---------------------------------------------------------------------------
// The conditions: each function records verdicts in the tallies it is given;
// see clause 3.3.2.N for condition N.

// 1: W_YTD = sum(D_YTD).  8: W_YTD = sum(H_AMOUNT) by H_W_ID.
void check_warehouses(const std::vector<WarehouseRow>& warehouses,
                      const std::vector<WarehouseStats>& stats, Tally* ytd_vs_districts,
                      Tally* ytd_vs_history) {
  merge_by_key(warehouses, stats, [&](const WarehouseRow* warehouse, const WarehouseStats* sums) {
    const Key& key = warehouse != nullptr ? warehouse->key : sums->key;
    if (warehouse == nullptr) {
      auto orphan = [&] {
        return fmt::format("{}: no WAREHOUSE row, but sum(D_YTD) = {}, sum(H_AMOUNT) = {}",
                           warehouse_name(key), money_text(sums->district_ytd_sum),
                           money_text(sums->history_amount));
      };
      if (sums->districts > 0) ytd_vs_districts->check(false, orphan);
      if (sums->payment_groups > 0) ytd_vs_history->check(false, orphan);
      return;
    }
    int64_t district_ytd_sum = sums != nullptr ? sums->district_ytd_sum : 0;
    int64_t history_amount = sums != nullptr ? sums->history_amount : 0;
    ytd_vs_districts->check(warehouse->ytd == district_ytd_sum, [&] {
      return fmt::format("{}: W_YTD = {}, sum(D_YTD) = {}", warehouse_name(key),
                         money_text(warehouse->ytd), money_text(district_ytd_sum));
    });
    ytd_vs_history->check(warehouse->ytd == history_amount, [&] {
      return fmt::format("{}: W_YTD = {}, sum(H_AMOUNT) = {}", warehouse_name(key),
                         money_text(warehouse->ytd), money_text(history_amount));
    });
  });
}

// 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) (the latter where NEW-ORDER
//    rows exist).
// 9: D_YTD = sum(H_AMOUNT) by H_W_ID, H_D_ID.
// 11: count(ORDER) - count(NEW-ORDER) = 2100.
// These name D_ columns, so figures of a district without a DISTRICT row fail.
void check_district_rows(const std::vector<DistrictRow>& districts,
                         const std::vector<DistrictStats>& stats, Tally* next_o_id,
                         Tally* ytd_vs_history, Tally* delivered_count) {
  const DistrictStats no_rows;
  merge_by_key(districts, stats, [&](const DistrictRow* district, const DistrictStats* figures) {
    if (district == nullptr) {
      auto orphan = [&] {
        return fmt::format(
            "{}: no DISTRICT row, but {} orders, {} new orders, sum(H_AMOUNT) = {}",
            district_name(figures->key), figures->orders, figures->new_orders,
            money_text(figures->history_amount));
      };
      bool has_orders = figures->orders > 0 || figures->new_orders > 0;
      if (has_orders) next_o_id->check(false, orphan);
      if (figures->payment_groups > 0) ytd_vs_history->check(false, orphan);
      if (has_orders && delivered_count != nullptr) delivered_count->check(false, orphan);
      return;
    }
    const Key& key = district->key;
    const DistrictStats& counts = figures != nullptr ? *figures : no_rows;

    int64_t last_o_id = district->next_o_id - 1;
    bool new_orders_ok = counts.new_orders == 0 || counts.max_no_o_id == last_o_id;
    next_o_id->check(counts.max_o_id == last_o_id && new_orders_ok, [&] {
      std::string max_no_o_id =
          counts.new_orders == 0 ? "none" : std::to_string(counts.max_no_o_id);
      return fmt::format("{}: D_NEXT_O_ID - 1 = {}, max(O_ID) = {}, max(NO_O_ID) = {}",
                         district_name(key), last_o_id, counts.max_o_id, max_no_o_id);
    });

    ytd_vs_history->check(district->ytd == counts.history_amount, [&] {
      return fmt::format("{}: D_YTD = {}, sum(H_AMOUNT) = {}", district_name(key),
                         money_text(district->ytd), money_text(counts.history_amount));
    });

    if (delivered_count != nullptr) {
      delivered_count->check(counts.orders - counts.new_orders == kDeliveredAtLoad, [&] {
        return fmt::format("{}: count(ORDER) - count(NEW-ORDER) = {} - {} = {}, expected {}",
                           district_name(key), counts.orders, counts.new_orders,
                           counts.orders - counts.new_orders, kDeliveredAtLoad);
      });
    }
  });
}

// 3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER), where rows exist.
// 4: sum(O_OL_CNT) = count(ORDER-LINE).
// These name no D_ column: they are checked for every district key found in
// the order tables.
void check_district_figures(const std::vector<DistrictStats>& stats, Tally* new_order_range,
                            Tally* order_line_count) {
  for (const DistrictStats& district : stats) {
    if (district.new_orders > 0) {
      int64_t span = district.max_no_o_id - district.min_no_o_id + 1;
      new_order_range->check(span == district.new_orders, [&] {
        return fmt::format(
            "{}: max(NO_O_ID) - min(NO_O_ID) + 1 = {} - {} + 1 = {}, count(NEW-ORDER) = {}",
            district_name(district.key), district.max_no_o_id, district.min_no_o_id, span,
            district.new_orders);
      });
    }
    if (district.orders > 0 || district.order_lines > 0) {
      order_line_count->check(district.ol_cnt_sum == district.order_lines, [&] {
        return fmt::format("{}: sum(O_OL_CNT) = {}, count(ORDER-LINE) = {}",
                           district_name(district.key), district.ol_cnt_sum,
                           district.order_lines);
      });
    }
  }
}

// 5: O_CARRIER_ID is NULL exactly when a NEW-ORDER row exists (a NEW-ORDER
//    row without its ORDER row fails too).
void check_carrier_vs_new_order(const Snapshot& snapshot, Tally* tally) {
  merge_by_key(snapshot.orders, snapshot.new_orders,
               [&](const OrderRow* order, const NewOrderRow* new_order) {
                 if (order == nullptr) {
                   tally->check(false, [&] {
                     return fmt::format("{}: NEW-ORDER row without ORDER row",
                                        order_name(new_order->key));
                   });
                   return;
                 }
                 bool has_new_order = new_order != nullptr;
                 tally->check(order->carrier_null == has_new_order, [&] {
                   std::string carrier = order->carrier_null
                                             ? std::string("NULL")
                                             : std::to_string(order->carrier_id);
                   return fmt::format("{}: O_CARRIER_ID = {}, NEW-ORDER row {}",
                                      order_name(order->key), carrier,
                                      has_new_order ? "present" : "absent");
                 });
               });
}

// 6: O_OL_CNT = count of the order's ORDER-LINE rows (lines of a missing
//    order fail too).
// 7: OL_DELIVERY_D is NULL exactly when the order's O_CARRIER_ID is NULL.
void check_order_lines(const std::vector<OrderRow>& orders, const std::vector<LineStats>& lines,
                       Tally* line_count, Tally* delivery_dates) {
  const LineStats no_lines;
  merge_by_key(orders, lines, [&](const OrderRow* order, const LineStats* order_lines) {
    if (order == nullptr) {
      line_count->check(false, [&] {
        return fmt::format("{}: {} ORDER-LINE rows without ORDER row",
                           order_name(order_lines->key), order_lines->lines);
      });
      return;
    }
    const LineStats& counts = order_lines != nullptr ? *order_lines : no_lines;
    line_count->check(order->ol_cnt == counts.lines, [&] {
      return fmt::format("{}: O_OL_CNT = {}, count(ORDER-LINE) = {}", order_name(order->key),
                         order->ol_cnt, counts.lines);
    });
    int64_t expected_undelivered = order->carrier_null ? counts.lines : 0;
    delivery_dates->check(counts.undelivered == expected_undelivered, [&] {
      std::string carrier =
          order->carrier_null ? std::string("NULL") : std::to_string(order->carrier_id);
      return fmt::format("{}: O_CARRIER_ID = {}, {} of {} lines have OL_DELIVERY_D NULL",
                         order_name(order->key), carrier, counts.undelivered, counts.lines);
    });
  });
}

// 10: C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT).
// 12: C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT).
// Delivered lines or payments of a missing customer fail (12: delivered
// lines only, the sole input of its right side).
void check_customers(const std::vector<CustomerRow>& customers,
                     const std::vector<CustomerSums>& sums, Tally* balance,
                     Tally* balance_plus_ytd) {
  const CustomerSums nothing;
  merge_by_key(customers, sums, [&](const CustomerRow* customer, const CustomerSums* figures) {
    if (customer == nullptr) {
      auto orphan = [&] {
        return fmt::format("{}: no CUSTOMER row, but delivered OL_AMOUNT {} and H_AMOUNT {}",
                           customer_name(figures->key), money_text(figures->delivered),
                           money_text(figures->paid));
      };
      balance->check(false, orphan);
      if (figures->has_delivered) balance_plus_ytd->check(false, orphan);
      return;
    }
    const CustomerSums& amounts = figures != nullptr ? *figures : nothing;
    int64_t expected_balance = amounts.delivered - amounts.paid;
    balance->check(customer->balance == expected_balance, [&] {
      return fmt::format("{}: C_BALANCE = {}, sum(OL_AMOUNT) - sum(H_AMOUNT) = {} - {} = {}",
                         customer_name(customer->key), money_text(customer->balance),
                         money_text(amounts.delivered), money_text(amounts.paid),
                         money_text(expected_balance));
    });
    int64_t balance_plus_ytd_payment = customer->balance + customer->ytd_payment;
    balance_plus_ytd->check(balance_plus_ytd_payment == amounts.delivered, [&] {
      return fmt::format("{}: C_BALANCE + C_YTD_PAYMENT = {} + {} = {}, sum(OL_AMOUNT) = {}",
                         customer_name(customer->key), money_text(customer->balance),
                         money_text(customer->ytd_payment), money_text(balance_plus_ytd_payment),
                         money_text(amounts.delivered));
    });
  });
}

}  // namespace

std::vector<ConditionResult> check_consistency(Connection& conn, bool include_condition_11) {
  Statements stmts = prepare_statements(conn);
  Snapshot snapshot;
  conn.read([&](Txn& txn) {
    read_snapshot(txn, stmts, &snapshot);
    return Outcome::kCommit;
  });

  std::vector<DistrictStats> districts = district_stats(snapshot);
  std::vector<WarehouseStats> warehouses = warehouse_stats(snapshot.districts, districts);

  Tally c1(1, "warehouses"), c2(2, "districts"), c3(3, "districts with NEW-ORDER rows"),
      c4(4, "districts"), c5(5, "orders"), c6(6, "orders"), c7(7, "orders"), c8(8, "warehouses"),
      c9(9, "districts"), c10(10, "customers"), c11(11, "districts"), c12(12, "customers");

  check_warehouses(snapshot.warehouses, warehouses, &c1, &c8);
  check_district_rows(snapshot.districts, districts, &c2, &c9,
                      include_condition_11 ? &c11 : nullptr);
  check_district_figures(districts, &c3, &c4);
  check_carrier_vs_new_order(snapshot, &c5);
  check_order_lines(snapshot.orders, line_stats(snapshot), &c6, &c7);
  check_customers(snapshot.customers, customer_sums(snapshot), &c10, &c12);

  std::vector<ConditionResult> results;
  for (const Tally* tally : {&c1, &c2, &c3, &c4, &c5, &c6, &c7, &c8, &c9, &c10}) {
    results.push_back(tally->result());
  }
  if (include_condition_11) results.push_back(c11.result());
  results.push_back(c12.result());
  return results;
}

CardinalityResult check_cardinality(Connection& conn, int warehouses) {
  struct Expected {
    const char* table;
    int64_t rows;
  };
  const int64_t w = warehouses;
  const std::array<Expected, 5> tables = {{
      {"warehouse", w},
      {"district", kDistrictsPerWarehouse * w},
      {"customer", int64_t{kCustomersPerDistrict} * kDistrictsPerWarehouse * w},
      {"stock", int64_t{kStockPerWarehouse} * w},
      {"item", kItems},
  }};
  std::vector<StmtId> stmts;
  for (const Expected& expected : tables) {
    stmts.push_back(conn.prepare(fmt::format("SELECT COUNT(*) FROM {}", expected.table)));
  }
  std::array<int64_t, tables.size()> found{};
  conn.read([&](Txn& txn) {
    Rows rows;
    for (size_t table_idx = 0; table_idx < tables.size(); ++table_idx) {
      txn.exec(stmts[table_idx], {}, &rows);
      found[table_idx] = rows.size() == 0 ? 0 : rows.get_int(0, 0);
    }
    return Outcome::kCommit;
  });
  CardinalityResult result;
  result.ok = true;
  std::vector<std::string> parts;
  for (size_t table_idx = 0; table_idx < tables.size(); ++table_idx) {
    if (found[table_idx] != tables[table_idx].rows) {
      if (result.ok) parts.clear();
      result.ok = false;
      parts.push_back(fmt::format("{}: {} rows, expected {}", tables[table_idx].table,
                                  found[table_idx], tables[table_idx].rows));
    } else if (result.ok) {
      parts.push_back(fmt::format("{} {}", tables[table_idx].table, found[table_idx]));
    }
  }
  result.detail = result.ok
                      ? fmt::format("rows: {}", fmt::join(parts, ", "))
                      : fmt::format("{} (W={} in tpcc_meta)", fmt::join(parts, "; "), warehouses);
  return result;
}

void print_cardinality(const CardinalityResult& result) {
  fmt::print("  cardinality   {}  {}\n", result.ok ? "ok  " : "FAIL", result.detail);
}

}  // namespace tpcc
