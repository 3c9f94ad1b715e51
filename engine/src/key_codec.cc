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
// (engine/README.md "Key encoding", write_int_key in solo/codec.h): a tag
// byte, then 0 to 8 bytes. Small values (the ids of TPC-C) take one to three
// bytes, so a composite key of several ids fits in the 8 bytes a node
// compares without memcmp.
void put_key_int(int64_t value, std::string* out) {
  char buffer[kMaxIntKeyBytes];
  out->append(buffer, write_int_key(value, buffer));
}

bool is_integer_key_type(Type type) {
  return type == Type::kBoolean || type == Type::kSmallInt || type == Type::kInteger ||
         type == Type::kBigInt || type == Type::kDecimal || type == Type::kTimestamp;
}

// Key bytes gathered on the stack and appended to a string in one go.
class KeyBuffer {
 public:
  explicit KeyBuffer(std::string* out) : out_(out) {}
  ~KeyBuffer() { flush(); }
  // Room for `bytes` more.
  char* room(size_t bytes) {
    if (size_ + bytes > sizeof(buffer_)) flush();
    return buffer_ + size_;
  }
  void used(size_t bytes) { size_ += bytes; }
  std::string* flush() {
    out_->append(buffer_, size_);
    size_ = 0;
    return out_;
  }

 private:
  std::string* out_;
  char buffer_[128];
  size_t size_ = 0;
};

// One column's key bytes (engine/README.md "Key encoding"), from a value read
// in place or made from a Value.
void append_key_view(const ColumnDef& column, const ColumnView& value, std::string* out) {
  switch (column.type) {
    case Type::kBoolean:
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

// append_key_column into a KeyBuffer: integers straight into it, other
// values appended to its string after what it holds.
Status buffer_key_column(const ColumnDef& column, const Value& value, KeyBuffer* buffer) {
  if (is_integer_key_type(column.type) && value.kind() == Value::Kind::kInt &&
      value_fits(column, value)) {
    char* dst = buffer->room(kMaxIntKeyBytes + 1);
    size_t bytes = 0;
    if (!column.not_null) dst[bytes++] = '\x01';  // not NULL
    buffer->used(bytes + write_int_key(value.as_int(), dst + bytes));
    return Status::OK();
  }
  return append_key_column(column, value, buffer->flush());
}

}  // namespace

Status append_key(const TableSchema& schema, std::span<const uint32_t> columns,
                  std::span<const Value> values, std::string* out) {
  if (values.size() > columns.size()) return Status::InvalidArgument("more key values than columns");
  KeyBuffer buffer(out);
  for (size_t key_idx = 0; key_idx < values.size(); ++key_idx) {
    if (columns[key_idx] >= schema.columns.size()) {
      return Status::InvalidArgument("key column out of range");
    }
    Status status = buffer_key_column(schema.columns[columns[key_idx]], values[key_idx], &buffer);
    if (!status.ok()) return status;
  }
  return Status::OK();
}

bool append_integer_key(const ColumnDef& column, int64_t value, std::string* out) {
  char buffer[kMaxIntKeyBytes + 1];
  const size_t bytes = write_integer_key(column, value, buffer);
  if (bytes == 0) return false;
  out->append(buffer, bytes);
  return true;
}

Status encode_primary_key(const TableSchema& schema, const Row& row, std::string* out) {
  if (row.size() != schema.columns.size()) return Status::InvalidArgument("wrong number of columns");
  // Straight from the row's values (copying them into a key row first cost
  // more than the encoding: ~1,400 instructions per TPC-C insert).
  KeyBuffer buffer(out);
  for (uint32_t column : schema.primary_key) {
    if (column >= row.size()) return Status::InvalidArgument("key column out of range");
    Status status = buffer_key_column(schema.columns[column], row[column], &buffer);
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
  KeyBuffer buffer(out);
  for (uint32_t column_idx : columns) {
    const ColumnDef& column = schema.columns[column_idx];
    const ColumnView& view = views[column_idx];
    bool null = view.kind == Value::Kind::kNull;
    *has_null |= null;
    char* dst = buffer.room(kMaxIntKeyBytes + 1);
    size_t bytes = 0;
    if (!column.not_null) {
      // Nullable columns carry a marker so that NULL sorts first.
      dst[bytes++] = null ? '\0' : '\x01';
      if (null) {
        buffer.used(bytes);
        continue;
      }
    } else if (null) {
      return Status::InvalidArgument("NULL in a NOT NULL key column");
    }
    if (is_integer_key_type(column.type)) {
      buffer.used(bytes + write_int_key(view.int_value, dst + bytes));
    } else {
      buffer.used(bytes);
      append_key_view(column, view, buffer.flush());
    }
  }
  return Status::OK();
}

void append_not_null_floor(const ColumnDef& column, std::string* key) {
  if (!column.not_null) key->push_back('\x01');  // append_key_column's "not NULL" marker
}

std::string prefix_successor(std::string_view prefix) {
  std::string result(prefix);
  while (!result.empty() && static_cast<unsigned char>(result.back()) == 0xFF) result.pop_back();
  if (!result.empty()) result.back() = static_cast<char>(static_cast<unsigned char>(result.back()) + 1);
  return result;
}

}  // namespace solo
