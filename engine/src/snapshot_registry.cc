#include "snapshot_registry.h"

#include <algorithm>
#include <thread>

#include "root_set.h"

namespace solo::internal {

namespace {
thread_local uint32_t slot_hint = 0;
}

const RootSet* SnapshotRegistry::acquire(const std::atomic<const RootSet*>& published,
                                         uint32_t* slot) {
  uint32_t start = slot_hint % kSlots;
  while (true) {
    for (uint32_t probe = 0; probe < kSlots; ++probe) {
      uint32_t slot_idx = (start + probe) % kSlots;
      std::atomic<uint64_t>& gen = slots_[slot_idx].gen;
      uint64_t expected = kFree;
      if (gen.load(std::memory_order_relaxed) != kFree ||
          !gen.compare_exchange_strong(expected, 0, std::memory_order_seq_cst)) {
        continue;
      }
      uint32_t high = high_water_.load(std::memory_order_seq_cst);
      while (high < slot_idx + 1 &&
             !high_water_.compare_exchange_weak(high, slot_idx + 1, std::memory_order_seq_cst)) {
      }
      const RootSet* roots = published.load(std::memory_order_seq_cst);
      gen.store(roots->gen, std::memory_order_release);
      slot_hint = slot_idx;
      *slot = slot_idx;
      return roots;
    }
    std::this_thread::yield();
  }
}

bool SnapshotRegistry::pinned(std::vector<Pin>* out) const {
  out->clear();
  uint32_t high = high_water_.load(std::memory_order_seq_cst);
  for (uint32_t slot_idx = 0; slot_idx < high; ++slot_idx) {
    uint64_t gen = slots_[slot_idx].gen.load(std::memory_order_seq_cst);
    if (gen == 0) return false;
    if (gen != kFree) {
      out->push_back(Pin{gen, slots_[slot_idx].released.load(std::memory_order_acquire)});
    }
  }
  std::sort(out->begin(), out->end(), [](const Pin& a, const Pin& b) { return a.gen < b.gen; });
  // One Pin per generation: a tree is released only if every holder released it.
  size_t kept = 0;
  for (size_t pin_idx = 0; pin_idx < out->size(); ++pin_idx) {
    if (kept > 0 && (*out)[kept - 1].gen == (*out)[pin_idx].gen) {
      (*out)[kept - 1].released_trees &= (*out)[pin_idx].released_trees;
    } else {
      (*out)[kept++] = (*out)[pin_idx];
    }
  }
  out->resize(kept);
  return true;
}

uint32_t SnapshotRegistry::held() const {
  uint32_t count = 0;
  for (const Slot& slot : slots_) count += slot.gen.load(std::memory_order_relaxed) != kFree;
  return count;
}

}  // namespace solo::internal
