#include "table_loader.h"

#include <algorithm>
#include <cstring>

#include "checkpoint_reader.h"
#include "db_impl.h"
#include "row_keys.h"
#include "solo/codec.h"

namespace solo::internal {

namespace {

int compare_entries(const char* keys, uint64_t a_prefix, uint64_t a_at, uint32_t a_size,
                    uint64_t b_prefix, uint64_t b_at, uint32_t b_size) {
  if (a_prefix != b_prefix) return a_prefix < b_prefix ? -1 : 1;
  uint32_t common = std::min(a_size, b_size);
  if (common > 8) {
    int cmp = std::memcmp(keys + a_at + 8, keys + b_at + 8, common - 8);
    if (cmp != 0) return cmp;
  }
  return (a_size > b_size) - (a_size < b_size);
}

}  // namespace

TableLoader::TableLoader(WriteTxn* txn, TableId table, std::string file, int table_fill,
                         int index_fill)
    : db_(txn->db_),
      table_(table),
      info_(txn->catalog().table(table)),
      file_(std::move(file)),
      index_fill_(index_fill),
      rows_(db_->writer_for(internal::kNoTree), /*has_records=*/true, table_fill) {
  SOLO_ASSERT(db_->on_owner_thread());
  SOLO_ASSERT(info_ != nullptr && txn->entry_count(table) == 0);
  for (IndexId index : info_->indexes) {
    SOLO_ASSERT(txn->entry_count(index) == 0);
    indexes_.push_back(IndexBuild{txn->catalog().index(index), {}, {}, true});
  }
}

Status TableLoader::damaged(uint64_t offset, const std::string& what) const {
  return checkpoint_damaged(file_, offset, what);
}

Status TableLoader::add(std::string_view key, std::string_view row, uint64_t offset) {
  const std::string& table_name = info_->schema.name;
  if (key.size() > kMaxKeyBytes || row.size() > kMaxRowBytes) {
    return damaged(offset, "key or row too long in table " + table_name);
  }
  // The caller checked that the row's own columns give the stored key (the
  // index entries below are derived from the row, the table's order from
  // the key): recovery's reader thread does (RowKeyCheck).
#ifndef NDEBUG
  {
    std::string derived;
    SOLO_ASSERT(row_primary_key(info_->schema, row, &derived).ok() && derived == key);
  }
#endif
  Record* record = db_->make_record(row);
  if (!rows_.append(make_key(key), record)) {
    return damaged(offset, "rows of table " + table_name +
                               " out of order or duplicated (key not above the row at offset " +
                               std::to_string(previous_offset_) + ")");
  }
  previous_offset_ = offset;
  for (IndexBuild& index : indexes_) {
    uint32_t part_size;
    bool has_null;
    Status status = build_index_key(info_->schema, index.info->schema, row, key, &entry_,
                                    &part_size, &has_null);
    if (!status.ok()) {
      return damaged(offset, "index " + index.info->schema.name + ": " + status.ToString());
    }
    IndexEntry entry{key_prefix(entry_.data(), entry_.size()),
                     offset,
                     index.keys.size(),
                     static_cast<uint16_t>(entry_.size()),
                     static_cast<uint16_t>(part_size),
                     has_null};
    index.keys.append(entry_);
    if (index.sorted && !index.entries.empty()) {
      const IndexEntry& last = index.entries.back();
      index.sorted = compare_entries(index.keys.data(), last.prefix, last.key_at, last.key_size,
                                     entry.prefix, entry.key_at, entry.key_size) < 0;
    }
    index.entries.push_back(entry);
  }
  return Status::OK();
}

Status TableLoader::finish_index(IndexBuild* index) {
  const char* keys = index->keys.data();
  std::vector<IndexEntry>& entries = index->entries;
  if (!index->sorted) {
    std::sort(entries.begin(), entries.end(), [keys](const IndexEntry& a, const IndexEntry& b) {
      return compare_entries(keys, a.prefix, a.key_at, a.key_size, b.prefix, b.key_at, b.key_size) <
             0;
    });
  }
  const IndexSchema& schema = index->info->schema;
  BulkBuilder builder(db_->writer_for(internal::kNoTree), /*has_records=*/false, index_fill_);
  for (size_t entry_idx = 0; entry_idx < entries.size(); ++entry_idx) {
    const IndexEntry& entry = entries[entry_idx];
    if (schema.unique && !entry.has_null && entry_idx > 0) {
      // Equal column parts sort next to each other (the encoding is prefix-free).
      const IndexEntry& previous = entries[entry_idx - 1];
      if (previous.part_size == entry.part_size &&
          std::memcmp(keys + previous.key_at, keys + entry.key_at, entry.part_size) == 0) {
        return damaged(entry.offset, "duplicate key for unique index " + schema.name +
                                         " (also the row at offset " +
                                         std::to_string(previous.offset) + ")");
      }
    }
    KeyRef key{keys + entry.key_at, entry.key_size, entry.prefix};
    if (!builder.append(key, reinterpret_cast<void*>(uintptr_t{entry.part_size}))) {
      return damaged(entry.offset, "duplicate entry in index " + schema.name);
    }
  }
  db_->tree_load(index->info->id, builder.finish());
  // The scratch memory can go now (a large table's entries).
  index->keys = std::string();
  index->entries = std::vector<IndexEntry>();
  return Status::OK();
}

Status TableLoader::finish() {
  db_->tree_load(table_, rows_.finish());
  for (IndexBuild& index : indexes_) {
    Status status = finish_index(&index);
    if (!status.ok()) return status;
  }
  return Status::OK();
}

}  // namespace solo::internal
