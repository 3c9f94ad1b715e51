// Faults in the pool's next arenas on a thread of its own while recovery
// loads a checkpoint and replays the log (recovery.cc): the owner, which does
// that work serially, otherwise spends about a fifth of it in the kernel
// zeroing fresh huge pages on first touch (engine/README.md "Recovery").
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "object_pool.h"

namespace solo::internal {

class ArenaPrefaulter {
 public:
  // Starts a thread that makes and faults in arenas for `pool`, up to
  // `bytes` in all, never more than kAheadBytes waiting to be taken. The pool
  // must outlive this object.
  ArenaPrefaulter(ObjectPool* pool, uint64_t bytes);
  // Stops the thread (arenas it made stay in the pool).
  ~ArenaPrefaulter();
  ArenaPrefaulter(const ArenaPrefaulter&) = delete;
  ArenaPrefaulter& operator=(const ArenaPrefaulter&) = delete;

  static constexpr uint64_t kAheadBytes = uint64_t{128} << 20;

 private:
  void run(ObjectPool* pool, uint64_t arenas);

  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace solo::internal
