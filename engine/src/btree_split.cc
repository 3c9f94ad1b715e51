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
#include "tree.h"

namespace solo::internal {

void btree_insert_at(TreeState* tree, TreeWriter* writer, TreePath* path, int level,
                     const KeyRef& key, void* value) {
  Node* node = path->node[level];
  int idx = path->idx[level];
  SOLO_ASSERT(node->gen_ == writer->gen());
  if (node_fits(node, key.size)) {
    node_insert_at(node, idx, key, value);
    return;
  }

  Node* right = writer->new_node(node->is_leaf_ != 0, node->small_ != 0);
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

  std::string_view separator = right->key(0);
  KeyRef separator_ref{separator.data(), static_cast<uint32_t>(separator.size()),
                       right->prefix_[0]};
  if (level == 0) {
    // The root split: grow the tree by one level.
    SOLO_ASSERT(tree->height < static_cast<uint32_t>(kMaxTreeHeight));
    Node* root = writer->new_node(/*is_leaf=*/false, node->small_ != 0);
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
