#include "tpcc/transactions.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "tpcc/schema.h"

namespace tpcc {
namespace {

int32_t other_warehouse(Rng& rng, int warehouses, int home_w) {
  // Uniform over the W-1 warehouses other than home.
  auto pick = static_cast<int32_t>(rng.uniform(1, warehouses - 1));
  return pick >= home_w ? pick + 1 : pick;
}

// Position ceil(n/2) (1-based) of the customers sorted by C_FIRST
// (clause 2.5.2.2). Throws when there is none.
int32_t middle_customer(const Rows& rows, int32_t w_id, int32_t d_id, const std::string& c_last) {
  if (rows.empty()) {
    throw BackendError(fmt::format("no customer named {} in warehouse {} district {}", c_last,
                                   w_id, d_id));
  }
  size_t position = (rows.size() + 1) / 2;  // ceil(n / 2), 1-based
  return static_cast<int32_t>(rows.get_int(position - 1, 0));
}

}  // namespace

const char* txn_type_name(TxnType type) {
  switch (type) {
    case TxnType::kNewOrder: return "new_order";
    case TxnType::kPayment: return "payment";
    case TxnType::kOrderStatus: return "order_status";
    case TxnType::kDelivery: return "delivery";
    case TxnType::kStockLevel: return "stock_level";
  }
  return "unknown";
}

bool NewOrderInput::all_local() const {
  for (int line_idx = 0; line_idx < ol_cnt; ++line_idx) {
    if (lines[line_idx].supply_w_id != w_id) return false;
  }
  return true;
}

NewOrderInput make_new_order(Rng& rng, const NURandC& c, int warehouses, int home_w,
                             int64_t now) {
  NewOrderInput in;
  in.w_id = home_w;
  in.d_id = static_cast<int32_t>(rng.uniform(1, kDistrictsPerWarehouse));
  in.c_id = static_cast<int32_t>(nurand(rng, 1023, c.c_id, 1, kCustomersPerDistrict));
  in.ol_cnt = static_cast<int32_t>(rng.uniform(5, 15));
  in.rollback = rng.uniform(1, 100) == 1;
  for (int line_idx = 0; line_idx < in.ol_cnt; ++line_idx) {
    NewOrderLine& line = in.lines[line_idx];
    line.i_id = static_cast<int32_t>(nurand(rng, 8191, c.ol_i_id, 1, kItems));
    // 1% of lines are supplied by a remote warehouse, when there is one.
    bool remote = rng.uniform(1, 100) == 1;
    line.supply_w_id = (remote && warehouses > 1) ? other_warehouse(rng, warehouses, home_w)
                                                  : home_w;
    line.quantity = static_cast<int32_t>(rng.uniform(1, 10));
  }
  if (in.rollback) in.lines[in.ol_cnt - 1].i_id = kUnusedItemId;
  in.entry_d = now;
  return in;
}

PaymentInput make_payment(Rng& rng, const NURandC& c, int warehouses, int home_w, int64_t now) {
  PaymentInput in;
  in.w_id = home_w;
  in.d_id = static_cast<int32_t>(rng.uniform(1, kDistrictsPerWarehouse));
  bool remote = rng.uniform(1, 100) > 85;
  if (!remote || warehouses == 1) {
    in.c_w_id = home_w;
    in.c_d_id = remote ? static_cast<int32_t>(rng.uniform(1, kDistrictsPerWarehouse)) : in.d_id;
  } else {
    in.c_w_id = other_warehouse(rng, warehouses, home_w);
    in.c_d_id = static_cast<int32_t>(rng.uniform(1, kDistrictsPerWarehouse));
  }
  in.by_name = rng.uniform(1, 100) <= 60;
  if (in.by_name) {
    in.c_last = last_name(nurand(rng, 255, c.c_last, 0, 999));
  } else {
    in.c_id = static_cast<int32_t>(nurand(rng, 1023, c.c_id, 1, kCustomersPerDistrict));
  }
  in.h_amount = rng.uniform(100, 500000);
  in.h_date = now;
  return in;
}

OrderStatusInput make_order_status(Rng& rng, const NURandC& c, int home_w) {
  OrderStatusInput in;
  in.w_id = home_w;
  in.d_id = static_cast<int32_t>(rng.uniform(1, kDistrictsPerWarehouse));
  in.by_name = rng.uniform(1, 100) <= 60;
  if (in.by_name) {
    in.c_last = last_name(nurand(rng, 255, c.c_last, 0, 999));
  } else {
    in.c_id = static_cast<int32_t>(nurand(rng, 1023, c.c_id, 1, kCustomersPerDistrict));
  }
  return in;
}

DeliveryInput make_delivery(Rng& rng, int home_w, int64_t now) {
  DeliveryInput in;
  in.w_id = home_w;
  in.carrier_id = static_cast<int32_t>(rng.uniform(1, 10));
  in.delivery_d = now;
  return in;
}

namespace {

// Sets *in to deliver `districts` districts (1..10) from `first` on.
void delivery_part(DeliveryInput* in, int32_t first, int districts) {
  in->first_district = first;
  in->last_district = std::min(first + std::clamp(districts, 1, kDistrictsPerWarehouse) - 1,
                               kDistrictsPerWarehouse);
}

}  // namespace

void first_delivery_step(DeliveryInput* in, int districts) {
  delivery_part(in, 1, districts);
}

bool next_delivery_step(DeliveryInput* in, int districts) {
  if (in->last_district >= kDistrictsPerWarehouse) return false;
  delivery_part(in, in->last_district + 1, districts);
  return true;
}

StockLevelInput make_stock_level(Rng& rng, int home_w, int home_d) {
  StockLevelInput in;
  in.w_id = home_w;
  in.d_id = home_d;
  in.threshold = static_cast<int32_t>(rng.uniform(10, 20));
  return in;
}

Outcome run_new_order(Txn& txn, const PreparedStatements& stmts, const NewOrderInput& in,
                      NewOrderOutput* out) {
  if (in.ol_cnt < 1 || in.ol_cnt > kMaxOrderLines) {
    throw BackendError(fmt::format("new_order: {} order lines (1 to {})", in.ol_cnt, kMaxOrderLines));
  }
  thread_local Rows rows;
  txn.exec(stmts[Stmt::kNoGetWarehouse], {integer(in.w_id)}, &rows);
  if (rows.empty()) throw BackendError(fmt::format("warehouse {} not found", in.w_id));
  int64_t w_tax = rows.get_decimal(0, 0, 4);

  // A Rows per result shape: refilled with the same types, its texts keep
  // their buffers.
  thread_local Rows customer_rows;
  txn.exec(stmts[Stmt::kNoGetCustomer], {integer(in.w_id), integer(in.d_id), integer(in.c_id)},
           &customer_rows);
  if (customer_rows.empty()) throw BackendError(fmt::format("customer {} not found", in.c_id));
  int64_t c_discount = customer_rows.get_decimal(0, 0, 4);

  // The items of all lines in one statement (a repeated item comes back once).
  static_assert(kMaxOrderLines == 15, "kNoGetItems has 15 placeholders");
  thread_local std::vector<Value> item_ids(kMaxOrderLines);
  for (int line_idx = 0; line_idx < kMaxOrderLines; ++line_idx) {
    set_int(&item_ids[line_idx], in.lines[line_idx < in.ol_cnt ? line_idx : 0].i_id);
  }
  thread_local Rows item_rows;
  txn.exec(stmts[Stmt::kNoGetItems], item_ids, &item_rows);
  std::array<int64_t, kMaxOrderLines> prices{};
  // The found items' ids, read once (at most 15 rows).
  std::array<int64_t, kMaxOrderLines> found_ids{};
  const size_t found_count = std::min<size_t>(item_rows.size(), kMaxOrderLines);
  for (size_t row = 0; row < found_count; ++row) found_ids[row] = item_rows.get_int(row, 0);
  for (int line_idx = 0; line_idx < in.ol_cnt; ++line_idx) {
    size_t found = found_count;
    for (size_t row = 0; row < found_count; ++row) {
      if (found_ids[row] == in.lines[line_idx].i_id) found = row;
    }
    if (found == found_count) {
      // The unused item of the 1% rollback case: the whole transaction is
      // rolled back (clause 2.4.2.3); the items are read before any change,
      // so nothing needs undoing.
      return Outcome::kRollback;
    }
    prices[line_idx] = item_rows.get_decimal(found, 1, 2);
  }

  // Every change is written so that it is right under READ COMMITTED too
  // (PostgreSQL): a row is changed relative to its current value first, which
  // locks it, and read afterwards, so no concurrent change can be lost. The
  // district row, which every New-Order of the district changes, is changed
  // only after the reads, to hold its lock briefly.
  txn.exec(stmts[Stmt::kNoBumpNextOrderId], {integer(in.w_id), integer(in.d_id)}, &rows);
  if (rows.empty()) throw BackendError(fmt::format("district {} not found", in.d_id));
  int64_t d_tax = rows.get_decimal(0, 0, 4);
  auto o_id = static_cast<int32_t>(rows.get_int(0, 1) - 1);

  txn.exec(stmts[Stmt::kNoInsertOrder],
           {integer(o_id), integer(in.d_id), integer(in.w_id), integer(in.c_id),
            timestamp(in.entry_d), integer(in.ol_cnt), integer(in.all_local() ? 1 : 0)});
  txn.exec(stmts[Stmt::kNoInsertNewOrder], {integer(o_id), integer(in.d_id), integer(in.w_id)});

  // Stock rows are changed in (warehouse, item) order, so that two
  // New-Orders never wait for each other's stock rows in a cycle; a stable
  // sort keeps a repeated item's lines in input order, so the result is the
  // same as in line order.
  std::array<int, kMaxOrderLines> order{};
  for (int line_idx = 0; line_idx < in.ol_cnt; ++line_idx) order[line_idx] = line_idx;
  std::stable_sort(order.begin(), order.begin() + in.ol_cnt, [&](int a, int b) {
    const NewOrderLine& la = in.lines[a];
    const NewOrderLine& lb = in.lines[b];
    return la.supply_w_id != lb.supply_w_id ? la.supply_w_id < lb.supply_w_id : la.i_id < lb.i_id;
  });
  // The lines' UPDATEs in one batch (Txn::exec_batch): solo looks their
  // stock rows up together first; the other engines run them one by one.
  constexpr size_t kStockParams = 7;
  thread_local std::array<std::vector<Value>, kMaxOrderLines> stock_params;
  thread_local std::array<Rows, kMaxOrderLines> stock_rows;
  std::array<int64_t, kMaxOrderLines> stock_matched{};
  auto stock_stmt = static_cast<Stmt>(static_cast<int>(Stmt::kNoUpdateStock01) + in.d_id - 1);
  for (int sorted = 0; sorted < in.ol_cnt; ++sorted) {
    const NewOrderLine& line = in.lines[order[sorted]];
    bool remote = line.supply_w_id != in.w_id;
    // S_QUANTITY drops by the quantity, and rises by 91 if it would fall
    // below 10 (clause 2.4.2.2), computed by the UPDATE from the current row,
    // which it returns with S_DATA and S_DIST_xx. Filled in place: the
    // slots hold integers from the last New-Order.
    std::vector<Value>& params = stock_params[sorted];
    params.resize(kStockParams);
    set_int(&params[0], line.quantity + 10);
    set_int(&params[1], line.quantity);
    set_int(&params[2], line.quantity);
    set_int(&params[3], line.quantity);
    set_int(&params[4], remote ? 1 : 0);
    set_int(&params[5], line.supply_w_id);
    set_int(&params[6], line.i_id);
  }
  txn.exec_batch(stmts[stock_stmt], std::span(stock_params.data(), in.ol_cnt),
                 std::span(stock_rows.data(), in.ol_cnt),
                 std::span(stock_matched.data(), in.ol_cnt));

  // Every line in one INSERT (kNoInsertOrderLines01 + ol_cnt - 1). Filled in
  // place: each slot keeps its type, so OL_DIST_INFO's text keeps its buffer.
  constexpr int kLineParams = 9;
  thread_local std::vector<Value> line_values;
  line_values.resize(static_cast<size_t>(kLineParams * in.ol_cnt));
  for (int sorted = 0; sorted < in.ol_cnt; ++sorted) {
    const int line_idx = order[sorted];
    const NewOrderLine& line = in.lines[line_idx];
    if (stock_matched[sorted] != 1 || stock_rows[sorted].empty()) {
      throw BackendError(fmt::format("stock ({}, {}) not found", line.supply_w_id, line.i_id));
    }
    // S_DIST_xx straight into the line's OL_DIST_INFO slot.
    Value& dist = line_values[static_cast<size_t>(kLineParams * line_idx + 8)];
    if (!std::holds_alternative<std::string>(dist)) dist.emplace<std::string>();
    stock_rows[sorted].copy_text(0, 2, &std::get<std::string>(dist));
  }
  int64_t total_cents = 0;
  for (int line_idx = 0; line_idx < in.ol_cnt; ++line_idx) {
    const NewOrderLine& line = in.lines[line_idx];
    int64_t ol_amount = line.quantity * prices[line_idx];
    total_cents += ol_amount;
    Value* slot = &line_values[static_cast<size_t>(kLineParams * line_idx)];
    set_int(&slot[0], o_id);
    set_int(&slot[1], in.d_id);
    set_int(&slot[2], in.w_id);
    set_int(&slot[3], line_idx + 1);
    set_int(&slot[4], line.i_id);
    set_int(&slot[5], line.supply_w_id);
    set_int(&slot[6], line.quantity);
    slot[7] = money(ol_amount);
  }
  auto lines_stmt = static_cast<Stmt>(static_cast<int>(Stmt::kNoInsertOrderLines01) + in.ol_cnt - 1);
  int64_t inserted = txn.exec(stmts[lines_stmt], line_values);
  if (inserted != in.ol_cnt) {
    throw BackendError(fmt::format("new_order: {} of {} order lines inserted", inserted, in.ol_cnt));
  }
  if (out != nullptr) {
    out->o_id = o_id;
    // total * (1 - discount) * (1 + w_tax + d_tax); taxes and discount at
    // scale 4, so the product is at scale 2 + 8; round half up to cents.
    __int128 scaled = static_cast<__int128>(total_cents) * (10000 - c_discount) *
                      (10000 + w_tax + d_tax);
    out->total_amount = static_cast<int64_t>((scaled + 50000000) / 100000000);
  }
  return Outcome::kCommit;
}

Outcome run_payment(Txn& txn, const PreparedStatements& stmts, const PaymentInput& in,
                    PaymentOutput* out) {
  // A Rows per result shape: refilled with the same types, its texts keep
  // their buffers.
  thread_local Rows rows;
  thread_local Rows name_rows;
  thread_local Rows customer_rows;
  thread_local Rows data_rows;
  // The warehouse and district rows, which every Payment of the warehouse
  // changes, are changed last, just before the commit, so that their row
  // locks (PostgreSQL) are held as briefly as possible; the columns read
  // from them here (names, addresses) never change.
  txn.exec(stmts[Stmt::kPayGetWarehouse], {integer(in.w_id)}, &rows);
  if (rows.empty()) throw BackendError(fmt::format("warehouse {} not found", in.w_id));
  std::string w_name = rows.get_text(0, 0);

  txn.exec(stmts[Stmt::kPayGetDistrict], {integer(in.w_id), integer(in.d_id)}, &rows);
  if (rows.empty()) throw BackendError(fmt::format("district {} not found", in.d_id));
  std::string d_name = rows.get_text(0, 0);

  int32_t c_id = in.c_id;
  if (in.by_name) {
    txn.exec(stmts[Stmt::kPayCustomersByName],
             {integer(in.c_w_id), integer(in.c_d_id), text(in.c_last)}, &name_rows);
    c_id = middle_customer(name_rows, in.c_w_id, in.c_d_id, in.c_last);
  }
  txn.exec(stmts[Stmt::kPayUpdateCustomer],
           {money(in.h_amount), money(in.h_amount), integer(in.c_w_id), integer(in.c_d_id),
            integer(c_id)},
           &customer_rows);
  if (customer_rows.empty()) throw BackendError(fmt::format("customer {} not found", c_id));
  std::string c_credit = customer_rows.get_text(0, 10);
  int64_t c_balance = customer_rows.get_decimal(0, 13, 2);  // after this payment
  if (c_credit == "BC") {
    txn.exec(stmts[Stmt::kPayGetCustomerData],
             {integer(in.c_w_id), integer(in.c_d_id), integer(c_id)}, &data_rows);
    std::string c_data = fmt::format("{} {} {} {} {} {}|", c_id, in.c_d_id, in.c_w_id, in.d_id,
                                     in.w_id, format_decimal(in.h_amount, 2));
    c_data += data_rows.get_text(0, 0);
    if (c_data.size() > 500) c_data.resize(500);
    txn.exec(stmts[Stmt::kPayUpdateCustomerBc],
             {text(std::move(c_data)), integer(in.c_w_id), integer(in.c_d_id), integer(c_id)});
  }
  txn.exec(
      stmts[Stmt::kPayInsertHistory],
      {integer(c_id), integer(in.c_d_id), integer(in.c_w_id), integer(in.d_id), integer(in.w_id),
       timestamp(in.h_date), money(in.h_amount), text(w_name + "    " + d_name)});
  txn.exec(stmts[Stmt::kPayUpdateDistrict],
           {money(in.h_amount), integer(in.w_id), integer(in.d_id)});
  txn.exec(stmts[Stmt::kPayUpdateWarehouse], {money(in.h_amount), integer(in.w_id)});
  if (out != nullptr) {
    out->c_id = c_id;
    out->c_balance = c_balance;
  }
  return Outcome::kCommit;
}

Outcome run_order_status(Txn& txn, const PreparedStatements& stmts, const OrderStatusInput& in,
                         OrderStatusOutput* out) {
  // A Rows per result shape: refilled with the same types, its texts keep
  // their buffers.
  thread_local Rows rows;
  thread_local Rows customer_rows;
  thread_local Rows line_rows;
  int32_t c_id = in.c_id;
  if (in.by_name) {
    txn.exec(stmts[Stmt::kOsCustomersByName], {integer(in.w_id), integer(in.d_id), text(in.c_last)},
             &rows);
    c_id = middle_customer(rows, in.w_id, in.d_id, in.c_last);
  }
  txn.exec(stmts[Stmt::kOsGetCustomer], {integer(in.w_id), integer(in.d_id), integer(c_id)},
           &customer_rows);
  if (customer_rows.empty()) throw BackendError(fmt::format("customer {} not found", c_id));

  txn.exec(stmts[Stmt::kOsGetLastOrder], {integer(in.w_id), integer(in.d_id), integer(c_id)},
           &rows);
  int32_t o_id = 0;
  int32_t line_count = 0;
  if (!rows.empty()) {
    o_id = static_cast<int32_t>(rows.get_int(0, 0));
    txn.exec(stmts[Stmt::kOsGetOrderLines], {integer(in.w_id), integer(in.d_id), integer(o_id)},
             &line_rows);
    line_count = static_cast<int32_t>(line_rows.size());
  }
  if (out != nullptr) {
    out->c_id = c_id;
    out->o_id = o_id;
    out->line_count = line_count;
  }
  return Outcome::kCommit;
}

Outcome run_delivery(Txn& txn, const PreparedStatements& stmts, const DeliveryInput& in,
                     DeliveryOutput* out) {
  thread_local Rows rows;
  int32_t delivered = 0;
  int32_t skipped = 0;
  if (in.first_district < 1 || in.last_district > kDistrictsPerWarehouse ||
      in.first_district > in.last_district) {
    throw BackendError(fmt::format("delivery: districts {} to {} (1 to {})", in.first_district,
                                   in.last_district, kDistrictsPerWarehouse));
  }
  for (int32_t d_id = in.first_district; d_id <= in.last_district; ++d_id) {
    txn.exec(stmts[Stmt::kDlOldestNewOrder], {integer(in.w_id), integer(d_id)}, &rows);
    if (rows.empty()) {
      ++skipped;  // no undelivered order in this district (clause 2.7.4.2)
      continue;
    }
    int64_t o_id = rows.get_int(0, 0);
    if (txn.exec(stmts[Stmt::kDlDeleteNewOrder],
                 {integer(in.w_id), integer(d_id), integer(o_id)}) == 0) {
      // Under READ COMMITTED a concurrent Delivery took this order first
      // (its DELETE won the row): look for the district's next oldest.
      --d_id;
      continue;
    }
    txn.exec(stmts[Stmt::kDlUpdateOrderCarrier],
             {integer(in.carrier_id), integer(in.w_id), integer(d_id), integer(o_id)}, &rows);
    if (rows.empty()) {
      throw BackendError(fmt::format("order ({}, {}, {}) not found", in.w_id, d_id, o_id));
    }
    int64_t c_id = rows.get_int(0, 0);
    // The lines' amounts come back from their UPDATE; their sum is exact
    // (cents).
    txn.exec(stmts[Stmt::kDlUpdateOrderLines],
             {timestamp(in.delivery_d), integer(in.w_id), integer(d_id), integer(o_id)}, &rows);
    if (rows.empty()) {
      throw BackendError(fmt::format("order ({}, {}, {}) has no lines", in.w_id, d_id, o_id));
    }
    int64_t amount = 0;
    for (size_t line = 0; line < rows.size(); ++line) amount += rows.get_decimal(line, 0, 2);
    txn.exec(stmts[Stmt::kDlUpdateCustomer],
             {money(amount), integer(in.w_id), integer(d_id), integer(c_id)});
    ++delivered;
  }
  if (out != nullptr) {
    out->delivered = delivered;
    out->skipped = skipped;
  }
  return Outcome::kCommit;
}

Outcome run_stock_level(Txn& txn, const PreparedStatements& stmts, const StockLevelInput& in,
                        StockLevelOutput* out) {
  thread_local Rows rows;
  txn.exec(stmts[Stmt::kSlGetNextOrderId], {integer(in.w_id), integer(in.d_id)}, &rows);
  if (rows.empty()) throw BackendError(fmt::format("district {} not found", in.d_id));
  int64_t next_o_id = rows.get_int(0, 0);
  txn.exec(stmts[Stmt::kSlCountLowStock],
           {integer(in.w_id), integer(in.d_id), integer(next_o_id), integer(next_o_id - 20),
            integer(in.w_id), integer(in.threshold)},
           &rows);
  if (out != nullptr) out->low_stock = rows.empty() ? 0 : rows.get_int(0, 0);
  return Outcome::kCommit;
}

}  // namespace tpcc
