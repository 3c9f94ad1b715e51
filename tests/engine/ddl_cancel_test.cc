// Cancelling DDL (WriteTxn::create_index, drop_index, drop_table with a
// cancel flag): the call stops inside its loop over the rows, returns
// Cancelled and leaves nothing behind, in the trees, the catalog or the log,
// while the rest of its transaction goes on and commits. The flag is set
// from the engine's own looks at it (DbImpl::ddl_cancel_check_for_test), so
// each test knows which step of which loop the cancel finds.
#include <atomic>

#include "durable_util.h"
#include "internal_util.h"
#include "test_util.h"

using namespace solo;

namespace {

constexpr int64_t kRows = 20'000;

TableSchema kv_with_pad() {
  return TableSchema{
      "kv",
      {ColumnDef::BigInt("k", true), ColumnDef::BigInt("v", true), ColumnDef::Text("pad", false)},
      {0}};
}

Row kv_row(int64_t k, int64_t v, Value pad) {
  return {Value::Int(k), Value::Int(v), pad};
}

std::string kv_key(int64_t k) {
  return test::int_key(kv_with_pad(), k);
}

// kv(k, v, pad) with k = 0..kRows-1, v = k % 1000, and an index on v.
void fill(Database& db) {
  REQUIRE(db.write([&](WriteTxn& txn) {
              auto table = txn.create_table(kv_with_pad());
              if (!table.ok()) return table.status();
              for (int64_t k = 0; k < kRows; ++k) {
                Status status = txn.insert(*table, kv_row(k, k % 1000, Value::String("row")));
                if (!status.ok()) return status;
              }
              return txn.create_index(IndexSchema{"by_v", "kv", {1}, false}).status();
            }).ok());
}

// Sets *flag at the engine's `at`-th look at a DDL call's flag (counting
// from 1 across the calls of the database), and counts the looks.
struct CancelAt {
  CancelAt(Database& db, std::atomic<bool>* flag, int at) : db_(db) {
    db.impl()->ddl_cancel_check_for_test = [this, flag, at] {
      if (++checks == at) flag->store(true);
    };
  }
  ~CancelAt() { db_.impl()->ddl_cancel_check_for_test = nullptr; }
  CancelAt(const CancelAt&) = delete;
  CancelAt& operator=(const CancelAt&) = delete;

  Database& db_;
  int checks = 0;  // owner thread while a write runs; read by the test after it
};

// The steps (rows or entries) of a drop_table of kv: the index's entries
// read and removed, then the table's rows read and erased.
constexpr int64_t kDropTableSteps = 4 * kRows;

}  // namespace

TEST_CASE("cancelled create_index leaves no index and the transaction goes on") {
  auto db = test::open_db();
  fill(*db);
  const std::string before = test::dump_state(*db);
  std::atomic<bool> cancel{false};
  CancelAt hook(*db, &cancel, 3);  // after 3 * 1,024 of the 20,000 rows

  Status written = db->write([&](WriteTxn& txn) {
    const uint32_t trees = txn.catalog().tree_count();
    auto index = txn.create_index(IndexSchema{"by_pad", "kv", {2, 1}, false}, &cancel);
    REQUIRE(index.status().IsCancelled());
    CHECK(hook.checks == 3);
    CHECK(txn.catalog().find_index("by_pad") == nullptr);
    CHECK(txn.catalog().tree_count() == trees);
    CHECK(txn.catalog().find_table("kv")->indexes.size() == 1);
    // The flag stays set until the caller clears it; without one the same
    // index is built in the same transaction.
    CHECK(txn.create_index(IndexSchema{"by_pad", "kv", {2, 1}, false}, &cancel)
              .status()
              .IsCancelled());
    cancel = false;
    auto again = txn.create_index(IndexSchema{"by_pad", "kv", {2, 1}, false}, &cancel);
    REQUIRE(again.ok());
    CHECK(txn.entry_count(*again) == kRows);
    return Status::OK();
  });
  REQUIRE(written.ok());
  CHECK(test::dump_state(*db) != before);
  db->read([&](ReadTxn& txn) {
    const IndexInfo* index = txn.catalog().find_index("by_pad");
    REQUIRE(index != nullptr);
    CHECK(txn.entry_count(index->id) == kRows);
    return Status::OK();
  });
}

TEST_CASE("a flag never set, or none, lets create_index and drop_table finish") {
  auto db = test::open_db();
  fill(*db);
  std::atomic<bool> cancel{false};
  CancelAt hook(*db, &cancel, -1);
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.create_index(IndexSchema{"by_pad", "kv", {2}, false}, &cancel).status();
            }).ok());
  CHECK(hook.checks == kRows / kDdlCancelCheckRows);
  // Without a flag nothing looks.
  hook.checks = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.drop_table(txn.catalog().find_table("kv")->id);
            }).ok());
  CHECK(hook.checks == 0);
  db->read([&](ReadTxn& txn) {
    CHECK(txn.catalog().find_table("kv") == nullptr);
    CHECK(txn.catalog().find_index("by_pad") == nullptr);
    return Status::OK();
  });
}

TEST_CASE("cancelled drop_table, part way through erasing its rows, leaves the table whole") {
  auto db = test::open_db();  // btree_check after every round
  fill(*db);
  const Stats stats_before = db->stats();
  std::atomic<bool> cancel{false};
  // The last quarter of the steps erases the rows: cancel half way into it,
  // when some 9,600 rows are erased and the index is gone.
  const int at = static_cast<int>((kDropTableSteps - kRows / 2) / kDdlCancelCheckRows);
  CancelAt hook(*db, &cancel, at);

  Status written = db->write([&](WriteTxn& txn) {
    const TableId table = txn.catalog().find_table("kv")->id;
    // A change before the drop, which the cancel must keep: a row made in
    // this transaction, the first the drop erases.
    REQUIRE(txn.insert(table, kv_row(-1, 7, Value::Null())).ok());
    Status dropped = txn.drop_table(table, &cancel);
    REQUIRE(dropped.IsCancelled());
    CHECK(hook.checks == at);
    const TableInfo* info = txn.catalog().find_table("kv");
    REQUIRE(info != nullptr);
    REQUIRE(info->indexes.size() == 1);
    CHECK(txn.catalog().find_index("by_v") != nullptr);
    CHECK(txn.entry_count(table) == kRows + 1);
    CHECK(txn.entry_count(info->indexes[0]) == kRows + 1);
    // The table is usable: rows read, changed and erased.
    std::string_view row;
    CHECK(txn.get(table, kv_key(-1), &row).ok());
    CHECK(txn.get(table, kv_key(kRows - 1), &row).ok());
    CHECK(txn.erase(table, kv_key(0)).ok());
    CHECK(txn.update(table, kv_key(1), kv_row(1, -1, Value::String("changed"))).ok());
    return Status::OK();
  });
  REQUIRE(written.ok());
  db->read([&](ReadTxn& txn) {
    const TableInfo* info = txn.catalog().find_table("kv");
    REQUIRE(info != nullptr);
    CHECK(txn.entry_count(info->id) == kRows);  // + 1 inserted, - 1 erased
    CHECK(txn.entry_count(info->indexes[0]) == kRows);
    int64_t count = 0;
    auto cursor = txn.scan(info->id, KeyRange::All());
    for (; cursor->valid(); cursor->next()) ++count;
    CHECK(count == kRows);
    // Through the index: v = 7 is the rows k % 1000 == 7 and the row -1.
    std::string prefix;
    const Value seven = Value::Int(7);
    const uint32_t v_column = 1;
    REQUIRE(append_key(kv_with_pad(), std::span<const uint32_t>(&v_column, 1),
                       std::span<const Value>(&seven, 1), &prefix)
                .ok());
    int64_t sevens = 0;
    auto by_v = txn.scan(info->indexes[0], KeyRange::Prefix(prefix));
    for (; by_v->valid(); by_v->next()) ++sevens;
    CHECK(sevens == kRows / 1000 + 1);
    return Status::OK();
  });
  // The erased rows' records went back into the tree: none was freed or lost.
  const Stats stats_after = db->stats();
  CHECK(stats_after.rollbacks == stats_before.rollbacks);
  CHECK(stats_after.commits == stats_before.commits + 1);

  // Dropped without a flag, it goes.
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.drop_table(txn.catalog().find_table("kv")->id, &cancel);
            }).IsCancelled());  // (the flag is still set)
  cancel = false;
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.drop_table(txn.catalog().find_table("kv")->id, &cancel);
            }).ok());
  db->read([&](ReadTxn& txn) {
    CHECK(txn.catalog().find_table("kv") == nullptr);
    return Status::OK();
  });
}

TEST_CASE("cancelled drop_index and drop_table at each phase change nothing") {
  auto db = test::open_db();
  fill(*db);
  const std::string before = test::dump_state(*db);
  // Each phase of drop_table: reading the index, removing its entries,
  // reading the rows, erasing them; and the first look of drop_index.
  const int phase_checks[] = {1, static_cast<int>(kRows / kDdlCancelCheckRows) + 1,
                              static_cast<int>(2 * kRows / kDdlCancelCheckRows) + 1,
                              static_cast<int>(3 * kRows / kDdlCancelCheckRows) + 1,
                              static_cast<int>(kDropTableSteps / kDdlCancelCheckRows)};
  for (int at : phase_checks) {
    std::atomic<bool> cancel{false};
    CancelAt hook(*db, &cancel, at);
    Status written = db->write(
        [&](WriteTxn& txn) { return txn.drop_table(txn.catalog().find_table("kv")->id, &cancel); });
    INFO("cancelled at look " << at);
    CHECK(written.IsCancelled());
    CHECK(hook.checks == at);
    CHECK(test::dump_state(*db) == before);
  }
  for (int at : {1, static_cast<int>(2 * kRows / kDdlCancelCheckRows)}) {
    std::atomic<bool> cancel{false};
    CancelAt hook(*db, &cancel, at);
    Status dropped;
    REQUIRE(db->write([&](WriteTxn& txn) {
                dropped = txn.drop_index(txn.catalog().find_index("by_v")->id, &cancel);
                return Status::OK();  // commits what is left: nothing
              }).ok());
    INFO("cancelled at look " << at);
    CHECK(dropped.IsCancelled());
    CHECK(test::dump_state(*db) == before);
  }
}

TEST_CASE("a cancelled drop_table leaves nothing in the log: recovery finds the table whole") {
  test::TempDir dir;
  Options options;
  options.check_invariants = true;
  options.dir = dir.path;
  std::string committed;
  {
    auto db = test::open_dir(options);
    fill(*db);
    std::atomic<bool> cancel{false};
    CancelAt hook(*db, &cancel, static_cast<int>(kDropTableSteps / kDdlCancelCheckRows) - 2);
    REQUIRE(db->write([&](WriteTxn& txn) {
                const TableId table = txn.catalog().find_table("kv")->id;
                Status dropped = txn.drop_table(table, &cancel);
                if (!dropped.IsCancelled()) {
                  return Status::Internal("not cancelled: " + dropped.ToString());
                }
                // The transaction commits a change of its own after the cancel.
                return txn.insert(table, kv_row(-1, -1, Value::Null()));
              }).ok());
    committed = test::dump_state(*db);
    REQUIRE(db->close().ok());
  }
  auto db = test::open_dir(options);
  CHECK(test::dump_state(*db) == committed);
  db->read([&](ReadTxn& txn) {
    CHECK(txn.entry_count(txn.catalog().find_table("kv")->id) == kRows + 1);
    return Status::OK();
  });
}
