// The immutable set of roots that one snapshot consists of. Published by one
// atomic store of a RootSet pointer (invariant 3); retired, like a node, when
// a newer one is published.
#pragma once

#include <cstdint>

#include "solo/catalog.h"
#include "tree.h"

namespace solo::internal {

struct RootSet {
  uint64_t gen;
  const Catalog* catalog;
  uint64_t state_bytes;
  uint64_t lsn;  // the last log round this state includes (0: none; in-memory: always 0)
  uint32_t tree_count;
  uint32_t alloc_bytes;

  static uint32_t bytes_for(uint32_t tree_count) {
    return static_cast<uint32_t>(sizeof(RootSet) + tree_count * sizeof(TreeState));
  }
  TreeState* trees() { return reinterpret_cast<TreeState*>(this + 1); }
  const TreeState* trees() const { return reinterpret_cast<const TreeState*>(this + 1); }
};
static_assert(sizeof(RootSet) % alignof(TreeState) == 0);

}  // namespace solo::internal
