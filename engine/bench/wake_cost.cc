// What a blocking round trip costs on this machine, the floor under the
// "empty write transaction from 16 threads" target (issue 3): a system call
// (getppid), a FUTEX_WAKE that finds no waiter, and a futex ping-pong between
// two threads (each round trip: two sleeps and two wake-ups). Times are
// process CPU time per operation (the VM is shared), plus wall time for the
// ping-pong. Prints one JSON object per line.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "bench_clock.h"

namespace {

using solo::bench::process_cpu_ns;
using solo::bench::wall_ns;

long futex(std::atomic<uint32_t>& word, int op, uint32_t value) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), op, value, nullptr, nullptr, 0);
}

void report(const char* what, uint64_t ops, uint64_t cpu_ns, uint64_t wall) {
  std::printf(
      "{\"what\": \"%s\", \"ops\": %lu, \"cpu_ns_per_op\": %.0f, \"wall_ns_per_op\": %.0f}\n", what,
      static_cast<unsigned long>(ops), static_cast<double>(cpu_ns) / ops,
      static_cast<double>(wall) / ops);
  std::fflush(stdout);
}

}  // namespace

int main() {
  constexpr uint64_t kCalls = 200000;
  uint64_t cpu = process_cpu_ns();
  uint64_t wall = wall_ns();
  for (uint64_t call = 0; call < kCalls; ++call) syscall(SYS_getppid);
  report("getppid", kCalls, process_cpu_ns() - cpu, wall_ns() - wall);

  std::atomic<uint32_t> idle{0};
  cpu = process_cpu_ns();
  wall = wall_ns();
  for (uint64_t call = 0; call < kCalls; ++call) futex(idle, FUTEX_WAKE_PRIVATE, INT_MAX);
  report("futex_wake_no_waiter", kCalls, process_cpu_ns() - cpu, wall_ns() - wall);

  // Ping-pong: `turn` is 0 (A's turn) or 1 (B's turn); each side sleeps
  // until it is its turn, hands the turn over and wakes the other.
  constexpr uint64_t kTrips = 50000;
  std::atomic<uint32_t> turn{0};
  auto play = [&turn](uint32_t mine) {
    for (uint64_t trip = 0; trip < kTrips; ++trip) {
      while (turn.load(std::memory_order_acquire) != mine)
        futex(turn, FUTEX_WAIT_PRIVATE, 1 - mine);
      turn.store(1 - mine, std::memory_order_release);
      futex(turn, FUTEX_WAKE_PRIVATE, 1);
    }
  };
  cpu = process_cpu_ns();
  wall = wall_ns();
  std::thread other([&] { play(1); });
  play(0);
  other.join();
  report("futex_ping_pong_round_trip", kTrips, process_cpu_ns() - cpu, wall_ns() - wall);

  // Two threads on one CPU that sched_yield() to each other: each yield is
  // a system call and a context switch, the least a caller that is not
  // running pays to see its answer when 16 callers share 2 cores.
  constexpr uint64_t kYields = 100000;
  std::atomic<bool> go{false};
  auto yielder = [&go] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    while (!go.load()) sched_yield();
    for (uint64_t yield = 0; yield < kYields; ++yield) sched_yield();
  };
  std::thread first(yielder);
  std::thread second(yielder);
  cpu = process_cpu_ns();
  wall = wall_ns();
  go.store(true);
  first.join();
  second.join();
  report("sched_yield_switch_one_cpu", 2 * kYields, process_cpu_ns() - cpu, wall_ns() - wall);
  return 0;
}
