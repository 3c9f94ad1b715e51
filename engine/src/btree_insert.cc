// Insert and replace; the copy-on-write of a path. Owner thread only.
#include "tree.h"

namespace solo::internal {

Node* TreeWriter::new_node(bool is_leaf, int node_class) {
  uint32_t bytes = node_bytes(node_class);
  Node* node = static_cast<Node*>(pool_->allocate(bytes));
  node_init(node, is_leaf, node_class, gen_);
  live_nodes_++;
  live_node_bytes_ += bytes;
  return node;
}

Node* TreeWriter::copy_as(Node* node, int node_class) {
  SOLO_ASSERT(node->gen_ == gen_ && node_class >= node->class_);
  uint32_t bytes = node_bytes(node_class);
  Node* copy = static_cast<Node*>(pool_->allocate(bytes));
  node_copy(copy, node, gen_, node_class);
  live_nodes_++;
  live_node_bytes_ += bytes;
  discard(node);
  return copy;
}

Node* TreeWriter::writable(Node* node) {
  if (node->gen_ == gen_) return node;
  SOLO_ASSERT(node->gen_ < gen_);
  uint32_t bytes = node_bytes(node);
  Node* copy = static_cast<Node*>(pool_->allocate(bytes));
  node_copy(copy, node, gen_);
  pool_->retire(node, bytes, ObjectKind::kNode, node->gen_, gen_, tree_);
  return copy;
}

void TreeWriter::discard(Node* node) {
  uint32_t bytes = node_bytes(node);
  live_nodes_--;
  live_node_bytes_ -= bytes;
  if (node->gen_ == gen_) {
    pool_->free_now(node, bytes);
  } else {
    pool_->retire(node, bytes, ObjectKind::kNode, node->gen_, gen_, tree_);
  }
}

void btree_make_path_writable(TreeState* tree, TreeWriter* writer, TreePath* path) {
  // A node made in this generation hangs only under nodes made in it too
  // (an older node's links are frozen, invariant 2): with the leaf writable
  // the whole path is, as for the rows of a leaf patched one after another.
  if (path->depth > 0 && path->node[path->depth - 1]->gen_ == writer->gen()) {
#ifndef NDEBUG
    for (int level = 0; level < path->depth; ++level) {
      SOLO_ASSERT(path->node[level]->gen_ == writer->gen());
    }
#endif
    return;
  }
  for (int level = 0; level < path->depth; ++level) {
    Node* node = path->node[level];
    Node* copy = writer->writable(node);
    if (copy == node) continue;
    path->node[level] = copy;
    if (level == 0) {
      tree->root = copy;
    } else {
      // The parent was made writable one step earlier (invariant 2).
      SOLO_ASSERT(path->node[level - 1]->gen_ == writer->gen());
      path->node[level - 1]->ptr_[path->idx[level - 1]] = copy;
    }
  }
}

void* btree_replace_at(TreeState* tree, TreeWriter* writer, TreePath* path, void* value) {
  int leaf_level = path->depth - 1;
  void* old = path->node[leaf_level]->ptr_[path->idx[leaf_level]];
  btree_make_path_writable(tree, writer, path);
  path->node[leaf_level]->ptr_[path->idx[leaf_level]] = value;
  tree->bytes = tree->bytes - value_bytes(*tree, old) + value_bytes(*tree, value);
  return old;
}

bool btree_put(TreeState* tree, TreeWriter* writer, const KeyRef& key, void* value, PutMode mode,
               void** old) {
  SOLO_ASSERT(key.size <= static_cast<uint32_t>(kNodeMaxKeyBytes));
  if (tree->root == nullptr) {
    if (mode == PutMode::kReplace) return false;
    Node* leaf = writer->new_node(/*is_leaf=*/true, node_class_for_key(key.size));
    node_insert_at(leaf, 0, key, value);
    tree->root = leaf;
    tree->height = 1;
    tree->count = 1;
    tree->bytes = key.size + value_bytes(*tree, value);
    return true;
  }
  TreePath path;
  bool found = btree_descend(*tree, key, &path);
  int leaf_level = path.depth - 1;
  if (found) {
    Node* leaf = path.node[leaf_level];
    *old = leaf->ptr_[path.idx[leaf_level]];
    if (mode == PutMode::kInsert) return false;
    btree_replace_at(tree, writer, &path, value);
    return true;
  }
  if (mode == PutMode::kReplace) return false;
  btree_insert_new(tree, writer, &path, key, value);
  return true;
}

void btree_insert_new(TreeState* tree, TreeWriter* writer, TreePath* path, const KeyRef& key,
                      void* value) {
  btree_make_path_writable(tree, writer, path);
  btree_insert_at(tree, writer, path, path->depth - 1, key, value);
  tree->count++;
  tree->bytes += key.size + value_bytes(*tree, value);
}

}  // namespace solo::internal
