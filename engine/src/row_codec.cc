// Compact row encoding (engine/README.md "Row encoding") and value checks.
#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "solo/codec.h"
#include "durable_codec.h"
#include "invariant.h"
#include "row_patch.h"

namespace solo {

namespace {

// By Type's number; 0 for the strings (varint length + bytes). One load:
// with BOOLEAN's width of 1 the switch it replaced cost patch_decoded_row
// 4% more instructions (callgrind, session 48).
int fixed_width(Type type) {
  static constexpr int8_t kWidths[] = {2, 4, 8, 8, 0, 0, 0, 8, 8, 1};
  static_assert(static_cast<int>(Type::kSmallInt) == 0 && static_cast<int>(Type::kChar) == 4 &&
                static_cast<int>(Type::kTimestamp) == 7 && static_cast<int>(Type::kBoolean) == 9);
  static_assert(std::size(kWidths) == static_cast<size_t>(Type::kBoolean) + 1);
  return kWidths[static_cast<uint8_t>(type)];
}

// The fixed widths are 2, 4 and 8 bytes; on a little-endian machine each is
// one load or store instead of a loop over its bytes.
uint64_t get_little_endian(const char* data, int bytes) {
  if constexpr (std::endian::native == std::endian::little) {
    switch (bytes) {
      case 2: {
        uint16_t bits;
        std::memcpy(&bits, data, 2);
        return bits;
      }
      case 4: {
        uint32_t bits;
        std::memcpy(&bits, data, 4);
        return bits;
      }
      case 8: {
        uint64_t bits;
        std::memcpy(&bits, data, 8);
        return bits;
      }
      default: break;
    }
  }
  uint64_t bits = 0;
  for (int byte_idx = 0; byte_idx < bytes; ++byte_idx) {
    bits |= uint64_t{static_cast<unsigned char>(data[byte_idx])} << (8 * byte_idx);
  }
  return bits;
}

int64_t sign_extend(uint64_t bits, int bytes) {
  if (bytes == 8) return static_cast<int64_t>(bits);
  int shift = 64 - 8 * bytes;
  return static_cast<int64_t>(bits << shift) >> shift;
}

// The varint length of a string column, read by read_long_length.
struct VarintLength {
  uint64_t length;
  size_t end;  // where the varint ends; 0 if the bytes end first or it is longer than 5 bytes
};

// Reads the varint length starting at `pos`. Its result is a value, not
// stores through pointers: the callers' positions stay in registers.
[[gnu::always_inline]] inline VarintLength read_long_length(const char* data, size_t size,
                                                            size_t pos) {
  uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    if (pos >= size || shift > 28) return VarintLength{0, 0};
    const unsigned char byte = static_cast<unsigned char>(data[pos++]);
    length |= uint64_t{byte & 0x7Fu} << shift;
    if ((byte & 0x80) == 0) return VarintLength{length, pos};
  }
}

// Reads the varint length of a string column at *pos and moves *pos past
// it; false if the bytes end first or it is longer than 5 bytes. The usual
// string is shorter than 128 bytes: its length is one byte, read inline.
[[gnu::always_inline]] inline bool read_length(const char* data, size_t size, size_t* pos,
                                               uint64_t* length) {
  if (*pos < size && static_cast<unsigned char>(data[*pos]) < 0x80) {
    *length = static_cast<unsigned char>(data[(*pos)++]);
    return true;
  }
  const VarintLength varint = read_long_length(data, size, *pos);
  if (varint.end == 0) return false;
  *length = varint.length;
  *pos = varint.end;
  return true;
}

// Reads an integer column of kWidth bytes at *pos.
template <int kWidth>
[[gnu::always_inline]] inline bool read_int_view(const char* data, size_t size, size_t* pos,
                                                 ColumnView* out) {
  if (*pos + kWidth > size) return false;
  out->kind = Value::Kind::kInt;
  out->int_value = sign_extend(get_little_endian(data + *pos, kWidth), kWidth);
  *pos += kWidth;
  return true;
}

// Reads a column of type `type` at *pos in place; returns false if the bytes
// end too early. One switch on the type: the width, the load and the kind
// follow from it.
[[gnu::always_inline]] inline bool read_column_view(Type type, const char* data, size_t size,
                                                    size_t* pos, ColumnView* out) {
  switch (type) {
    case Type::kBoolean:
      return read_int_view<1>(data, size, pos, out);
    case Type::kSmallInt:
      return read_int_view<2>(data, size, pos, out);
    case Type::kInteger:
      return read_int_view<4>(data, size, pos, out);
    case Type::kBigInt:
    case Type::kDecimal:
    case Type::kTimestamp:
      return read_int_view<8>(data, size, pos, out);
    case Type::kDouble: {
      if (*pos + 8 > size) return false;
      const uint64_t bits = get_little_endian(data + *pos, 8);
      out->kind = Value::Kind::kDouble;
      std::memcpy(&out->double_value, &bits, 8);
      *pos += 8;
      return true;
    }
    default:
      break;  // strings: varint length + bytes
  }
  uint64_t length;
  if (!read_length(data, size, pos, &length) || length > size - *pos) return false;
  out->kind = Value::Kind::kString;
  out->string = std::string_view(data + *pos, length);
  *pos += length;
  return true;
}

[[gnu::always_inline]] inline bool read_column_view(const ColumnDef& column, std::string_view bytes,
                                                    size_t* pos, ColumnView* out) {
  return read_column_view(column.type, bytes.data(), bytes.size(), pos, out);
}

// Reads the column at *pos; returns false if the bytes end too early.
bool read_column(const ColumnDef& column, std::string_view bytes, size_t* pos, Value* out) {
  ColumnView view;
  if (!read_column_view(column, bytes, pos, &view)) return false;
  switch (view.kind) {
    case Value::Kind::kInt: *out = Value::Int(view.int_value); break;
    case Value::Kind::kDouble: *out = Value::Double(view.double_value); break;
    default: *out = Value::String(view.string); break;
  }
  return true;
}

bool skip_column(const ColumnDef& column, std::string_view bytes, size_t* pos) {
  int width = fixed_width(column.type);
  if (width > 0) {
    *pos += width;
    return *pos <= bytes.size();
  }
  uint64_t length;
  if (!read_length(bytes.data(), bytes.size(), pos, &length)) return false;
  *pos += length;
  return *pos <= bytes.size();
}

bool is_null(std::string_view bytes, uint32_t column) {
  return (static_cast<unsigned char>(bytes[column / 8]) >> (column % 8)) & 1;
}

// Starts loading every cache line of `bytes` after the first: a row is read
// from front to back, and a stock or customer row spans 5-11 lines, whose
// misses would otherwise follow one another (~115-170 ns each on the
// machines measured, for data beyond the ~1-2 MB of L2).
inline void prefetch_bytes(std::string_view bytes) {
  auto line = reinterpret_cast<uintptr_t>(bytes.data()) & ~uintptr_t{63};
  const auto end = reinterpret_cast<uintptr_t>(bytes.data() + bytes.size());
  for (line += 64; line < end; line += 64) __builtin_prefetch(reinterpret_cast<const void*>(line));
}

}  // namespace

Status validate_schema(const TableSchema& schema) {
  if (schema.name.empty()) return Status::InvalidArgument("table name is empty");
  if (schema.columns.empty()) return Status::InvalidArgument("table has no columns");
  if (schema.primary_key.empty()) return Status::InvalidArgument("table has no primary key");
  if (schema.columns.size() > kMaxTableColumns) {
    // More than the log and checkpoint readers accept: the table could be
    // created but the database not opened again.
    return Status::InvalidArgument("a table has at most " + std::to_string(kMaxTableColumns) +
                                   " columns: " + std::to_string(schema.columns.size()));
  }
  std::set<std::string> names;
  for (const ColumnDef& column : schema.columns) {
    if (column.name.empty()) return Status::InvalidArgument("column name is empty");
    if (!names.insert(column.name).second) {
      return Status::AlreadyExists("duplicate column " + column.name);
    }
    if (column.type == Type::kDecimal &&
        (column.precision < 1 || column.precision > 18 || column.scale > column.precision)) {
      return Status::InvalidArgument("DECIMAL(p,s) needs 1 <= p <= 18, s <= p: " + column.name);
    }
    if ((column.type == Type::kChar || column.type == Type::kVarChar) && column.length == 0) {
      return Status::InvalidArgument("CHAR/VARCHAR length must be > 0: " + column.name);
    }
  }
  std::set<uint32_t> key_columns;
  for (uint32_t column : schema.primary_key) {
    if (column >= schema.columns.size()) return Status::InvalidArgument("bad primary key column");
    if (!key_columns.insert(column).second) {
      return Status::InvalidArgument("primary key repeats a column");
    }
    if (!schema.columns[column].not_null) {
      // Keys of nullable columns carry a NULL marker; a primary key has none.
      return Status::InvalidArgument("primary key column must be NOT NULL: " +
                                     schema.columns[column].name);
    }
  }
  return Status::OK();
}

Status check_value(const ColumnDef& column, const Value& value) {
  if (value.is_null()) {
    if (column.not_null) return Status::Constraint("NULL in NOT NULL column " + column.name);
    return Status::OK();
  }
  if (type_is_integral(column.type)) {
    if (value.kind() != Value::Kind::kInt) {
      return Status::InvalidArgument("column " + column.name + " needs an integer value");
    }
    int64_t number = value.as_int();
    bool in_range = true;
    if (column.type == Type::kBoolean) in_range = number == 0 || number == 1;
    if (column.type == Type::kSmallInt) in_range = number >= INT16_MIN && number <= INT16_MAX;
    if (column.type == Type::kInteger) in_range = number >= INT32_MIN && number <= INT32_MAX;
    if (column.type == Type::kDecimal) {
      int64_t limit = kDecimalLimits[column.precision];
      in_range = number > -limit && number < limit;
    }
    if (!in_range) return Status::InvalidArgument("value out of range for column " + column.name);
    return Status::OK();
  }
  if (column.type == Type::kDouble) {
    if (value.kind() != Value::Kind::kDouble) {
      return Status::InvalidArgument("column " + column.name + " needs a DOUBLE value");
    }
    return Status::OK();
  }
  if (value.kind() != Value::Kind::kString) {
    return Status::InvalidArgument("column " + column.name + " needs a string value");
  }
  if (column.type != Type::kText && !string_fits_length(value.as_string(), column.length)) {
    return Status::InvalidArgument("string too long for column " + column.name);
  }
  return Status::OK();
}

namespace {

// The bytes the encoding of a non-NULL `value` (already checked) takes as `column`.
inline size_t encoded_size(const ColumnDef& column, const Value& value) {
  const int width = fixed_width(column.type);
  if (width > 0) return static_cast<size_t>(width);
  const size_t length = value.as_string().size();
  size_t varint = 1;
  for (uint64_t rest = length >> 7; rest != 0; rest >>= 7) varint++;
  return varint + length;
}

// Writes a string's encoding (varint length, then its bytes) at `dst`;
// returns its end.
inline char* write_text(std::string_view text, char* dst) {
  uint64_t length = text.size();
  do {
    unsigned char byte = length & 0x7F;
    length >>= 7;
    if (length != 0) byte |= 0x80;
    *dst++ = static_cast<char>(byte);
  } while (length != 0);
  std::memcpy(dst, text.data(), text.size());
  return dst + text.size();
}

// Writes that encoding at `dst` (encoded_size bytes); returns its end. The
// fixed widths are one store each, where std::string appends were a call
// and a capacity check per column.
inline char* write_value(const ColumnDef& column, const Value& value, char* dst) {
  if (column.type == Type::kDouble) {
    const double number = value.as_double();
    std::memcpy(dst, &number, 8);
    return dst + 8;
  }
  const int width = fixed_width(column.type);
  if (width > 0) {
    const uint64_t bits = static_cast<uint64_t>(value.as_int());
    if constexpr (std::endian::native == std::endian::little) {
      switch (width) {
        case 1:
          *dst = static_cast<char>(bits);
          return dst + 1;
        case 2: {
          const auto narrow = static_cast<uint16_t>(bits);
          std::memcpy(dst, &narrow, 2);
          return dst + 2;
        }
        case 4: {
          const auto narrow = static_cast<uint32_t>(bits);
          std::memcpy(dst, &narrow, 4);
          return dst + 4;
        }
        default: std::memcpy(dst, &bits, 8); return dst + 8;
      }
    }
    for (int byte_idx = 0; byte_idx < width; ++byte_idx) {
      dst[byte_idx] = static_cast<char>(bits >> (8 * byte_idx));
    }
    return dst + width;
  }
  return write_text(value.as_string(), dst);
}

// Appends the encoding of a non-NULL `value` (already checked) as `column`.
void append_value(const ColumnDef& column, const Value& value, std::string* out) {
  const size_t at = out->size();
  out->resize(at + encoded_size(column, value));
  write_value(column, value, out->data() + at);
}

// Sets or clears `column`'s bit in the NULL bitmap at the start of `row`.
void set_null_bit_at(char* row, uint32_t column, bool null) {
  auto bit = static_cast<char>(1 << (column % 8));
  char& byte = row[column / 8];
  byte = static_cast<char>(null ? (byte | bit) : (byte & ~bit));
}

void set_null_bit(std::string* out, uint32_t column, bool null) {
  set_null_bit_at(out->data(), column, null);
}

}  // namespace

Status encode_row(const TableSchema& schema, const Row& row, std::string* out) {
  size_t column_count = schema.columns.size();
  if (row.size() != column_count) return Status::InvalidArgument("wrong number of columns");
  // Checked and measured first, then written in place: one resize.
  const size_t bitmap = (column_count + 7) / 8;
  size_t size = bitmap;
  for (uint32_t column_idx = 0; column_idx < column_count; ++column_idx) {
    const ColumnDef& column = schema.columns[column_idx];
    const Value& value = row[column_idx];
    if (!value_fits(column, value)) return check_value(column, value);
    if (!value.is_null()) size += encoded_size(column, value);
  }
  if (size > kMaxRowBytes) return Status::InvalidArgument("row too large");
  out->assign(size, '\0');
  char* dst = out->data() + bitmap;
  for (uint32_t column_idx = 0; column_idx < column_count; ++column_idx) {
    const Value& value = row[column_idx];
    if (value.is_null()) {
      set_null_bit(out, column_idx, true);
      continue;
    }
    dst = write_value(schema.columns[column_idx], value, dst);
  }
  SOLO_ASSERT(dst == out->data() + size);
  return Status::OK();
}

void RowBuilder::start(const TableSchema& schema, std::string* out) {
  schema_ = &schema;
  out_ = out;
  next_ = 0;
  used_ = (schema.columns.size() + 7) / 8;  // the NULL bitmap, all clear
  // Room for the bitmap, every column at its widest fixed size and a short
  // string, so that most rows never grow the buffer (and a buffer kept from
  // the last row is not filled again): no call per column.
  const size_t room = used_ + 16 * schema.columns.size();
  if (out->size() < room) out->resize(room);
  std::memset(out->data(), 0, used_);
}

void RowBuilder::grow(size_t bytes) {
  out_->resize(std::max(used_ + bytes, 2 * out_->size()));
}

bool RowBuilder::add(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return add_null();
    case Value::Kind::kInt:
      return add_int(value.as_int());
    case Value::Kind::kDouble:
      return add_double(value.as_double());
    case Value::Kind::kString:
      return add_string(value.as_string());
  }
  return false;
}

bool RowBuilder::add_double(double value) {
  if (next_ >= schema_->columns.size() || schema_->columns[next_].type != Type::kDouble)
    return false;
  std::memcpy(room(8), &value, 8);
  mark_start();
  used_ += 8;
  ++next_;
  return true;
}

bool RowBuilder::add_string(std::string_view text) {
  if (next_ >= schema_->columns.size()) return false;
  const ColumnDef& column = schema_->columns[next_];
  if (!type_is_string(column.type) ||
      (column.type != Type::kText && !string_fits_length(text, column.length))) {
    return false;
  }
  char* start = room(text.size() + 10);
  char* end = write_text(text, start);
  mark_start();
  used_ += static_cast<size_t>(end - start);
  ++next_;
  return true;
}

Status RowBuilder::finish() const {
  if (next_ != schema_->columns.size()) return Status::InvalidArgument("wrong number of columns");
  if (used_ > kMaxRowBytes) return Status::InvalidArgument("row too large");
  return Status::OK();
}

// A signed integer of T's width stored little-endian at `at` (add_int's bytes).
template <typename T>
int64_t load_signed(const char* at) {
  T narrow;
  std::memcpy(&narrow, at, sizeof narrow);
  return narrow;
}

Status RowBuilder::primary_key(std::string* out) const {
  SOLO_ASSERT(next_ == schema_->columns.size());
  // Integer key columns among the first kTracked (TPC-C's all) are read back
  // where add_int put them and encoded into a buffer on the stack; any
  // other key is derived from the row's bytes.
  char buffer[kMaxKeyBytes + kMaxIntKeyBytes + 1];
  size_t size = 0;
  for (uint32_t column_idx : schema_->primary_key) {
    const ColumnDef& column = schema_->columns[column_idx];
    const bool tracked = column_idx < kTracked && column.not_null && size <= kMaxKeyBytes;
    const char* at = out_->data() + (tracked ? starts_[column_idx] : 0);
    int64_t value;
    switch (tracked ? column.type : Type::kText) {
      case Type::kSmallInt:
        value = load_signed<int16_t>(at);
        break;
      case Type::kInteger:
        value = load_signed<int32_t>(at);
        break;
      case Type::kBigInt:
        value = load_signed<int64_t>(at);
        break;
      default: {
        out->clear();
        bool has_null;
        return append_row_key(*schema_, schema_->primary_key, row(), out, &has_null);
      }
    }
    size += write_int_key(value, buffer + size);
  }
  out->assign(buffer, size);
  return Status::OK();
}

Status patch_row(const TableSchema& schema, std::string_view row,
                 std::span<const uint32_t> columns, std::span<const Value> values,
                 std::string* out) {
  return internal::patch_row_spans(schema, row, columns, values, out, nullptr);
}

Status decode_row(const TableSchema& schema, std::string_view bytes, Row* out) {
  size_t column_count = schema.columns.size();
  size_t pos = (column_count + 7) / 8;
  if (bytes.size() < pos) return Status::InvalidArgument("row too short");
  out->resize(column_count);
  for (uint32_t column_idx = 0; column_idx < column_count; ++column_idx) {
    if (is_null(bytes, column_idx)) {
      (*out)[column_idx] = Value::Null();
      continue;
    }
    if (!read_column(schema.columns[column_idx], bytes, &pos, &(*out)[column_idx])) {
      return Status::InvalidArgument("row too short");
    }
  }
  if (pos != bytes.size()) return Status::InvalidArgument("row has trailing bytes");
  return Status::OK();
}

Value decode_column(const TableSchema& schema, std::string_view bytes, uint32_t column) {
  size_t pos = (schema.columns.size() + 7) / 8;
  if (is_null(bytes, column)) return Value::Null();
  for (uint32_t column_idx = 0; column_idx < column; ++column_idx) {
    if (!is_null(bytes, column_idx)) skip_column(schema.columns[column_idx], bytes, &pos);
  }
  Value value;
  read_column(schema.columns[column], bytes, &pos, &value);
  return value;
}

// Reads columns [0, count) into out; *end: where column `count` starts.
// Inlined into its two callers: a call would add a Status to pass back.
[[gnu::always_inline]] static inline Status decode_columns(const TableSchema& schema,
                                                           std::string_view bytes, size_t count,
                                                           std::span<ColumnView> out, size_t* end) {
  size_t pos = (schema.columns.size() + 7) / 8;
  if (bytes.size() < pos || out.size() < count || count > schema.columns.size()) {
    return Status::InvalidArgument("row too short");
  }
  prefetch_bytes(bytes);
  // In locals: the stores into `out` could otherwise alias them.
  const ColumnDef* columns = schema.columns.data();
  const char* data = bytes.data();
  const size_t size = bytes.size();
  ColumnView* views = out.data();
  // Eight columns per byte of the NULL bitmap, loaded once.
  for (size_t group_start = 0; group_start < count; group_start += 8) {
    unsigned nulls = static_cast<unsigned char>(data[group_start / 8]);
    const size_t group_end = std::min(count, group_start + 8);
    for (size_t column_idx = group_start; column_idx < group_end; ++column_idx, nulls >>= 1) {
      ColumnView& view = views[column_idx];
      if ((nulls & 1) != 0) {
        view.kind = Value::Kind::kNull;
      } else if (!read_column_view(columns[column_idx].type, data, size, &pos, &view)) {
        return Status::InvalidArgument("row too short");
      }
      view.end = static_cast<uint32_t>(pos);
    }
  }
  *end = pos;
  return Status::OK();
}

Status decode_row_view(const TableSchema& schema, std::string_view bytes,
                       std::span<ColumnView> out) {
  size_t end = 0;
  Status status = decode_columns(schema, bytes, schema.columns.size(), out, &end);
  if (!status.ok()) return status;
  if (end != bytes.size()) return Status::InvalidArgument("row has trailing bytes");
  return Status::OK();
}

Status decode_leading_columns(const TableSchema& schema, std::string_view bytes, size_t count,
                              std::span<ColumnView> out) {
  size_t end = 0;
  return decode_columns(schema, bytes, count, out, &end);
}

bool fixed_column_offset(const TableSchema& schema, uint32_t column, uint32_t* offset) {
  if (column >= schema.columns.size()) return false;
  size_t pos = (schema.columns.size() + 7) / 8;
  for (uint32_t column_idx = 0; column_idx < column; ++column_idx) {
    const ColumnDef& before = schema.columns[column_idx];
    const int width = fixed_width(before.type);
    if (!before.not_null || width == 0) return false;
    pos += width;
  }
  *offset = static_cast<uint32_t>(pos);
  return true;
}

bool read_column_at(const TableSchema& schema, std::string_view bytes, uint32_t column,
                    uint32_t offset, ColumnView* out) {
  if (bytes.size() < offset) return false;  // also covers the NULL bitmap
  if (is_null(bytes, column)) {
    out->kind = Value::Kind::kNull;
    out->end = offset;
    return true;
  }
  size_t pos = offset;
  if (!read_column_view(schema.columns[column], bytes, &pos, out)) return false;
  out->end = static_cast<uint32_t>(pos);
  return true;
}

namespace internal {

namespace {

// Stores `count` in the byte reserved for it at `at` (one byte up to 127
// columns; more take a longer varint in its place).
void set_patch_count(std::string* out, size_t at, uint64_t count) {
  if (count < 0x80) {
    (*out)[at] = static_cast<char>(count);
    return;
  }
  std::string count_bytes;
  put_varint(&count_bytes, count);
  out->replace(at, 1, count_bytes);
}

}  // namespace

bool append_column_patch(const TableSchema& schema, std::string_view old_row,
                         std::string_view row, std::string* out) {
  const size_t column_count = schema.columns.size();
  const size_t bitmap = (column_count + 7) / 8;
  if (row.size() < bitmap || old_row.size() < bitmap) return false;
  const size_t mark = out->size();
  out->push_back('\0');  // the count, set below (one byte up to 127 columns)
  uint64_t count = 0;
  size_t pos = bitmap;
  size_t old_pos = bitmap;
  for (uint32_t column_idx = 0; column_idx < column_count; ++column_idx) {
    const ColumnDef& column = schema.columns[column_idx];
    const bool null = is_null(row, column_idx);
    const bool old_null = is_null(old_row, column_idx);
    const size_t start = pos;
    const size_t old_start = old_pos;
    if ((!null && !skip_column(column, row, &pos)) ||
        (!old_null && !skip_column(column, old_row, &old_pos))) {
      out->resize(mark);
      return false;
    }
    if (null == old_null && row.substr(start, pos - start) == old_row.substr(old_start, old_pos - old_start)) {
      continue;
    }
    put_varint(out, column_idx);
    out->push_back(null ? '\1' : '\0');
    out->append(row.data() + start, pos - start);
    ++count;
  }
  if (pos != row.size() || old_pos != old_row.size() || count == 0) {
    out->resize(mark);
    return false;
  }
  set_patch_count(out, mark, count);
  return true;
}

namespace {

// A patch's place in patch order: its column, and its index in the caller's
// lists.
struct PatchOrder {
  uint32_t column;
  uint32_t patch;
};

// Room for the patches in column order: inline for the few that callers pass.
class PatchOrderBuffer {
 public:
  explicit PatchOrderBuffer(size_t count) {
    if (count > kInline) {
      heap_.resize(count);
      data_ = heap_.data();
    }
  }
  PatchOrderBuffer(const PatchOrderBuffer&) = delete;
  PatchOrderBuffer& operator=(const PatchOrderBuffer&) = delete;
  PatchOrder* data() { return data_; }

 private:
  static constexpr size_t kInline = 16;
  PatchOrder inline_[kInline];  // not value-initialized: only those in use are read
  std::vector<PatchOrder> heap_;
  PatchOrder* data_ = inline_;
};

// Checks each patch (column in range, value fits its column) and puts them
// in `order` in ascending column order, the last assignment of a column
// winning (callers pass each once; few, so an insertion sort).
// on_checked(column, value) sees every patch once checked, winner or not.
// *patches: the columns patched; *repeated: whether a column came twice.
template <class OnChecked>
[[gnu::always_inline]] inline Status order_patches(const TableSchema& schema,
                                                   std::span<const uint32_t> columns,
                                                   std::span<const Value> values, PatchOrder* order,
                                                   size_t* patches, bool* repeated,
                                                   OnChecked&& on_checked) {
  const size_t column_count = schema.columns.size();
  size_t used = 0;
  for (uint32_t patch = 0; patch < columns.size(); ++patch) {
    uint32_t column = columns[patch];
    if (column >= column_count) return Status::InvalidArgument("bad column");
    const Value& value = values[patch];
    if (!value_fits(schema.columns[column], value)) {
      return check_value(schema.columns[column], value);
    }
    on_checked(column, value);
    size_t at = used;
    while (at > 0 && order[at - 1].column > column) at--;
    if (at > 0 && order[at - 1].column == column) {
      order[at - 1].patch = patch;
      *repeated = true;
      continue;
    }
    for (size_t move = used; move > at; --move) order[move] = order[move - 1];
    order[at] = {column, patch};
    used++;
  }
  *patches = used;
  return Status::OK();
}

}  // namespace

Status patch_decoded_row(const TableSchema& schema, std::string_view row,
                         std::span<const uint32_t> columns, std::span<const Value> values,
                         const ColumnView* decoded, FunctionRef<char*(size_t)> make,
                         std::vector<PatchedColumn>* spans) {
  if (spans != nullptr) spans->clear();
  const size_t bitmap = (schema.columns.size() + 7) / 8;
  if (columns.size() != values.size()) return Status::InvalidArgument("columns and values differ");
  if (row.size() < bitmap) return Status::InvalidArgument("row too short");
  PatchOrderBuffer order_buffer(columns.size());
  PatchOrder* order = order_buffer.data();
  // Where each column starts and ends is known: no pass over the row. The
  // new row's size and whether every value keeps its column's size are
  // summed in the pass that checks the patches (a repeated column, which
  // callers do not pass, has them summed again below, over the winners).
  size_t size = row.size();
  size_t resized = 0;  // patches whose value changes its column's size
  auto account = [&](uint32_t column, const Value& value) {
    const size_t old_size = decoded[column].end - (column == 0 ? bitmap : decoded[column - 1].end);
    const size_t new_size = value.is_null() ? 0 : encoded_size(schema.columns[column], value);
    resized += old_size != new_size;
    size = size - old_size + new_size;
  };
  size_t patches = 0;
  bool repeated = false;
  Status status = order_patches(schema, columns, values, order, &patches, &repeated, account);
  if (!status.ok()) return status;
  if (repeated) {
    size = row.size();
    resized = 0;
    for (size_t patch_idx = 0; patch_idx < patches; ++patch_idx) {
      account(order[patch_idx].column, values[order[patch_idx].patch]);
    }
  }
  if (size > kMaxRowBytes) return Status::InvalidArgument("row too large");
  // Every check is behind us: the memory is asked for once, the size known,
  // and the runs and values written into it.
  char* base = make(size);
  if (resized == 0) {
    // Every new value as long as the old one (a counter, a balance, a date
    // over a date: TPC-C's every stock and customer patch): the row is
    // copied whole and the values written over the old ones in place.
    std::memcpy(base, row.data(), size);
    for (size_t patch_idx = 0; patch_idx < patches; ++patch_idx) {
      const uint32_t column = order[patch_idx].column;
      const Value& value = values[order[patch_idx].patch];
      const size_t column_start = column == 0 ? bitmap : decoded[column - 1].end;
      set_null_bit_at(base, column, value.is_null());
      char* end = value.is_null() ? base + column_start
                                  : write_value(schema.columns[column], value, base + column_start);
      SOLO_ASSERT(end == base + decoded[column].end);
      if (spans != nullptr) {
        spans->push_back(PatchedColumn{column, static_cast<uint32_t>(column_start),
                                       static_cast<uint32_t>(end - base), value.is_null()});
      }
    }
    return Status::OK();
  }
  std::memcpy(base, row.data(), bitmap);
  char* dst = base + bitmap;
  size_t run_start = bitmap;
  for (size_t patch_idx = 0; patch_idx < patches; ++patch_idx) {
    const uint32_t column = order[patch_idx].column;
    const Value& value = values[order[patch_idx].patch];
    const size_t column_start = column == 0 ? bitmap : decoded[column - 1].end;
    std::memcpy(dst, row.data() + run_start, column_start - run_start);
    dst += column_start - run_start;
    run_start = decoded[column].end;
    set_null_bit_at(base, column, value.is_null());
    char* value_start = dst;
    if (!value.is_null()) dst = write_value(schema.columns[column], value, dst);
    if (spans != nullptr) {
      spans->push_back(PatchedColumn{column, static_cast<uint32_t>(value_start - base),
                                     static_cast<uint32_t>(dst - base), value.is_null()});
    }
  }
  std::memcpy(dst, row.data() + run_start, row.size() - run_start);
  SOLO_ASSERT(dst + (row.size() - run_start) == base + size);
  return Status::OK();
}

Status patch_row_spans(const TableSchema& schema, std::string_view row,
                       std::span<const uint32_t> columns, std::span<const Value> values,
                       std::string* out, std::vector<PatchedColumn>* spans,
                       const ColumnView* decoded) {
  if (decoded != nullptr) {
    return patch_decoded_row(
        schema, row, columns, values, decoded,
        [out](size_t size) {
          out->resize(size);
          return out->data();
        },
        spans);
  }
  if (spans != nullptr) spans->clear();
  const size_t column_count = schema.columns.size();
  const size_t bitmap = (column_count + 7) / 8;
  if (columns.size() != values.size()) return Status::InvalidArgument("columns and values differ");
  if (row.size() < bitmap) return Status::InvalidArgument("row too short");
  prefetch_bytes(row);
  PatchOrderBuffer order_buffer(columns.size());
  PatchOrder* order = order_buffer.data();
  size_t patches = 0;
  bool repeated = false;
  Status status = order_patches(schema, columns, values, order, &patches, &repeated,
                                [](uint32_t, const Value&) {});
  if (!status.ok()) return status;
  // The row's bytes between patched columns are copied a run at a time.
  out->assign(row.data(), bitmap);
  size_t pos = bitmap;
  size_t run_start = bitmap;
  uint32_t column_idx = 0;
  auto skip_to = [&](uint32_t end) {
    for (; column_idx < end; ++column_idx) {
      if (!is_null(row, column_idx) && !skip_column(schema.columns[column_idx], row, &pos)) {
        return false;
      }
    }
    return true;
  };
  for (size_t patch_idx = 0; patch_idx < patches; ++patch_idx) {
    const uint32_t column = order[patch_idx].column;
    const Value& value = values[order[patch_idx].patch];
    if (!skip_to(column)) return Status::InvalidArgument("row too short");
    out->append(row.data() + run_start, pos - run_start);
    if (!skip_to(column + 1)) return Status::InvalidArgument("row too short");
    run_start = pos;
    set_null_bit(out, column, value.is_null());
    const size_t value_start = out->size();
    if (!value.is_null()) append_value(schema.columns[column], value, out);
    if (spans != nullptr) {
      spans->push_back(PatchedColumn{column, static_cast<uint32_t>(value_start),
                                     static_cast<uint32_t>(out->size()), value.is_null()});
    }
  }
  if (!skip_to(static_cast<uint32_t>(column_count))) return Status::InvalidArgument("row too short");
  out->append(row.data() + run_start, pos - run_start);
  if (pos != row.size()) return Status::InvalidArgument("row has trailing bytes");
  if (out->size() > kMaxRowBytes) return Status::InvalidArgument("row too large");
  return Status::OK();
}

size_t spans_column_patch_size(std::span<const PatchedColumn> spans) {
  size_t size = varint_size(spans.size());
  for (const PatchedColumn& span : spans) {
    size += varint_size(span.column) + 1 + (span.end - span.start);
  }
  return size;
}

char* write_spans_column_patch(char* dst, std::string_view row,
                               std::span<const PatchedColumn> spans) {
  dst = write_varint(dst, spans.size());
  for (const PatchedColumn& span : spans) {
    dst = write_varint(dst, span.column);
    *dst++ = span.null ? '\1' : '\0';
    dst = write_raw(dst, row.data() + span.start, span.end - span.start);
  }
  return dst;
}

bool append_spans_column_patch(std::string_view row, std::span<const PatchedColumn> spans,
                               std::string* out) {
  if (spans.empty()) return false;
  const size_t at = out->size();
  out->resize(at + spans_column_patch_size(spans));
  [[maybe_unused]] char* end = write_spans_column_patch(out->data() + at, row, spans);
  SOLO_ASSERT(end == out->data() + out->size());
  return true;
}

bool append_listed_column_patch(const TableSchema& schema, std::string_view row,
                                std::span<const uint32_t> changed, std::string* out) {
  const size_t column_count = schema.columns.size();
  const size_t bitmap = (column_count + 7) / 8;
  uint32_t last = 0;
  for (uint32_t column : changed) {
    if (column >= column_count) return false;
    last = std::max(last, column);
  }
  if (changed.empty() || row.size() < bitmap) return false;
  auto listed = [&](uint32_t column) {
    for (uint32_t changed_column : changed) {
      if (changed_column == column) return true;
    }
    return false;
  };
  const size_t mark = out->size();
  out->push_back('\0');  // the count, set below (one byte up to 127 columns)
  uint64_t count = 0;
  size_t pos = bitmap;
  for (uint32_t column_idx = 0; column_idx <= last; ++column_idx) {
    const bool null = is_null(row, column_idx);
    const size_t start = pos;
    if (!null && !skip_column(schema.columns[column_idx], row, &pos)) {
      out->resize(mark);
      return false;
    }
    if (!listed(column_idx)) continue;
    put_varint(out, column_idx);
    out->push_back(null ? '\1' : '\0');
    out->append(row.data() + start, pos - start);
    ++count;
  }
  set_patch_count(out, mark, count);
  return true;
}

bool rows_differ_only_in(const TableSchema& schema, std::string_view a, std::string_view b,
                         std::span<const uint32_t> columns) {
  std::string patch;
  if (!append_column_patch(schema, a, b, &patch)) return a == b;
  std::string patched;
  std::vector<uint32_t> differing;
  size_t used = 0;
  if (!apply_column_patch(schema, a, patch, &patched, &differing, &used).ok()) return false;
  for (uint32_t column : differing) {
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) return false;
  }
  return true;
}

Status apply_column_patch(const TableSchema& schema, std::string_view row, std::string_view patch,
                          std::string* out, std::vector<uint32_t>* columns, size_t* used) {
  const size_t column_count = schema.columns.size();
  const size_t bitmap = (column_count + 7) / 8;
  ByteReader reader{patch};
  size_t& in = reader.pos;  // the varints are read by `reader`, the rest here
  uint64_t count;
  if (!reader.get_varint(&count) || count == 0 || count > column_count) {
    return Status::Corruption("column patch with a bad column count");
  }
  if (row.size() < bitmap) return Status::Corruption("patched row is not a row of its table");
  // The stored row is usually not in the cache (recovery patches rows all
  // over the state): start all its lines' misses at once.
  prefetch_bytes(row);
  columns->clear();
  out->reserve(row.size() + patch.size());
  out->assign(row.data(), bitmap);
  size_t pos = bitmap;  // in row
  size_t run_start = bitmap;  // unpatched bytes of row not yet copied: [run_start, pos)
  uint64_t next_patch = 0;
  bool have_patch = false;
  auto read_patch_column = [&]() -> bool {
    if (columns->size() == count) return false;
    uint64_t column;
    if (!reader.get_varint(&column) || column >= column_count ||
        (!columns->empty() && column <= columns->back())) {
      return false;
    }
    next_patch = column;
    return true;
  };
  have_patch = read_patch_column();
  if (!have_patch) return Status::Corruption("column patch with a bad column number");
  for (uint32_t column_idx = 0; column_idx < column_count; ++column_idx) {
    const ColumnDef& column = schema.columns[column_idx];
    size_t start = pos;
    if (!is_null(row, column_idx) && !skip_column(column, row, &pos)) {
      return Status::Corruption("patched row is not a row of its table");
    }
    if (!have_patch || next_patch != column_idx) continue;  // copied with its run
    out->append(row.data() + run_start, start - run_start);
    run_start = pos;
    if (in >= patch.size()) return Status::Corruption("column patch is cut short");
    const char null = patch[in++];
    if (null != 0 && null != 1) return Status::Corruption("column patch with a bad NULL flag");
    if (null == 1 && column.not_null) {
      return Status::Corruption("column patch sets NOT NULL column \"" + column.name + "\" to NULL");
    }
    set_null_bit(out, column_idx, null == 1);
    if (null == 0) {
      size_t value_start = in;
      if (!skip_column(column, patch, &in)) return Status::Corruption("column patch is cut short");
      out->append(patch.data() + value_start, in - value_start);
    }
    columns->push_back(column_idx);
    have_patch = columns->size() < count;
    if (have_patch && !read_patch_column()) {
      return Status::Corruption("column patch with a bad column number");
    }
  }
  if (pos != row.size()) return Status::Corruption("patched row is not a row of its table");
  out->append(row.data() + run_start, pos - run_start);
  if (columns->size() != count) return Status::Corruption("column patch with a bad column number");
  if (out->size() > kMaxRowBytes) return Status::Corruption("patched row is too large");
  *used = in;
  return Status::OK();
}

}  // namespace internal
}  // namespace solo
