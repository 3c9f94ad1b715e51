// The round protocol between write() callers and the owner (src/round_signal.h):
// every caller gets its own answer, none is lost (a lost wake-up hangs the
// test), and the owner makes at most one FUTEX_WAKE call per round, however
// many callers sleep in it. Catch's assertions are not thread-safe: threads
// count failures instead.
#include "round_signal.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace solo;
using solo::internal::RoundSignal;

namespace {

struct Waiter {
  std::atomic<uint32_t> done{0};
  std::atomic<uint32_t> round{0};
  std::atomic<bool> returned{false};
};

}  // namespace

// The sleeping path on its own (with 16 writers on 2 cores callers mostly
// find their answer while yielding): callers that sleep are all woken by
// one owner call plus one hand-on, none returns before its round is
// answered, and none is lost (a lost wake-up hangs the test). Also across
// the wrap of the 32-bit round counter (round numbers skip 0, the "not taken
// yet" stamp).
void check_sleeping_callers(uint32_t first_round) {
  RoundSignal signal(first_round);
  const uint32_t round_one = RoundSignal::round_after(first_round);
  const uint32_t round_two = RoundSignal::round_after(round_one);
  constexpr int kCallers = 8;
  constexpr int64_t kManyWriters = 64;  // more than the cores: yield, then sleep
  Waiter first[kCallers];               // stamped with round_one, as if the owner took them
  Waiter second[kCallers];              // not taken yet: they sleep on the next two rounds
  for (Waiter& waiter : first) waiter.round.store(round_one);
  std::vector<std::thread> threads;
  auto start = [&](Waiter& waiter) {
    threads.emplace_back([&signal, &waiter] {
      signal.wait_answer(waiter.done, waiter.round, kManyWriters);
      waiter.returned.store(true);
    });
  };
  for (Waiter& waiter : first) start(waiter);
  for (Waiter& waiter : second) start(waiter);
  // Let every caller reach its futex wait (each counts a sleep before it).
  while (signal.caller_sleeps() < 2 * kCallers) std::this_thread::yield();

  // Round one: the owner takes and answers the first group.
  CHECK(signal.next_round() == round_one);
  signal.round_started(round_one);
  for (Waiter& waiter : first) waiter.done.store(1);
  signal.round_answered(round_one);
  for (int caller = 0; caller < kCallers; ++caller) threads[caller].join();
  int early = 0;
  for (Waiter& waiter : second) early += waiter.returned.load();
  CHECK(early == 0);
  CHECK(signal.round_wakes() == 1);  // one call, not one per sleeper
  CHECK(signal.caller_wakes() <= 1);

  // Round two: the second group.
  CHECK(signal.next_round() == round_two);
  for (Waiter& waiter : second) waiter.round.store(round_two);
  signal.round_started(round_two);
  for (Waiter& waiter : second) waiter.done.store(1);
  signal.round_answered(round_two);
  for (int caller = kCallers; caller < 2 * kCallers; ++caller) threads[caller].join();
  for (Waiter& waiter : second) CHECK(waiter.returned.load());
  CHECK(signal.round_wakes() <= 2);
  CHECK(signal.caller_wakes() <= 2);
}

TEST_CASE("sleeping callers: woken by one owner call and a hand-on, none early, none lost") {
  check_sleeping_callers(0);
}

TEST_CASE("sleeping callers across the wrap of the round counter") {
  CHECK(RoundSignal::round_after(0xFFFFFFFFu) == 1);
  check_sleeping_callers(0xFFFFFFFEu);  // rounds 0xFFFFFFFF, then 1
}

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
              for (auto cursor = txn.scan(table, KeyRange::All()); cursor->valid(); cursor->next())
                rows++;
              return Status::OK();
            }).ok());
  CHECK(rows == static_cast<int64_t>(commits));
}

TEST_CASE("RoundTimes: buckets are at most 1/8 wide, quantiles land in the right bucket") {
  for (uint64_t ns : {uint64_t{0}, uint64_t{7}, uint64_t{8}, uint64_t{15}, uint64_t{16}, uint64_t{1000},
                      uint64_t{123456789}, UINT64_MAX}) {
    size_t bucket = RoundTimes::bucket_of(ns);
    INFO("ns " << ns << " bucket " << bucket);
    REQUIRE(bucket < RoundTimes::kBuckets);
    REQUIRE(RoundTimes::bucket_low(bucket) <= ns);
    if (bucket + 1 < RoundTimes::kBuckets) {
      uint64_t next = RoundTimes::bucket_low(bucket + 1);
      REQUIRE(ns < next);
      REQUIRE(next - RoundTimes::bucket_low(bucket) <= std::max<uint64_t>(1, RoundTimes::bucket_low(bucket) / 8));
    }
  }
  RoundTimes times;
  REQUIRE(times.quantile_ns(0.99) == 0);
  for (int round = 0; round < 990; ++round) times.counts[RoundTimes::bucket_of(10'000)]++;
  for (int round = 0; round < 10; ++round) times.counts[RoundTimes::bucket_of(1'000'000)]++;
  REQUIRE(times.count() == 1000);
  REQUIRE(times.quantile_ns(0.5) >= 9'500);
  REQUIRE(times.quantile_ns(0.5) <= 10'700);
  REQUIRE(times.quantile_ns(0.99) <= 10'700);   // the 990th of 1000 is still 10 us
  REQUIRE(times.quantile_ns(0.995) >= 950'000);  // the 995th is 1 ms
  RoundTimes later = times;
  later.counts[RoundTimes::bucket_of(10'000)] += 5;
  REQUIRE(later.since(times).count() == 5);
}
