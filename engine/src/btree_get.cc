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

size_t btree_get_batch(const TreeState& tree, const KeyRef* keys, size_t count, void** values,
                       uint64_t max_gen) {
  (void)max_gen;
  constexpr size_t kLane = 16;  // lookups in flight together
  size_t found_count = 0;
  const Node* nodes[kLane];
  for (size_t first = 0; first < count; first += kLane) {
    size_t lanes = count - first < kLane ? count - first : kLane;
    if (tree.root == nullptr) {
      for (size_t lane = 0; lane < lanes; ++lane) values[first + lane] = nullptr;
      continue;
    }
    node_prefetch(tree.root);
    for (size_t lane = 0; lane < lanes; ++lane) nodes[lane] = tree.root;
    // All leaves are at depth height (T3): every lane takes the same number of steps.
    for (uint32_t level = 1; level < tree.height; ++level) {
      for (size_t lane = 0; lane < lanes; ++lane) {
        const Node* node = nodes[lane];
        SOLO_ASSERT(!node->is_leaf_ && node->gen_ <= max_gen);
        nodes[lane] = node->child(node_route(node, keys[first + lane]));
        node_prefetch(nodes[lane]);
      }
    }
    for (size_t lane = 0; lane < lanes; ++lane) {
      const Node* leaf = nodes[lane];
      SOLO_ASSERT(leaf->is_leaf_ && leaf->gen_ <= max_gen);
      bool found;
      int idx = node_lower_bound(leaf, keys[first + lane], &found);
      void* value = found ? leaf->ptr_[idx] : nullptr;
      // A table's value is a record the caller reads next: start its miss too.
      if (found && tree.has_records) __builtin_prefetch(value);
      values[first + lane] = value;
      found_count += found;
    }
  }
  return found_count;
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
