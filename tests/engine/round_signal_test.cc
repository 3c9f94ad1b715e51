// The round protocol between write() callers and the owner (src/round_signal.h):
// every caller gets its own answer, none is lost (a lost wake-up hangs the
// test), and the owner makes at most one FUTEX_WAKE call per round, however
// many callers sleep in it. Catch's assertions are not thread-safe: threads
// count failures instead.
#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace solo;

TEST_CASE("16 writers: each gets its own answer, at most one wake-up call per round") {
  auto db = test::open_db(Options{});
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              return Status::OK();
            }).ok());
  Stats before = db->stats();

  constexpr int kThreads = 16;
  constexpr int kWritesPerThread = 1500;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
    threads.emplace_back([&, thread_idx] {
      for (int write_idx = 0; write_idx < kWritesPerThread; ++write_idx) {
        int64_t id = int64_t{thread_idx} * kWritesPerThread + write_idx;
        // Every third write fails with a message naming its row: the caller
        // must get exactly that answer, not a neighbour's from the same round.
        bool fail = write_idx % 3 == 2;
        Status status = db->write([&](WriteTxn& txn) {
          Status s = txn.insert(table, {Value::Int(id), Value::String("w"), Value::Int(1)});
          if (!s.ok()) return s;
          return fail ? Status::InvalidArgument("row " + std::to_string(id)) : Status::OK();
        });
        bool right = fail ? status.ToString().find("row " + std::to_string(id)) != std::string::npos
                          : status.ok();
        if (!right) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(failures.load() == 0);

  Stats after = db->stats();
  uint64_t rounds = after.rounds - before.rounds;
  uint64_t commits = after.commits - before.commits;
  uint64_t rollbacks = after.rollbacks - before.rollbacks;
  CHECK(commits + rollbacks == uint64_t{kThreads} * kWritesPerThread);
  CHECK(rollbacks == uint64_t{kThreads} * (kWritesPerThread / 3));
  // One FUTEX_WAKE per round at most, never one per sleeping caller.
  CHECK(after.round_wakes - before.round_wakes <= rounds);
  CHECK(rounds <= commits + rollbacks);
  // Every committed row is there, no rolled-back one is.
  int64_t rows = 0;
  REQUIRE(db->read([&](ReadTxn& txn) {
              for (auto cursor = txn.scan(table, KeyRange::All()); cursor->valid(); cursor->next()) rows++;
              return Status::OK();
            }).ok());
  CHECK(rows == static_cast<int64_t>(commits));
}
