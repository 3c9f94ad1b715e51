// Reads shared by ReadTxn and WriteTxn.
#include "db_impl.h"
#include "solo/codec.h"
#include "solo/txn.h"

namespace solo {

using internal::TreeState;

const TreeState* TxnView::tree_state(TreeId tree) const {
  return tree < tree_count_ ? &trees_[tree] : nullptr;
}

Status TxnView::get(TableId table, std::string_view key, std::string_view* row) const {
  if (catalog_->table(table) == nullptr || table >= tree_count_) {
    return Status::InvalidArgument("not a table id");
  }
  void* value;
  if (key.size() > kMaxKeyBytes ||
      !internal::btree_get(trees_[table], internal::make_key(key), &value, generation_)) {
    return Status::NotFound("no row with that key");
  }
  *row = static_cast<const internal::Record*>(value)->view();
  return Status::OK();
}

Status TxnView::get_row(TableId table, std::string_view key, Row* row) const {
  std::string_view bytes;
  Status status = get(table, key, &bytes);
  if (!status.ok()) return status;
  return decode_row(catalog_->table(table)->schema, bytes, row);
}

Result<Cursor> TxnView::scan(TreeId tree, const KeyRange& range) const {
  if (tree >= tree_count_) return Status::InvalidArgument("no tree with that id");
  Cursor cursor;
  cursor.view_ = this;
  cursor.tree_ = tree;
  cursor.is_index_ = !trees_[tree].has_records;
  cursor.range_ = range;
  cursor.seek_first();
  return cursor;
}

uint64_t TxnView::entry_count(TreeId tree) const {
  return tree < tree_count_ ? trees_[tree].count : 0;
}

uint64_t TxnView::state_bytes() const {
  uint64_t bytes = 0;
  for (uint32_t tree_idx = 0; tree_idx < tree_count_; ++tree_idx) bytes += trees_[tree_idx].bytes;
  return bytes;
}

ReadTxn::ReadTxn(const Snapshot& snapshot) {
  const internal::RootSet* roots = snapshot.roots_;
  SOLO_ASSERT(roots != nullptr);
  catalog_ = roots->catalog;
  trees_ = roots->trees();
  tree_count_ = roots->tree_count;
  generation_ = roots->gen;
}

}  // namespace solo
