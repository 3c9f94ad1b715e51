// Column patches: the redo record of an update that changed a few columns
// of a row (engine/README.md "Log", entry kPatch). A patch holds only the
// changed columns' encoded bytes; replay splices them into the row that the
// log or checkpoint before it left. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solo/codec.h"
#include "solo/function_ref.h"
#include "solo/schema.h"
#include "solo/status.h"

namespace solo::internal {

// Appends to *out the patch that turns `old_row` into `row`, both rows of
// `schema` as encoded: the columns whose bytes or NULL-ness differ,
//   count varint | per such column, ascending: column varint | null u8 |
//   the column's bytes as in `row` (none if NULL)
// Returns false (with *out unchanged) if no column differs or a row is not
// a row of `schema`.
bool append_column_patch(const TableSchema& schema, std::string_view old_row,
                         std::string_view row, std::string* out);

// The same patch for the columns `changed` of `row` (any order, repeats
// allowed), without looking at the old row: for callers that know which
// columns they changed (WriteTxn::update_columns). Returns false (with *out
// unchanged) if `changed` is empty, a column is out of range or `row` is not
// a row of `schema`.
bool append_listed_column_patch(const TableSchema& schema, std::string_view row,
                                std::span<const uint32_t> changed, std::string* out);

// Where a patched column's bytes lie in the row patch_row_spans made.
struct PatchedColumn {
  uint32_t column;
  uint32_t start;  // offset of its bytes in the row (start == end if NULL)
  uint32_t end;
  bool null;
};

// patch_row (solo/codec.h) that also reports, in ascending column order,
// where the patched columns' bytes are in *out (*spans is replaced).
// `decoded` (if not null): every column of `row` as decode_row_view gave
// them, whose ends say where each column's bytes are (no pass over the row).
Status patch_row_spans(const TableSchema& schema, std::string_view row,
                       std::span<const uint32_t> columns, std::span<const Value> values,
                       std::string* out, std::vector<PatchedColumn>* spans,
                       const ColumnView* decoded = nullptr);

// patch_row_spans for a row whose every column the caller decoded
// (`decoded`, as decode_row_view gave them; no pass over the row), that
// writes the new row where the caller wants it: every patch is checked and
// the new row measured first, then make(size) is called once and must
// return `size` writable bytes, which are then written whole. On failure
// make is not called. *spans as patch_row_spans' (replaced).
Status patch_decoded_row(const TableSchema& schema, std::string_view row,
                         std::span<const uint32_t> columns, std::span<const Value> values,
                         const ColumnView* decoded, FunctionRef<char*(size_t)> make,
                         std::vector<PatchedColumn>* spans);

// append_listed_column_patch for the columns patch_row_spans patched into
// `row`, from their spans: no pass over the row. Returns false (with *out
// unchanged) if `spans` is empty.
bool append_spans_column_patch(std::string_view row, std::span<const PatchedColumn> spans,
                               std::string* out);
// The same patch measured, then written at `dst` (spans_column_patch_size
// bytes; returns the end): for records whose size is known first.
size_t spans_column_patch_size(std::span<const PatchedColumn> spans);
char* write_spans_column_patch(char* dst, std::string_view row,
                               std::span<const PatchedColumn> spans);

// True if rows `a` and `b` of `schema` hold the same bytes in every column
// not in `columns` (debug checks of update_columns' promise).
bool rows_differ_only_in(const TableSchema& schema, std::string_view a, std::string_view b,
                         std::span<const uint32_t> columns);

// Reads a patch (append_column_patch's bytes) from the start of `patch` and
// applies it to `row`, a row of `schema`: *out is the patched row, *columns
// the patched columns, *used the patch bytes read. Corruption if the patch
// is malformed (columns not ascending or out of range, a value that is not
// a column of its type, a NULL in a NOT NULL column, bytes missing) or `row`
// is not a row of `schema`.
Status apply_column_patch(const TableSchema& schema, std::string_view row, std::string_view patch,
                          std::string* out, std::vector<uint32_t>* columns, size_t* used);

}  // namespace solo::internal
