// Process and thread CPU measurements (tpcc/sysinfo.h).
#include "tpcc/sysinfo.h"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace tpcc {
namespace {

// Burns `cpu` of this thread's own CPU time.
void spin_for(std::chrono::microseconds cpu) {
  timespec start{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  volatile uint64_t sink = 0;
  while (true) {
    for (int step = 0; step < 10000; ++step) sink = sink + static_cast<uint64_t>(step);
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    int64_t used = (now.tv_sec - start.tv_sec) * 1000000LL + (now.tv_nsec - start.tv_nsec) / 1000;
    if (used >= cpu.count()) return;
  }
}

TEST_CASE("thread CPU is summed by thread name, and a named thread's spin shows under its name") {
  std::atomic<bool> spun{false};
  std::atomic<bool> release{false};
  auto named = [&](const char* name, std::chrono::microseconds cpu) {
    return std::thread([&, name, cpu] {
      pthread_setname_np(pthread_self(), name);
      spin_for(cpu);
      spun.store(true);
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  };
  // Two threads of one name, spinning 60 and 90 ms; one of another name, idle.
  std::thread first = named("sysinfo-spin", std::chrono::milliseconds(60));
  std::thread second = named("sysinfo-spin", std::chrono::milliseconds(90));
  std::thread idle = named("sysinfo-idle", std::chrono::microseconds(0));
  // Both spinners done: their CPU stays, the threads alive.
  while (true) {
    auto by_name = thread_cpu_micros_by_name();
    if (by_name["sysinfo-spin"] >= 150000) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto by_name = thread_cpu_micros_by_name();
  release.store(true);
  first.join();
  second.join();
  idle.join();
  REQUIRE(by_name.count("sysinfo-spin") == 1);
  REQUIRE(by_name.count("sysinfo-idle") == 1);
  // Per-thread CPU clocks (not 10 ms ticks): within a few ms of what was spun.
  CHECK(by_name["sysinfo-spin"] >= 150000);
  CHECK(by_name["sysinfo-spin"] < 170000);
  CHECK(by_name["sysinfo-idle"] < 20000);
  // The live threads' sum is at most the process's total.
  int64_t sum = 0;
  for (const auto& [name, micros] : by_name) sum += micros;
  CHECK(sum <= process_cpu_micros() + 1000);
  // Ended threads are gone from it.
  CHECK(thread_cpu_micros_by_name().count("sysinfo-spin") == 0);
}

TEST_CASE(
    "huge pages are counted over the advised mappings only, never above their resident bytes") {
  constexpr size_t kArena = size_t{2} << 20;
  const HugePageAdvised before = huge_page_advised_memory();
  // Four advised, touched arenas, as solo's; and as much again not advised.
  std::vector<void*> arenas;
  for (int arena_idx = 0; arena_idx < 4; ++arena_idx) {
    void* arena = std::aligned_alloc(kArena, kArena);
    REQUIRE(arena != nullptr);
    REQUIRE(::madvise(arena, kArena, MADV_HUGEPAGE) == 0);
    std::memset(arena, 1, kArena);
    arenas.push_back(arena);
  }
  std::vector<char> plain(4 * kArena, 1);
  const HugePageAdvised after = huge_page_advised_memory();
  for (void* arena : arenas) std::free(arena);
  CHECK(after.resident_bytes - before.resident_bytes >= int64_t{4} * static_cast<int64_t>(kArena));
  CHECK(after.huge_bytes >= 0);
  CHECK(after.huge_bytes <= after.resident_bytes);
}

}  // namespace
}  // namespace tpcc
