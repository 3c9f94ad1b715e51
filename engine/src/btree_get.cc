// Lookup and descent. Any thread, on a tree it holds a snapshot of.
#include "tree.h"

namespace solo::internal {

bool btree_get(const TreeState& tree, const KeyRef& key, void** value, uint64_t max_gen) {
  (void)max_gen;
  const Node* node = tree.root;
  if (node == nullptr) return false;
  node_prefetch(node);
  while (!node->is_leaf_) {
    SOLO_ASSERT(node->gen_ <= max_gen);
    node = node->child(node_route(node, key));
    node_prefetch(node);
  }
  SOLO_ASSERT(node->gen_ <= max_gen);
  bool found;
  int idx = node_lower_bound(node, key, &found);
  if (found) *value = node->ptr_[idx];
  return found;
}

bool btree_descend(const TreeState& tree, const KeyRef& key, TreePath* path) {
  SOLO_ASSERT(tree.root != nullptr);
  Node* node = tree.root;
  int level = 0;
  node_prefetch(node);
  while (!node->is_leaf_) {
    int idx = node_route(node, key);
    path->node[level] = node;
    path->idx[level] = idx;
    level++;
    node = node->child(idx);
    node_prefetch(node);
  }
  bool found;
  path->node[level] = node;
  path->idx[level] = node_lower_bound(node, key, &found);
  path->depth = level + 1;
  SOLO_ASSERT(path->depth == static_cast<int>(tree.height));
  return found;
}

}  // namespace solo::internal
