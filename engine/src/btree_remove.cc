// Remove, and the rebalancing that keeps a shrinking tree compact. Owner
// thread only.
//
// After a remove, a node with fewer than kUnderflow entries is merged into a
// neighbour if the two fit in 3/4 of a node (so that the next insert does not
// split them again); an empty node is always unlinked. Merging pulls the
// parent's separator down as the right node's first key. The root shrinks
// when an inner root is left with one child.
#include <algorithm>

#include "tree.h"

namespace solo::internal {

namespace {

constexpr int kUnderflow = kNodeCapacity / 4;
constexpr int kMergeLimit = kNodeCapacity * 3 / 4;

void rebalance(TreeState* tree, TreeWriter* writer, TreePath* path, int level) {
  Node* node = path->node[level];
  SOLO_ASSERT(node->gen_ == writer->gen());
  if (level == 0) {
    if (!node->is_leaf_ && node->count_ == 1) {
      tree->root = node->child(0);
      tree->height--;
      writer->discard(node);
    } else if (node->is_leaf_ && node->count_ == 0) {
      tree->root = nullptr;
      tree->height = 0;
      writer->discard(node);
    }
    return;
  }
  if (node->count_ >= kUnderflow) return;

  Node* parent = path->node[level - 1];
  int node_idx = path->idx[level - 1];
  if (node->count_ == 0) {
    node_remove_at(parent, node_idx);
    writer->discard(node);
    rebalance(tree, writer, path, level - 1);
    return;
  }

  int left_idx;
  if (node_idx > 0) {
    left_idx = node_idx - 1;
  } else if (node_idx + 1 < parent->count_) {
    left_idx = node_idx;
  } else {
    return;  // an only child: nothing to merge with
  }
  Node* left = parent->child(left_idx);
  Node* right = parent->child(left_idx + 1);
  // The merged node: right's keys (an inner node's key 0 replaced by the
  // separator) in left, of the larger class of the two (and of one that
  // takes the separator).
  int separator_bytes = node->is_leaf_ ? 0 : heap_len(parent->key_len_[left_idx + 1]);
  int merged_class = std::max<int>(left->class_, right->class_);
  if (!node->is_leaf_) {
    merged_class = std::max(merged_class, node_class_for_key(parent->key_len_[left_idx + 1]));
  }
  if (left->count_ + right->count_ > kMergeLimit ||
      left->live_heap() + right->live_heap() - (node->is_leaf_ ? 0 : heap_len(right->key_len_[0])) +
              separator_bytes >
          kClassHeapBytes[merged_class]) {
    return;
  }

  // Merge right into left. Only left changes; right is read and discarded.
  // (`node` is left or right; a copy of a larger class frees left.)
  const bool is_leaf = node->is_leaf_ != 0;
  left = writer->writable(left);
  if (left->class_ < merged_class) left = writer->copy_as(left, merged_class);
  parent->ptr_[left_idx] = left;
  if (is_leaf) {
    node_append(left, right, 0, right->count_);
  } else {
    node_insert_at(left, left->count_, parent->key_ref(left_idx + 1), right->ptr_[0]);
    node_append(left, right, 1, right->count_);
  }
  node_remove_at(parent, left_idx + 1);
  writer->discard(right);
  rebalance(tree, writer, path, level - 1);
}

void drop_node(TreeWriter* writer, Node* node) {
  if (!node->is_leaf_) {
    for (int idx = 0; idx < node->count_; ++idx) drop_node(writer, node->child(idx));
  }
  writer->discard(node);
}

}  // namespace

void* btree_remove_at(TreeState* tree, TreeWriter* writer, TreePath* path) {
  int leaf_level = path->depth - 1;
  Node* leaf = path->node[leaf_level];
  int idx = path->idx[leaf_level];
  void* old = leaf->ptr_[idx];
  uint32_t key_size = leaf->key_len_[idx];
  btree_make_path_writable(tree, writer, path);
  node_remove_at(path->node[leaf_level], idx);
  tree->count--;
  tree->bytes -= key_size + value_bytes(*tree, old);
  rebalance(tree, writer, path, leaf_level);
  return old;
}

bool btree_remove(TreeState* tree, TreeWriter* writer, const KeyRef& key, void** old) {
  if (tree->root == nullptr) return false;
  TreePath path;
  if (!btree_descend(*tree, key, &path)) return false;
  *old = btree_remove_at(tree, writer, &path);
  return true;
}

void btree_drop(TreeState* tree, TreeWriter* writer) {
  if (tree->root != nullptr) drop_node(writer, tree->root);
  tree->root = nullptr;
  tree->height = 0;
  tree->count = 0;
  tree->bytes = 0;
}

}  // namespace solo::internal
