// The checkpoint load of one table (recovery.cc): its rows arrive in
// primary-key order (a snapshot scan wrote them), so the table's tree is bulk
// built (BulkBuilder) instead of one descent and insert per row, and each
// index's entries are collected, sorted and bulk built at the end. Owner
// thread only, inside one write transaction: an error returned makes the
// caller's transaction fail and undoes everything loaded (undo kLoaded, and
// the records as created_).
//
// Fill (engine/README.md "Bulk build"): table trees fill their nodes fully,
// index trees to 3/4. What TPC-C then writes: tables get appends at the right
// end of a key range (orders, new_order, order_line, history: a full node
// there splits by moving only the new key right, btree_split.cc) or in-place
// updates that change no key (stock, customer, district, warehouse), so a
// full node is never split by them, and fewer nodes mean fewer fresh pages
// to fault in during recovery. An index entry goes wherever its columns put
// it (orders_by_customer: a new order lands inside its customer's range), so
// index leaves keep 8 free entries, as a merge leaves them (btree_remove.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "solo/txn.h"
#include "tree.h"

namespace solo::internal {

class DbImpl;

inline constexpr int kTableLoadFill = kNodeCapacity;
inline constexpr int kIndexLoadFill = kNodeCapacity * 3 / 4;

class TableLoader {
 public:
  // Loads rows into `table` within `txn`; the table and its indexes must be
  // empty. `file` names the source in messages. fill: entries per node of
  // the table's tree and of its indexes' trees (tests make tall trees with
  // small ones).
  TableLoader(WriteTxn* txn, TableId table, std::string file, int table_fill = kTableLoadFill,
              int index_fill = kIndexLoadFill);
  TableLoader(const TableLoader&) = delete;
  TableLoader& operator=(const TableLoader&) = delete;

  // Adds the row `row` with primary key `key`, found at `offset` of the file;
  // the caller has checked that `key` is the row's primary key (recovery's
  // reader thread does; asserted in debug builds). Corruption naming the
  // file and offset if the key is not greater than the previous row's (rows
  // out of order or a duplicate), or the key, row or an index entry is too
  // long.
  Status add(std::string_view key, std::string_view row, uint64_t offset);
  // Installs the table's tree, then builds and installs each index's.
  // Corruption naming the file and both rows' offsets if a unique index has
  // two entries with the same non-NULL columns.
  Status finish();

  TableId table() const { return table_; }

 private:
  struct IndexEntry {
    uint64_t prefix;     // first 8 bytes of the entry (KeyRef::prefix)
    uint64_t offset;     // of the row in the file
    uint64_t key_at;     // in IndexBuild::keys (which may exceed 4 GiB)
    uint16_t key_size;   // the whole entry (<= kMaxKeyBytes)
    uint16_t part_size;  // its index-column part
    bool has_null;       // an index column is NULL: exempt from uniqueness
  };
  struct IndexBuild {
    const IndexInfo* info;
    std::string keys;  // the entries' bytes, back to back
    std::vector<IndexEntry> entries;
    bool sorted = true;  // entries arrived in key order (no sort needed)
  };

  Status damaged(uint64_t offset, const std::string& what) const;
  Status finish_index(IndexBuild* index);

  DbImpl* const db_;
  const TableId table_;
  const TableInfo* const info_;
  const std::string file_;
  const int index_fill_;
  BulkBuilder rows_;
  std::vector<IndexBuild> indexes_;
  std::string entry_;        // scratch: one index entry
  uint64_t previous_offset_ = 0;
};

}  // namespace solo::internal
