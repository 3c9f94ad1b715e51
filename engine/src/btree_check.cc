// Full structural check of a tree (engine/README.md, invariants T1-T6).
// Any thread that holds the tree (a snapshot's copy, or the owner's).
#include <string>

#include "tree.h"

namespace solo::internal {

namespace {

struct CheckState {
  uint64_t max_gen = 0;
  uint32_t height = 0;
  bool has_records = false;
  uint64_t entries = 0;
  uint64_t bytes = 0;
  std::string error;
};

int compare_keys(std::string_view a, std::string_view b) {
  int cmp = a.compare(b);
  return (cmp > 0) - (cmp < 0);
}

// lower/upper: the node's key range [lower, upper); nullptr for unbounded.
void check_node(CheckState* state, const Node* node, uint32_t depth, const std::string_view* lower,
                const std::string_view* upper, bool is_root) {
  if (!state->error.empty()) return;
  auto fail = [&](const std::string& what) {
    if (state->error.empty()) {
      state->error = what + " (node at depth " + std::to_string(depth) + ", gen " +
                     std::to_string(node->gen_) + ")";
    }
  };
  if (node->gen_ > state->max_gen) return fail("T5: node newer than the view");
  if (node->count_ > kNodeCapacity) return fail("T2: count above capacity");
  if (node->class_ >= kNodeClasses) return fail("T2: no such node class");
  if (node->heap_used_ > node_heap_bytes(node) || node->heap_dead_ > node->heap_used_) {
    return fail("T2: heap accounting out of bounds");
  }
  int live = 0;
  for (int idx = 0; idx < node->count_; ++idx) {
    uint32_t len = node->key_len_[idx];
    if (static_cast<int>(len) > node_max_key_bytes(node)) return fail("T2: key too long for the class");
    live += heap_len(len);
    if (heap_len(len) != 0 && node->key_off_[idx] + len > node->heap_used_) {
      return fail("T2: key outside the used heap");
    }
    std::string_view key = node->key(idx);
    if (node->prefix(idx) != key_prefix(key.data(), key.size())) return fail("T2: stale prefix");
    // An inline key's head is zero padded (comparisons of heads rely on it).
    if (len < kInlineKeyBytes && (node->prefix(idx) << (8 * len)) != 0) return fail("T2: head not zero padded");
  }
  if (live != node->live_heap()) return fail("T2: live heap bytes disagree with the keys");
  bool is_leaf = node->is_leaf_ != 0;
  if (is_leaf != (depth + 1 == state->height)) return fail("T3: leaves at different depths");
  if (!is_root && node->count_ == 0) return fail("T4: empty non-root node");
  if (!is_leaf && node->count_ == 0) return fail("T4: empty inner node");

  // Keys strictly ascending and inside [lower, upper). Key 0 of an inner
  // node routes nothing (node_route sends every key below key 1 to child 0):
  // once its first child is unlinked it is the next child's old lower bound,
  // and keys stored below it later go to child 0 all the same, whose split
  // then puts a key 1 below it. So it is left out; child 0's range is the
  // node's own lower bound.
  const int first_routing = is_leaf ? 0 : 1;
  for (int idx = first_routing; idx < node->count_; ++idx) {
    std::string_view key = node->key(idx);
    if (idx > first_routing && compare_keys(node->key(idx - 1), key) >= 0) {
      return fail("T1: keys not strictly ascending");
    }
    if (lower != nullptr && compare_keys(key, *lower) < 0) return fail("T1: key below its range");
    if (upper != nullptr && compare_keys(key, *upper) >= 0) return fail("T1: key above its range");
  }
  if (is_leaf) {
    state->entries += node->count_;
    for (int idx = 0; idx < node->count_; ++idx) {
      state->bytes += node->key_len_[idx];
      if (state->has_records) {
        const Record* record = static_cast<const Record*>(node->ptr_[idx]);
        if (record->gen() > state->max_gen) return fail("T5: record newer than the view");
        state->bytes += record->size();
      }
    }
    return;
  }
  for (int idx = 0; idx < node->count_; ++idx) {
    std::string_view child_lower;
    const std::string_view* child_lower_ptr = lower;
    if (idx > 0) {
      child_lower = node->key(idx);
      child_lower_ptr = &child_lower;
    }
    std::string_view child_upper;
    const std::string_view* child_upper_ptr = upper;
    if (idx + 1 < node->count_) {
      child_upper = node->key(idx + 1);
      child_upper_ptr = &child_upper;
    }
    check_node(state, node->child(idx), depth + 1, child_lower_ptr, child_upper_ptr, false);
  }
}

}  // namespace

std::string btree_check(const TreeState& tree, uint64_t max_gen) {
  if (tree.root == nullptr) {
    if (tree.height != 0 || tree.count != 0 || tree.bytes != 0) {
      return "T6: empty tree with non-zero height or counters";
    }
    return "";
  }
  CheckState state;
  state.max_gen = max_gen;
  state.height = tree.height;
  state.has_records = tree.has_records;
  check_node(&state, tree.root, 0, nullptr, nullptr, true);
  if (!state.error.empty()) return state.error;
  if (state.entries != tree.count) return "T6: entry count disagrees with the leaves";
  if (state.bytes != tree.bytes) return "T6: byte count disagrees with the leaves";
  return "";
}

}  // namespace solo::internal
