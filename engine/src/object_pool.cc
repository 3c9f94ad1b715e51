#include "object_pool.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "invariant.h"
#include "thread_priority.h"

namespace solo::internal {

ObjectPool::ObjectPool(bool reuse, int prefault_arenas, bool prefault_sched_idle)
    : reuse_(reuse),
      spare_(kMaxPooledBytes / kGrain + 1),
      prefault_target_(prefault_arenas > 0 ? static_cast<size_t>(prefault_arenas) : 0),
      prefault_sched_idle_(prefault_sched_idle) {
  if (prefault_target_ > 0) prefaulter_ = std::thread([this] { prefault_main(); });
}

ObjectPool::~ObjectPool() {
  if (prefaulter_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(ready_mutex_);
      stopping_ = true;
    }
    ready_cv_.notify_one();
    prefaulter_.join();
  }
  for (void* arena : ready_) std::free(arena);
  for (void* arena : arenas_) {
    SOLO_UNPOISON(arena, kArenaBytes);
    std::free(arena);
  }
  for (void* large : large_) std::free(large);
}

void* ObjectPool::make_arena() {
  void* arena = std::aligned_alloc(kArenaBytes, kArenaBytes);
  if (arena == nullptr) std::abort();  // out of memory: nothing sensible to do
  madvise(arena, kArenaBytes, MADV_HUGEPAGE);
  return arena;
}

void* ObjectPool::make_touched_arena() {
  void* arena = make_arena();
#ifdef MADV_POPULATE_WRITE
  if (madvise(arena, kArenaBytes, MADV_POPULATE_WRITE) == 0) return arena;
#endif
  // Older kernels: one write per small page does the same (a huge page is
  // faulted in whole by the first).
  for (size_t offset = 0; offset < kArenaBytes; offset += 4096) {
    static_cast<volatile char*>(arena)[offset] = 0;
  }
  return arena;
}

void ObjectPool::prefault_main() {
  pthread_setname_np(pthread_self(), "solo-prefault");
  // Below the owner (Options::prefault_sched_idle): else each wake-up to
  // make an arena (~1-5 ms of page zeroing) may take a core from the owner
  // or the thread that feeds it.
  lower_this_thread(prefault_sched_idle_, kPrefaultNice);
  std::unique_lock<std::mutex> lock(ready_mutex_);
  while (true) {
    ready_cv_.wait(lock, [this] { return stopping_ || ready_.size() < prefault_target_; });
    if (stopping_) return;
    lock.unlock();
    void* arena = make_touched_arena();
    lock.lock();
    ready_.push_back(arena);
    ready_count_.store(ready_.size(), std::memory_order_release);
  }
}

void ObjectPool::add_ready_arena(void* arena) {
  std::lock_guard<std::mutex> lock(ready_mutex_);
  ready_.push_back(arena);
  ready_count_.store(ready_.size(), std::memory_order_release);
}

void* ObjectPool::allocate_fresh(uint32_t rounded) {
  if (arena_next_ == nullptr || arena_next_ + rounded > arena_end_) {
    void* arena = nullptr;
    if (ready_count_.load(std::memory_order_acquire) > 0) {
      // Never waits: if a prefaulter holds the lock, the owner makes its own.
      std::unique_lock<std::mutex> lock(ready_mutex_, std::try_to_lock);
      if (lock.owns_lock() && !ready_.empty()) {
        // The oldest first: touched longest ago, so its pages are surely in.
        arena = ready_.front();
        ready_.erase(ready_.begin());
        ready_count_.store(ready_.size(), std::memory_order_release);
        prefaulted_taken_++;
        lock.unlock();
        if (prefault_target_ > 0) ready_cv_.notify_one();
      }
    }
    if (arena == nullptr) {
      arena = make_arena();
      arenas_made_++;
    }
    arenas_.push_back(arena);
    arena_bytes_ += kArenaBytes;
    arena_next_ = static_cast<char*>(arena);
    arena_end_ = arena_next_ + kArenaBytes;
  }
  void* ptr = arena_next_;
  arena_next_ += rounded;
  fresh_++;
  return ptr;
}

namespace {

void prefetch_for_write(const void* ptr, uint32_t bytes) {
  const char* base = static_cast<const char*>(ptr);
  for (uint32_t line = 0; line < bytes; line += 64) __builtin_prefetch(base + line, 1, 3);
}

}  // namespace

void* ObjectPool::allocate(uint32_t bytes) {
  SOLO_ASSERT(bytes > 0);
  if (bytes > kMaxPooledBytes) {
    void* ptr = std::malloc(bytes);
    if (ptr == nullptr) std::abort();
    large_.insert(ptr);
    fresh_++;
    return ptr;
  }
  uint32_t size_class = class_of(bytes);
  std::vector<void*>& spare = spare_[size_class];
  if (!spare.empty()) {
    void* ptr = spare.back();
    spare.pop_back();
    SOLO_UNPOISON(ptr, size_class * kGrain);
    reused_++;
    // The next allocation of this class is written whole (a node copy, a
    // new record): asking for its lines now turns the misses of that write
    // into hits.
    if (!spare.empty()) prefetch_for_write(spare.back(), size_class * kGrain);
    return ptr;
  }
  void* ptr = allocate_fresh(size_class * kGrain);
  if (arena_next_ + size_class * kGrain <= arena_end_) {
    prefetch_for_write(arena_next_, size_class * kGrain);
  }
  return ptr;
}

void ObjectPool::make_spare(void* ptr, uint32_t bytes) {
  if (bytes > kMaxPooledBytes) {
    large_.erase(ptr);
    std::free(ptr);
    return;
  }
  uint32_t size_class = class_of(bytes);
#if SOLO_DEBUG
  // A reader that still reaches this object reads garbage and trips an assert.
  std::memset(ptr, 0xDB, size_class * kGrain);
#endif
  SOLO_POISON(ptr, size_class * kGrain);
  if (reuse_) spare_[size_class].push_back(ptr);
}

void ObjectPool::free_now(void* ptr, uint32_t bytes) { make_spare(ptr, bytes); }

void ObjectPool::retire(void* ptr, uint32_t bytes, ObjectKind kind, uint64_t made_gen,
                        uint64_t retire_gen, uint32_t tree) {
  SOLO_ASSERT(made_gen < retire_gen);
  SOLO_ASSERT(retired_.size() == retired_head_ || retired_.back().retire_gen <= retire_gen);
  SOLO_ASSERT(kind != ObjectKind::kRootSet || tree == kNoTree);
  retired_.push_back(RetiredObject{ptr, retire_gen, made_gen, bytes, tree, kind});
}

size_t ObjectPool::reclaim(uint64_t published_gen, const std::vector<Pin>& pinned, size_t budget) {
  // Reachable from a pinned generation in [made_gen, retire_gen) whose
  // holders have not all released the object's tree.
  auto reachable = [&pinned](const RetiredObject& object) {
    auto pin = std::lower_bound(pinned.begin(), pinned.end(), object.made_gen,
                                [](const Pin& p, uint64_t gen) { return p.gen < gen; });
    for (; pin != pinned.end() && pin->gen < object.retire_gen; ++pin) {
      if (object.tree >= SnapshotRegistry::kMaskTrees ||
          (pin->released_trees >> object.tree & 1) == 0) {
        return true;
      }
    }
    return false;
  };
  size_t examined = 0;
  size_t reclaimed = 0;
  while (examined < budget && retired_head_ < retired_.size() &&
         retired_[retired_head_].retire_gen <= published_gen) {
    const RetiredObject& object = retired_[retired_head_++];
    examined++;
    if (reachable(object)) {
      held_back_.push_back(object);
    } else {
      make_spare(object.ptr, object.bytes);
      reclaimed++;
    }
  }
  // Keep the FIFO's storage bounded without shifting it every round.
  if (retired_head_ == retired_.size()) {
    retired_.clear();
    retired_head_ = 0;
  } else if (retired_head_ > 4096 && retired_head_ * 2 > retired_.size()) {
    retired_.erase(retired_.begin(), retired_.begin() + static_cast<ptrdiff_t>(retired_head_));
    retired_head_ = 0;
  }
  // Held-back objects: one pass per change of the pinned set, within budget.
  if (!held_back_.empty()) {
    if (pinned != held_back_pins_) {
      held_back_pins_ = pinned;
      held_back_pos_ = 0;
    }
    while (examined < budget && held_back_pos_ < held_back_.size()) {
      examined++;
      RetiredObject& object = held_back_[held_back_pos_];
      if (reachable(object)) {
        held_back_pos_++;
        continue;
      }
      make_spare(object.ptr, object.bytes);
      reclaimed++;
      object = held_back_.back();
      held_back_.pop_back();
    }
  }
  return reclaimed;
}

std::vector<const void*> ObjectPool::spare_objects() const {
  std::vector<const void*> objects;
  for (const auto& spare : spare_) objects.insert(objects.end(), spare.begin(), spare.end());
  return objects;
}

}  // namespace solo::internal
