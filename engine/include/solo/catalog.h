// The catalog: tables and indexes of one snapshot. A Catalog is immutable once
// published; DDL inside db.write() makes a new one. Any thread may read a
// Catalog it got from a live snapshot or transaction, for as long as that
// snapshot or transaction lives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "solo/schema.h"

namespace solo {

// Every table and every index is one B+tree; its id is the tree's number.
using TreeId = uint32_t;
using TableId = TreeId;
using IndexId = TreeId;
inline constexpr TreeId kInvalidTree = UINT32_MAX;

struct TableInfo {
  TableId id = kInvalidTree;
  TableSchema schema;
  std::vector<IndexId> indexes;  // secondary indexes, in creation order
  // Per column: 1 when the primary key or a secondary index holds it, so
  // that changing it may move the row's key or index entries (kept by the
  // DDL that makes or changes this TableInfo; WriteTxn::patch_columns reads
  // it once per changed column instead of matching every key and index
  // column against every changed one).
  std::vector<uint8_t> keyed_columns;
};

struct IndexInfo {
  IndexId id = kInvalidTree;
  TableId table = kInvalidTree;
  IndexSchema schema;
};

class Catalog {
 public:
  Catalog() = default;

  // Returns nullptr if there is no table (index) of that name. Names match exactly.
  const TableInfo* find_table(std::string_view name) const;
  const IndexInfo* find_index(std::string_view name) const;

  // Returns nullptr if `id` is not a table (an index). Inline: every
  // WriteTxn call starts with one (a patch, an insert, a get_for_update).
  const TableInfo* table(TreeId id) const {
    return id < entries_.size() ? entries_[id].table.get() : nullptr;
  }
  const IndexInfo* index(TreeId id) const {
    return id < entries_.size() ? entries_[id].index.get() : nullptr;
  }

  // Number of trees (tables plus indexes); ids are 0 .. tree_count()-1.
  uint32_t tree_count() const { return static_cast<uint32_t>(entries_.size()); }

  // All tables, in creation order.
  std::vector<const TableInfo*> tables() const;

 private:
  friend class WriteTxn;
  struct Entry {
    std::shared_ptr<const TableInfo> table;  // set for a table tree
    std::shared_ptr<const IndexInfo> index;  // set for an index tree
  };
  std::vector<Entry> entries_;
};

}  // namespace solo
