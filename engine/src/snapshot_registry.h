// Which generations live snapshots hold (engine/README.md "Snapshots").
//
// A fixed array of slots, one cache line each. Taking a snapshot claims a free
// slot, pins it at 0 ("hold everything"), raises the high-water mark, loads
// the published RootSet and then stores its generation in the slot. The owner
// publishes (a seq_cst store) before it scans the slots (seq_cst loads), so
// either the owner sees the pin or the reader sees the newer RootSet: a
// generation the owner did not see pinned is never one a reader can still
// be reading.
//
// A holder may also say that it is done with some trees (release_tree: the
// checkpoint writer, once a table is written): the objects of those trees
// that only its generation reaches can then be reclaimed while it goes on
// reading the others (engine/README.md "Reclamation").
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace solo::internal {

struct RootSet;

// A generation that live snapshots hold, and the trees (bit t for tree t < 64)
// that every holder of it is done with.
struct Pin {
  uint64_t gen;
  uint64_t released_trees;
  bool operator==(const Pin&) const = default;
};

class SnapshotRegistry {
 public:
  static constexpr uint32_t kSlots = 256;
  static constexpr uint64_t kFree = UINT64_MAX;

  SnapshotRegistry() = default;
  SnapshotRegistry(const SnapshotRegistry&) = delete;
  SnapshotRegistry& operator=(const SnapshotRegistry&) = delete;

  // Any thread. Pins the RootSet in `published` and returns it; *slot is
  // what release() needs. Waits (yields) if all slots are taken.
  const RootSet* acquire(const std::atomic<const RootSet*>& published, uint32_t* slot);
  // Any thread. Releases a slot taken by acquire().
  void release(uint32_t slot) {
    // Cleared first: whoever takes the slot next starts with no tree released.
    slots_[slot].released.store(0, std::memory_order_relaxed);
    slots_[slot].gen.store(kFree, std::memory_order_release);
  }
  // Any thread, by the holder of `slot`: it will not read tree `tree` of its
  // snapshot again (trees with ids >= kMaskTrees are never released).
  void release_tree(uint32_t slot, uint32_t tree) {
    if (tree < kMaskTrees) {
      slots_[slot].released.fetch_or(uint64_t{1} << tree, std::memory_order_release);
    }
  }
  static constexpr uint32_t kMaskTrees = 64;
  // Owner thread, after publishing: sets *out to the generations that live
  // snapshots hold, sorted, one Pin each (the trees that all its holders
  // released). Returns false if a snapshot is being taken and its generation
  // is not known yet (then nothing may be reclaimed).
  bool pinned(std::vector<Pin>* out) const;
  // Slots in use: live snapshots (tests, Stats::live_snapshots). Any thread.
  uint32_t held() const;

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> gen{kFree};
    // Trees the holder is done with; read after gen (a set bit was set by
    // whoever held the slot then, and a holder's gen is never older than
    // the one read: either is safe, engine/README.md "Reclamation").
    std::atomic<uint64_t> released{0};
  };
  Slot slots_[kSlots];
  std::atomic<uint32_t> high_water_{0};
};

}  // namespace solo::internal
