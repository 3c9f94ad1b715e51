// Cursors: forward and backward range scans. A cursor keeps the path from the
// root to its leaf (a copy-on-write tree has no sibling links), so stepping
// past the end of a leaf climbs to the nearest ancestor with a next entry.
#include "solo/cursor.h"

#include "solo/codec.h"
#include "solo/txn.h"
#include "tree.h"

namespace solo {

using internal::KeyRef;
using internal::Node;

KeyRange KeyRange::All(bool reverse) {
  KeyRange range;
  range.reverse = reverse;
  return range;
}

KeyRange KeyRange::Prefix(std::string_view prefix, bool reverse) {
  KeyRange range;
  range.reverse = reverse;
  if (prefix.empty()) return range;
  range.lower.assign(prefix);
  range.has_lower = true;
  range.upper = prefix_successor(prefix);
  range.has_upper = !range.upper.empty();
  return range;
}

KeyRange KeyRange::Between(std::string_view lower, std::string_view upper, bool reverse) {
  KeyRange range;
  range.lower.assign(lower);
  range.upper.assign(upper);
  range.has_lower = true;
  range.has_upper = true;
  range.reverse = reverse;
  return range;
}

std::string_view Cursor::key() const {
  SOLO_ASSERT(valid_);
  SOLO_ASSERT(view_->changes_ == nullptr || *view_->changes_ == seen_changes_);
  return node_[height_ - 1]->key(idx_[height_ - 1]);
}

std::string_view Cursor::value() const {
  SOLO_ASSERT(valid_);
  SOLO_ASSERT(view_->changes_ == nullptr || *view_->changes_ == seen_changes_);
  const Node* leaf = node_[height_ - 1];
  void* value = leaf->ptr_[idx_[height_ - 1]];
  if (is_index_) {
    // An index entry's value is where the primary key starts in its key.
    return leaf->key(idx_[height_ - 1]).substr(reinterpret_cast<uintptr_t>(value));
  }
  return static_cast<const internal::Record*>(value)->view();
}

// From node_[level]/idx_[level] (idx possibly out of range), moves to the
// nearest leaf entry in the scan's direction.
void Cursor::descend_edge(int level) {
  const int direction = range_.reverse ? -1 : 1;
  while (true) {
    const Node* node = node_[level];
    SOLO_ASSERT(node->gen_ <= view_->generation_);
    if (idx_[level] < 0 || idx_[level] >= node->count_) {
      if (level == 0) {
        valid_ = false;
        return;
      }
      level--;
      idx_[level] += direction;
      continue;
    }
    if (level == height_ - 1) {
      valid_ = true;
      return;
    }
    const Node* child = node->child(idx_[level]);
    level++;
    node_[level] = child;
    idx_[level] = range_.reverse ? child->count_ - 1 : 0;
  }
}

// After a move: ends the scan at the far bound and remembers the key for a
// WriteTxn cursor.
bool Cursor::in_range_after_position() {
  if (!valid_) return false;
  std::string_view current = node_[height_ - 1]->key(idx_[height_ - 1]);
  if (!range_.reverse && range_.has_upper) {
    int cmp = current.compare(range_.upper);
    if (cmp > 0 || (cmp == 0 && !range_.upper_inclusive)) valid_ = false;
  } else if (range_.reverse && range_.has_lower) {
    int cmp = current.compare(range_.lower);
    if (cmp < 0 || (cmp == 0 && !range_.lower_inclusive)) valid_ = false;
  }
  if (valid_ && view_->changes_ != nullptr) {
    seen_changes_ = *view_->changes_;
    saved_key_.assign(current);
  }
  if (valid_ && !is_index_) {
    // The records of the next two entries of this leaf: their misses
    // overlap this one's use (a scan's rows are apart in memory).
    const Node* leaf = node_[height_ - 1];
    const int step = range_.reverse ? -1 : 1;
    for (int ahead = 1, idx = idx_[height_ - 1] + step; ahead <= 2 && idx >= 0 && idx < leaf->count_;
         ++ahead, idx += step) {
      __builtin_prefetch(leaf->ptr_[idx]);
    }
  }
  return valid_;
}

namespace {

// Positions on the first key >= key (> key if strict) going forward, or the
// last key <= key (< key if strict) going backward; the leaf index may be out
// of range, to be settled by descend_edge.
void descend_to(const Node* root, int height, const KeyRef& key, bool reverse, bool strict,
                const Node** nodes, int* idxs) {
  const Node* node = root;
  for (int level = 0; level < height - 1; ++level) {
    int idx = internal::node_route(node, key);
    nodes[level] = node;
    idxs[level] = idx;
    node = node->child(idx);
  }
  nodes[height - 1] = node;
  bool found;
  int idx;
  if (!reverse) {
    idx = strict ? internal::node_upper_bound(node, key) : internal::node_lower_bound(node, key, &found);
  } else {
    idx = (strict ? internal::node_lower_bound(node, key, &found)
                  : internal::node_upper_bound(node, key)) -
          1;
  }
  idxs[height - 1] = idx;
}

}  // namespace

void Cursor::seek_first() {
  const internal::TreeState* tree = view_->tree_state(tree_);
  valid_ = false;
  height_ = static_cast<int>(tree->height);
  if (tree->root == nullptr) return;
  bool bounded = range_.reverse ? range_.has_upper : range_.has_lower;
  if (bounded) {
    const std::string& bound = range_.reverse ? range_.upper : range_.lower;
    bool strict = range_.reverse ? !range_.upper_inclusive : !range_.lower_inclusive;
    descend_to(tree->root, height_, internal::make_key(bound), range_.reverse, strict, node_, idx_);
    descend_edge(height_ - 1);
  } else {
    node_[0] = tree->root;
    idx_[0] = range_.reverse ? tree->root->count_ - 1 : 0;
    descend_edge(0);
  }
  in_range_after_position();
}

void Cursor::next() {
  SOLO_ASSERT(valid_);
  if (view_->changes_ != nullptr && *view_->changes_ != seen_changes_) {
    // The transaction changed the tree: the path may be stale. Re-seek past
    // the saved key.
    const internal::TreeState* tree = view_->tree_state(tree_);
    valid_ = false;
    height_ = static_cast<int>(tree->height);
    if (tree->root == nullptr) return;
    descend_to(tree->root, height_, internal::make_key(saved_key_), range_.reverse,
               /*strict=*/true, node_, idx_);
    descend_edge(height_ - 1);
    in_range_after_position();
    return;
  }
  idx_[height_ - 1] += range_.reverse ? -1 : 1;
  descend_edge(height_ - 1);
  in_range_after_position();
}

}  // namespace solo
