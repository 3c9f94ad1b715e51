// Memory for nodes, records and root sets, and the reclamation of retired
// objects (engine/README.md "Reclamation"). Owner thread only.
//
// Objects come from 2 MiB arenas that are never handed back to the system
// during a run (a first touch of fresh memory costs ~10 us per page here).
// A freed object goes to the spare array of its size class (a vector of
// pointers: handing an object back never reads the cold object). A retired
// object -- one that a published snapshot may still reach -- waits in a FIFO
// with its generation, size and kind until no live snapshot can reach it.
//
// Prefaulting: with prefault_arenas > 0, a helper thread keeps that many
// arenas allocated and touched ahead of need, so that the owner does not
// pay for the kernel zeroing fresh pages (a 2 MiB huge page, or 512 small
// ones) while it runs transactions. The owner takes a ready arena without
// waiting, or makes one itself if none is ready.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include "snapshot_registry.h"

namespace solo::internal {

enum class ObjectKind : uint8_t { kNode, kRecord, kRootSet };

struct RetiredObject {
  void* ptr;
  uint64_t retire_gen;  // first generation whose snapshot cannot reach it
  uint64_t made_gen;    // generation the object was made in
  uint32_t bytes;
  uint32_t tree;  // the tree it belonged to, kNoTree for a RootSet
  ObjectKind kind;
};

constexpr uint32_t kNoTree = UINT32_MAX;

class ObjectPool {
 public:
  // reuse: false keeps reclaimed objects unused until destruction (a test switch).
  // prefault_arenas: arenas a helper thread keeps touched ahead (0: none,
  // no thread); prefault_sched_idle: that thread runs in the SCHED_IDLE
  // class (else at nice kPrefaultNice).
  explicit ObjectPool(bool reuse, int prefault_arenas = 0, bool prefault_sched_idle = true);
  ~ObjectPool();
  ObjectPool(const ObjectPool&) = delete;
  ObjectPool& operator=(const ObjectPool&) = delete;

  // Returns memory for an object of `bytes` (> 0). Spare objects of the size
  // class first (most recently freed first), then fresh arena memory.
  void* allocate(uint32_t bytes);
  // `ptr` (from allocate(bytes)) is unreachable from every snapshot: reusable now.
  void free_now(void* ptr, uint32_t bytes);
  // `ptr` left the newest state while generation `retire_gen` was being built;
  // snapshots older than retire_gen may still reach it.
  // `tree`: the tree it belonged to (kNoTree: none, or not known).
  void retire(void* ptr, uint32_t bytes, ObjectKind kind, uint64_t made_gen, uint64_t retire_gen,
              uint32_t tree);
  // Looks at no more than `budget` retired objects and makes reusable those
  // that no snapshot can reach: retire_gen <= published_gen (the newest
  // snapshot does not reach them) and no pinned generation g (sorted) with
  // made_gen <= g < retire_gen still needs their tree (its Pin has not
  // released it). Objects that a pinned snapshot reaches are held back and
  // looked at again when the pins change. Returns how many were reclaimed.
  size_t reclaim(uint64_t published_gen, const std::vector<Pin>& pinned, size_t budget);

  // Every object in a spare array (for tests: reuse checks).
  std::vector<const void*> spare_objects() const;
  uint64_t arena_bytes() const { return arena_bytes_; }
  uint64_t reused() const { return reused_; }
  uint64_t fresh() const { return fresh_; }
  // Arenas taken from the prefaulting thread, and made by the owner itself.
  uint64_t prefaulted_taken() const { return prefaulted_taken_; }
  uint64_t arenas_made() const { return arenas_made_; }
  // Arenas ready to be taken now (any thread).
  size_t ready_arenas() const { return ready_count_.load(std::memory_order_acquire); }
  static constexpr size_t kArenaBytes = size_t{2} << 20;
  static constexpr size_t arena_size() { return kArenaBytes; }
  // Arenas made and faulted in ahead of need by another thread as well
  // (recovery's ArenaPrefaulter, sized by the checkpoint): allocate() takes
  // ready arenas, theirs or the pool's own thread's, before it makes one.
  // Any thread.
  static void* make_arena();  // allocated, asked for huge pages, not touched
  static void* make_touched_arena();  // make_arena(), then every page faulted in
  void add_ready_arena(void* arena);
  size_t retired_pending() const { return retired_.size() - retired_head_ + held_back_.size(); }
  // Oldest retire_gen in the FIFO (UINT64_MAX if empty), and held-back objects.
  uint64_t oldest_retire_gen() const {
    return retired_head_ < retired_.size() ? retired_[retired_head_].retire_gen : UINT64_MAX;
  }
  size_t held_back() const { return held_back_.size(); }

 private:
  // Size classes every 8 bytes: a record (8-byte header + row) wastes 3.5
  // bytes on average rounding up, not 7.5 (~16 MB at W=1 after a 20 s run).
  static constexpr uint32_t kGrain = 8;
  static constexpr uint32_t kMaxPooledBytes = 4096;

  static uint32_t class_of(uint32_t bytes) { return (bytes + kGrain - 1) / kGrain; }
  void* allocate_fresh(uint32_t rounded);
  void prefault_main();
  void make_spare(void* ptr, uint32_t bytes);

  const bool reuse_;
  std::vector<std::vector<void*>> spare_;  // by size class
  std::vector<RetiredObject> retired_;     // FIFO from retired_head_
  size_t retired_head_ = 0;
  std::vector<RetiredObject> held_back_;   // reachable from a pinned snapshot when examined
  size_t held_back_pos_ = 0;               // next held-back object to examine
  std::vector<Pin> held_back_pins_;        // pinned set of the current pass
  std::vector<void*> arenas_;
  char* arena_next_ = nullptr;
  char* arena_end_ = nullptr;
  std::unordered_set<void*> large_;        // objects above kMaxPooledBytes, malloc'd
  uint64_t arena_bytes_ = 0;
  uint64_t reused_ = 0;
  uint64_t fresh_ = 0;
  uint64_t prefaulted_taken_ = 0;
  uint64_t arenas_made_ = 0;

  // The prefaulting thread and the arenas it has ready (under ready_mutex_).
  static constexpr int kPrefaultNice = 10;
  const size_t prefault_target_;
  const bool prefault_sched_idle_;
  std::mutex ready_mutex_;
  std::condition_variable ready_cv_;  // the thread waits for room or stop
  std::vector<void*> ready_;  // oldest first
  std::atomic<size_t> ready_count_{0};  // ready_.size(), read without the lock
  bool stopping_ = false;
  std::thread prefaulter_;
};

}  // namespace solo::internal
