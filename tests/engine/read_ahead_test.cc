// ReadAhead (recovery's queue between a reading thread and the owner):
// everything arrives once and in order, the bound holds, a stopped consumer
// releases a waiting producer, and the producer's status comes through.
#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "read_ahead.h"

using solo::Status;
using solo::internal::ReadAhead;

TEST_CASE("read ahead: every item once and in order, never more than the bound plus one") {
  constexpr size_t kMax = 100;
  for (int slow_consumer = 0; slow_consumer < 2; ++slow_consumer) {
    ReadAhead<int> ahead(kMax);
    std::atomic<size_t> queued{0};  // bytes pushed and not yet popped
    std::atomic<size_t> most{0};
    std::thread producer([&] {
      for (int item = 0; item < 5000; ++item) {
        const size_t bytes = 1 + static_cast<size_t>(item % 7);
        size_t now = queued.fetch_add(bytes) + bytes;
        size_t seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        if (!ahead.push(item, bytes)) {
          ahead.finish(Status::Aborted("stopped"));
          return;
        }
      }
      ahead.finish(Status::OK());
    });
    int expected = 0;
    int item;
    while (ahead.pop(&item)) {
      REQUIRE(item == expected);
      queued.fetch_sub(1 + static_cast<size_t>(item % 7));
      expected++;
      if (slow_consumer == 1 && expected % 500 == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    producer.join();
    REQUIRE(expected == 5000);
    REQUIRE(ahead.status().ok());
    // The queue holds less than the bound before a push, so at most one item
    // (<= 7) past it; the count also holds the item being pushed and the one
    // popped but not yet subtracted. A producer that ignored the bound shows
    // far more with the slow consumer.
    REQUIRE(most.load() <= kMax + 3 * 7);
  }
}

TEST_CASE("read ahead: a consumer that stops releases the waiting producer") {
  ReadAhead<int> ahead(10);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int item = 0; item < 1000; ++item) {
      if (!ahead.push(item, 5)) break;
      pushed++;
    }
    ahead.finish(Status::Aborted("stopped"));
  });
  int item;
  REQUIRE(ahead.pop(&item));
  REQUIRE(item == 0);
  while (pushed.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ahead.stop();
  producer.join();  // would hang if push() kept waiting
  REQUIRE(pushed.load() < 1000);
}

TEST_CASE("read ahead: the producer's error ends the queue after its items") {
  ReadAhead<int> ahead(1 << 20);
  std::thread producer([&] {
    for (int item = 0; item < 3; ++item) REQUIRE(ahead.push(item, 1));
    ahead.finish(Status::Corruption("bad block"));
  });
  producer.join();
  int item, count = 0;
  while (ahead.pop(&item)) count++;
  REQUIRE(count == 3);
  REQUIRE(ahead.status().IsCorruption());
}
