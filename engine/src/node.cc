// Operations on one node. See node.h for the layout.
#include "node.h"

#include <algorithm>

namespace solo::internal {

void node_init(Node* node, bool is_leaf, int node_class, uint64_t gen) {
  SOLO_ASSERT(node_class >= 0 && node_class < kNodeClasses);
  node->gen_ = gen;
  node->is_leaf_ = is_leaf ? 1 : 0;
  node->class_ = static_cast<uint8_t>(node_class);
  node->last_insert_ = 0;
  node->count_ = 0;
  node->heap_used_ = 0;
  node->heap_dead_ = 0;
}

void node_copy(Node* dst, const Node* src, uint64_t gen, int dst_class) {
  SOLO_ASSERT(dst_class >= src->class_ && dst_class < kNodeClasses);
  int count = src->count_;
  dst->gen_ = gen;
  dst->is_leaf_ = src->is_leaf_;
  dst->class_ = static_cast<uint8_t>(dst_class);
  dst->last_insert_ = src->last_insert_;
  dst->count_ = static_cast<uint16_t>(count);
  std::memcpy(dst->head_, src->head_, count * sizeof(uint64_t));
  std::memcpy(dst->key_len_, src->key_len_, count * sizeof(uint8_t));
  std::memcpy(dst->ptr_, src->ptr_, count * sizeof(void*));
  if (src->heap_used_ == 0) {
    // Every key is inline (class 0, and TPC-C's nodes): nothing more to copy.
    dst->heap_used_ = 0;
  } else if (src->heap_dead_ == 0) {
    // The heap is dense; copy it and the offsets as they are.
    std::memcpy(dst->key_off_, src->key_off_, count * sizeof(uint16_t));
    std::memcpy(dst->heap_, src->heap_, src->heap_used_);
    dst->heap_used_ = src->heap_used_;
  } else {
    uint16_t used = 0;
    for (int idx = 0; idx < count; ++idx) {
      uint32_t len = src->key_len_[idx];
      if (heap_len(len) == 0) continue;
      std::memcpy(dst->heap_ + used, src->heap_ + src->key_off_[idx], len);
      dst->key_off_[idx] = used;
      used = static_cast<uint16_t>(used + len);
    }
    dst->heap_used_ = used;
  }
  dst->heap_dead_ = 0;
}

void node_compact(Node* node) {
  if (node->heap_dead_ == 0) return;
  char buffer[kNodeHeapBytes];
  uint16_t used = 0;
  for (int idx = 0; idx < node->count_; ++idx) {
    uint32_t len = node->key_len_[idx];
    if (heap_len(len) == 0) continue;
    std::memcpy(buffer + used, node->heap_ + node->key_off_[idx], len);
    node->key_off_[idx] = used;
    used = static_cast<uint16_t>(used + len);
  }
  std::memcpy(node->heap_, buffer, used);
  node->heap_used_ = used;
  node->heap_dead_ = 0;
}

static uint16_t heap_put(Node* node, const char* data, uint32_t size) {
  int capacity = node_heap_bytes(node);
  if (node->heap_used_ + static_cast<int>(size) > capacity) node_compact(node);
  SOLO_ASSERT(node->heap_used_ + static_cast<int>(size) <= capacity);
  uint16_t offset = node->heap_used_;
  std::memcpy(node->heap_ + offset, data, size);
  node->heap_used_ = static_cast<uint16_t>(offset + size);
  return offset;
}

void node_insert_at(Node* node, int idx, const KeyRef& key, void* ptr) {
  SOLO_ASSERT(node_fits(node, key.size));
  SOLO_ASSERT(idx >= 0 && idx <= node->count_);
  uint16_t offset = heap_len(key.size) != 0 ? heap_put(node, key.data, key.size) : 0;
  const bool has_heap = node->class_ != 0;  // class 0 has no key_off_ (node.h)
  int tail = node->count_ - idx;
  if (tail > 0) {
    std::memmove(node->head_ + idx + 1, node->head_ + idx, tail * sizeof(uint64_t));
    if (has_heap) {
      std::memmove(node->key_off_ + idx + 1, node->key_off_ + idx, tail * sizeof(uint16_t));
    }
    std::memmove(node->key_len_ + idx + 1, node->key_len_ + idx, tail * sizeof(uint8_t));
    std::memmove(node->ptr_ + idx + 1, node->ptr_ + idx, tail * sizeof(void*));
  }
  node->head_[idx] = __builtin_bswap64(key.prefix);
  if (has_heap) node->key_off_[idx] = offset;
  node->key_len_[idx] = static_cast<uint8_t>(key.size);
  node->ptr_[idx] = ptr;
  node->count_++;
  node->last_insert_ = static_cast<uint8_t>(idx + 1);
}

void node_remove_at(Node* node, int idx) {
  SOLO_ASSERT(idx >= 0 && idx < node->count_);
  node->heap_dead_ = static_cast<uint16_t>(node->heap_dead_ + heap_len(node->key_len_[idx]));
  int tail = node->count_ - idx - 1;
  if (tail > 0) {
    std::memmove(node->head_ + idx, node->head_ + idx + 1, tail * sizeof(uint64_t));
    if (node->class_ != 0) {  // class 0 has no key_off_ (node.h)
      std::memmove(node->key_off_ + idx, node->key_off_ + idx + 1, tail * sizeof(uint16_t));
    }
    std::memmove(node->key_len_ + idx, node->key_len_ + idx + 1, tail * sizeof(uint8_t));
    std::memmove(node->ptr_ + idx, node->ptr_ + idx + 1, tail * sizeof(void*));
  }
  node->count_--;
  // The last insert moved down one, or left.
  if (node->last_insert_ > idx + 1) {
    node->last_insert_--;
  } else if (node->last_insert_ == idx + 1) {
    node->last_insert_ = 0;
  }
  if (node->count_ == 0) {
    node->heap_used_ = 0;
    node->heap_dead_ = 0;
  }
}

void node_append(Node* dst, const Node* src, int from, int to) {
  for (int idx = from; idx < to; ++idx) {
    node_insert_at(dst, dst->count_, src->key_ref(idx), src->ptr_[idx]);
  }
}

void node_truncate(Node* node, int new_count) {
  SOLO_ASSERT(new_count >= 0 && new_count <= node->count_);
  for (int idx = new_count; idx < node->count_; ++idx) {
    node->heap_dead_ = static_cast<uint16_t>(node->heap_dead_ + heap_len(node->key_len_[idx]));
  }
  node->count_ = static_cast<uint16_t>(new_count);
  if (node->last_insert_ > new_count) node->last_insert_ = 0;
  node_compact(node);
}

int node_split_point(const Node* node) {
  // Each half must keep room for one more key of the class's longest.
  const int half_limit = node_heap_bytes(node) - heap_len(node_max_key_bytes(node));
  int total = node->live_heap();
  int half = node->count_ / 2;
  int left_bytes = 0;
  for (int idx = 0; idx < half; ++idx) left_bytes += heap_len(node->key_len_[idx]);
  if (half >= 1 && left_bytes <= half_limit && total - left_bytes <= half_limit) return half;
  // Otherwise balance bytes: each side then holds < total/2 + one key.
  int running = 0;
  int split = 0;
  while (split < node->count_ && running * 2 < total) running += heap_len(node->key_len_[split++]);
  return std::clamp(split, 1, node->count_ - 1);
}

}  // namespace solo::internal
