// Memcomparable key encoding (engine/README.md "Key encoding").
#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include "solo/codec.h"

namespace solo {

namespace {

void put_big_endian(uint64_t bits, int bytes, std::string* out) {
  char buffer[8];
  for (int byte_idx = 0; byte_idx < bytes; ++byte_idx) {
    buffer[byte_idx] = static_cast<char>(bits >> (8 * (bytes - 1 - byte_idx)));
  }
  out->append(buffer, bytes);
}

// Integers of every width share one variable-length, order-preserving form
// (engine/README.md "Key encoding"): a tag byte, then 0 to 8 bytes.
//   v in [0, 239]:   tag 0x08 + v
//   v >= 240:        tag 0xF7 + n, then v - 240 in n big-endian bytes (n minimal)
//   v < 0:           tag 0x08 - n, then ~(-(v + 1)) in n big-endian bytes (n minimal)
// Small values (the ids of TPC-C) take one to three bytes, so a composite
// key of several ids fits in the 8 bytes a node compares without memcmp.
constexpr int kIntSmallMax = 239;
constexpr uint8_t kIntZeroTag = 0x08;

int magnitude_bytes(uint64_t value) { return value == 0 ? 1 : (71 - std::countl_zero(value)) / 8; }

void put_key_int(int64_t value, std::string* out) {
  if (value >= 0 && value <= kIntSmallMax) {
    out->push_back(static_cast<char>(kIntZeroTag + value));
    return;
  }
  // The tag and the n low bytes of `bits`, big-endian, in one append.
  uint64_t bits;
  int bytes;
  char tag;
  if (value > kIntSmallMax) {
    bits = static_cast<uint64_t>(value) - (kIntSmallMax + 1);
    bytes = magnitude_bytes(bits);
    tag = static_cast<char>(0xF7 + bytes);
  } else {
    const uint64_t magnitude = ~static_cast<uint64_t>(value);  // -(value + 1), >= 0
    bytes = magnitude_bytes(magnitude);
    bits = ~magnitude;  // larger magnitudes sort first
    tag = static_cast<char>(kIntZeroTag - bytes);
  }
  static_assert(std::endian::native == std::endian::little);
  char buffer[9];  // buffer[1..8]: bits, big-endian; the n low bytes are the last n
  const uint64_t big_endian = __builtin_bswap64(bits);
  std::memcpy(buffer + 1, &big_endian, 8);
  buffer[8 - bytes] = tag;  // right before them
  out->append(buffer + 8 - bytes, 1 + bytes);
}

// One column's key bytes (engine/README.md "Key encoding"), from a value read
// in place or made from a Value.
void append_key_view(const ColumnDef& column, const ColumnView& value, std::string* out) {
  switch (column.type) {
    case Type::kSmallInt:
    case Type::kInteger:
    case Type::kBigInt:
    case Type::kDecimal:
    case Type::kTimestamp:
      put_key_int(value.int_value, out);
      return;
    case Type::kDouble: {
      double number = value.double_value;
      if (number == 0) number = 0;  // -0.0 and 0.0 are one key
      if (number != number) number = __builtin_nan("");
      uint64_t bits = std::bit_cast<uint64_t>(number);
      bits = (bits >> 63) != 0 ? ~bits : bits ^ (uint64_t{1} << 63);
      put_big_endian(bits, 8, out);
      return;
    }
    case Type::kChar:
    case Type::kVarChar:
    case Type::kText: {
      // 0x00 -> 0x00 0xFF; end -> 0x00 0x01 (sorts below any continuation).
      std::string_view text = value.string;
      size_t start = 0;
      for (size_t pos = 0; pos < text.size(); ++pos) {
        if (text[pos] == '\0') {
          out->append(text.substr(start, pos - start));
          out->append("\0\xFF", 2);
          start = pos + 1;
        }
      }
      out->append(text.substr(start));
      out->append("\0\x01", 2);
      return;
    }
  }
}

void append_key_value(const ColumnDef& column, const Value& value, std::string* out) {
  ColumnView view;
  switch (column.type) {
    case Type::kDouble: view.double_value = value.as_double(); break;
    case Type::kChar:
    case Type::kVarChar:
    case Type::kText: view.string = value.as_string(); break;
    default: view.int_value = value.as_int(); break;
  }
  append_key_view(column, view, out);
}

// One key column's bytes: the NULL marker of a nullable column, then the
// value's (after checking it fits the column).
Status append_key_column(const ColumnDef& column, const Value& value, std::string* out) {
  if (!column.not_null) {
    // Nullable columns carry a marker so that NULL sorts first.
    out->push_back(value.is_null() ? '\0' : '\x01');
    if (value.is_null()) return Status::OK();
  }
  if (!value_fits(column, value)) return check_value(column, value);
  append_key_value(column, value, out);
  return Status::OK();
}

}  // namespace

Status append_key(const TableSchema& schema, std::span<const uint32_t> columns,
                  std::span<const Value> values, std::string* out) {
  if (values.size() > columns.size()) return Status::InvalidArgument("more key values than columns");
  for (size_t key_idx = 0; key_idx < values.size(); ++key_idx) {
    if (columns[key_idx] >= schema.columns.size()) {
      return Status::InvalidArgument("key column out of range");
    }
    Status status = append_key_column(schema.columns[columns[key_idx]], values[key_idx], out);
    if (!status.ok()) return status;
  }
  return Status::OK();
}

bool append_integer_key(const ColumnDef& column, int64_t value, std::string* out) {
  switch (column.type) {
    case Type::kSmallInt:
      if (value < INT16_MIN || value > INT16_MAX) return false;
      break;
    case Type::kInteger:
      if (value < INT32_MIN || value > INT32_MAX) return false;
      break;
    case Type::kBigInt: break;
    default: return false;
  }
  if (!column.not_null) out->push_back('\x01');  // as append_key_column: not NULL
  put_key_int(value, out);
  return true;
}

Status encode_primary_key(const TableSchema& schema, const Row& row, std::string* out) {
  if (row.size() != schema.columns.size()) return Status::InvalidArgument("wrong number of columns");
  // Straight from the row's values (copying them into a key row first cost
  // more than the encoding: ~1,400 instructions per TPC-C insert).
  for (uint32_t column : schema.primary_key) {
    if (column >= row.size()) return Status::InvalidArgument("key column out of range");
    Status status = append_key_column(schema.columns[column], row[column], out);
    if (!status.ok()) return status;
  }
  return Status::OK();
}

Status append_row_key(const TableSchema& schema, std::span<const uint32_t> columns,
                      std::string_view row, std::string* out, bool* has_null) {
  // Key columns usually lead the row (TPC-C's all do): read only up to the last.
  size_t needed = 0;
  for (uint32_t column_idx : columns) {
    if (column_idx >= schema.columns.size()) {
      return Status::InvalidArgument("key column out of range");
    }
    needed = std::max<size_t>(needed, column_idx + 1);
  }
  // Room for 64 views on the stack, but only the `needed` ones are
  // constructed: initialising all 64 (2.5 KB) cost more than the decode
  // (7% of a recovery's samples, where every checkpoint row derives its key).
  constexpr size_t kOnStack = 64;
  alignas(ColumnView) unsigned char on_stack[kOnStack * sizeof(ColumnView)];
  std::vector<ColumnView> on_heap;
  std::span<ColumnView> views;
  if (needed <= kOnStack) {
    static_assert(std::is_trivially_destructible_v<ColumnView>);
    for (size_t view_idx = 0; view_idx < needed; ++view_idx) {
      new (on_stack + view_idx * sizeof(ColumnView)) ColumnView;
    }
    views = std::span<ColumnView>(std::launder(reinterpret_cast<ColumnView*>(on_stack)), needed);
  } else {
    on_heap.resize(needed);
    views = on_heap;
  }
  Status status = decode_leading_columns(schema, row, needed, views);
  if (!status.ok()) return status;
  *has_null = false;
  for (uint32_t column_idx : columns) {
    const ColumnDef& column = schema.columns[column_idx];
    const ColumnView& view = views[column_idx];
    bool null = view.kind == Value::Kind::kNull;
    *has_null |= null;
    if (!column.not_null) {
      // Nullable columns carry a marker so that NULL sorts first.
      out->push_back(null ? '\0' : '\x01');
      if (null) continue;
    } else if (null) {
      return Status::InvalidArgument("NULL in a NOT NULL key column");
    }
    append_key_view(column, view, out);
  }
  return Status::OK();
}

std::string prefix_successor(std::string_view prefix) {
  std::string result(prefix);
  while (!result.empty() && static_cast<unsigned char>(result.back()) == 0xFF) result.pop_back();
  if (!result.empty()) result.back() = static_cast<char>(static_cast<unsigned char>(result.back()) + 1);
  return result;
}

}  // namespace solo
