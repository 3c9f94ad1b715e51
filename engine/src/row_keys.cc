#include "row_keys.h"

#include <span>

#include "solo/codec.h"

namespace solo::internal {

Status build_index_key(const TableSchema& schema, const IndexSchema& index, std::string_view row,
                       std::string_view primary_key, std::string* out, uint32_t* part_size,
                       bool* has_null) {
  Value values[16];
  size_t column_count = index.columns.size();
  *has_null = false;
  for (size_t key_idx = 0; key_idx < column_count; ++key_idx) {
    values[key_idx] = decode_column(schema, row, index.columns[key_idx]);
    *has_null |= values[key_idx].is_null();
  }
  out->clear();
  Status status = append_key(schema, index.columns, std::span<const Value>(values, column_count), out);
  if (!status.ok()) return status;
  *part_size = static_cast<uint32_t>(out->size());
  out->append(primary_key);
  if (out->size() > kMaxKeyBytes) return Status::InvalidArgument("index key too long");
  return Status::OK();
}

Status row_primary_key(const TableSchema& schema, std::string_view row, std::string* out) {
  Value values[32];
  size_t key_size = schema.primary_key.size();
  for (size_t key_idx = 0; key_idx < key_size; ++key_idx) {
    values[key_idx] = decode_column(schema, row, schema.primary_key[key_idx]);
  }
  out->clear();
  return append_key(schema, schema.primary_key, std::span<const Value>(values, key_size), out);
}

}  // namespace solo::internal
