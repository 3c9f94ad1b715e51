// Write transactions: DDL and row changes that keep every index in step.
// Owner thread only. Each method checks everything that can fail before it
// changes anything, so a failed call leaves no trace even before rollback.
#include <set>

#include "db_impl.h"
#include "row_keys.h"
#include "row_patch.h"
#include "solo/codec.h"
#include "solo/txn.h"

namespace solo {

using internal::DbImpl;
using internal::TreeState;
using internal::build_index_key;
using internal::row_primary_key;

namespace {

// TableInfo::keyed_columns of `info`, whose indexes `catalog` holds.
std::vector<uint8_t> keyed_columns(const Catalog& catalog, const TableInfo& info) {
  std::vector<uint8_t> keyed(info.schema.columns.size(), 0);
  for (uint32_t column : info.schema.primary_key) keyed[column] = 1;
  for (IndexId index : info.indexes) {
    for (uint32_t column : catalog.index(index)->schema.columns) keyed[column] = 1;
  }
  return keyed;
}

// True if the tree holds an entry starting with `prefix` whose primary key
// (the rest of the entry) is not `except_key`.
bool has_other_entry(const TreeState& tree, std::string_view prefix, std::string_view except_key,
                     [[maybe_unused]] uint64_t gen) {  // checked by debug builds' assertion only
  internal::TreePath path;
  if (tree.root == nullptr) return false;
  std::string seek(prefix);
  for (int attempt = 0; attempt < 2; ++attempt) {
    internal::btree_descend(tree, internal::make_key(seek), &path);
    int level = path.depth - 1;
    while (path.idx[level] >= path.node[level]->count_) {
      if (level == 0) return false;
      level--;
      path.idx[level]++;
    }
    while (level < path.depth - 1) {
      internal::Node* child = path.node[level]->child(path.idx[level]);
      SOLO_ASSERT(child->gen_ <= gen);
      level++;
      path.node[level] = child;
      path.idx[level] = 0;
    }
    std::string_view key = path.node[level]->key(path.idx[level]);
    if (key.substr(0, prefix.size()) != prefix) return false;
    if (key.substr(prefix.size()) != except_key) return true;
    // It is the row itself; a unique index has at most one other entry after it.
    seek.assign(key);
    seek.push_back('\0');
  }
  return false;
}

Status check_index_columns(const TableSchema& table, const IndexSchema& index) {
  if (index.name.empty()) return Status::InvalidArgument("index name is empty");
  if (index.columns.empty() || index.columns.size() > 16) {
    return Status::InvalidArgument("an index needs 1 to 16 columns");
  }
  std::set<uint32_t> seen;
  for (uint32_t column : index.columns) {
    if (column >= table.columns.size()) return Status::InvalidArgument("bad index column");
    if (!seen.insert(column).second) return Status::InvalidArgument("index repeats a column");
  }
  return Status::OK();
}

}  // namespace

namespace internal {

// A DDL call's looks at its caller's cancel flag: step() once per row or
// entry of its loops; true (stop) when the flag is set, looked at every
// kDdlCancelCheckRows steps. Without a flag, one predictable branch a step.
class CancelCheck {
 public:
  CancelCheck(DbImpl* db, const std::atomic<bool>* cancel) : db_(db), cancel_(cancel) {}
  CancelCheck(const CancelCheck&) = delete;
  CancelCheck& operator=(const CancelCheck&) = delete;

  bool step() {
    if (cancel_ == nullptr || --steps_to_check_ != 0) return false;
    steps_to_check_ = kDdlCancelCheckRows;
    if (db_->ddl_cancel_check_for_test) db_->ddl_cancel_check_for_test();
    return cancel_->load(std::memory_order_relaxed);
  }

 private:
  DbImpl* const db_;
  const std::atomic<bool>* const cancel_;  // null: never stops
  uint32_t steps_to_check_ = kDdlCancelCheckRows;
};

}  // namespace internal

WriteTxn::WriteTxn(DbImpl* db) : db_(db) {
  changes_ = &db_->changes_;
  refresh_view();
}

void WriteTxn::refresh_view() {
  catalog_ = db_->catalog_;
  trees_ = db_->trees_.data();
  tree_count_ = static_cast<uint32_t>(db_->trees_.size());
  generation_ = db_->cur_gen_;
}

void WriteTxn::rollback() {
  SOLO_ASSERT(db_->on_owner_thread());
  if (rolled_back_) return;
  db_->undo_transaction();
  rolled_back_ = true;
  refresh_view();
}

namespace {

// check_table's refusals, out of line: the check that passes (every call of
// a running transaction) stays small enough to inline.
[[gnu::cold, gnu::noinline]] Status table_refusal(bool rolled_back) {
  return rolled_back ? Status::Aborted("transaction was rolled back")
                     : Status::InvalidArgument("not a table id");
}

}  // namespace

// Inline: every WriteTxn call on a table begins with it (all in this file).
inline Status WriteTxn::check_table(TableId table, const TableInfo** info) const {
  SOLO_ASSERT(db_->on_owner_thread());  // invariant 1
  *info = catalog_->table(table);
  if (!rolled_back_ && *info != nullptr) [[likely]] {
    return Status::OK();
  }
  return table_refusal(rolled_back_);
}

namespace {

// The path to `key` in `tree`: get_for_update's if it is still good (same
// transaction, no tree change since, same tree and key), else a new descent
// into *local. nullptr if the key is absent. Either way the finger is used up.
internal::TreePath* find_row_path(internal::DbImpl* db, TableId tree, std::string_view key,
                                  internal::TreePath* local) {
  internal::DbImpl::Finger& finger = db->finger_;
  bool reuse = finger.txn == db->txn_serial_ && finger.changes == db->changes_ &&
               finger.tree == tree && finger.key == key;
  finger.txn = 0;
  if (reuse) return &finger.path;
  internal::DbImpl::LeafFinger& leaf = db->leaf_finger_;
  if (leaf.txn == db->txn_serial_ && leaf.changes == db->changes_ && leaf.tree == tree &&
      key.size() <= kMaxKeyBytes) {
    // Nothing changed since that path was used: it is the tree's, and a key
    // in its leaf is nowhere else.
    const int level = leaf.path.depth - 1;
    SOLO_ASSERT(leaf.path.node[0] == db->trees_[tree].root);
    bool found;
    const int idx = internal::node_lower_bound(leaf.path.node[level], internal::make_key(key), &found);
    if (found) {
      leaf.path.idx[level] = idx;
      return &leaf.path;
    }
  }
  const internal::TreeState& state = db->trees_[tree];
  if (key.size() > kMaxKeyBytes || state.root == nullptr ||
      !internal::btree_descend(state, internal::make_key(key), local)) {
    return nullptr;
  }
  return local;
}

// find_row_path, and the record the path ends at (*record); nullptr if absent.
internal::TreePath* find_row(internal::DbImpl* db, TableId tree, std::string_view key,
                             internal::TreePath* local, internal::Record** record) {
  internal::TreePath* path = find_row_path(db, tree, key, local);
  if (path != nullptr) {
    *record = static_cast<internal::Record*>(path->node[path->depth - 1]->ptr_[path->idx[path->depth - 1]]);
  }
  return path;
}

}  // namespace

Status WriteTxn::get_for_update(TableId table, std::string_view key, std::string_view* row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  internal::DbImpl::Finger& finger = db_->finger_;
  finger.txn = 0;
  if (key.size() > kMaxKeyBytes || trees_[table].root == nullptr ||
      !internal::btree_descend(trees_[table], internal::make_key(key), &finger.path)) {
    return Status::NotFound("no row with that key");
  }
  finger.txn = db_->txn_serial_;
  finger.changes = db_->changes_;
  finger.tree = table;
  finger.key.assign(key);
  const internal::TreePath& path = finger.path;
  *row = static_cast<const internal::Record*>(path.node[path.depth - 1]->ptr_[path.idx[path.depth - 1]])
             ->view();
  return Status::OK();
}

// --- DDL ------------------------------------------------------------------------

Result<TableId> WriteTxn::create_table(const TableSchema& schema) {
  SOLO_ASSERT(db_->on_owner_thread());
  if (rolled_back_) return Status::Aborted("transaction was rolled back");
  Status status = validate_schema(schema);
  if (!status.ok()) return status;
  if (catalog_->find_table(schema.name) != nullptr || catalog_->find_index(schema.name) != nullptr) {
    return Status::AlreadyExists("name already in use: " + schema.name);
  }
  auto info = std::make_shared<TableInfo>();
  info->id = catalog_->tree_count();
  info->schema = schema;
  info->keyed_columns = keyed_columns(*catalog_, *info);
  auto catalog = std::make_unique<Catalog>(*catalog_);
  catalog->entries_.push_back(Catalog::Entry{info, nullptr});
  db_->set_catalog(std::move(catalog));
  TreeState tree;
  tree.has_records = true;
  db_->add_tree(tree);
  db_->log_ddl(internal::LogEntry::kCreateTable, info->id, &schema, nullptr);
  refresh_view();
  return info->id;
}

Result<IndexId> WriteTxn::create_index(const IndexSchema& schema, const std::atomic<bool>* cancel) {
  SOLO_ASSERT(db_->on_owner_thread());
  if (rolled_back_) return Status::Aborted("transaction was rolled back");
  const TableInfo* table = catalog_->find_table(schema.table);
  if (table == nullptr) return Status::NotFound("no table " + schema.table);
  Status status = check_index_columns(table->schema, schema);
  if (!status.ok()) return status;
  if (catalog_->find_table(schema.name) != nullptr || catalog_->find_index(schema.name) != nullptr) {
    return Status::AlreadyExists("name already in use: " + schema.name);
  }

  // Fill the new tree from the table's rows before anything is logged: until
  // it is added, dropping it undoes the call (a failure or a cancel).
  internal::CancelCheck check(db_, cancel);
  TreeState tree;
  tree.has_records = false;
  std::string key;
  Result<Cursor> cursor = scan(table->id, KeyRange::All());
  for (; cursor->valid(); cursor->next()) {
    uint32_t part_size;
    bool has_null;
    status = check.step() ? Status::Cancelled("cancelled while filling index " + schema.name)
                          : build_index_key(table->schema, schema, cursor->value(), cursor->key(),
                                            &key, &part_size, &has_null);
    if (status.ok() && schema.unique && !has_null &&
        has_other_entry(tree, std::string_view(key).substr(0, part_size), {}, generation_)) {
      status = Status::AlreadyExists("duplicate key for unique index " + schema.name);
    }
    if (!status.ok()) {
      internal::btree_drop(&tree, db_->writer_for(internal::kNoTree));
      return status;
    }
    void* old;
    internal::btree_put(&tree, db_->writer_for(internal::kNoTree), internal::make_key(key),
                        reinterpret_cast<void*>(uintptr_t{part_size}), internal::PutMode::kInsert,
                        &old);
  }

  auto info = std::make_shared<IndexInfo>();
  info->id = catalog_->tree_count();
  info->table = table->id;
  info->schema = schema;
  auto table_info = std::make_shared<TableInfo>(*table);
  table_info->indexes.push_back(info->id);
  auto catalog = std::make_unique<Catalog>(*catalog_);
  catalog->entries_[table->id].table = table_info;
  catalog->entries_.push_back(Catalog::Entry{nullptr, info});
  table_info->keyed_columns = keyed_columns(*catalog, *table_info);
  db_->set_catalog(std::move(catalog));
  db_->add_tree(tree);
  db_->log_ddl(internal::LogEntry::kCreateIndex, info->id, nullptr, &schema);
  refresh_view();
  return info->id;
}

// --- rows -------------------------------------------------------------------------

Status WriteTxn::insert(TableId table, const Row& row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  status = encode_row(info->schema, row, &db_->row_buffer_);
  if (!status.ok()) return status;
  db_->key_buffer_.clear();
  status = encode_primary_key(info->schema, row, &db_->key_buffer_);
  if (!status.ok()) return status;
  std::string key = db_->key_buffer_;
  return insert_checked(*info, key, db_->row_buffer_);
}

Status WriteTxn::insert(TableId table, const RowBuilder& row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  if (row.schema().columns.size() != info->schema.columns.size() ||
      row.next_column() != info->schema.columns.size()) {
    return Status::InvalidArgument("the row was not built for " + info->schema.name);
  }
  status = row.primary_key(&db_->key_buffer_);
  if (!status.ok()) return status;
  SOLO_ASSERT(([&] {
    std::string derived;
    return row_primary_key(info->schema, row.row(), &derived).ok() && derived == db_->key_buffer_;
  })());
  std::string key = db_->key_buffer_;
  return insert_checked(*info, key, row.row());
}

Status WriteTxn::insert_encoded(TableId table, std::string_view row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  status = row_primary_key(info->schema, row, &db_->key_buffer_);
  if (!status.ok()) return status;
  std::string key = db_->key_buffer_;
  return insert_checked(*info, key, row);
}

Status WriteTxn::insert_checked(const TableInfo& table, std::string_view key, std::string_view row) {
  if (key.size() > kMaxKeyBytes) return Status::InvalidArgument("primary key too long");
  if (row.size() > kMaxRowBytes) return Status::InvalidArgument("row too large");
  // One descent finds where the row goes (or that its key is taken) and
  // serves the insert below: nothing changes the table's tree in between.
  internal::TreePath path;
  const bool have_path = trees_[table.id].root != nullptr;
  if (have_path && internal::btree_descend(trees_[table.id], internal::make_key(key), &path)) {
    return Status::AlreadyExists("duplicate primary key in " + table.schema.name);
  }
  return insert_at(table, key, row, have_path ? &path : nullptr);
}

Status WriteTxn::insert_at(const TableInfo& table, std::string_view key, std::string_view row,
                           internal::TreePath* not_found) {
  size_t index_count = table.indexes.size();
  db_->new_index_keys_.resize(index_count);
  db_->index_part_sizes_.resize(index_count);
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    const IndexInfo* index = catalog_->index(table.indexes[index_idx]);
    bool has_null;
    Status status = build_index_key(table.schema, index->schema, row, key,
                                    &db_->new_index_keys_[index_idx],
                                    &db_->index_part_sizes_[index_idx], &has_null);
    if (!status.ok()) return status;
    std::string_view part =
        std::string_view(db_->new_index_keys_[index_idx]).substr(0, db_->index_part_sizes_[index_idx]);
    if (index->schema.unique && !has_null &&
        has_other_entry(trees_[index->id], part, {}, generation_)) {
      return Status::AlreadyExists("duplicate key for unique index " + index->schema.name);
    }
  }
  internal::Record* record = db_->make_record(row);
  bool inserted = db_->tree_insert(table.id, key, record, not_found);
  SOLO_ASSERT(inserted);
  (void)inserted;
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    inserted = db_->tree_insert(table.indexes[index_idx], db_->new_index_keys_[index_idx],
                                reinterpret_cast<void*>(uintptr_t{db_->index_part_sizes_[index_idx]}));
    SOLO_ASSERT(inserted);
  }
  return Status::OK();
}

Status WriteTxn::update(TableId table, std::string_view key, const Row& row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  status = encode_row(info->schema, row, &db_->row_buffer_);
  if (!status.ok()) return status;
  std::string encoded = db_->row_buffer_;
  return update_checked(*info, key, encoded);
}

Status WriteTxn::update_encoded(TableId table, std::string_view key, std::string_view row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  return update_checked(*info, key, row);
}

namespace {

// Whether a change of `changed` can move the row's key or index entries.
bool changes_keys(const Catalog& catalog, const TableInfo& info, std::span<const uint32_t> changed) {
  SOLO_ASSERT(info.keyed_columns == keyed_columns(catalog, info));
  for (uint32_t column : changed) {
    if (column < info.keyed_columns.size() && info.keyed_columns[column] != 0) return true;
  }
  return false;
}

}  // namespace

Status WriteTxn::patch_columns(TableId table, std::string_view key,
                               std::span<const uint32_t> columns, std::span<const Value> values,
                               std::string_view* stored, const DecodedRow* decoded) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  if (changes_keys(*catalog_, *info, columns)) {
    std::string_view old_row;
    status = get(table, key, &old_row);
    std::string row;
    if (status.ok()) status = patch_row(info->schema, old_row, columns, values, &row);
    if (status.ok()) {
      db_->finger_.txn = 0;
      status = update_checked(*info, key, row);
    }
    if (status.ok() && stored != nullptr) {
      // The row may have moved: it is stored under the key of its new values.
      std::string new_key;
      status = row_primary_key(info->schema, row, &new_key);
      if (status.ok()) status = get(table, new_key, stored);
    }
    return status;
  }
  internal::TreePath local;
  internal::Record* old_record = nullptr;
  internal::TreePath* found = find_row(db_, table, key, &local, &old_record);
  if (found == nullptr) return Status::NotFound("no row with that key in " + info->schema.name);
  internal::TreePath& path = *found;
  const std::string_view old_row = old_record->view();
  // The caller's decoding serves only if it is of these very bytes, whole.
  const bool known = decoded != nullptr && decoded->row.data() == old_row.data() &&
                     decoded->row.size() == old_row.size() &&
                     !decoded->columns.empty() &&
                     decoded->columns.size() == info->schema.columns.size() &&
                     decoded->columns.back().end == old_row.size();
  internal::Record* record = nullptr;
  if (known) {
    // Written straight into the new record: no copy of the row in between.
    status = internal::patch_decoded_row(
        info->schema, old_row, columns, values, decoded->columns.data(),
        [&record, this](size_t size) {
          record = db_->new_record(static_cast<uint32_t>(size));
          return record->data();
        },
        &db_->patch_spans_);
    if (!status.ok()) return status;
  } else {
    std::string& row = db_->row_buffer_;
    status =
        internal::patch_row_spans(info->schema, old_row, columns, values, &row, &db_->patch_spans_);
    if (!status.ok()) return status;
    record = db_->make_record(row);
  }
  db_->tree_patch_at(table, key, &path, record, info->schema, columns, db_->patch_spans_);
  db_->set_leaf_finger(table, path);
  db_->displace(old_record, table);
  if (stored != nullptr) *stored = record->view();
  return Status::OK();
}

Status WriteTxn::update_columns(TableId table, std::string_view key, std::string_view row,
                                std::span<const uint32_t> changed) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  if (changes_keys(*catalog_, *info, changed)) {
    db_->finger_.txn = 0;
    return update_checked(*info, key, row);
  }
  if (row.size() > kMaxRowBytes) return Status::InvalidArgument("row too large");
  internal::TreePath local;
  internal::Record* old_record = nullptr;
  internal::TreePath* found = find_row(db_, table, key, &local, &old_record);
  if (found == nullptr) return Status::NotFound("no row with that key in " + info->schema.name);
  internal::TreePath& path = *found;
#ifndef NDEBUG
  {
    std::string new_key;
    SOLO_ASSERT(row_primary_key(info->schema, row, &new_key).ok() && new_key == key);
  }
#endif
  // The promise that only `changed` differs keeps the indexes right (their
  // work is skipped above) and the log too (only those columns are logged).
  SOLO_ASSERT(internal::rows_differ_only_in(info->schema, old_record->view(), row, changed));
  internal::Record* record = db_->make_record(row);
  db_->tree_patch_at(table, key, &path, record, info->schema, changed);
  db_->set_leaf_finger(table, path);
  db_->displace(old_record, table);
  return Status::OK();
}

Status WriteTxn::update_checked(const TableInfo& table, std::string_view key,
                                std::string_view row) {
  if (row.size() > kMaxRowBytes) return Status::InvalidArgument("row too large");
  // One descent finds the row and serves the replace below (nothing changes
  // the tree in between).
  internal::TreePath path;
  if (key.size() > kMaxKeyBytes || trees_[table.id].root == nullptr ||
      !internal::btree_descend(trees_[table.id], internal::make_key(key), &path)) {
    return Status::NotFound("no row with that key in " + table.schema.name);
  }
  std::string new_key;
  Status status = row_primary_key(table.schema, row, &new_key);
  if (!status.ok()) return status;
  return update_at(table, key, row, new_key, &path);
}

Status WriteTxn::update_at(const TableInfo& table, std::string_view key, std::string_view row,
                           std::string_view new_key, internal::TreePath* found) {
  internal::TreePath& path = *found;
  auto* old_record = static_cast<internal::Record*>(
      path.node[path.depth - 1]->ptr_[path.idx[path.depth - 1]]);
  std::string_view old_row = old_record->view();
  size_t index_count = table.indexes.size();

  Status status;
  bool key_changed = new_key != key;
  void* existing;
  if (key_changed && (new_key.size() > kMaxKeyBytes ||
                      internal::btree_get(trees_[table.id], internal::make_key(new_key), &existing,
                                          generation_))) {
    return new_key.size() > kMaxKeyBytes
               ? Status::InvalidArgument("primary key too long")
               : Status::AlreadyExists("duplicate primary key in " + table.schema.name);
  }

  db_->old_index_keys_.resize(index_count);
  db_->new_index_keys_.resize(index_count);
  db_->index_part_sizes_.resize(index_count);
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    const IndexInfo* index = catalog_->index(table.indexes[index_idx]);
    uint32_t old_part;
    bool has_null;
    status = build_index_key(table.schema, index->schema, old_row, key,
                             &db_->old_index_keys_[index_idx], &old_part, &has_null);
    if (!status.ok()) return status;
    status = build_index_key(table.schema, index->schema, row, new_key,
                             &db_->new_index_keys_[index_idx], &db_->index_part_sizes_[index_idx],
                             &has_null);
    if (!status.ok()) return status;
    if (db_->old_index_keys_[index_idx] == db_->new_index_keys_[index_idx]) continue;
    std::string_view part =
        std::string_view(db_->new_index_keys_[index_idx]).substr(0, db_->index_part_sizes_[index_idx]);
    if (index->schema.unique && !has_null &&
        has_other_entry(trees_[index->id], part, key, generation_)) {
      return Status::AlreadyExists("duplicate key for unique index " + index->schema.name);
    }
  }

  internal::Record* record = db_->make_record(row);
  if (!key_changed) {
    db_->tree_patch_at(table.id, key, &path, record, table.schema);
  } else {
    db_->tree_remove_at(table.id, key, &path);
    db_->tree_insert(table.id, new_key, record);
  }
  db_->displace(old_record, table.id);
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    if (db_->old_index_keys_[index_idx] == db_->new_index_keys_[index_idx]) continue;
    TreeId index_tree = table.indexes[index_idx];
    db_->tree_remove(index_tree, db_->old_index_keys_[index_idx]);
    db_->tree_insert(index_tree, db_->new_index_keys_[index_idx],
                     reinterpret_cast<void*>(uintptr_t{db_->index_part_sizes_[index_idx]}));
  }
  return Status::OK();
}

Status WriteTxn::put_encoded(TableId table, std::string_view key, std::string_view row) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  if (key.size() > kMaxKeyBytes) return Status::InvalidArgument("primary key too long");
  if (row.size() > kMaxRowBytes) return Status::InvalidArgument("row too large");
  // A key that is not the row's would file the row where no lookup of its
  // key finds it.
  status = row_primary_key(info->schema, row, &db_->key_buffer_);
  if (!status.ok()) return status;
  if (db_->key_buffer_ != key) return Status::InvalidArgument("key is not the row's primary key");
  internal::TreePath path;
  if (trees_[table].root == nullptr) return insert_at(*info, key, row, nullptr);
  if (internal::btree_descend(trees_[table], internal::make_key(key), &path)) {
    return update_at(*info, key, row, key, &path);
  }
  return insert_at(*info, key, row, &path);
}

Status WriteTxn::erase(TableId table, std::string_view key) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  internal::TreePath local;
  internal::Record* old_record = nullptr;
  internal::TreePath* found = find_row(db_, table, key, &local, &old_record);
  if (found == nullptr) return Status::NotFound("no row with that key in " + info->schema.name);
  internal::TreePath& path = *found;
  size_t index_count = info->indexes.size();
  db_->old_index_keys_.resize(index_count);
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    const IndexInfo* index = catalog_->index(info->indexes[index_idx]);
    uint32_t part_size;
    bool has_null;
    status = build_index_key(info->schema, index->schema, old_record->view(), key,
                             &db_->old_index_keys_[index_idx], &part_size, &has_null);
    if (!status.ok()) return status;
  }
  db_->tree_remove_at(table, key, &path);
  db_->displace(old_record, table);
  for (size_t index_idx = 0; index_idx < index_count; ++index_idx) {
    db_->tree_remove(info->indexes[index_idx], db_->old_index_keys_[index_idx]);
  }
  return Status::OK();
}

// --- DROP (added for the SQL layer) ---------------------------------------------
//
// A drop removes entries and rows one by one, each a logged change with its
// undo entry (the records go to displaced_, freed only when the transaction
// commits; nodes are retired the same way): a drop that fails or is
// cancelled part way is undone back to its start by undo_to(), like a
// rollback of only this call.

Status WriteTxn::drop_index(IndexId index, const std::atomic<bool>* cancel) {
  SOLO_ASSERT(db_->on_owner_thread());
  if (rolled_back_) return Status::Aborted("transaction was rolled back");
  if (catalog_->index(index) == nullptr) return Status::NotFound("not an index id");
  return remove_or_undo(&WriteTxn::remove_index, index, cancel);
}

Status WriteTxn::remove_or_undo(Status (WriteTxn::*remove)(TreeId, internal::CancelCheck*),
                                TreeId tree, const std::atomic<bool>* cancel) {
  internal::CancelCheck check(db_, cancel);
  const DbImpl::TxnMark mark = db_->mark();
  Status status = (this->*remove)(tree, &check);
  if (!status.ok()) {
    db_->undo_to(mark);
    refresh_view();
  }
  return status;
}

Status WriteTxn::remove_index(IndexId index, internal::CancelCheck* check) {
  const IndexInfo* info = catalog_->index(index);
  SOLO_ASSERT(info != nullptr);
  std::vector<std::string> keys;
  {
    Result<Cursor> cursor = scan(index, KeyRange::All());
    for (; cursor->valid(); cursor->next()) {
      if (check->step()) {
        return Status::Cancelled("cancelled while dropping index " + info->schema.name);
      }
      keys.emplace_back(cursor->key());
    }
  }
  for (const std::string& key : keys) {
    if (check->step()) {
      return Status::Cancelled("cancelled while dropping index " + info->schema.name);
    }
    db_->tree_remove(index, key);
  }
  auto table_info = std::make_shared<TableInfo>(*catalog_->table(info->table));
  std::erase(table_info->indexes, index);
  auto catalog = std::make_unique<Catalog>(*catalog_);
  catalog->entries_[info->table].table = table_info;
  catalog->entries_[index].index = nullptr;
  table_info->keyed_columns = keyed_columns(*catalog, *table_info);
  db_->set_catalog(std::move(catalog));
  db_->log_ddl(internal::LogEntry::kDropIndex, index, nullptr, nullptr);
  refresh_view();
  return Status::OK();
}

Status WriteTxn::drop_table(TableId table, const std::atomic<bool>* cancel) {
  const TableInfo* info;
  Status status = check_table(table, &info);
  if (!status.ok()) return status;
  return remove_or_undo(&WriteTxn::remove_table, table, cancel);
}

Status WriteTxn::remove_table(TableId table, internal::CancelCheck* check) {
  const std::string name = catalog_->table(table)->schema.name;
  std::vector<IndexId> indexes = catalog_->table(table)->indexes;
  for (IndexId index : indexes) {
    Status status = remove_index(index, check);
    if (!status.ok()) return status;
  }
  std::vector<std::string> keys;
  {
    Result<Cursor> cursor = scan(table, KeyRange::All());
    for (; cursor->valid(); cursor->next()) {
      if (check->step()) return Status::Cancelled("cancelled while dropping table " + name);
      keys.emplace_back(cursor->key());
    }
  }
  for (const std::string& key : keys) {
    if (check->step()) return Status::Cancelled("cancelled while dropping table " + name);
    Status status = erase(table, key);
    if (!status.ok()) return status;
  }
  auto catalog = std::make_unique<Catalog>(*catalog_);
  catalog->entries_[table].table = nullptr;
  db_->set_catalog(std::move(catalog));
  db_->log_ddl(internal::LogEntry::kDropTable, table, nullptr, nullptr);
  refresh_view();
  return Status::OK();
}

}  // namespace solo
