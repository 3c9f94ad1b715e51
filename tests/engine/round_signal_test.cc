// The round protocol between write() callers and the owner (src/round_signal.h):
// every caller gets its own answer, none is lost (a lost wake-up hangs the
// test), and the owner makes at most one FUTEX_WAKE call per round, however
// many callers sleep in it. Catch's assertions are not thread-safe: threads
// count failures instead.
#include "round_signal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "clock.h"
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
  signal.round_started(round_one, 1, 0);
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
  signal.round_started(round_two, 1, 0);
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
  const TableId table = test::create_table(*db, test::accounts_schema());
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

// Naps (RoundSignal::set_naps, Options::answer_wait): a caller whose round is
// expected to be answered 20 ms after it started sleeps on its own timer
// instead of the futex: it naps at least once, does not return before its
// answer, and the owner's answer needs no wake-up call. The answer comes
// 5 ms in, long before the caller's first nap ends (so a slow machine
// cannot push the caller past its estimate into the futex). With a single
// core no caller has a spare one: it never naps.
TEST_CASE("naps: a caller sleeps until its round's expected answer, and needs no wake-up") {
  using solo::internal::now_ns;
  RoundSignal signal;
  signal.set_naps(true);
  // A round of 10 requests that took 2 ms each: the estimate per request.
  signal.round_ran(signal.next_round(), 10, 0, 20'000'000);
  const uint32_t round = signal.next_round();
  Waiter waiter;
  waiter.round.store(round);
  signal.round_started(round, 10, now_ns());  // expected 20 ms from now
  std::thread caller([&] {
    signal.wait_answer(waiter.done, waiter.round, 1);
    waiter.returned.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK_FALSE(waiter.returned.load());
  waiter.done.store(1);
  signal.round_answered(round);
  caller.join();
  CHECK(waiter.returned.load());
  CHECK(signal.round_wakes() == 0);
  CHECK(signal.caller_sleeps() == 0);
  if (std::thread::hardware_concurrency() >= 2) {
    CHECK(signal.caller_naps() >= 1);
  } else {
    CHECK(signal.caller_naps() == 0);
  }
}

// Without naps, or with an answer due within ~40 us (a short round), the
// caller does not nap: it spins and then sleeps on the futex as before.
TEST_CASE("naps: none when turned off or when the answer is due at once") {
  using solo::internal::now_ns;
  for (bool naps : {false, true}) {
    RoundSignal signal;
    signal.set_naps(naps);
    signal.round_ran(signal.next_round(), 10, 0, naps ? 10'000 : 20'000'000);  // 1 us or 2 ms each
    const uint32_t round = signal.next_round();
    Waiter waiter;
    waiter.round.store(round);
    signal.round_started(round, 10, now_ns());
    std::thread caller([&] {
      signal.wait_answer(waiter.done, waiter.round, 1);
      waiter.returned.store(true);
    });
    while (signal.caller_sleeps() == 0) std::this_thread::yield();  // it reached the futex
    CHECK_FALSE(waiter.returned.load());
    waiter.done.store(1);
    signal.round_answered(round);
    caller.join();
    CHECK(signal.caller_naps() == 0);
    CHECK(signal.round_wakes() == 1);
  }
}

// A database in memory naps by default (Options::answer_wait kAuto): one
// writer thread keeps 64 writes in flight and collects them; every answer is
// its own, and Stats counts the naps.
TEST_CASE("naps: a driver of many submitted writes in memory naps and gets every answer") {
  auto db = test::open_db(Options{});
  const TableId table = test::create_table(*db, test::accounts_schema());
  constexpr int kInFlight = 64;
  constexpr int kBatches = 40;
  std::vector<PendingWrite> pending(kInFlight);
  std::vector<std::function<Status(WriteTxn&)>> bodies(kInFlight);
  int failures = 0;
  for (int batch = 0; batch < kBatches; ++batch) {
    for (int idx = 0; idx < kInFlight; ++idx) {
      int64_t id = int64_t{batch} * kInFlight + idx;
      bodies[idx] = [&, id](WriteTxn& txn) {
        // Enough work per write for rounds that last well over 40 us.
        for (int row = 0; row < 20; ++row) {
          Status s =
              txn.insert(table, {Value::Int(id * 20 + row), Value::String("n"), Value::Int(1)});
          if (!s.ok()) return s;
        }
        return id % 5 == 4 ? Status::InvalidArgument("row " + std::to_string(id)) : Status::OK();
      };
      REQUIRE(db->submit(pending[idx], bodies[idx]).ok());
    }
    for (int idx = 0; idx < kInFlight; ++idx) {
      int64_t id = int64_t{batch} * kInFlight + idx;
      Status status = db->finish(pending[idx]);
      bool right = id % 5 == 4
                       ? status.ToString().find("row " + std::to_string(id)) != std::string::npos
                       : status.ok();
      if (!right) failures++;
    }
  }
  CHECK(failures == 0);
  Stats stats = db->stats();
  CHECK(stats.commits >= uint64_t{kBatches} * kInFlight * 4 / 5);
  if (std::thread::hardware_concurrency() >= 2) CHECK(stats.caller_naps > 0);
}
