// ReadTxn::get_many agrees with get() key by key: present and absent keys,
// keys too long to exist, trees of several levels, and a held snapshot that
// must not see later changes.
#include <random>
#include <vector>

#include "test_util.h"

using namespace solo;

TEST_CASE("get_many agrees with get, also on a held snapshot after changes") {
  auto db = test::open_db(Options{});
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  constexpr int kRows = 6000;  // several tree levels with 32-entry nodes
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int id = 0; id < kRows; id += 2) {  // even ids only
                Status s = txn.insert(
                    table,
                    {Value::Int(id), Value::String("v" + std::to_string(id)), Value::Int(id)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  Snapshot held = db->snapshot();
  // Changes after the snapshot: delete some even ids, add some odd ones.
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 0; id < kRows; id += 10) {
                Status s = txn.erase(table, test::int_key(schema, id));
                if (!s.ok()) return s;
                s = txn.insert(table, {Value::Int(id + 1), Value::String("new"), Value::Int(1)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  Snapshot newest = db->snapshot();

  std::mt19937_64 rng(7);
  std::vector<std::string> key_storage;
  for (int key_idx = 0; key_idx < 500; ++key_idx) {
    key_storage.push_back(test::int_key(schema, static_cast<int64_t>(rng() % (kRows + 50)) - 20));
  }
  key_storage.push_back(std::string(kMaxKeyBytes + 1, 'x'));  // too long to exist
  std::vector<std::string_view> keys(key_storage.begin(), key_storage.end());

  for (const Snapshot* snapshot : {&held, &newest}) {
    ReadTxn txn(*snapshot);
    std::vector<std::string_view> rows(keys.size());
    Result<size_t> found = txn.get_many(table, keys, rows);
    REQUIRE(found.ok());
    size_t expected_found = 0;
    int mismatches = 0;
    for (size_t key_idx = 0; key_idx < keys.size(); ++key_idx) {
      std::string_view row;
      Status status = txn.get(table, keys[key_idx], &row);
      if (status.ok()) {
        expected_found++;
        if (rows[key_idx] != row) mismatches++;
      } else if (rows[key_idx].data() != nullptr) {
        mismatches++;
      }
    }
    CHECK(mismatches == 0);
    CHECK(*found == expected_found);
    CHECK(expected_found > 100);                // the keys hit the table...
    CHECK(expected_found < keys.size() - 100);  // ...and miss it
  }
  // The held snapshot still has id 0 (deleted later) and not id 1 (inserted later).
  ReadTxn old_txn(held);
  std::string_view pair[2] = {keys[0], keys[0]};
  std::string zero = test::int_key(schema, 0), one = test::int_key(schema, 1);
  pair[0] = zero;
  pair[1] = one;
  std::string_view rows[2];
  REQUIRE(old_txn.get_many(table, pair, rows).ok());
  CHECK(rows[0].data() != nullptr);
  CHECK(rows[1].data() == nullptr);

  std::string_view one_row[1];
  CHECK_FALSE(old_txn.get_many(table, pair, one_row).ok());    // sizes differ
  CHECK_FALSE(old_txn.get_many(table + 99, pair, rows).ok());  // not a table
  held.release();
  newest.release();
}
