#include "tpcc/loader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "tpcc/schema.h"

namespace tpcc {
namespace {

// Load timestamps (C_SINCE, H_DATE, O_ENTRY_D, OL_DELIVERY_D) are one fixed
// instant, 2026-01-01 00:00:00 UTC, instead of the wall clock: two loads from
// the same seed are then identical on every engine, which journal replay needs.
constexpr int64_t kLoadTimeMicros = 1767225600LL * 1000000;

// One independent piece of the load. Each has its own random stream, so the
// data does not depend on which thread loads which unit or in what order.
struct LoadUnit {
  enum Kind { kItems, kWarehouse, kStock, kCustomers, kOrders } kind;
  int w_id = 0;
  int d_id = 0;      // kCustomers, kOrders
  int chunk = 0;     // kStock: 0..9, 10,000 items each
};

constexpr int kStockChunks = 10;

uint64_t unit_seed(uint64_t seed, const LoadUnit& unit) {
  uint64_t mix = seed * 0x9E3779B97F4A7C15ULL;
  mix ^= (static_cast<uint64_t>(unit.kind) + 1) * 0xBF58476D1CE4E5B9ULL;
  mix ^= (static_cast<uint64_t>(unit.w_id) << 20 | static_cast<uint64_t>(unit.d_id) << 8 |
          static_cast<uint64_t>(unit.chunk)) * 0x94D049BB133111EBULL;
  return mix;
}


// Buffers rows of one table and inserts them with prepared multi-row INSERTs,
// `rows_per_txn` rows per write transaction.
class TableWriter {
 public:
  TableWriter(Connection& conn, std::map<std::string, StmtId>& stmt_cache, std::string table,
              std::string columns, int column_count, const LoadOptions& options,
              std::atomic<int64_t>& rows_loaded)
      : conn_(conn),
        stmt_cache_(stmt_cache),
        table_(std::move(table)),
        columns_(std::move(columns)),
        column_count_(column_count),
        options_(options),
        rows_loaded_(rows_loaded) {}

  ~TableWriter() = default;

  // Adds one row; `values` must hold column_count values.
  void add(std::vector<Value>&& values) {
    for (Value& value : values) pending_.push_back(std::move(value));
    if (pending_rows() >= static_cast<size_t>(options_.rows_per_txn)) flush();
  }

  void flush() {
    size_t total_rows = pending_rows();
    if (total_rows == 0) return;
    std::vector<std::pair<StmtId, std::vector<Value>>> statements;
    for (size_t first = 0; first < total_rows; first += options_.rows_per_insert) {
      size_t count = std::min<size_t>(options_.rows_per_insert, total_rows - first);
      std::vector<Value> params(
          std::make_move_iterator(pending_.begin() + first * column_count_),
          std::make_move_iterator(pending_.begin() + (first + count) * column_count_));
      statements.emplace_back(insert_statement(count), std::move(params));
    }
    conn_.write([&](Txn& txn) {
      for (const auto& [stmt, params] : statements) txn.exec(stmt, params);
      return Outcome::kCommit;
    });
    pending_.clear();
    rows_loaded_.fetch_add(static_cast<int64_t>(total_rows), std::memory_order_relaxed);
  }

 private:
  size_t pending_rows() const { return pending_.size() / column_count_; }

  StmtId insert_statement(size_t rows) {
    std::string key = fmt::format("{}:{}", table_, rows);
    auto found = stmt_cache_.find(key);
    if (found != stmt_cache_.end()) return found->second;
    std::string row = "(";
    for (size_t col_idx = 0; col_idx < column_count_; ++col_idx) row += col_idx ? ", ?" : "?";
    row += ")";
    std::string sql = fmt::format("INSERT INTO {} ({}) VALUES ", table_, columns_);
    for (size_t row_idx = 0; row_idx < rows; ++row_idx) {
      if (row_idx) sql += ", ";
      sql += row;
    }
    StmtId stmt = conn_.prepare(sql);
    stmt_cache_.emplace(key, stmt);
    return stmt;
  }

  Connection& conn_;
  std::map<std::string, StmtId>& stmt_cache_;
  std::string table_;
  std::string columns_;
  size_t column_count_;
  const LoadOptions& options_;
  std::atomic<int64_t>& rows_loaded_;
  std::vector<Value> pending_;
};

// Loads units on one connection.
class LoadWorker {
 public:
  LoadWorker(Connection& conn, const LoadOptions& options, const NURandC& load_c,
             std::atomic<int64_t>& rows_loaded)
      : conn_(conn), options_(options), load_c_(load_c), rows_loaded_(rows_loaded) {}

  void load(const LoadUnit& unit) {
    Rng rng(unit_seed(options_.seed, unit));
    switch (unit.kind) {
      case LoadUnit::kItems: load_items(rng); break;
      case LoadUnit::kWarehouse: load_warehouse(rng, unit.w_id); break;
      case LoadUnit::kStock: load_stock(rng, unit.w_id, unit.chunk); break;
      case LoadUnit::kCustomers: load_customers(rng, unit.w_id, unit.d_id); break;
      case LoadUnit::kOrders: load_orders(rng, unit.w_id, unit.d_id); break;
    }
  }

 private:
  TableWriter writer(const char* table, const char* columns, int column_count) {
    return TableWriter(conn_, stmt_cache_, table, columns, column_count, options_, rows_loaded_);
  }

  // Address fields: street 1, street 2, city (a-strings 10..20), state
  // (a-string 2), zip.
  static void add_address(Rng& rng, std::vector<Value>& row) {
    row.push_back(text(a_string(rng, 10, 20)));
    row.push_back(text(a_string(rng, 10, 20)));
    row.push_back(text(a_string(rng, 10, 20)));
    row.push_back(text(a_string(rng, 2, 2)));
    row.push_back(text(zip_code(rng)));
  }

  void load_items(Rng& rng) {
    TableWriter items = writer("item", "i_id, i_im_id, i_name, i_price, i_data", 5);
    for (int i_id = 1; i_id <= kItems; ++i_id) {
      items.add({integer(i_id), integer(rng.uniform(1, 10000)), text(a_string(rng, 14, 24)),
                 decimal(rng.uniform(100, 10000), 2), text(data_with_original(rng))});
    }
    items.flush();
  }

  void load_warehouse(Rng& rng, int w_id) {
    TableWriter warehouses = writer(
        "warehouse", "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
        9);
    std::vector<Value> row{integer(w_id), text(a_string(rng, 6, 10))};
    add_address(rng, row);
    row.push_back(decimal(rng.uniform(0, 2000), 4));
    row.push_back(decimal(30000000, 2));  // 300,000.00
    warehouses.add(std::move(row));
    warehouses.flush();

    TableWriter districts =
        writer("district",
               "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, "
               "d_ytd, d_next_o_id",
               11);
    for (int d_id = 1; d_id <= kDistrictsPerWarehouse; ++d_id) {
      std::vector<Value> district{integer(d_id), integer(w_id), text(a_string(rng, 6, 10))};
      add_address(rng, district);
      district.push_back(decimal(rng.uniform(0, 2000), 4));
      district.push_back(decimal(3000000, 2));  // 30,000.00
      district.push_back(integer(kOrdersPerDistrict + 1));
      districts.add(std::move(district));
    }
    districts.flush();
  }

  void load_stock(Rng& rng, int w_id, int chunk) {
    TableWriter stock = writer(
        "stock",
        "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
        "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, "
        "s_remote_cnt, s_data",
        17);
    int per_chunk = kStockPerWarehouse / kStockChunks;
    for (int i_id = chunk * per_chunk + 1; i_id <= (chunk + 1) * per_chunk; ++i_id) {
      std::vector<Value> row{integer(i_id), integer(w_id), integer(rng.uniform(10, 100))};
      for (int dist_idx = 0; dist_idx < 10; ++dist_idx) row.push_back(text(a_string(rng, 24, 24)));
      row.push_back(integer(0));
      row.push_back(integer(0));
      row.push_back(integer(0));
      row.push_back(text(data_with_original(rng)));
      stock.add(std::move(row));
    }
    stock.flush();
  }

  void load_customers(Rng& rng, int w_id, int d_id) {
    TableWriter customers = writer(
        "customer",
        "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
        "c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, "
        "c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data",
        21);
    TableWriter history = writer(
        "history", "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data", 8);
    for (int c_id = 1; c_id <= kCustomersPerDistrict; ++c_id) {
      // The first 1,000 customers take each name once; the rest are NURand
      // (clause 4.3.3.1, C_LAST).
      int64_t name_num = c_id <= 1000 ? c_id - 1 : nurand(rng, 255, load_c_.c_last, 0, 999);
      std::vector<Value> row{integer(c_id), integer(d_id), integer(w_id),
                             text(a_string(rng, 8, 16)), text("OE"), text(last_name(name_num))};
      add_address(rng, row);
      row.push_back(text(n_string(rng, 16, 16)));
      row.push_back(timestamp(kLoadTimeMicros));
      row.push_back(text(rng.uniform(1, 100) <= 10 ? "BC" : "GC"));
      row.push_back(decimal(5000000, 2));  // 50,000.00
      row.push_back(decimal(rng.uniform(0, 5000), 4));
      row.push_back(decimal(-1000, 2));  // -10.00
      row.push_back(decimal(1000, 2));   // 10.00
      row.push_back(integer(1));
      row.push_back(integer(0));
      row.push_back(text(a_string(rng, 300, 500)));
      customers.add(std::move(row));

      history.add({integer(c_id), integer(d_id), integer(w_id), integer(d_id), integer(w_id),
                   timestamp(kLoadTimeMicros), decimal(1000, 2), text(a_string(rng, 12, 24))});
    }
    customers.flush();
    history.flush();
  }

  void load_orders(Rng& rng, int w_id, int d_id) {
    TableWriter orders = writer(
        "orders", "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
        8);
    TableWriter lines = writer("order_line",
                               "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
                               "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info",
                               10);
    TableWriter new_orders = writer("new_order", "no_o_id, no_d_id, no_w_id", 3);
    std::vector<int32_t> customer_of(kOrdersPerDistrict);
    permutation(rng, customer_of.data(), kOrdersPerDistrict);
    for (int o_id = 1; o_id <= kOrdersPerDistrict; ++o_id) {
      bool delivered = o_id < kFirstNewOrder;
      int64_t ol_cnt = rng.uniform(5, 15);
      orders.add({integer(o_id), integer(d_id), integer(w_id), integer(customer_of[o_id - 1]),
                  timestamp(kLoadTimeMicros),
                  delivered ? integer(rng.uniform(1, 10)) : null_value(), integer(ol_cnt),
                  integer(1)});
      for (int ol_number = 1; ol_number <= ol_cnt; ++ol_number) {
        lines.add({integer(o_id), integer(d_id), integer(w_id), integer(ol_number),
                   integer(rng.uniform(1, kItems)), integer(w_id),
                   delivered ? timestamp(kLoadTimeMicros) : null_value(), integer(5),
                   decimal(delivered ? 0 : rng.uniform(1, 999999), 2),
                   text(a_string(rng, 24, 24))});
      }
      if (!delivered) new_orders.add({integer(o_id), integer(d_id), integer(w_id)});
    }
    orders.flush();
    lines.flush();
    new_orders.flush();
  }

  Connection& conn_;
  const LoadOptions& options_;
  NURandC load_c_;
  std::atomic<int64_t>& rows_loaded_;
  std::map<std::string, StmtId> stmt_cache_;
};

int64_t expected_rows(int warehouses) {
  int64_t per_district = kCustomersPerDistrict * 2 + kOrdersPerDistrict * 11 +
                         (kOrdersPerDistrict - kFirstNewOrder + 1);
  return kItems + static_cast<int64_t>(warehouses) *
                      (1 + kDistrictsPerWarehouse + kStockPerWarehouse +
                       kDistrictsPerWarehouse * per_district);
}

void print_progress(int64_t done, int64_t total, double seconds, bool final) {
  double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  constexpr int kWidth = 30;
  int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  bool tty = isatty(STDERR_FILENO) != 0;
  if (!tty && !final) {
    fmt::print(stderr, "loading {:3.0f}%  {} rows  {:.1f} s\n", fraction * 100, done, seconds);
    return;
  }
  fmt::print(stderr, "\rloading [{}] {:3.0f}%  {} rows  {:.1f} s  {:.0f} rows/s{}", bar,
             fraction * 100, done, seconds, seconds > 0 ? done / seconds : 0.0,
             final ? "\n" : "");
}

}  // namespace

LoadInfo load_database(Backend& backend, const LoadOptions& options) {
  if (options.warehouses < 1) throw BackendError("warehouses must be at least 1");
  backend.destroy();
  auto setup_conn = backend.connect();
  for (const std::string& ddl : schema_ddl()) {
    setup_conn->execute_script(backend.schema_statement(ddl));
  }

  Rng meta_rng(options.seed ^ 0xC0FFEEULL);
  LoadInfo info;
  info.warehouses = options.warehouses;
  info.seed = options.seed;
  info.load_c = make_load_c(meta_rng);
  info.load_time_micros = kLoadTimeMicros;

  std::vector<LoadUnit> units;
  // Big units first, so that parallel workers finish together.
  for (int w_id = 1; w_id <= options.warehouses; ++w_id) {
    for (int d_id = 1; d_id <= kDistrictsPerWarehouse; ++d_id) {
      units.push_back({LoadUnit::kOrders, w_id, d_id, 0});
      units.push_back({LoadUnit::kCustomers, w_id, d_id, 0});
    }
    for (int chunk = 0; chunk < kStockChunks; ++chunk) {
      units.push_back({LoadUnit::kStock, w_id, 0, chunk});
    }
    units.push_back({LoadUnit::kWarehouse, w_id, 0, 0});
  }
  units.push_back({LoadUnit::kItems, 0, 0, 0});

  std::atomic<size_t> next_unit{0};
  std::atomic<int64_t> rows_loaded{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string first_error;

  int worker_count = std::max(1, backend.load_parallelism());
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::vector<std::thread> workers;
  for (int worker_idx = 0; worker_idx < worker_count; ++worker_idx) {
    workers.emplace_back([&] {
      try {
        auto conn = backend.connect();
        LoadWorker worker(*conn, options, info.load_c, rows_loaded);
        while (!failed.load()) {
          size_t unit_idx = next_unit.fetch_add(1);
          if (unit_idx >= units.size()) break;
          worker.load(units[unit_idx]);
        }
      } catch (const std::exception& error) {
        std::lock_guard lock(error_mutex);
        if (first_error.empty()) first_error = error.what();
        failed.store(true);
      }
    });
  }
  int64_t total = expected_rows(options.warehouses);
  std::thread progress;
  std::atomic<bool> done{false};
  if (options.progress) {
    progress = std::thread([&] {
      bool tty = isatty(STDERR_FILENO) != 0;
      int ticks = 0;
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        // About once a second when not on a terminal, 5/s on one.
        if (++ticks % (tty ? 2 : 10) == 0 && !done.load()) {
          print_progress(rows_loaded.load(), total, elapsed(), false);
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  done.store(true);
  if (progress.joinable()) progress.join();
  if (failed.load()) throw BackendError("load failed: " + first_error);

  if (options.progress) print_progress(rows_loaded.load(), rows_loaded.load(), elapsed(), true);
  const double rows_s = elapsed();
  backend.finish_load(*setup_conn);
  if (options.progress && elapsed() - rows_s >= 0.1) {
    fmt::print(stderr, "finished the load ({}) in {:.1f} s\n", backend.name(), elapsed() - rows_s);
  }

  // tpcc_meta is written last: its presence marks a complete load.
  StmtId insert_meta = setup_conn->prepare("INSERT INTO tpcc_meta (name, value) VALUES (?, ?)");
  setup_conn->write([&](Txn& txn) {
    auto put = [&](const char* name, int64_t value) {
      txn.exec(insert_meta, {Value{std::string(name)}, Value{value}});
    };
    put("warehouses", info.warehouses);
    put("seed", static_cast<int64_t>(info.seed));
    put("c_last", info.load_c.c_last);
    put("c_id", info.load_c.c_id);
    put("ol_i_id", info.load_c.ol_i_id);
    put("load_time", info.load_time_micros);
    return Outcome::kCommit;
  });
  return info;
}

LoadInfo read_load_info(Connection& conn) {
  StmtId select_meta;
  try {
    select_meta = conn.prepare("SELECT name, value FROM tpcc_meta");
  } catch (const BackendError& error) {
    throw BackendError(std::string("database is not loaded (no tpcc_meta table): ") +
                       error.what());
  }
  Rows rows;
  conn.read([&](Txn& txn) {
    txn.exec(select_meta, {}, &rows);
    return Outcome::kCommit;
  });
  LoadInfo info;
  int found = 0;
  for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
    std::string name = rows.get_text(row_idx, 0);
    int64_t value = rows.get_int(row_idx, 1);
    ++found;
    if (name == "warehouses") info.warehouses = static_cast<int>(value);
    else if (name == "seed") info.seed = static_cast<uint64_t>(value);
    else if (name == "c_last") info.load_c.c_last = value;
    else if (name == "c_id") info.load_c.c_id = value;
    else if (name == "ol_i_id") info.load_c.ol_i_id = value;
    else if (name == "load_time") info.load_time_micros = value;
    else --found;
  }
  if (found != 6 || info.warehouses < 1) {
    throw BackendError("database load is incomplete (tpcc_meta is missing entries)");
  }
  return info;
}

}  // namespace tpcc
