// The undo log of the running write transaction: one entry per change, undone
// in reverse order on rollback (invariant 5). Owner thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "solo/catalog.h"

namespace solo::internal {

struct UndoEntry {
  enum class Op : uint8_t {
    kInserted,     // key was inserted: remove it
    kReplaced,     // key's value was `old`: put it back
    kRemoved,      // key with value `old` was removed: insert it again
    kCreatedTree,  // the last tree was created: drop it
    kCatalog,      // the catalog was `old`: restore it
    kLoaded,       // the tree was empty and got a bulk-built tree: empty it again
  };
  Op op;
  TreeId tree;
  uint32_t key_offset;
  uint32_t key_size;
  const void* old;
};

class UndoLog {
 public:
  void add(UndoEntry::Op op, TreeId tree, std::string_view key, const void* old) {
    entries_.push_back(UndoEntry{op, tree, static_cast<uint32_t>(keys_.size()),
                                 static_cast<uint32_t>(key.size()), old});
    keys_.append(key);
  }
  // Sets the `old` of the newest entry (after the change it logs was made).
  void set_last_old(const void* old) { entries_.back().old = old; }
  void drop_last() {
    keys_.resize(entries_.back().key_offset);
    entries_.pop_back();
  }
  // Forgets the entries after the first `size` (undone by the caller).
  void truncate(size_t size) {
    if (size == entries_.size()) return;
    keys_.resize(entries_[size].key_offset);
    entries_.resize(size);
  }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::vector<UndoEntry>& entries() const { return entries_; }
  std::string_view key(const UndoEntry& entry) const {
    return std::string_view(keys_).substr(entry.key_offset, entry.key_size);
  }
  // Keeps the buffers' capacity for the next transaction.
  void clear() {
    entries_.clear();
    keys_.clear();
  }

 private:
  std::vector<UndoEntry> entries_;
  std::string keys_;
};

}  // namespace solo::internal
