// 8 reader threads on snapshots while the owner writes. Readers check that
// every snapshot is consistent: the money total is constant, the table and
// both indexes agree. Run in the suite under ASan+UBSan and TSan.
// Catch's assertions are not thread-safe: threads count failures instead.
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "test_util.h"

using namespace solo;

namespace {

constexpr int kAccounts = 300;
constexpr int64_t kStartBalance = 100000;

}  // namespace

TEST_CASE("8 readers see consistent snapshots while 2 writers transfer money") {
  auto db = test::open_db(Options{});
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  IndexId by_name = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              by_name = *txn.create_index(IndexSchema{"by_name", "accounts", {1}, false});
              for (int id = 0; id < kAccounts; ++id) {
                Status s = txn.insert(table, {Value::Int(id), Value::String("b" + std::to_string(id % 10)),
                                              Value::Int(kStartBalance)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int64_t> reads{0};
  std::atomic<int64_t> writes{0};
  const int64_t total = kAccounts * kStartBalance;

  auto writer = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    int64_t next_id = kAccounts + static_cast<int64_t>(seed) * 1000000;
    while (!stop.load()) {
      Status status = db->write([&](WriteTxn& txn) {
        // Move money between two live accounts; sometimes close one into
        // another or open a new one funded from another; 2% roll back.
        auto cursor = txn.scan(table, KeyRange::All(rng() % 2));
        if (!cursor.ok() || !cursor->valid()) return Status::Internal("empty");
        std::string from_key(cursor->key());
        Row from;
        Status s = txn.get_row(table, from_key, &from);
        if (!s.ok()) return s;
        int64_t id = static_cast<int64_t>(rng() % kAccounts);
        std::string to_key = test::int_key(schema, id);
        Row to;
        if (!txn.get_row(table, to_key, &to).ok() || to_key == from_key) return Status::OK();
        int64_t amount = static_cast<int64_t>(rng() % 100);
        int choice = static_cast<int>(rng() % 100);
        if (choice < 10) {
          // Close `from` into `to`.
          to[2] = Value::Int(to[2].as_int() + from[2].as_int());
          s = txn.erase(table, from_key);
          if (s.ok()) s = txn.update(table, to_key, to);
        } else if (choice < 20) {
          Row opened = {Value::Int(next_id++), Value::String("b" + std::to_string(rng() % 10)),
                        Value::Int(amount)};
          to[2] = Value::Int(to[2].as_int() - amount);
          s = txn.update(table, to_key, to);
          if (s.ok()) s = txn.insert(table, opened);
        } else {
          from[2] = Value::Int(from[2].as_int() - amount);
          to[2] = Value::Int(to[2].as_int() + amount);
          from[1] = Value::String("b" + std::to_string(rng() % 10));
          s = txn.update(table, from_key, from);
          if (s.ok()) s = txn.update(table, to_key, to);
        }
        if (!s.ok()) return s;
        if (choice >= 98) return Status::Aborted("roll back");
        return Status::OK();
      });
      if (!status.ok() && !status.IsAborted()) failures++;
      writes++;
    }
  };

  auto reader = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    while (!stop.load()) {
      Snapshot snapshot = db->snapshot();
      for (int repeat = 0; repeat < 2; ++repeat) {
        ReadTxn txn(snapshot);
        int64_t sum = 0;
        uint64_t rows = 0;
        auto cursor = txn.scan(table, KeyRange::All(rng() % 2));
        for (; cursor->valid(); cursor->next()) {
          sum += decode_column(schema, cursor->value(), 2).as_int();
          rows++;
        }
        if (sum != total || rows != txn.entry_count(table)) failures++;
        // Every index entry leads to a row with the indexed name.
        uint64_t entries = 0;
        auto index = txn.scan(by_name, KeyRange::All());
        for (; index->valid(); index->next()) {
          std::string_view row;
          if (!txn.get(table, index->value(), &row).ok()) {
            failures++;
            continue;
          }
          entries++;
        }
        if (entries != rows || txn.entry_count(by_name) != rows) failures++;
      }
      reads++;
      // Leave the two cores to the writers and the owner now and then.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };

  std::vector<std::thread> threads;
  for (uint64_t seed = 1; seed <= 2; ++seed) threads.emplace_back(writer, seed);
  for (uint64_t seed = 10; seed < 18; ++seed) threads.emplace_back(reader, seed);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
  while (std::chrono::steady_clock::now() < deadline &&
         (writes.load() < 20000 || reads.load() < 2000)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  for (std::thread& thread : threads) thread.join();
  INFO("writes " << writes.load() << " reads " << reads.load());
  REQUIRE(failures.load() == 0);
  REQUIRE(writes.load() > 100);
  REQUIRE(reads.load() > 16);
  Stats stats = db->stats();
  REQUIRE(stats.reused_objects > 0);
  REQUIRE(stats.owner_busy_ns > 0);
}
