#include "durable_codec.h"

namespace solo::internal {

void put_table_schema(std::string* out, const TableSchema& schema) {
  put_bytes(out, schema.name);
  put_varint(out, schema.columns.size());
  for (const ColumnDef& column : schema.columns) {
    put_bytes(out, column.name);
    out->push_back(static_cast<char>(column.type));
    put_varint(out, column.length);
    out->push_back(static_cast<char>(column.precision));
    out->push_back(static_cast<char>(column.scale));
    out->push_back(column.not_null ? 1 : 0);
  }
  put_varint(out, schema.primary_key.size());
  for (uint32_t column : schema.primary_key) put_varint(out, column);
}

void put_index_schema(std::string* out, const IndexSchema& schema) {
  put_bytes(out, schema.name);
  put_bytes(out, schema.table);
  put_varint(out, schema.columns.size());
  for (uint32_t column : schema.columns) put_varint(out, column);
  out->push_back(schema.unique ? 1 : 0);
}

bool get_table_schema(ByteReader* in, TableSchema* schema) {
  std::string_view name;
  uint64_t count;
  if (!in->get_bytes(&name) || !in->get_varint(&count) || count > kMaxTableColumns) return false;
  schema->name.assign(name);
  schema->columns.clear();
  for (uint64_t column_idx = 0; column_idx < count; ++column_idx) {
    ColumnDef column;
    uint8_t type, precision, scale, not_null;
    uint64_t length;
    if (!in->get_bytes(&name) || !in->get_u8(&type) || !in->get_varint(&length) ||
        !in->get_u8(&precision) || !in->get_u8(&scale) || !in->get_u8(&not_null) ||
        type > static_cast<uint8_t>(Type::kBoolean)) {
      return !(in->failed = true);
    }
    column.name.assign(name);
    column.type = static_cast<Type>(type);
    column.length = static_cast<uint32_t>(length);
    column.precision = precision;
    column.scale = scale;
    column.not_null = not_null != 0;
    schema->columns.push_back(std::move(column));
  }
  if (!in->get_varint(&count) || count > kMaxTableColumns) return !(in->failed = true);
  schema->primary_key.clear();
  for (uint64_t key_idx = 0; key_idx < count; ++key_idx) {
    uint64_t column;
    if (!in->get_varint(&column)) return false;
    schema->primary_key.push_back(static_cast<uint32_t>(column));
  }
  return true;
}

bool get_index_schema(ByteReader* in, IndexSchema* schema) {
  std::string_view name, table;
  uint64_t count;
  if (!in->get_bytes(&name) || !in->get_bytes(&table) || !in->get_varint(&count) || count > 64) {
    return !(in->failed = true);
  }
  schema->name.assign(name);
  schema->table.assign(table);
  schema->columns.clear();
  for (uint64_t column_idx = 0; column_idx < count; ++column_idx) {
    uint64_t column;
    if (!in->get_varint(&column)) return false;
    schema->columns.push_back(static_cast<uint32_t>(column));
  }
  uint8_t unique;
  if (!in->get_u8(&unique)) return false;
  schema->unique = unique != 0;
  return true;
}

Status format_version_refused(const std::string& file, uint64_t offset, uint32_t found,
                              uint32_t oldest_read, uint32_t newest_read) {
  std::string reads = oldest_read == newest_read ? "version " + std::to_string(newest_read)
                                                 : "versions " + std::to_string(oldest_read) +
                                                       " to " + std::to_string(newest_read);
  return Status::Corruption(file + " at offset " + std::to_string(offset) + " was written by " +
                            (found < oldest_read ? "an older" : "a newer") + " format version " +
                            std::to_string(found) + "; this build reads " + reads);
}

}  // namespace solo::internal
