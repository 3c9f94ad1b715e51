#include "arena_prefaulter.h"

#include <pthread.h>
#include <sys/mman.h>

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
    void* arena = ObjectPool::make_arena();
#ifdef MADV_POPULATE_WRITE
    bool populated = madvise(arena, ObjectPool::kArenaBytes, MADV_POPULATE_WRITE) == 0;
#else
    bool populated = false;
#endif
    if (!populated) {
      // Older kernels: one write per 4 KiB page does the same.
      auto* bytes = static_cast<volatile char*>(arena);
      for (size_t offset = 0; offset < ObjectPool::kArenaBytes; offset += 4096) bytes[offset] = 0;
    }
    pool->add_ready_arena(arena);
  }
}

}  // namespace solo::internal
