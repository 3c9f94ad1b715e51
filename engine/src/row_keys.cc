#include "row_keys.h"

#include <span>

#include "solo/codec.h"

namespace solo::internal {

Status build_index_key(const TableSchema& schema, const IndexSchema& index, std::string_view row,
                       std::string_view primary_key, std::string* out, uint32_t* part_size,
                       bool* has_null) {
  out->clear();
  Status status = append_row_key(schema, index.columns, row, out, has_null);
  if (!status.ok()) return status;
  *part_size = static_cast<uint32_t>(out->size());
  out->append(primary_key);
  if (out->size() > kMaxKeyBytes) return Status::InvalidArgument("index key too long");
  return Status::OK();
}

Status row_primary_key(const TableSchema& schema, std::string_view row, std::string* out) {
  out->clear();
  bool has_null;
  return append_row_key(schema, schema.primary_key, row, out, &has_null);
}

}  // namespace solo::internal
