// Keys derived from an encoded row: its primary key and its index entries
// (engine/README.md "Encodings": index entry = index columns ‖ primary key).
// Shared by WriteTxn (write_txn.cc) and the checkpoint load (table_loader.cc).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "solo/schema.h"
#include "solo/status.h"

namespace solo::internal {

// Sets *out to the entry of `index` for an encoded row of `schema` whose
// primary key is `primary_key`: index columns, then the primary key.
// *part_size: bytes of the index-column part; *has_null: an index column is
// NULL (such entries are exempt from uniqueness). InvalidArgument if the
// entry is longer than kMaxKeyBytes or a column cannot be encoded.
Status build_index_key(const TableSchema& schema, const IndexSchema& index, std::string_view row,
                       std::string_view primary_key, std::string* out, uint32_t* part_size,
                       bool* has_null);

// Sets *out to the primary key of an encoded row of `schema`.
Status row_primary_key(const TableSchema& schema, std::string_view row, std::string* out);

}  // namespace solo::internal
