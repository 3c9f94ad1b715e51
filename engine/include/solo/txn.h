// Transactions. A ReadTxn reads one published snapshot on the caller's thread;
// a WriteTxn runs on the owner thread inside db.write(). Both are views of a
// set of trees; TxnView holds what they share.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "solo/catalog.h"
#include "solo/codec.h"
#include "solo/cursor.h"
#include "solo/schema.h"
#include "solo/status.h"

namespace solo {

struct DecodedRow;  // solo/codec.h

// How many rows or entries a DDL call's loop handles between two looks at
// its cancel flag (WriteTxn::create_index, drop_index, drop_table).
inline constexpr uint32_t kDdlCancelCheckRows = 1024;

namespace internal {
struct TreeState;
struct TreePath;
class CancelCheck;
class DbImpl;
class TableLoader;
}  // namespace internal
class Snapshot;

// Read access to one consistent state. Used only on the thread that runs the
// transaction; references it returns live as long as the transaction (in a
// WriteTxn: until the transaction's next change).
class TxnView {
 public:
  TxnView(const TxnView&) = delete;
  TxnView& operator=(const TxnView&) = delete;

  // The tables and indexes of this state.
  const Catalog& catalog() const { return *catalog_; }

  // Sets *row to the encoded row whose primary key is `key` and returns OK;
  // NotFound if there is none; InvalidArgument if `table` is not a table.
  Status get(TableId table, std::string_view key, std::string_view* row) const;
  // Same, decoded.
  Status get_row(TableId table, std::string_view key, Row* row) const;
  // Looks up many primary keys at once: rows[i] is the encoded row of
  // keys[i], or a view with data() == nullptr if there is none. The lookups
  // go down the tree side by side so that their cache misses overlap (one
  // random get waits for ~2 dependent DRAM misses; see engine/README.md).
  // Returns how many were found; InvalidArgument if `table` is not a table
  // or the spans differ in size.
  Result<size_t> get_many(TableId table, std::span<const std::string_view> keys,
                          std::span<std::string_view> rows) const;

  // A cursor over `range` of a table or an index, positioned on its first
  // entry. InvalidArgument if `tree` does not exist.
  Result<Cursor> scan(TreeId tree, const KeyRange& range) const;

  // Entries in a tree (rows of a table, entries of an index); 0 for a bad id.
  uint64_t entry_count(TreeId tree) const;
  // Encoded size of all keys and rows of all trees (the "state bytes").
  uint64_t state_bytes() const;
  // The generation this view reads: a published snapshot's, or for a WriteTxn
  // the current, unpublished one.
  uint64_t generation() const { return generation_; }

 protected:
  TxnView() = default;
  ~TxnView() = default;

  friend class Cursor;
  const internal::TreeState* tree_state(TreeId tree) const;

  const Catalog* catalog_ = nullptr;
  const internal::TreeState* trees_ = nullptr;
  uint32_t tree_count_ = 0;
  uint64_t generation_ = 0;
  // WriteTxn: the owner's change counter (cursors re-seek when it moves).
  const uint64_t* changes_ = nullptr;
};

// A serializable read-only transaction on one snapshot. Any thread; the
// snapshot must outlive the ReadTxn.
class ReadTxn : public TxnView {
 public:
  explicit ReadTxn(const Snapshot& snapshot);
};

// A read-write transaction. Made by the owner thread for one db.write() call;
// every method is for the owner thread only (the fn passed to db.write).
// Each change either happens fully or, on error, not at all; the transaction
// as a whole commits when fn returns OK and is undone otherwise.
class WriteTxn : public TxnView {
 public:
  // DDL. Returns the new tree's id; AlreadyExists if the name is taken;
  // InvalidArgument for a bad schema. create_index fills the index from the
  // table's rows and fails with AlreadyExists if a unique index would not be.
  //
  // `cancel` (create_index, drop_index, drop_table; may be null, must
  // outlive the call) may be set by any thread or a signal handler while
  // the call runs: its loops over the table's rows or the index's entries
  // look at it every kDdlCancelCheckRows of them (not at the start), and
  // once it is set the call undoes what it did and returns Cancelled; the
  // transaction goes on as if the call had not been made. The engine only
  // reads the flag; the caller clears it.
  Result<TableId> create_table(const TableSchema& schema);
  Result<IndexId> create_index(const IndexSchema& schema,
                               const std::atomic<bool>* cancel = nullptr);
  // Removes an index (its entries, then its catalog entry), or a table with
  // its indexes and rows. The tree id is not reused; the name is free again.
  // Undone like any change if the transaction is. NotFound for a bad id;
  // Cancelled as above (a failed or cancelled drop leaves nothing removed).
  Status drop_index(IndexId index, const std::atomic<bool>* cancel = nullptr);
  Status drop_table(TableId table, const std::atomic<bool>* cancel = nullptr);

  // Inserts a row (one Value per column). AlreadyExists if the primary key or
  // a unique index key exists; Constraint/InvalidArgument for a bad value.
  Status insert(TableId table, const Row& row);
  // Same for a row already encoded with encode_row() for this table.
  Status insert_encoded(TableId table, std::string_view row);
  // Same for a row a RowBuilder has finished for this table's schema (its
  // key read from where the builder wrote it, not decoded again).
  Status insert(TableId table, const RowBuilder& row);

  // Replaces the row whose primary key is `key` by `row` (which may change the
  // primary key). NotFound if there is no such row; AlreadyExists if the new
  // primary or unique key belongs to another row.
  Status update(TableId table, std::string_view key, const Row& row);
  Status update_encoded(TableId table, std::string_view key, std::string_view row);
  // update_encoded for a row that differs from the stored one only in the
  // columns `changed` (e.g. made with patch_row): when none of them is in the
  // primary key or an index, the key and index work is skipped (one descent,
  // one replace). The promise is checked in debug builds.
  Status update_columns(TableId table, std::string_view key, std::string_view row,
                        std::span<const uint32_t> changed);
  // Sets `columns` of the row `key` to `values` (the other columns keep
  // their bytes): patch_row, the update and its log record in one pass over
  // the row, where update_columns would take three. *stored (if not null):
  // the row as now stored, valid until the next change. NotFound if there
  // is no such row; InvalidArgument / Constraint as update() for a value
  // that does not fit its column.
  // `decoded` (optional): the stored row and its columns as the caller
  // decoded them (decode_row_view of the bytes get_for_update gave), so that
  // the row's columns are not found again; ignored unless it is that row.
  Status patch_columns(TableId table, std::string_view key, std::span<const uint32_t> columns,
                       std::span<const Value> values, std::string_view* stored = nullptr,
                       const DecodedRow* decoded = nullptr);

  // Stores `row` (encoded, whose primary key is `key`) in place of the row
  // with that key, or as a new row if there is none: one descent of the
  // table's tree for both (recovery replays the log's row images with it).
  // InvalidArgument if `key` is not the row's primary key; otherwise the
  // errors of insert or update.
  Status put_encoded(TableId table, std::string_view key, std::string_view row);

  // Deletes the row whose primary key is `key`. NotFound if there is none.
  Status erase(TableId table, std::string_view key);

  // get() for a row about to be changed: also remembers where the row is, so
  // that an update_columns() or erase() of the same key right after, with no
  // other change in between, does not search the tree again.
  Status get_for_update(TableId table, std::string_view key, std::string_view* row);

  // Undoes everything this transaction did, now; every later call fails with
  // Aborted and db.write() returns Aborted (unless fn returns another error).
  void rollback();
  bool rolled_back() const { return rolled_back_; }

 private:
  friend class internal::DbImpl;
  friend class internal::TableLoader;  // recovery's bulk load of a checkpoint
  explicit WriteTxn(internal::DbImpl* db);
  ~WriteTxn() = default;
  void refresh_view();
  Status check_table(TableId table, const TableInfo** info) const;
  Status insert_checked(const TableInfo& table, std::string_view key, std::string_view row);
  Status update_checked(const TableInfo& table, std::string_view key, std::string_view row);
  // The work of drop_index and drop_table, whose steps count into `check`
  // (one count across a table's indexes and rows). On failure the caller
  // undoes what they did.
  Status remove_index(IndexId index, internal::CancelCheck* check);
  Status remove_table(TableId table, internal::CancelCheck* check);
  // Runs (this->*remove)(tree, check) and, if it fails, undoes everything it
  // did (the transaction goes on from where the call began).
  Status remove_or_undo(Status (WriteTxn::*remove)(TreeId, internal::CancelCheck*), TreeId tree,
                        const std::atomic<bool>* cancel);
  // The steps after the descent: `path` is where a descent for `key` ended
  // (not found: or null for an empty tree; found: the row's place);
  // new_key: the primary key of `row` (the caller derived it).
  Status insert_at(const TableInfo& table, std::string_view key, std::string_view row,
                   internal::TreePath* not_found);
  Status update_at(const TableInfo& table, std::string_view key, std::string_view row,
                   std::string_view new_key, internal::TreePath* found);

  internal::DbImpl* db_;
  bool rolled_back_ = false;
};

}  // namespace solo
