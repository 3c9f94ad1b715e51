// Model test: random inserts, updates, deletes and scans through the public
// API, checked against std::map, with up to four snapshots held at once and
// released in random order. Every held snapshot is compared with the model's
// copy of its time after every step, also while its neighbours' retired
// nodes are being reused. Then runs of neighbouring keys erased and stored
// again, committed or rolled back, in a larger tree (run_runs).
#include <map>
#include <random>

#include "test_util.h"

using namespace solo;

namespace {

using Model = std::map<std::string, std::string>;

struct Held {
  Snapshot snapshot;
  Model model;
};

TableSchema model_schema() {
  TableSchema schema;
  schema.name = "m";
  schema.columns = {ColumnDef::Integer("k1", true), ColumnDef::VarChar("k2", 190, true),
                    ColumnDef::Text("v")};
  schema.primary_key = {0, 1};
  return schema;
}

// Compares a scan of the whole tree (either direction) with the model.
// Plain comparisons, one REQUIRE: the loop runs millions of times.
void check_full(const Snapshot& snapshot, TableId table, const Model& model, bool reverse) {
  ReadTxn txn(snapshot);
  REQUIRE(txn.entry_count(table) == model.size());
  auto cursor = txn.scan(table, KeyRange::All(reverse));
  REQUIRE(cursor.ok());
  uint64_t bytes = 0;
  bool same = true;
  auto compare = [&](const std::string& key, const std::string& row) {
    same = same && cursor->valid() && cursor->key() == key && cursor->value() == row;
    bytes += key.size() + row.size();
    if (same) cursor->next();
  };
  if (!reverse) {
    for (const auto& [key, row] : model) compare(key, row);
  } else {
    for (auto entry = model.rbegin(); entry != model.rend(); ++entry) {
      compare(entry->first, entry->second);
    }
  }
  REQUIRE(same);
  REQUIRE(!cursor->valid());
  REQUIRE(txn.state_bytes() == bytes);
}

void run_model(int steps, int k2_max_length, int k1_range);

}  // namespace

TEST_CASE("random operations agree with std::map, held snapshots never move") {
  run_model(/*steps=*/7000, /*k2_max_length=*/10, /*k1_range=*/60);
}

TEST_CASE("long keys: heap-balanced splits, compaction and merges") {
  // Keys up to 4 + 2 + 190 bytes: four fill a node's key heap.
  run_model(/*steps=*/2500, /*k2_max_length=*/190, /*k1_range=*/40);
}

namespace {

void run_model(int steps, int k2_max_length, int k1_range) {
  auto db = test::open_db();
  TableSchema schema = model_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              schema = txn.catalog().table(table)->schema;
              return Status::OK();
            }).ok());

  std::mt19937_64 rng(20240601);
  auto random_key = [&](Row* row) {
    int k1 = static_cast<int>(rng() % k1_range);
    std::string k2(rng() % (k2_max_length + 1), static_cast<char>('a' + rng() % 3));
    (*row)[0] = Value::Int(k1);
    (*row)[1] = Value::String(k2);
  };
  auto random_value = [&]() {
    size_t length = rng() % 8 == 0 ? rng() % 1500 : rng() % 100;
    return Value::String(std::string(length, static_cast<char>('A' + rng() % 26)));
  };

  Model model;
  std::vector<Held> held;
  int scans = 0;
  for (int step = 0; step < steps; ++step) {
    int choice = static_cast<int>(rng() % 100);
    if (choice < 80) {
      // One write transaction of 1-4 operations.
      int ops = 1 + static_cast<int>(rng() % 4);
      Model& next = model;  // every transaction below commits
      Status status = db->write([&](WriteTxn& txn) {
        for (int op = 0; op < ops; ++op) {
          Row row(3);
          random_key(&row);
          row[2] = random_value();
          std::string key;
          std::string encoded;
          REQUIRE(encode_primary_key(schema, row, &key).ok());
          REQUIRE(encode_row(schema, row, &encoded).ok());
          bool present = next.count(key) != 0;
          int kind = static_cast<int>(rng() % 3);
          if (kind == 0) {
            Status s = txn.insert(table, row);
            REQUIRE(s.ok() == !present);
            if (!present) next[key] = encoded;
          } else if (kind == 1) {
            Status s = txn.update(table, key, row);
            REQUIRE(s.ok() == present);
            if (present) next[key] = encoded;
          } else {
            Status s = txn.erase(table, key);
            REQUIRE(s.ok() == present);
            next.erase(key);
          }
        }
        return Status::OK();
      });
      REQUIRE(status.ok());
    } else if (choice < 90) {
      // A bounded range scan of the newest state, either direction.
      scans++;
      Row low(3);
      Row high(3);
      random_key(&low);
      random_key(&high);
      std::string lower;
      std::string upper;
      REQUIRE(encode_primary_key(schema, Row{low[0], low[1], Value::Null()}, &lower).ok());
      REQUIRE(encode_primary_key(schema, Row{high[0], high[1], Value::Null()}, &upper).ok());
      if (upper < lower) std::swap(lower, upper);
      bool reverse = rng() % 2;
      db->read([&](ReadTxn& txn) {
        auto cursor = txn.scan(table, KeyRange::Between(lower, upper, reverse));
        std::vector<std::string> expected;
        for (auto it = model.lower_bound(lower); it != model.end() && it->first < upper; ++it) {
          expected.push_back(it->first);
        }
        if (reverse) std::reverse(expected.begin(), expected.end());
        bool same = true;
        for (const std::string& key : expected) {
          same = same && cursor->valid() && cursor->key() == key && cursor->value() == model.at(key);
          if (same) cursor->next();
        }
        REQUIRE(same);
        REQUIRE(!cursor->valid());
        return Status::OK();
      });
    } else if (choice < 95) {
      if (held.size() < 4) held.push_back(Held{db->snapshot(), model});
    } else if (!held.empty()) {
      size_t victim = rng() % held.size();
      held.erase(held.begin() + static_cast<ptrdiff_t>(victim));
    }
    for (size_t held_idx = 0; held_idx < held.size(); ++held_idx) {
      check_full(held[held_idx].snapshot, table, held[held_idx].model, (step + held_idx) % 7 == 0);
    }
    if (step % 100 == 0) check_full(db->snapshot(), table, model, step % 200 == 0);
  }
  held.clear();
  check_full(db->snapshot(), table, model, false);
  Stats stats = db->stats();
  INFO("reused " << stats.reused_objects << " fresh " << stats.fresh_objects);
  REQUIRE(scans > steps / 14);
  REQUIRE(stats.reused_objects > stats.fresh_objects);  // recycling was exercised
}

}  // namespace

namespace {

// Runs of neighbouring keys erased and stored again, committed or rolled
// back, in a tree of three levels: the first child of an inner node is
// emptied and unlinked, and keys come back below the next one's bound
// (btree_check's key 0, session 43); a rollback puts thousands of erased
// rows back in key order. Checked against std::map after every
// transaction, with the tree check after every round.
void run_runs(int steps) {
  auto db = test::open_db();  // check_invariants
  const TableSchema schema = test::accounts_schema();
  const TableId table = test::create_table(*db, schema);
  constexpr int64_t kSpace = 40000;
  std::mt19937_64 rng(20261207);
  Model model;
  auto row_of = [&](int64_t id, int64_t balance, std::string* key, std::string* encoded) {
    Row row{Value::Int(id), Value::Null(), Value::Int(balance)};
    REQUIRE(encode_primary_key(schema, row, key).ok());
    REQUIRE(encode_row(schema, row, encoded).ok());
    return row;
  };
  // Stores (or erases) ids [from, to) that are absent (present), into
  // `next`; the transaction commits or is rolled back.
  auto run = [&](int64_t from, int64_t to, bool store, bool commit) {
    Model next = model;
    Status status = db->write([&](WriteTxn& txn) {
      for (int64_t id = from; id < to; ++id) {
        std::string key;
        std::string encoded;
        Row row = row_of(id, id * 7 + static_cast<int64_t>(rng() % 100), &key, &encoded);
        const bool present = next.count(key) != 0;
        if (store && !present) {
          if (!txn.insert(table, row).ok()) return Status::Corruption("insert failed");
          next[key] = encoded;
        } else if (!store && present) {
          if (!txn.erase(table, key).ok()) return Status::Corruption("erase failed");
          next.erase(key);
        }
      }
      return commit ? Status::OK() : Status::Aborted("rolled back");
    });
    REQUIRE(status.ok() == commit);
    if (commit) model = std::move(next);
  };
  run(0, kSpace / 2, /*store=*/true, /*commit=*/true);
  int rollbacks = 0;
  for (int step = 0; step < steps; ++step) {
    const int64_t length = 1 + static_cast<int64_t>(rng() % 3000);
    // Half the runs start at the low end of what is stored, where a
    // level's first children empty.
    const int64_t from = rng() % 2 == 0 && !model.empty()
                             ? static_cast<int64_t>(rng() % 200)
                             : static_cast<int64_t>(rng() % (kSpace - length));
    const bool commit = rng() % 3 != 0;
    rollbacks += commit ? 0 : 1;
    run(from, from + length, /*store=*/rng() % 2 == 0, commit);
    check_full(db->snapshot(), table, model, step % 2 == 0);
  }
  REQUIRE(rollbacks > steps / 5);
}

}  // namespace

TEST_CASE("runs of keys erased and stored again, committed or rolled back, agree with std::map") {
  run_runs(/*steps=*/120);
}
