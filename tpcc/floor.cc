// The engine's floor under TPC-C's New-Order: the same reads, changes and
// inserts as tpcc's New-Order (tpcc/transactions.cc), written straight
// against WriteTxn (keys built from integers, rows decoded in place, column
// patches) with no SQL layer, no harness and no value conversions between
// them. It answers the question the CPU target asks (issue 7: process CPU
// per transaction <= 10 us at W=1 T=64): how much of a New-Order's cost is
// the engine's own work, and so how much compiled statement plans could
// save at most. results/engine-floor/README.md has the figures.
//
//   tpcc_floor --dir DIR [--seconds S] [--terminals T] [--seed N]
//
// DIR is a loaded TPC-C W=1 database of solo (`tpcc load --engine solo
// --storage disk --dir DIR --warehouses 1`); the run changes it, so pass a
// copy. T writes are kept in flight (Database::submit), as tpcc's driver
// does. Inputs are tpcc's (make_new_order, clause 2.4.1) except that no
// New-Order uses an unused item: the 1% rollbacks are drawn again. Prints
// tps, the owner's busy time per New-Order and the process CPU per New-Order.
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "solo/codec.h"
#include "solo/database.h"
#include "tpcc/random.h"
#include "tpcc/transactions.h"

namespace {

using solo::ColumnView;
using solo::Status;
using solo::TableInfo;
using solo::Value;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "tpcc_floor: %s\n", message.c_str());
  std::exit(1);
}

void check(const Status& status, const char* what) {
  if (!status.ok()) die(std::string(what) + ": " + status.ToString());
}

// A table and where its columns are, by name.
struct Table {
  const TableInfo* info = nullptr;
  uint32_t column(const char* name) const {
    const auto& columns = info->schema.columns;
    for (uint32_t idx = 0; idx < columns.size(); ++idx) {
      if (columns[idx].name == name) return idx;
    }
    die(std::string("no column ") + name + " in " + info->schema.name);
  }
  // The primary key of integer key values given in key order.
  void key(std::initializer_list<int64_t> values, std::string* out) const {
    out->clear();
    size_t part = 0;
    for (int64_t value : values) {
      const uint32_t column = info->schema.primary_key[part++];
      if (!solo::append_integer_key(info->schema.columns[column], value, out)) die("key value");
    }
  }
};

using tpcc::NewOrderInput;

// Column positions, looked up once.
struct Schema {
  Table warehouse, district, customer, item, stock, orders, new_order, order_line;
  uint32_t w_tax, d_tax, d_next_o_id, c_discount, c_last, c_credit, i_price, i_name, i_data;
  uint32_t s_quantity, s_ytd, s_order_cnt, s_remote_cnt, s_data, s_dist_01;
};

// What a New-Order hands back to its terminal (kept so nothing is optimized away).
struct Answer {
  int64_t total = 0;
  std::string c_last, c_credit;
  std::array<std::string, 15> i_name, i_data, s_data, dist_info;
};

class NewOrder {
 public:
  NewOrder(const Schema& schema, const NewOrderInput& in) : s_(schema), in_(in) {}

  Status operator()(solo::WriteTxn& txn) {
    Status status;
    // Warehouse and customer: read.
    s_.warehouse.key({in_.w_id}, &key_);
    std::string_view row;
    if (!(status = txn.get(s_.warehouse.info->id, key_, &row)).ok()) return status;
    decode(s_.warehouse, row, s_.w_tax + 1);
    const int64_t w_tax = cols_[s_.w_tax].int_value;
    s_.customer.key({in_.w_id, in_.d_id, in_.c_id}, &key_);
    if (!(status = txn.get(s_.customer.info->id, key_, &row)).ok()) return status;
    decode(s_.customer, row, s_.c_discount + 1);
    const int64_t c_discount = cols_[s_.c_discount].int_value;
    answer_.c_last.assign(cols_[s_.c_last].string);
    answer_.c_credit.assign(cols_[s_.c_credit].string);
    // Items: read, each once.
    std::array<int64_t, 15> prices{};
    for (int line = 0; line < in_.ol_cnt; ++line) {
      s_.item.key({in_.lines[line].i_id}, &key_);
      if (!(status = txn.get(s_.item.info->id, key_, &row)).ok()) return status;
      decode(s_.item, row, s_.i_data + 1);
      prices[line] = cols_[s_.i_price].int_value;
      answer_.i_name[line].assign(cols_[s_.i_name].string);
      answer_.i_data[line].assign(cols_[s_.i_data].string);
    }
    // District: the next order id, bumped.
    s_.district.key({in_.w_id, in_.d_id}, &key_);
    if (!(status = txn.get_for_update(s_.district.info->id, key_, &row)).ok()) return status;
    decode(s_.district, row, s_.district.info->schema.columns.size());
    const int64_t d_tax = cols_[s_.d_tax].int_value;
    const int64_t o_id = cols_[s_.d_next_o_id].int_value;
    values_.assign(1, Value::Int(o_id + 1));
    if (!(status = patch(txn, s_.district, row, {s_.d_next_o_id})).ok()) return status;
    // The order and its new_order row.
    row_.assign({Value::Int(o_id), Value::Int(in_.d_id), Value::Int(in_.w_id), Value::Int(in_.c_id),
                 Value::Int(in_.entry_d), Value(), Value::Int(in_.ol_cnt),
                 Value::Int(in_.all_local() ? 1 : 0)});
    if (!(status = txn.insert(s_.orders.info->id, row_)).ok()) return status;
    row_.assign({Value::Int(o_id), Value::Int(in_.d_id), Value::Int(in_.w_id)});
    if (!(status = txn.insert(s_.new_order.info->id, row_)).ok()) return status;
    // Stock, in item order (as tpcc does, to avoid deadlocks elsewhere).
    std::array<int, 15> order{};
    for (int line = 0; line < in_.ol_cnt; ++line) order[line] = line;
    std::stable_sort(order.begin(), order.begin() + in_.ol_cnt, [&](int a, int b) {
      const tpcc::NewOrderLine& la = in_.lines[a];
      const tpcc::NewOrderLine& lb = in_.lines[b];
      return la.supply_w_id != lb.supply_w_id ? la.supply_w_id < lb.supply_w_id : la.i_id < lb.i_id;
    });
    const uint32_t s_dist = s_.s_dist_01 + static_cast<uint32_t>(in_.d_id) - 1;
    for (int sorted = 0; sorted < in_.ol_cnt; ++sorted) {
      const tpcc::NewOrderLine& line = in_.lines[order[sorted]];
      s_.stock.key({line.supply_w_id, line.i_id}, &key_);
      if (!(status = txn.get_for_update(s_.stock.info->id, key_, &row)).ok()) return status;
      decode(s_.stock, row, s_.stock.info->schema.columns.size());
      const int64_t quantity = cols_[s_.s_quantity].int_value;
      const int64_t next =
          quantity >= line.quantity + 10 ? quantity - line.quantity : quantity - line.quantity + 91;
      answer_.s_data[order[sorted]].assign(cols_[s_.s_data].string);
      answer_.dist_info[order[sorted]].assign(cols_[s_dist].string);
      values_.assign(
          {Value::Int(next), Value::Int(cols_[s_.s_ytd].int_value + line.quantity),
           Value::Int(cols_[s_.s_order_cnt].int_value + 1),
           Value::Int(cols_[s_.s_remote_cnt].int_value + (line.supply_w_id != in_.w_id ? 1 : 0))});
      status =
          patch(txn, s_.stock, row, {s_.s_quantity, s_.s_ytd, s_.s_order_cnt, s_.s_remote_cnt});
      if (!status.ok()) return status;
    }
    // The order lines.
    int64_t total = 0;
    for (int line = 0; line < in_.ol_cnt; ++line) {
      const int64_t amount = in_.lines[line].quantity * prices[line];
      total += amount;
      row_.assign({Value::Int(o_id), Value::Int(in_.d_id), Value::Int(in_.w_id),
                   Value::Int(line + 1), Value::Int(in_.lines[line].i_id),
                   Value::Int(in_.lines[line].supply_w_id), Value(),
                   Value::Int(in_.lines[line].quantity), Value::Int(amount),
                   Value::String(answer_.dist_info[line])});
      if (!(status = txn.insert(s_.order_line.info->id, row_)).ok()) return status;
    }
    // total * (1 - discount) * (1 + w_tax + d_tax), in the units tpcc keeps.
    answer_.total = total * (10000 - c_discount) / 10000 * (10000 + w_tax + d_tax) / 10000;
    return Status::OK();
  }

  const Answer& answer() const { return answer_; }

 private:
  void decode(const Table& table, std::string_view row, size_t count) {
    cols_.resize(table.info->schema.columns.size());
    check(solo::decode_leading_columns(table.info->schema, row, count, cols_), "decode");
  }
  // Patches `columns` of the row just read for update with values_.
  Status patch(solo::WriteTxn& txn, const Table& table, std::string_view row,
               std::initializer_list<uint32_t> columns) {
    columns_.assign(columns);
    const solo::DecodedRow decoded{row, cols_};
    return txn.patch_columns(table.info->id, key_, columns_, values_, nullptr, &decoded);
  }

  const Schema& s_;
  const NewOrderInput& in_;
  std::string key_;
  std::vector<ColumnView> cols_;
  std::vector<Value> values_;
  std::vector<uint32_t> columns_;
  solo::Row row_;
  Answer answer_;
};

struct Terminal {
  NewOrderInput input;
  std::unique_ptr<NewOrder> body;
  solo::PendingWrite pending;
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  double seconds = 10;
  int terminals = 64;
  uint64_t seed = 1;
  for (int arg = 1; arg < argc; ++arg) {
    std::string name = argv[arg];
    if (name == "-h" || name == "--help") {
      std::printf(
          "usage: tpcc_floor --dir DIR [--seconds S] [--terminals T] [--seed N]\n"
          "New-Order written straight against the engine (no SQL), T in flight, on a\n"
          "copy of a loaded TPC-C W=1 solo database DIR (it is changed).\n");
      return 0;
    }
    if (arg + 1 >= argc) die("missing value for " + name);
    std::string value = argv[++arg];
    char* end = nullptr;
    auto whole = [&] {  // the value was a number, all of it
      if (end == value.c_str() || *end != '\0') die("bad number '" + value + "' for " + name);
    };
    if (name == "--dir") {
      dir = value;
    } else if (name == "--seconds") {
      seconds = std::strtod(value.c_str(), &end);
      whole();
    } else if (name == "--terminals") {
      terminals = static_cast<int>(std::strtol(value.c_str(), &end, 10));
      whole();
    } else if (name == "--seed") {
      seed = std::strtoull(value.c_str(), &end, 10);
      whole();
    } else {
      die("unknown option " + name + " (see --help)");
    }
  }
  if (dir.empty()) die("--dir DIR is required (a loaded TPC-C W=1 database, see --help)");
  if (seconds <= 0 || terminals < 1) die("--seconds must be > 0 and --terminals >= 1");

  solo::Options options;
  options.dir = dir;
  auto opened = solo::Database::open(options);
  if (!opened.ok()) die("cannot open " + dir + ": " + opened.status().ToString());
  std::unique_ptr<solo::Database> db = std::move(opened.value());

  Schema schema;
  check(db->read([&](solo::ReadTxn& txn) {
    const solo::Catalog& catalog = txn.catalog();
    auto table = [&](const char* name) {
      const TableInfo* info = catalog.find_table(name);
      if (info == nullptr)
        die(std::string("no table ") + name + " (is DIR a loaded tpcc database?)");
      return Table{info};
    };
    schema.warehouse = table("warehouse");
    schema.district = table("district");
    schema.customer = table("customer");
    schema.item = table("item");
    schema.stock = table("stock");
    schema.orders = table("orders");
    schema.new_order = table("new_order");
    schema.order_line = table("order_line");
    return Status::OK();
  }),
        "catalog");
  schema.w_tax = schema.warehouse.column("w_tax");
  schema.d_tax = schema.district.column("d_tax");
  schema.d_next_o_id = schema.district.column("d_next_o_id");
  schema.c_discount = schema.customer.column("c_discount");
  schema.c_last = schema.customer.column("c_last");
  schema.c_credit = schema.customer.column("c_credit");
  schema.i_price = schema.item.column("i_price");
  schema.i_name = schema.item.column("i_name");
  schema.i_data = schema.item.column("i_data");
  schema.s_quantity = schema.stock.column("s_quantity");
  schema.s_ytd = schema.stock.column("s_ytd");
  schema.s_order_cnt = schema.stock.column("s_order_cnt");
  schema.s_remote_cnt = schema.stock.column("s_remote_cnt");
  schema.s_data = schema.stock.column("s_data");
  schema.s_dist_01 = schema.stock.column("s_dist_01");

  // Inputs as tpcc's terminals draw them (make_new_order), W=1; an input of
  // the 1% rollback case is drawn again (the floor measures committed ones).
  tpcc::Rng rng(seed);
  const tpcc::NURandC load_c = tpcc::make_load_c(rng);
  const tpcc::NURandC run_c = tpcc::make_run_c(rng, load_c);
  auto next_input = [&](NewOrderInput* in) {
    const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    do {
      *in = tpcc::make_new_order(rng, run_c, /*warehouses=*/1, /*home_w=*/1, now);
    } while (in->rollback);
  };

  std::vector<Terminal> slots(static_cast<size_t>(terminals));
  std::deque<size_t> in_flight;
  auto submit = [&](size_t idx) {
    Terminal& terminal = slots[idx];
    next_input(&terminal.input);
    // One body per terminal, kept: its buffers are warm from its last New-Order.
    if (!terminal.body) terminal.body = std::make_unique<NewOrder>(schema, terminal.input);
    check(db->submit(terminal.pending, *terminal.body), "submit");
    in_flight.push_back(idx);
  };
  using Clock = std::chrono::steady_clock;
  auto cpu_now = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + usage.ru_utime.tv_usec +
           usage.ru_stime.tv_usec;
  };
  const solo::Stats before = db->stats();
  const double cpu_before = cpu_now();
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (size_t idx = 0; idx < slots.size(); ++idx) submit(idx);
  uint64_t done = 0;
  int64_t checksum = 0;
  while (!in_flight.empty()) {
    size_t idx = in_flight.front();
    in_flight.pop_front();
    check(db->finish(slots[idx].pending), "new_order");
    checksum += slots[idx].body->answer().total;
    ++done;
    if (Clock::now() < end) submit(idx);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu_us = cpu_now() - cpu_before;
  const solo::Stats after = db->stats();
  const double busy_us = static_cast<double>(after.owner_busy_ns - before.owner_busy_ns) / 1e3;
  const double idle_us = static_cast<double>(after.owner_idle_ns - before.owner_idle_ns) / 1e3;
  std::printf(
      "new_orders %lu in %.2f s: %.0f tps, owner busy %.2f us per New-Order "
      "(utilization %.2f), process CPU %.2f us per New-Order, rounds %lu "
      "(checksum %ld)\n",
      static_cast<unsigned long>(done), elapsed, static_cast<double>(done) / elapsed,
      busy_us / static_cast<double>(done), busy_us / (busy_us + idle_us),
      cpu_us / static_cast<double>(done), static_cast<unsigned long>(after.rounds - before.rounds),
      static_cast<long>(checksum));
  return 0;
}
