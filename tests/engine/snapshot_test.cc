// Snapshots: a held snapshot does not move; publication order; handles.
#include <random>
#include <thread>

#include "test_util.h"

using namespace solo;

namespace {

using Contents = std::vector<std::pair<std::string, std::string>>;

Contents read_all(const Snapshot& snapshot, TableId table) {
  ReadTxn txn(snapshot);
  Contents contents;
  auto cursor = txn.scan(table, KeyRange::All());
  for (; cursor->valid(); cursor->next()) {
    contents.emplace_back(std::string(cursor->key()), std::string(cursor->value()));
  }
  return contents;
}

}  // namespace

TEST_CASE("a held snapshot reads the same over 40,000 write transactions") {
  Options options;
  auto db = Database::open(options);  // no per-round full check: 40,000 rounds
  REQUIRE(db.ok());
  Database* database = db->get();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(database->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int id = 0; id < 2000; ++id) {
                REQUIRE(txn.insert(table, {Value::Int(id), Value::String("n"), Value::Int(id)}).ok());
              }
              return Status::OK();
            }).ok());

  Snapshot held = database->snapshot();
  Contents first = read_all(held, table);
  uint64_t first_bytes = ReadTxn(held).state_bytes();
  uint64_t first_gen = held.generation();
  REQUIRE(first.size() == 2000);

  std::mt19937_64 rng(99);
  constexpr int kTransactions = 40000;
  for (int txn_idx = 0; txn_idx < kTransactions; ++txn_idx) {
    int64_t id = static_cast<int64_t>(rng() % 3000);
    Status status = database->write([&](WriteTxn& txn) {
      std::string key = test::int_key(schema, id);
      std::string_view row;
      if (txn.get(table, key, &row).ok()) {
        if (rng() % 4 == 0) return txn.erase(table, key);
        return txn.update(table, key, {Value::Int(id), Value::String("changed"), Value::Int(txn_idx)});
      }
      return txn.insert(table, {Value::Int(id), Value::Null(), Value::Int(-txn_idx)});
    });
    REQUIRE(status.ok());
    if (txn_idx % 10000 == 9999) REQUIRE(read_all(held, table) == first);
  }
  REQUIRE(database->stats().generation >= first_gen + kTransactions);
  REQUIRE(read_all(held, table) == first);
  REQUIRE(ReadTxn(held).state_bytes() == first_bytes);
  REQUIRE(held.generation() == first_gen);
  REQUIRE(read_all(database->snapshot(), table) != first);
}

TEST_CASE("a write is visible to every read that starts after it returns") {
  auto db = test::open_db();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              return Status::OK();
            }).ok());
  for (int id = 0; id < 50; ++id) {
    Snapshot before = db->snapshot();
    REQUIRE(db->write([&](WriteTxn& txn) {
                return txn.insert(table, {Value::Int(id), Value::Null(), Value::Int(0)});
              }).ok());
    Snapshot after = db->snapshot();
    REQUIRE(after.generation() > before.generation());
    REQUIRE(ReadTxn(before).entry_count(table) == static_cast<uint64_t>(id));
    REQUIRE(ReadTxn(after).entry_count(table) == static_cast<uint64_t>(id + 1));
    REQUIRE(db->read([&](ReadTxn& txn) {
                std::string_view row;
                return txn.get(table, test::int_key(schema, id), &row);
              }).ok());
  }
}

TEST_CASE("snapshots move between threads and are released anywhere") {
  auto db = test::open_db();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(test::accounts_schema());
              return txn.insert(table, {Value::Int(1), Value::Null(), Value::Int(5)});
            }).ok());
  std::vector<Snapshot> snapshots;
  REQUIRE(db->stats().live_snapshots == 0);
  for (int idx = 0; idx < 200; ++idx) snapshots.push_back(db->snapshot());
  REQUIRE(db->stats().live_snapshots == 200);
  REQUIRE(db->impl() != nullptr);
  std::thread other([&] {
    for (Snapshot& snapshot : snapshots) {
      REQUIRE(ReadTxn(snapshot).entry_count(table) == 1);
      snapshot.release();
      snapshot.release();  // idempotent
    }
  });
  other.join();
  REQUIRE(db->stats().live_snapshots == 0);
  Snapshot moved = db->snapshot();
  Snapshot target = std::move(moved);
  REQUIRE(!moved.valid());
  REQUIRE(target.valid());
  REQUIRE(db->stats().live_snapshots == 1);  // a move hands the slot over
}

TEST_CASE("write from the owner thread and after close are refused") {
  auto db = test::open_db();
  Status inner;
  REQUIRE(db->write([&](WriteTxn&) {
              inner = db->write([](WriteTxn&) { return Status::OK(); });
              return Status::OK();
            }).ok());
  REQUIRE(inner.IsInvalidArgument());
  db->close();
  db->close();
  REQUIRE(db->write([](WriteTxn&) { return Status::OK(); }).IsShutdown());
  REQUIRE(db->read([](ReadTxn& txn) { return txn.catalog().tree_count() == 0 ? Status::OK() : Status::Internal("x"); }).ok());
}
