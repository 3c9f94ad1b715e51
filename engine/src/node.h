// B+tree node layout and the operations on one node (engine/README.md "Node
// layout"). Leaves and inner nodes share one layout: `count_` entries of
// (key, pointer). A leaf's pointer is the value (a Record* for a table, a
// small integer for an index); an inner node's pointer is a child Node*, and
// its key i is a lower bound of child i's keys (key 0 of the leftmost inner
// node of a level is not used for routing).
//
// Keys live in `heap_` (appended; removed keys leave dead bytes until the
// node is compacted). `prefix_[i]` holds the first 8 key bytes as a
// big-endian integer, zero padded, so that most comparisons touch no heap.
//
// Two node classes share the layout: a full node has kNodeHeapBytes of key
// heap; a small node (small_ set) has kSmallNodeHeapBytes and its memory
// ends there (node_bytes). A tree whose keys are all short by its schema
// (every key <= kSmallNodeMaxKeyBytes, TreeState::small_nodes) makes only
// small nodes: TPC-C's keys are 4-6 bytes, and the full heap was 832 of a
// node's 1,488 bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "invariant.h"

namespace solo::internal {

inline constexpr int kNodeCapacity = 32;
inline constexpr int kNodeHeapBytes = 832;
inline constexpr int kMaxTreeHeight = 16;
inline constexpr int kNodeMaxKeyBytes = 200;  // == solo::kMaxKeyBytes
inline constexpr int kSmallNodeHeapBytes = 256;
inline constexpr int kSmallNodeMaxKeyBytes = kSmallNodeHeapBytes / 4;

struct KeyRef {
  const char* data;
  uint32_t size;
  uint64_t prefix;
};

inline uint64_t key_prefix(const char* data, size_t size) {
  uint64_t raw = 0;
  std::memcpy(&raw, data, size < 8 ? size : 8);
  return __builtin_bswap64(raw);
}

inline KeyRef make_key(std::string_view key) {
  return KeyRef{key.data(), static_cast<uint32_t>(key.size()), key_prefix(key.data(), key.size())};
}

struct Node {
  // Immutable once the node's generation is published (invariant 2).
  uint64_t gen_;        // generation the node was made in
  uint8_t is_leaf_;
  // 1 + the index of the last node_insert_at (0: none), kept across copies:
  // a split after ascending inserts into the middle splits at the insert
  // (btree_split.cc).
  uint8_t last_insert_ : 7;
  uint8_t small_ : 1;   // the small class: kSmallNodeHeapBytes of heap
  uint16_t count_;      // entries in use
  uint16_t heap_used_;  // bytes of heap_ handed out, live or dead
  uint16_t heap_dead_;  // bytes of removed keys inside [0, heap_used_)
  uint64_t prefix_[kNodeCapacity];
  uint16_t key_off_[kNodeCapacity];
  uint16_t key_len_[kNodeCapacity];
  void* ptr_[kNodeCapacity];
  char heap_[kNodeHeapBytes];  // a small node's memory ends after kSmallNodeHeapBytes

  std::string_view key(int idx) const { return {heap_ + key_off_[idx], key_len_[idx]}; }
  Node* child(int idx) const { return static_cast<Node*>(ptr_[idx]); }
  int live_heap() const { return heap_used_ - heap_dead_; }
};
static_assert(sizeof(Node) % 16 == 0, "nodes are allocated in 16-byte classes");
static_assert(kNodeHeapBytes % 16 == kSmallNodeHeapBytes % 16, "so are small ones");
// A full node can take one more maximal key after a split (see node_split_point).
static_assert(kNodeHeapBytes >= 4 * kNodeMaxKeyBytes, "heap must hold 4 maximal keys");
static_assert(kSmallNodeHeapBytes >= 4 * kSmallNodeMaxKeyBytes, "likewise for small nodes");
static_assert(kSmallNodeHeapBytes >= kNodeCapacity * 8, "a full small node of 8-byte keys");

// Bytes of memory a node of the class takes.
constexpr uint32_t node_bytes(bool small) {
  return small ? sizeof(Node) - (kNodeHeapBytes - kSmallNodeHeapBytes) : sizeof(Node);
}
inline uint32_t node_bytes(const Node* node) { return node_bytes(node->small_ != 0); }
inline int node_heap_bytes(const Node* node) {
  return node->small_ ? kSmallNodeHeapBytes : kNodeHeapBytes;
}
// The longest key a node of the class takes.
inline int node_max_key_bytes(const Node* node) {
  return node->small_ ? kSmallNodeMaxKeyBytes : kNodeMaxKeyBytes;
}

// Starts loading the parts of a node a search reads (prefixes, lengths,
// offsets, pointers: its first 11 cache lines) so that their misses overlap
// instead of following one another down the binary search.
inline void node_prefetch(const Node* node) {
  const char* base = reinterpret_cast<const char*>(node);
  for (int line = 0; line < 11; ++line) __builtin_prefetch(base + line * 64);
}

// <0, 0, >0 as key idx of `node` is less than, equal to, greater than `key`.
inline int node_compare(const Node* node, int idx, const KeyRef& key) {
  uint64_t prefix = node->prefix_[idx];
  if (prefix != key.prefix) return prefix < key.prefix ? -1 : 1;
  uint32_t len = node->key_len_[idx];
  uint32_t common = len < key.size ? len : key.size;
  if (common > 8) {
    int cmp = std::memcmp(node->heap_ + node->key_off_[idx] + 8, key.data + 8, common - 8);
    if (cmp != 0) return cmp;
  }
  return (len > key.size) - (len < key.size);
}

// First index whose key is >= key (count_ if none); *found if equal.
inline int node_lower_bound(const Node* node, const KeyRef& key, bool* found) {
  int lo = 0;
  int hi = node->count_;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (node_compare(node, mid, key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = lo < node->count_ && node_compare(node, lo, key) == 0;
  return lo;
}

// First index whose key is > key (count_ if none).
inline int node_upper_bound(const Node* node, const KeyRef& key) {
  int lo = 0;
  int hi = node->count_;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (node_compare(node, mid, key) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Inner node: the child whose range holds key (the last key <= key, else 0).
inline int node_route(const Node* node, const KeyRef& key) {
  int idx = node_upper_bound(node, key) - 1;
  return idx < 0 ? 0 : idx;
}

void node_init(Node* node, bool is_leaf, bool small, uint64_t gen);
// Copies src into dst (a fresh node of src's class) with generation gen,
// compacting the heap.
void node_copy(Node* dst, const Node* src, uint64_t gen);
// True if one more key of key_size bytes fits (after compaction if needed).
inline bool node_fits(const Node* node, uint32_t key_size) {
  return node->count_ < kNodeCapacity &&
         node->live_heap() + static_cast<int>(key_size) <= node_heap_bytes(node);
}
// Whether entries [0, count) of `node` and one more key of key_size bytes
// fit in one node.
inline bool node_prefix_fits(const Node* node, int count, uint32_t key_size) {
  if (count + 1 > kNodeCapacity) return false;
  uint32_t bytes = key_size;
  for (int idx = 0; idx < count; ++idx) bytes += node->key_len_[idx];
  return bytes <= static_cast<uint32_t>(node_heap_bytes(node));
}
// Preconditions: node_fits(node, key.size), 0 <= idx <= count_.
void node_insert_at(Node* node, int idx, const KeyRef& key, void* ptr);
void node_remove_at(Node* node, int idx);
// Replaces key idx. Precondition: the new key fits in the heap.
void node_set_key(Node* node, int idx, const KeyRef& key);
// Appends entries [from, to) of src to dst. Precondition: they fit.
void node_append(Node* dst, const Node* src, int from, int to);
// Drops entries [new_count, count_).
void node_truncate(Node* node, int new_count);
void node_compact(Node* node);
// Where to split a full node: entries [0, result) stay, the rest move right.
// Balances heap bytes; 1 <= result < count_.
int node_split_point(const Node* node);

}  // namespace solo::internal
