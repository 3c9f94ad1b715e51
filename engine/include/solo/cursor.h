// Range scans over one tree (a table or an index), forward or backward.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "solo/catalog.h"

namespace solo {

namespace internal {
struct Node;
}
class TxnView;

// A range of encoded keys and a direction.
struct KeyRange {
  std::string lower;
  std::string upper;
  bool has_lower = false;
  bool has_upper = false;
  bool lower_inclusive = true;
  bool upper_inclusive = false;
  bool reverse = false;  // false: ascending keys; true: descending

  // Every key of the tree.
  static KeyRange All(bool reverse = false);
  // Every key that starts with `prefix` (e.g. a key prefix from append_key).
  static KeyRange Prefix(std::string_view prefix, bool reverse = false);
  // lower <= key < upper (each bound's inclusiveness can be changed after).
  static KeyRange Between(std::string_view lower, std::string_view upper, bool reverse = false);
};

// A position in a scan. Made by TxnView::scan(); lives no longer than the
// transaction that made it and is used only on that transaction's thread.
// In a WriteTxn a cursor stays usable across the transaction's own changes:
// it continues after the key it was on (it re-seeks once it sees a change).
class Cursor {
 public:
  Cursor(Cursor&&) noexcept = default;
  Cursor& operator=(Cursor&&) noexcept = default;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // True while the cursor is on an entry inside the range.
  bool valid() const { return valid_; }
  // Preconditions for the accessors and next(): valid().
  // The encoded key. For an index: index columns then the primary key.
  std::string_view key() const;
  // For a table: the encoded row. For an index: the row's primary key.
  // Valid until the next call of next() or a change made by the transaction.
  std::string_view value() const;
  // Moves to the next entry in the scan's direction.
  void next();

 private:
  friend class TxnView;
  static constexpr int kMaxHeight = 16;

  Cursor() = default;
  void seek_first();
  void descend_edge(int level);
  bool in_range_after_position();

  const TxnView* view_ = nullptr;
  TreeId tree_ = kInvalidTree;
  bool is_index_ = false;
  bool valid_ = false;
  int height_ = 0;
  KeyRange range_;
  const internal::Node* node_[kMaxHeight] = {};
  int idx_[kMaxHeight] = {};
  // WriteTxn only: the change counter seen when positioned and the current key.
  uint64_t seen_changes_ = 0;
  std::string saved_key_;
};

}  // namespace solo
