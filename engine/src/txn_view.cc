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

Result<size_t> TxnView::get_many(TableId table, std::span<const std::string_view> keys,
                                 std::span<std::string_view> rows) const {
  if (catalog_->table(table) == nullptr || table >= tree_count_) {
    return Status::InvalidArgument("not a table id");
  }
  if (keys.size() != rows.size()) return Status::InvalidArgument("keys and rows differ in size");
  constexpr size_t kChunk = 64;
  internal::KeyRef refs[kChunk];
  void* values[kChunk];
  size_t found = 0;
  for (size_t first = 0; first < keys.size(); first += kChunk) {
    size_t chunk = keys.size() - first < kChunk ? keys.size() - first : kChunk;
    for (size_t key_idx = 0; key_idx < chunk; ++key_idx) {
      std::string_view key = keys[first + key_idx];
      // A key too long to be in the tree is looked up as one that is absent.
      refs[key_idx] =
          key.size() > kMaxKeyBytes ? internal::KeyRef{nullptr, 0, 0} : internal::make_key(key);
    }
    internal::btree_get_batch(trees_[table], refs, chunk, values, generation_);
    for (size_t key_idx = 0; key_idx < chunk; ++key_idx) {
      bool usable = keys[first + key_idx].size() <= kMaxKeyBytes && values[key_idx] != nullptr;
      rows[first + key_idx] = usable ? static_cast<const internal::Record*>(values[key_idx])->view()
                                     : std::string_view();
      found += usable;
    }
  }
  return found;
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
