#include <atomic>
#include <chrono>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstdio>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
using Clock = std::chrono::steady_clock;
std::atomic<uint32_t> word{0};
std::atomic<int64_t> stamp{0};
std::atomic<bool> stop{false};
int64_t now_ns() { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); }
void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
int main(int argc, char** argv) {
  bool spinner = argc > 1 && argv[1][0] == '1';
  int gap_us = argc > 2 ? atoi(argv[2]) : 600;
  std::vector<int64_t> lat;
  std::thread b([&] {
    pin(1);
    uint32_t seen = 0;
    while (!stop) {
      while (word.load() == seen && !stop) syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
      seen = word.load();
      lat.push_back(now_ns() - stamp.load());
    }
  });
  std::thread sp;
  if (spinner) sp = std::thread([&] { pin(1); sched_param p{}; pthread_setschedparam(pthread_self(), SCHED_IDLE, &p); while (!stop) {} });
  pin(0);
  for (int i = 0; i < 5000; ++i) {
    auto t = Clock::now() + std::chrono::microseconds(gap_us);
    while (Clock::now() < t) {}
    stamp.store(now_ns());
    word.fetch_add(1);
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  stop = true; word.fetch_add(1); syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  b.join(); if (spinner) sp.join();
  std::sort(lat.begin(), lat.end());
  auto q = [&](double p) { return lat[std::min(lat.size() - 1, size_t(p * lat.size()))] / 1000.0; };
  printf("spinner=%d n=%zu wake us p50 %.1f p90 %.1f p99 %.1f p999 %.1f max %.1f\n", spinner, lat.size(), q(.5), q(.9), q(.99), q(.999), lat.back() / 1000.0);
}
