// Trees that grow at one end and shrink at the other (TPC-C's new-order
// churn) keep a bounded number of nodes; ascending inserts fill nodes.
#include "internal_util.h"
#include "test_util.h"

using namespace solo;

namespace {

// accounts' primary key is one integer (<= 8 bytes): its nodes are of class 0.
constexpr uint64_t kNodeBytes = internal::node_bytes(0);

}  // namespace

TEST_CASE("ascending inserts leave nearly full leaves") {
  auto db = test::open_db();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int id = 0; id < 32000; ++id) {
                Status s = txn.insert(table, {Value::Int(id), Value::Null(), Value::Int(id)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  uint64_t nodes = db->stats().node_bytes / kNodeBytes;
  INFO("nodes " << nodes);
  // 1,000 full leaves plus ~33 inner nodes; allow 10%. (Had the tree made
  // nodes of a larger class, node_bytes / kNodeBytes would be more.)
  REQUIRE(nodes >= 1000);
  REQUIRE(nodes <= 1100);
}

TEST_CASE("a queue that moves through the key space does not leak nodes") {
  auto db = test::open_db();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              return Status::OK();
            }).ok());
  // 3,000 live entries; each transaction adds 30 at the top and removes the 30 oldest.
  int64_t oldest = 0;
  int64_t next = 0;
  uint64_t max_nodes = 0;
  for (int round = 0; round < 1500; ++round) {
    REQUIRE(db->write([&](WriteTxn& txn) {
                for (int op = 0; op < 30; ++op) {
                  Status s = txn.insert(table, {Value::Int(next), Value::Null(), Value::Int(next)});
                  if (!s.ok()) return s;
                  next++;
                }
                if (next - oldest > 3000) {
                  for (int op = 0; op < 30; ++op) {
                    Status s = txn.erase(table, test::int_key(schema, oldest++));
                    if (!s.ok()) return s;
                  }
                }
                return Status::OK();
              }).ok());
    if (round > 200) max_nodes = std::max(max_nodes, db->stats().node_bytes / kNodeBytes);
  }
  INFO("max nodes " << max_nodes);
  // 3,000 entries need >= 94 leaves; merges keep them above a quarter full.
  REQUIRE(max_nodes <= 400);
  db->read([&](ReadTxn& txn) {
    REQUIRE(txn.entry_count(table) == 3000);
    return Status::OK();
  });

  // Removing everything returns every node.
  REQUIRE(db->write([&](WriteTxn& txn) {
              while (oldest < next) {
                Status s = txn.erase(table, test::int_key(schema, oldest++));
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  REQUIRE(db->stats().node_bytes == 0);
  REQUIRE(db->stats().state_bytes == 0);
  REQUIRE(db->stats().record_bytes == 0);
}

TEST_CASE("random deletes merge underfull nodes") {
  auto db = test::open_db();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int id = 0; id < 20000; ++id) {
                Status s = txn.insert(table, {Value::Int((id * 7919) % 20000), Value::Null(), Value::Int(id)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  uint64_t full = db->stats().node_bytes / kNodeBytes;
  // Delete 15 of every 16 rows, scattered.
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 0; id < 20000; ++id) {
                int64_t victim = (id * 7919) % 20000;
                if (victim % 16 == 0) continue;
                Status s = txn.erase(table, test::int_key(schema, victim));
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  uint64_t after = db->stats().node_bytes / kNodeBytes;
  INFO("nodes before " << full << " after " << after);
  // 1,250 entries left: without merging every leaf would remain.
  REQUIRE(after * 4 < full);
}

// An inner node's key 0 is not used for routing (node.h): once a node's
// first child is unlinked, its key 0 is the next child's lower bound, and
// keys below it that arrive later go to that child all the same. Erasing
// from the low end and then storing keys there again (a rollback of the
// erases, or new rows) splits that child below key 0. Lookups and scans
// stay right; btree_check, run at each publish here, used to take key 0
// for a bound and abort ("T1: keys not strictly ascending").
TEST_CASE("keys stored again below an inner node's key 0 are found, and the tree checks") {
  auto db = test::open_db();  // check_invariants: btree_check after every round
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  constexpr int64_t kRows = 20000;
  auto insert_range = [&](WriteTxn& txn, int64_t from, int64_t to) {
    for (int64_t id = from; id < to; ++id) {
      Status s = txn.insert(table, {Value::Int(id), Value::Null(), Value::Int(id)});
      if (!s.ok()) return s;
    }
    return Status::OK();
  };
  auto erase_range = [&](WriteTxn& txn, int64_t from, int64_t to) {
    for (int64_t id = from; id < to; ++id) {
      Status s = txn.erase(table, test::int_key(schema, id));
      if (!s.ok()) return s;
    }
    return Status::OK();
  };
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              return insert_range(txn, 0, kRows);
            }).ok());
  SECTION("erases rolled back") {
    Status rolled = db->write([&](WriteTxn& txn) {
      Status s = erase_range(txn, 0, 5000);
      return s.ok() ? Status::Aborted("undo them") : s;
    });
    REQUIRE(rolled.code() == Status::Code::kAborted);
  }
  SECTION("erased, committed, stored again") {
    REQUIRE(db->write([&](WriteTxn& txn) { return erase_range(txn, 0, 5000); }).ok());
    REQUIRE(db->write([&](WriteTxn& txn) { return insert_range(txn, 0, 5000); }).ok());
  }
  // A round after them: the check runs at its publish too.
  REQUIRE(db->write([&](WriteTxn& txn) { return insert_range(txn, kRows, kRows + 10); }).ok());
  REQUIRE(db->read([&](ReadTxn& txn) {
              for (int64_t id = 0; id < kRows + 10; ++id) {
                std::string_view row;
                Status s = txn.get(table, test::int_key(schema, id), &row);
                if (!s.ok()) return s;
              }
              int64_t expected = 0;
              Result<Cursor> cursor = txn.scan(table, KeyRange::All());
              for (; cursor->valid(); cursor->next()) {
                if (cursor->key() != test::int_key(schema, expected)) {
                  return Status::Corruption("scan out of order at " + std::to_string(expected));
                }
                expected++;
              }
              return expected == kRows + 10 ? Status::OK() : Status::Corruption("scan short");
            }).ok());
}
