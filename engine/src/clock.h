// The engine's monotonic clock in nanoseconds (owner accounting, spins).
#pragma once

#include <chrono>
#include <cstdint>

namespace solo::internal {

inline uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace solo::internal
