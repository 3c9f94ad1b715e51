// Bulk build of a tree from entries in ascending key order (tree.h
// BulkBuilder; engine/README.md "Bulk build"). Owner thread only.
//
// Shape: the same as ascending inserts would leave (btree_split.cc moves only
// the new key right when a full node gets one at its end), without a descent
// per entry. A new node's first key goes up as its separator; key 0 of a new
// root is empty, as after a root split; the last node of a level may hold a
// single entry, as after an append split.
#include <algorithm>
#include <cstdio>
#include <string>

#include "tree.h"

namespace solo::internal {

BulkBuilder::BulkBuilder(TreeWriter* writer, bool has_records, bool small_nodes, int fill)
    : writer_(writer),
      fill_(fill),
      // At least three maximal keys' worth, so that every inner node takes
      // two children or more and the recursion in start_node ends.
      heap_fill_(small_nodes ? std::max(kSmallNodeHeapBytes * fill / kNodeCapacity,
                                        3 * kSmallNodeMaxKeyBytes)
                             : std::max(kNodeHeapBytes * fill / kNodeCapacity,
                                        3 * kNodeMaxKeyBytes)) {
  SOLO_ASSERT(fill >= 2 && fill <= kNodeCapacity);
  tree_.has_records = has_records;
  tree_.small_nodes = small_nodes;
}

BulkBuilder::~BulkBuilder() {
  if (levels_ == 0) return;
  TreeState unfinished = tree_;
  unfinished.root = open_[levels_ - 1];
  unfinished.height = static_cast<uint32_t>(levels_);
  btree_drop(&unfinished, writer_);
}

void BulkBuilder::start_node(int level, const KeyRef& first) {
  if (level + 1 == levels_) {
    // The full node is the root so far: a new root above it (T3: every leaf
    // stays at the same depth).
    SOLO_ASSERT(levels_ < kMaxTreeHeight);
    Node* root = writer_->new_node(/*is_leaf=*/false, tree_.small_nodes);
    node_insert_at(root, 0, KeyRef{"", 0, 0}, open_[level]);
    open_[level + 1] = root;
    levels_++;
  }
  if (!has_room(open_[level + 1], first.size)) start_node(level + 1, first);
  Node* fresh = writer_->new_node(/*is_leaf=*/level == 0, tree_.small_nodes);
  Node* parent = open_[level + 1];
  node_insert_at(parent, parent->count_, first, fresh);
  open_[level] = fresh;
}

bool BulkBuilder::append(const KeyRef& key, void* value) {
  SOLO_ASSERT(key.size <= static_cast<uint32_t>(tree_.small_nodes ? kSmallNodeMaxKeyBytes
                                                                  : kNodeMaxKeyBytes));
  Node* leaf = open_[0];
  if (leaf == nullptr) {
    leaf = writer_->new_node(/*is_leaf=*/true, tree_.small_nodes);
    open_[0] = leaf;
    levels_ = 1;
  } else {
    // The previous key is the open leaf's last: a leaf is only started by the
    // entry that goes into it.
    if (node_compare(leaf, leaf->count_ - 1, key) >= 0) return false;
    if (!has_room(leaf, key.size)) {
      start_node(0, key);
      leaf = open_[0];
    }
  }
  node_insert_at(leaf, leaf->count_, key, value);
  tree_.count++;
  tree_.bytes += key.size + value_bytes(tree_, value);
  return true;
}

TreeState BulkBuilder::finish() {
  TreeState built = tree_;
  built.root = levels_ > 0 ? open_[levels_ - 1] : nullptr;
  built.height = static_cast<uint32_t>(levels_);
#if SOLO_DEBUG
  std::string problem = btree_check(built, writer_->gen());
  if (!problem.empty()) {
    std::fprintf(stderr, "solo: bulk-built tree broken: %s\n", problem.c_str());
    std::abort();
  }
#endif
  tree_.count = 0;
  tree_.bytes = 0;
  for (int level = 0; level < levels_; ++level) open_[level] = nullptr;
  levels_ = 0;
  return built;
}

}  // namespace solo::internal
