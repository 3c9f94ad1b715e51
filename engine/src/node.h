// B+tree node layout and the operations on one node (engine/README.md "Node
// layout"). Leaves and inner nodes share one layout: `count_` entries of
// (key, pointer). A leaf's pointer is the value (a Record* for a table, a
// small integer for an index); an inner node's pointer is a child Node*, and
// its key i (i >= 1) is a lower bound of child i's keys. Key 0 of an inner
// node routes nothing (node_route sends every key below key 1 to child 0):
// once the first child is unlinked it is the next one's old bound, and
// keys stored below it later go to child 0 all the same (a merge pulls the
// parent's separator down in its place).
//
// A key of up to 8 bytes lives in `head_` alone (its bytes as they are, zero
// padded); a longer key has its first 8 bytes there and the whole key in
// `heap_` (appended; removed keys leave dead bytes until the node is
// compacted). Comparisons read `head_` as a big-endian integer first, so
// most of them touch no heap.
//
// Node classes differ in the size of the heap (engine/README.md "Node
// layout"): class 0 has none (every key <= 8 bytes), classes 1-5 have 64,
// 128, 256, 512 and 832 bytes, and a node's memory ends where its heap does
// (node_bytes). A node of class c holds keys of up to node_max_key_bytes
// (a quarter of its heap, so a split leaves each half room for one more);
// a node that must take a longer key, or whose heap fills while it holds
// few entries, is replaced by a copy of a larger class (btree_split.cc).
// TPC-C's keys are mostly <= 8 bytes: their nodes are 560 bytes (class 0: no
// heap and no key offsets), not 1,456.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "invariant.h"

namespace solo::internal {

inline constexpr int kNodeCapacity = 32;
inline constexpr int kNodeClasses = 6;
inline constexpr int kNodeHeapBytes = 832;  // the largest class's
inline constexpr int kMaxTreeHeight = 16;
inline constexpr int kNodeMaxKeyBytes = 200;  // == solo::kMaxKeyBytes
inline constexpr int kInlineKeyBytes = 8;     // keys this long live in head_ alone

inline constexpr int kClassHeapBytes[kNodeClasses] = {0, 64, 128, 256, 512, kNodeHeapBytes};
inline constexpr int kClassMaxKeyBytes[kNodeClasses] = {kInlineKeyBytes, 16, 32, 64, 128,
                                                         kNodeMaxKeyBytes};

struct KeyRef {
  const char* data;
  uint32_t size;
  uint64_t prefix;  // the first 8 bytes, big-endian, zero padded (key_prefix)
};

inline uint64_t key_prefix(const char* data, size_t size) {
  uint64_t raw = 0;
  std::memcpy(&raw, data, size < 8 ? size : 8);
  return __builtin_bswap64(raw);
}

inline KeyRef make_key(std::string_view key) {
  return KeyRef{key.data(), static_cast<uint32_t>(key.size()), key_prefix(key.data(), key.size())};
}

// Heap bytes a key of `size` takes: none if it fits in head_.
inline int heap_len(uint32_t size) { return size > kInlineKeyBytes ? static_cast<int>(size) : 0; }

struct Node {
  // Immutable once the node's generation is published (invariant 2).
  uint64_t gen_;        // generation the node was made in
  uint8_t is_leaf_ : 1;
  uint8_t class_ : 3;   // 0 .. kNodeClasses - 1: the size of heap_
  // 1 + the index of the last node_insert_at (0: none), kept across copies:
  // a split after ascending inserts into the middle splits at the insert
  // (btree_split.cc).
  uint8_t last_insert_;
  uint16_t count_;      // entries in use
  uint16_t heap_used_;  // bytes of heap_ handed out, live or dead
  uint16_t heap_dead_;  // bytes of removed keys inside [0, heap_used_)
  uint64_t head_[kNodeCapacity];  // first 8 key bytes as stored, zero padded
  void* ptr_[kNodeCapacity];
  uint8_t key_len_[kNodeCapacity];  // keys are at most kNodeMaxKeyBytes (200)
  // A node of class 0 ends here: it has no heap, so neither these offsets
  // (never read or written for it: every key of class 0 is inline).
  uint16_t key_off_[kNodeCapacity];  // in heap_ (keys longer than 8 bytes)
  char heap_[kNodeHeapBytes];  // a node's memory ends after its class's heap

  std::string_view key(int idx) const {
    uint32_t len = key_len_[idx];
    const char* data = len <= kInlineKeyBytes ? reinterpret_cast<const char*>(head_ + idx)
                                              : heap_ + key_off_[idx];
    return {data, len};
  }
  // head_[idx] as a big-endian integer: KeyRef::prefix of key idx.
  uint64_t prefix(int idx) const { return __builtin_bswap64(head_[idx]); }
  KeyRef key_ref(int idx) const {
    std::string_view bytes = key(idx);
    return KeyRef{bytes.data(), key_len_[idx], prefix(idx)};
  }
  Node* child(int idx) const { return static_cast<Node*>(ptr_[idx]); }
  int live_heap() const { return heap_used_ - heap_dead_; }
};
static_assert(sizeof(Node) % 16 == 0, "nodes take whole 16-byte blocks");
static_assert(offsetof(Node, heap_) % 16 == 0, "so are smaller ones");
static_assert(kNodeHeapBytes >= 4 * kNodeMaxKeyBytes, "heap must hold 4 maximal keys");

static_assert(offsetof(Node, key_off_) % 16 == 0, "class 0 nodes take whole 16-byte blocks");
static_assert(kNodeMaxKeyBytes <= 255, "key_len_ holds a key's length in one byte");

// Bytes of memory a node of class `node_class` takes: class 0 ends before
// key_off_, the others after their heap.
constexpr uint32_t node_bytes(int node_class) {
  return node_class == 0
             ? static_cast<uint32_t>(offsetof(Node, key_off_))
             : static_cast<uint32_t>(sizeof(Node) - kNodeHeapBytes + kClassHeapBytes[node_class]);
}
inline uint32_t node_bytes(const Node* node) { return node_bytes(node->class_); }
inline int node_heap_bytes(const Node* node) { return kClassHeapBytes[node->class_]; }
// The longest key a node of the class takes: a split leaves each half room
// for one more (a quarter of the heap).
inline int node_max_key_bytes(const Node* node) { return kClassMaxKeyBytes[node->class_]; }
// The smallest class whose nodes take a key of `key_size` bytes.
inline int node_class_for_key(uint32_t key_size) {
  int node_class = 0;
  while (kClassMaxKeyBytes[node_class] < static_cast<int>(key_size)) node_class++;
  return node_class;
}

// Starts loading the parts of a node a search reads (heads, pointers,
// lengths: its first 9 cache lines; offsets too for a node with a heap) so
// that their misses overlap instead of following one another down the
// binary search.
inline void node_prefetch(const Node* node) {
  const char* base = reinterpret_cast<const char*>(node);
  for (int line = 0; line < 9; ++line) __builtin_prefetch(base + line * 64);
  if (node->class_ != 0) __builtin_prefetch(base + 9 * 64);
}

// node_compare of key idx and `key` whose prefixes are equal: the rest of
// the bytes, then the lengths.
inline int node_compare_tail(const Node* node, int idx, const KeyRef& key) {
  uint32_t len = node->key_len_[idx];
  uint32_t common = len < key.size ? len : key.size;
  if (common > 8) {
    int cmp = std::memcmp(node->heap_ + node->key_off_[idx] + 8, key.data + 8, common - 8);
    if (cmp != 0) return cmp;
  }
  return (len > key.size) - (len < key.size);
}

// <0, 0, >0 as key idx of `node` is less than, equal to, greater than `key`.
inline int node_compare(const Node* node, int idx, const KeyRef& key) {
  uint64_t prefix = node->prefix(idx);
  if (prefix != key.prefix) return prefix < key.prefix ? -1 : 1;
  return node_compare_tail(node, idx, key);
}

// The searches below are binary searches over halving steps from
// kNodeCapacity down (six probes at most, each a load and a compare of the
// prefixes, where a search over [lo, hi) also kept both ends): `pos` grows
// while the entry before pos + step is still on the near side of `key`.
// Most probes are decided by the prefixes alone; equal prefixes take
// node_compare_tail.
static_assert(kNodeCapacity == 32, "the searches' first step is kNodeCapacity");

// The number of leading entries of `node` before `key`: those whose key is
// < key (kAfterEqual false) or <= key (true).
template <bool kAfterEqual>
inline int node_search(const Node* node, const KeyRef& key) {
  const int count = node->count_;
  SOLO_ASSERT(count <= kNodeCapacity);  // the first step covers every entry
  int pos = 0;
  for (int step = kNodeCapacity; step > 0; step >>= 1) {
    const int probe = pos + step;
    if (probe > count) continue;
    const uint64_t prefix = node->prefix(probe - 1);
    const bool before =
        prefix < key.prefix ||
        (prefix == key.prefix && node_compare_tail(node, probe - 1, key) < (kAfterEqual ? 1 : 0));
    pos = before ? probe : pos;
  }
  return pos;
}

// First index whose key is >= key (count_ if none); *found if equal.
inline int node_lower_bound(const Node* node, const KeyRef& key, bool* found) {
  const int pos = node_search<false>(node, key);
  *found = pos < node->count_ && node->prefix(pos) == key.prefix &&
           node_compare_tail(node, pos, key) == 0;
  return pos;
}

// First index whose key is > key (count_ if none).
inline int node_upper_bound(const Node* node, const KeyRef& key) {
  return node_search<true>(node, key);
}

// Inner node: the child whose range holds key (the last key <= key, else 0).
inline int node_route(const Node* node, const KeyRef& key) {
  int idx = node_upper_bound(node, key) - 1;
  return idx < 0 ? 0 : idx;
}

void node_init(Node* node, bool is_leaf, int node_class, uint64_t gen);
// Copies src into dst (a fresh node of class dst_class >= src's) with
// generation gen, compacting the heap.
void node_copy(Node* dst, const Node* src, uint64_t gen, int dst_class);
inline void node_copy(Node* dst, const Node* src, uint64_t gen) {
  node_copy(dst, src, gen, src->class_);
}
// True if one more key of key_size bytes fits (after compaction if needed).
inline bool node_fits(const Node* node, uint32_t key_size) {
  return node->count_ < kNodeCapacity && static_cast<int>(key_size) <= node_max_key_bytes(node) &&
         node->live_heap() + heap_len(key_size) <= node_heap_bytes(node);
}
// Whether entries [0, count) of `node` and one more key of key_size bytes
// fit in one node of its class.
inline bool node_prefix_fits(const Node* node, int count, uint32_t key_size) {
  if (count + 1 > kNodeCapacity || static_cast<int>(key_size) > node_max_key_bytes(node)) {
    return false;
  }
  int bytes = heap_len(key_size);
  for (int idx = 0; idx < count; ++idx) bytes += heap_len(node->key_len_[idx]);
  return bytes <= node_heap_bytes(node);
}
// The smallest class whose nodes take every entry of `node` and one more key
// of key_size bytes (kNodeClasses if none: then it must split).
inline int node_class_to_take(const Node* node, uint32_t key_size) {
  int node_class = node_class_for_key(key_size);
  if (node_class < node->class_) node_class = node->class_;
  int bytes = node->live_heap() + heap_len(key_size);
  while (node_class < kNodeClasses && kClassHeapBytes[node_class] < bytes) node_class++;
  return node_class;
}
// Preconditions: node_fits(node, key.size), 0 <= idx <= count_.
void node_insert_at(Node* node, int idx, const KeyRef& key, void* ptr);
void node_remove_at(Node* node, int idx);
// Appends entries [from, to) of src to dst. Precondition: they fit.
void node_append(Node* dst, const Node* src, int from, int to);
// Drops entries [new_count, count_).
void node_truncate(Node* node, int new_count);
void node_compact(Node* node);
// Where to split a full node: entries [0, result) stay, the rest move right.
// Balances heap bytes; 1 <= result < count_.
int node_split_point(const Node* node);

}  // namespace solo::internal
