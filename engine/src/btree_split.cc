// Node splits and root growth. Owner thread only.
//
// A full node splits into itself (the left half, changed in place: it is
// writable) and a new right node; the right node's first key goes up as the
// separator. An insert at the very end of a full node moves only the new key
// to the right node, so that ascending inserts (order ids, history) leave
// full nodes behind instead of half-empty ones. An insert in the middle of a
// full node right after the previous insert (ascending inserts that end
// before other keys: one district's new orders, followed by the next
// district's) splits at the insert: the left node ends with the new key,
// full, and the next inserts go to a node of their own (append splits).
// Splitting in the middle there left a half-full node behind at every
// split (order_line, orders and history leaves ~50% full after a run).
//
// Node classes (node.h): a node that must take a key longer than its class
// allows becomes a copy of a class that takes it, and so does a node whose
// heap is full while it holds fewer than kGrowBelow entries (long keys: a
// split there would leave two sparse nodes); both happen before a split is
// considered. The node's parent (or the root) points to the copy.
#include "tree.h"

namespace solo::internal {

namespace {

// A node with fewer entries than this whose heap is full grows a class
// instead of splitting.
constexpr int kGrowBelow = kNodeCapacity * 3 / 4;

// Replaces path->node[level] (writable) by a copy of class node_class.
Node* grow_node(TreeState* tree, TreeWriter* writer, TreePath* path, int level, int node_class) {
  Node* node = path->node[level];
  Node* bigger = writer->copy_as(node, node_class);
  if (level == 0) {
    tree->root = bigger;
  } else {
    path->node[level - 1]->ptr_[path->idx[level - 1]] = bigger;
  }
  path->node[level] = bigger;
  return bigger;
}

}  // namespace

void btree_insert_at(TreeState* tree, TreeWriter* writer, TreePath* path, int level,
                     const KeyRef& key, void* value) {
  Node* node = path->node[level];
  int idx = path->idx[level];
  SOLO_ASSERT(node->gen_ == writer->gen());
  if (node_fits(node, key.size)) {
    node_insert_at(node, idx, key, value);
    return;
  }
  const bool too_long = static_cast<int>(key.size) > node_max_key_bytes(node);
  if (too_long || node->count_ < kGrowBelow) {
    // Not too long and room by count: the heap is full, a larger class may take it.
    int node_class = node_class_to_take(node, key.size);
    // No class takes all entries and a too-long key: one that takes the key, then split.
    if (node_class >= kNodeClasses && too_long) node_class = node_class_for_key(key.size);
    if (node_class < kNodeClasses) {
      node = grow_node(tree, writer, path, level, node_class);
      if (node_fits(node, key.size)) {
        node_insert_at(node, idx, key, value);
        return;
      }
    }
  }

  Node* right = writer->new_node(node->is_leaf_ != 0, node->class_);
  if (idx == node->count_) {
    node_insert_at(right, 0, key, value);
  } else {
    int split = node_split_point(node);
    if (idx > 0 && node->last_insert_ == idx && node_prefix_fits(node, idx, key.size)) split = idx;
    node_append(right, node, split, node->count_);
    node_truncate(node, split);
    if (idx <= split) {
      node_insert_at(node, idx, key, value);
    } else {
      node_insert_at(right, idx - split, key, value);
    }
  }

  KeyRef separator_ref = right->key_ref(0);
  if (level == 0) {
    // The root split: grow the tree by one level.
    SOLO_ASSERT(tree->height < static_cast<uint32_t>(kMaxTreeHeight));
    Node* root = writer->new_node(/*is_leaf=*/false, node_class_for_key(separator_ref.size));
    KeyRef empty{"", 0, 0};
    node_insert_at(root, 0, empty, node);
    node_insert_at(root, 1, separator_ref, right);
    tree->root = root;
    tree->height++;
    return;
  }
  path->idx[level - 1]++;
  btree_insert_at(tree, writer, path, level - 1, separator_ref, right);
}

}  // namespace solo::internal
