// Which generations live snapshots hold (engine/README.md "Snapshots").
//
// A fixed array of slots, one cache line each. Taking a snapshot claims a free
// slot, pins it at 0 ("hold everything"), raises the high-water mark, loads
// the published RootSet and then stores its generation in the slot. The owner
// publishes (a seq_cst store) before it scans the slots (seq_cst loads), so
// either the owner sees the pin or the reader sees the newer RootSet: a
// generation the owner did not see pinned is never one a reader can still
// be reading.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace solo::internal {

struct RootSet;

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
  void release(uint32_t slot) { slots_[slot].gen.store(kFree, std::memory_order_release); }
  // Owner thread, after publishing: sets *out to the generations that live
  // snapshots hold, sorted. Returns false if a snapshot is being taken and its
  // generation is not known yet (then nothing may be reclaimed).
  bool pinned(std::vector<uint64_t>* out) const;
  // Slots in use: live snapshots (tests, Stats::live_snapshots). Any thread.
  uint32_t held() const;

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> gen{kFree};
  };
  Slot slots_[kSlots];
  std::atomic<uint32_t> high_water_{0};
};

}  // namespace solo::internal
