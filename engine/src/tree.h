// Copy-on-write B+tree, split by operation:
//   btree_get.cc     lookup and descent
//   btree_insert.cc  insert / replace, copy of the path to the root
//   btree_split.cc   node splits and root growth
//   btree_remove.cc  remove, merge of underfull nodes, root shrink
//   btree_scan.cc    cursors (forward and backward)
//   btree_check.cc   full structural check (debug and tests)
//   btree_bulk.cc    bulk build from entries in key order (checkpoint load)
//
// Readers (any thread) only use btree_get / cursors on a TreeState copied
// into a published RootSet. Every mutating function is for the owner thread
// only and changes a node in place only if the node was made in the
// current, unpublished generation (invariant 2); otherwise it copies the node
// and the path above it.
#pragma once

#include <cstdint>
#include <string>

#include "node.h"
#include "object_pool.h"
#include "record.h"

namespace solo::internal {

// One tree's root and counters. Copied by value into each published RootSet.
struct TreeState {
  Node* root = nullptr;
  uint32_t height = 0;       // 0: empty tree; 1: root is a leaf
  bool has_records = false;  // leaf values are Record* (a table) or integers (an index)
  uint64_t count = 0;        // entries
  uint64_t bytes = 0;        // encoded key bytes + record sizes
};

// The owner's allocator for tree nodes, bound to the generation being built.
class TreeWriter {
 public:
  explicit TreeWriter(ObjectPool* pool) : pool_(pool) {}
  TreeWriter(const TreeWriter&) = delete;
  TreeWriter& operator=(const TreeWriter&) = delete;

  uint64_t gen() const { return gen_; }
  void set_gen(uint64_t gen) { gen_ = gen; }
  // The tree that the following calls change: the nodes they retire are
  // labelled with it (a snapshot that released a tree no longer holds its
  // objects, snapshot_registry.h). Set before each change (DbImpl::writer_for).
  void set_tree(uint32_t tree) { tree_ = tree; }
  ObjectPool* pool() const { return pool_; }
  int64_t live_nodes() const { return live_nodes_; }
  uint64_t live_node_bytes() const { return live_node_bytes_; }

  Node* new_node(bool is_leaf, int node_class);
  // A copy of `node` (made in this generation) of class node_class (>= its
  // own), which takes its place; `node` is freed.
  Node* copy_as(Node* node, int node_class);
  // `node` itself if made in this generation, else a copy (the original is retired).
  Node* writable(Node* node);
  // `node` left the tree: freed now if made in this generation, else retired.
  void discard(Node* node);

 private:
  ObjectPool* const pool_;
  uint64_t gen_ = 1;
  uint32_t tree_ = kNoTree;
  int64_t live_nodes_ = 0;
  uint64_t live_node_bytes_ = 0;
};

// The path of a descent: node[level] and the index taken in it (at the leaf:
// the lower-bound position of the key). Level 0 is the root.
struct TreePath {
  Node* node[kMaxTreeHeight];
  int idx[kMaxTreeHeight];
  int depth = 0;  // number of levels filled (the tree's height)
};

// Bytes a leaf value adds to TreeState::bytes.
inline uint64_t value_bytes(const TreeState& tree, void* value) {
  return tree.has_records ? static_cast<Record*>(value)->size() : 0;
}

// Sets *value and returns true if `key` is in the tree. max_gen: the newest
// generation the caller's view may see (debug check of invariant 6).
bool btree_get(const TreeState& tree, const KeyRef& key, void** value, uint64_t max_gen);

// Looks up keys[0..count) side by side, one tree level at a time, so that
// their node misses overlap: values[i] is the value of keys[i] or nullptr.
// Returns how many were found. Any thread, like btree_get.
size_t btree_get_batch(const TreeState& tree, const KeyRef* keys, size_t count, void** values,
                       uint64_t max_gen);

// Descends to the leaf for `key`, filling *path. Returns true if found.
// Precondition: tree.root != nullptr.
bool btree_descend(const TreeState& tree, const KeyRef& key, TreePath* path);

enum class PutMode { kInsert, kReplace };
// kInsert: adds (key, value) if key is absent and returns true; else returns
// false, sets *old to the present value and changes nothing.
// kReplace: if key is present sets its value, sets *old and returns true;
// else returns false and changes nothing. Owner thread only.
bool btree_put(TreeState* tree, TreeWriter* writer, const KeyRef& key, void* value, PutMode mode,
               void** old);

// Replaces the value of the entry a btree_descend() found (path unchanged
// since) and returns the old value. Owner thread only.
void* btree_replace_at(TreeState* tree, TreeWriter* writer, TreePath* path, void* value);

// Removes the entry a btree_descend() found (path unchanged since) and
// returns its value. Owner thread only.
void* btree_remove_at(TreeState* tree, TreeWriter* writer, TreePath* path);

// Removes key and sets *old to its value; false if absent. Owner thread only.
bool btree_remove(TreeState* tree, TreeWriter* writer, const KeyRef& key, void** old);

// Discards every node of the tree and empties it (values are not freed).
// Owner thread only.
void btree_drop(TreeState* tree, TreeWriter* writer);

// Copies path nodes made before the writer's generation, top-down, and
// relinks them; afterwards every path node is writable.
void btree_make_path_writable(TreeState* tree, TreeWriter* writer, TreePath* path);

// Inserts (key, value) where a btree_descend() that did not find key left
// `path` (the tree unchanged since), as btree_put does: one descent for a
// caller that looked before it inserts. Owner thread only.
void btree_insert_new(TreeState* tree, TreeWriter* writer, TreePath* path, const KeyRef& key,
                      void* value);

// Inserts (key, value) at path->idx[level] of path->node[level], splitting
// upwards as needed (btree_split.cc). Precondition: path is writable.
void btree_insert_at(TreeState* tree, TreeWriter* writer, TreePath* path, int level,
                     const KeyRef& key, void* value);

// Builds a new tree from entries given in strictly ascending key order
// (recovery's checkpoint load, engine/README.md "Bulk build"): fills leaves
// left to right, each up to `fill` entries and fill/32 of its key heap, and
// links each new node into the rightmost node of the level above at once,
// growing the root as needed, so every node it made is reachable from the
// root being built. Nodes come from `writer` (its current generation); each
// is of the smallest class that takes its keys (node.h). The result
// satisfies T1-T6 and its count and bytes are exact. Owner thread only.
// (Heap share: at least 3 of the class's longest keys, so small fills still
// take any key.)
class BulkBuilder {
 public:
  // fill: entries per node, 2 .. kNodeCapacity (tests use small ones for tall trees).
  BulkBuilder(TreeWriter* writer, bool has_records, int fill);
  // Discards the nodes of a tree that finish() did not take (values are not freed).
  ~BulkBuilder();
  BulkBuilder(const BulkBuilder&) = delete;
  BulkBuilder& operator=(const BulkBuilder&) = delete;

  // Appends (key, value) and returns true; returns false and changes nothing
  // if key is not greater than the previous key (out of order or a duplicate).
  // Precondition: key.size <= kNodeMaxKeyBytes.
  bool append(const KeyRef& key, void* value);
  // The tree of every entry appended so far (empty if none); the builder
  // starts over empty. Debug builds run btree_check on it.
  TreeState finish();
  uint64_t count() const { return tree_.count; }

 private:
  // Heap bytes a bulk-built node of the class fills.
  int heap_fill(int node_class) const;
  bool has_room(const Node* node, uint32_t key_size) const;
  // Whether open_[level] takes a key of key_size bytes, after becoming a
  // copy of a larger class if that gives it room.
  bool take(int level, uint32_t key_size);
  // open_[level] has no room: starts a new node there whose first key will be
  // `first`, and links it into the level above (which may start a node too).
  void start_node(int level, const KeyRef& first);

  TreeWriter* const writer_;
  const int fill_;
  TreeState tree_;
  // The rightmost node of each level, 0 = leaves; levels_ of them are in use.
  Node* open_[kMaxTreeHeight] = {};
  int levels_ = 0;
};

// Checks the structure of the tree: order, bounds, uniform depth, counts,
// bytes, heap accounting, node generations <= max_gen. Returns "" if sound,
// else a description of the first problem.
std::string btree_check(const TreeState& tree, uint64_t max_gen);

}  // namespace solo::internal
