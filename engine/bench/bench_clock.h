// Clocks shared by the engine's benchmark tools.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdint>

namespace solo::bench {

// CPU time of the whole process (user + system), in nanoseconds.
inline uint64_t process_cpu_ns() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1000000000 + static_cast<uint64_t>(tv.tv_usec) * 1000;
  };
  return ns(usage.ru_utime) + ns(usage.ru_stime);
}

// Monotonic wall time, in nanoseconds.
inline uint64_t wall_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace solo::bench
