// Memory for nodes, records and root sets, and the reclamation of retired
// objects (engine/README.md "Reclamation"). Owner thread only.
//
// Objects come from 2 MiB arenas that are never handed back to the system
// during a run (a first touch of fresh memory costs ~10 us per page here).
// A freed object goes to the spare array of its size class (a vector of
// pointers: handing an object back never reads the cold object). A retired
// object -- one that a published snapshot may still reach -- waits in a FIFO
// with its generation, size and kind until no live snapshot can reach it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace solo::internal {

enum class ObjectKind : uint8_t { kNode, kRecord, kRootSet };

struct RetiredObject {
  void* ptr;
  uint64_t retire_gen;  // first generation whose snapshot cannot reach it
  uint64_t made_gen;    // generation the object was made in
  uint32_t bytes;
  ObjectKind kind;
};

class ObjectPool {
 public:
  // reuse: false keeps reclaimed objects unused until destruction (a test switch).
  explicit ObjectPool(bool reuse);
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
  void retire(void* ptr, uint32_t bytes, ObjectKind kind, uint64_t made_gen, uint64_t retire_gen);
  // Makes reusable, oldest first, at most `budget` retired objects whose
  // retire_gen <= safe_gen (no live snapshot is older than safe_gen).
  // Returns how many were reclaimed.
  size_t reclaim(uint64_t safe_gen, size_t budget);

  // Every object in a spare array (for tests: reuse checks).
  std::vector<const void*> spare_objects() const;
  uint64_t arena_bytes() const { return arena_bytes_; }
  uint64_t reused() const { return reused_; }
  uint64_t fresh() const { return fresh_; }
  size_t retired_pending() const { return retired_.size() - retired_head_; }
  // Retired objects in FIFO order (for tests and debug checks).
  const RetiredObject* retired_begin() const { return retired_.data() + retired_head_; }
  const RetiredObject* retired_end() const { return retired_.data() + retired_.size(); }

 private:
  static constexpr uint32_t kGrain = 16;
  static constexpr uint32_t kMaxPooledBytes = 4096;
  static constexpr size_t kArenaBytes = size_t{2} << 20;

  static uint32_t class_of(uint32_t bytes) { return (bytes + kGrain - 1) / kGrain; }
  void* allocate_fresh(uint32_t rounded);
  void make_spare(void* ptr, uint32_t bytes);

  const bool reuse_;
  std::vector<std::vector<void*>> spare_;  // by size class
  std::vector<RetiredObject> retired_;     // FIFO from retired_head_
  size_t retired_head_ = 0;
  std::vector<void*> arenas_;
  char* arena_next_ = nullptr;
  char* arena_end_ = nullptr;
  std::unordered_set<void*> large_;        // objects above kMaxPooledBytes, malloc'd
  uint64_t arena_bytes_ = 0;
  uint64_t reused_ = 0;
  uint64_t fresh_ = 0;
};

}  // namespace solo::internal
