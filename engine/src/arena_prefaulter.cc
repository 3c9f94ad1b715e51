#include "arena_prefaulter.h"

#include <pthread.h>

#include <chrono>

namespace solo::internal {

ArenaPrefaulter::ArenaPrefaulter(ObjectPool* pool, uint64_t bytes) {
  const uint64_t arenas = bytes / ObjectPool::kArenaBytes;
  if (arenas > 0) thread_ = std::thread([this, pool, arenas] { run(pool, arenas); });
}

ArenaPrefaulter::~ArenaPrefaulter() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void ArenaPrefaulter::run(ObjectPool* pool, uint64_t arenas) {
  pthread_setname_np(pthread_self(), "solo-prefault");
  const size_t ahead = kAheadBytes / ObjectPool::kArenaBytes;
  for (uint64_t made = 0; made < arenas; ++made) {
    while (pool->ready_arenas() >= ahead) {
      if (stop_.load(std::memory_order_relaxed)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    pool->add_ready_arena(ObjectPool::make_touched_arena());
  }
}

}  // namespace solo::internal
