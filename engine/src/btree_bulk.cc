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

BulkBuilder::BulkBuilder(TreeWriter* writer, bool has_records, int fill)
    : writer_(writer), fill_(fill) {
  SOLO_ASSERT(fill >= 2 && fill <= kNodeCapacity);
  tree_.has_records = has_records;
}

int BulkBuilder::heap_fill(int node_class) const {
  // fill/32 of the heap, but at least three of the class's longest keys, so
  // that every node takes two entries or more and the recursion in
  // start_node ends.
  int heap = kClassHeapBytes[node_class];
  return std::min(heap, std::max(heap * fill_ / kNodeCapacity,
                                 3 * heap_len(kClassMaxKeyBytes[node_class])));
}

bool BulkBuilder::has_room(const Node* node, uint32_t key_size) const {
  return node->count_ < fill_ && static_cast<int>(key_size) <= node_max_key_bytes(node) &&
         node->live_heap() + heap_len(key_size) <= heap_fill(node->class_);
}

bool BulkBuilder::take(int level, uint32_t key_size) {
  Node* node = open_[level];
  if (has_room(node, key_size)) return true;
  if (node->count_ >= fill_) return false;
  // Room by count: a copy of a larger class that takes the key, if any.
  int node_class = std::max<int>(node->class_, node_class_for_key(key_size));
  while (node_class < kNodeClasses &&
         heap_fill(node_class) < node->live_heap() + heap_len(key_size)) {
    node_class++;
  }
  if (node_class >= kNodeClasses) return false;
  Node* bigger = writer_->copy_as(node, node_class);
  open_[level] = bigger;
  // The open node is the last child of the open node above (unless it is the root).
  if (level + 1 < levels_) open_[level + 1]->ptr_[open_[level + 1]->count_ - 1] = bigger;
  return true;
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
    Node* root = writer_->new_node(/*is_leaf=*/false, node_class_for_key(first.size));
    node_insert_at(root, 0, KeyRef{"", 0, 0}, open_[level]);
    open_[level + 1] = root;
    levels_++;
  }
  if (!take(level + 1, first.size)) start_node(level + 1, first);
  Node* fresh = writer_->new_node(/*is_leaf=*/level == 0, node_class_for_key(first.size));
  Node* parent = open_[level + 1];
  node_insert_at(parent, parent->count_, first, fresh);
  open_[level] = fresh;
}

bool BulkBuilder::append(const KeyRef& key, void* value) {
  SOLO_ASSERT(key.size <= static_cast<uint32_t>(kNodeMaxKeyBytes));
  Node* leaf = open_[0];
  if (leaf == nullptr) {
    leaf = writer_->new_node(/*is_leaf=*/true, node_class_for_key(key.size));
    open_[0] = leaf;
    levels_ = 1;
  } else {
    // The previous key is the open leaf's last: a leaf is only started by the
    // entry that goes into it.
    if (node_compare(leaf, leaf->count_ - 1, key) >= 0) return false;
    if (!take(0, key.size)) start_node(0, key);
    leaf = open_[0];
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
