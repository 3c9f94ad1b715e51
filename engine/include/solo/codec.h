// Row and key encodings (engine/README.md "Encodings").
//
// Rows are stored compactly; keys in a memcomparable encoding: comparing two
// encoded keys with memcmp (shorter-is-smaller) orders them like the column
// values, column by column, with NULL first.
// All functions are pure: any thread may call them.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "solo/schema.h"
#include "solo/status.h"

namespace solo {

// Longest encoded key a tree accepts (primary key, or index key plus primary key).
inline constexpr size_t kMaxKeyBytes = 200;
// Longest encoded row.
inline constexpr size_t kMaxRowBytes = (1u << 24) - 1;

// Checks that `schema` is well formed: names, types, DECIMAL precision, a
// non-empty primary key of valid, NOT NULL columns. Returns InvalidArgument if not.
Status validate_schema(const TableSchema& schema);

// Checks `value` against `column` (kind, range, length, precision, NOT NULL).
// Returns Constraint for a NULL in a NOT NULL column, InvalidArgument otherwise.
Status check_value(const ColumnDef& column, const Value& value);

// Whether `text` fits a CHAR(n)/VARCHAR(n) of `length` n: n counts
// characters, as in PostgreSQL: UTF-8 sequences, each counted by its first
// byte (a byte that is not a continuation byte, 10xxxxxx). Text of at most n
// bytes fits without a count.
inline bool string_fits_length(std::string_view text, uint32_t length) {
  if (text.size() <= length) return true;
  if (text.size() > size_t{4} * length) return false;  // a character is at most 4 bytes
  size_t characters = 0;
  for (char byte : text) characters += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
  return characters <= length;
}

// check_value's verdict without its message: true iff it would return OK.
// Inline, for the paths that check every value written (a Status is built
// only for a value that does not fit).
inline constexpr int64_t kDecimalLimits[19] = {1,
                                               10,
                                               100,
                                               1000,
                                               10000,
                                               100000,
                                               1000000,
                                               10000000,
                                               100000000,
                                               1000000000,
                                               10000000000,
                                               100000000000,
                                               1000000000000,
                                               10000000000000,
                                               100000000000000,
                                               1000000000000000,
                                               10000000000000000,
                                               100000000000000000,
                                               1000000000000000000};
inline bool value_fits(const ColumnDef& column, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull: return !column.not_null;
    case Value::Kind::kInt: {
      const int64_t number = value.as_int();
      switch (column.type) {
        case Type::kBoolean:
          return number == 0 || number == 1;
        case Type::kSmallInt: return number >= INT16_MIN && number <= INT16_MAX;
        case Type::kInteger: return number >= INT32_MIN && number <= INT32_MAX;
        case Type::kBigInt:
        case Type::kTimestamp: return true;
        case Type::kDecimal: {
          if (column.precision > 18) return false;
          const int64_t limit = kDecimalLimits[column.precision];
          return number > -limit && number < limit;
        }
        default: return false;
      }
    }
    case Value::Kind::kDouble: return column.type == Type::kDouble;
    case Value::Kind::kString:
      return type_is_string(column.type) &&
             (column.type == Type::kText || string_fits_length(value.as_string(), column.length));
  }
  return false;
}

// Replaces *out with the encoding of `row` (one Value per column, checked with
// check_value; primary key columns must not be NULL). On error *out is unspecified.
Status encode_row(const TableSchema& schema, const Row& row, std::string* out);

// Builds an encoded row a column at a time, in column order: the bytes
// encode_row gives for the same values, without a Row of them (the SQL
// layer's INSERT writes each value it converts straight into the row, and
// the values are not walked twice, to measure and to write), and the row's
// primary key (WriteTxn::insert(TableId, const RowBuilder&)). Each add_*
// checks the value against the next column as value_fits does; for one
// that does not fit it returns false and appends nothing (check_value on
// the same value says why). One builder serves row after row.
class RowBuilder {
 public:
  // Starts a row of `schema` in the buffer *out (its capacity reused; row()
  // views the part of it that is the row); both must live as long as the
  // row is used.
  void start(const TableSchema& schema, std::string* out);
  // The column the next add_* fills (== the schema's column count when full).
  uint32_t next_column() const { return next_; }
  const TableSchema& schema() const { return *schema_; }

  bool add(const Value& value);
  bool add_null() {
    if (next_ >= schema_->columns.size() || schema_->columns[next_].not_null) return false;
    (*out_)[next_ / 8] = static_cast<char>((*out_)[next_ / 8] | (1 << (next_ % 8)));
    mark_start();
    ++next_;
    return true;
  }
  // For the integral types: DECIMAL scaled, TIMESTAMP in µs.
  bool add_int(int64_t value) {
    if (next_ >= schema_->columns.size()) return false;
    const ColumnDef& column = schema_->columns[next_];
    size_t width = 8;
    switch (column.type) {  // value_fits for a kInt value
      case Type::kBoolean:
        if (value != 0 && value != 1) return false;
        width = 1;
        break;
      case Type::kSmallInt:
        if (value < INT16_MIN || value > INT16_MAX) return false;
        width = 2;
        break;
      case Type::kInteger:
        if (value < INT32_MIN || value > INT32_MAX) return false;
        width = 4;
        break;
      case Type::kBigInt:
      case Type::kTimestamp:
        break;
      case Type::kDecimal:
        if (column.precision > 18 || value <= -kDecimalLimits[column.precision] ||
            value >= kDecimalLimits[column.precision]) {
          return false;
        }
        break;
      default:
        return false;
    }
    static_assert(std::endian::native == std::endian::little);
    __builtin_memcpy(room(8), &value, 8);  // its low `width` bytes are the encoding
    mark_start();
    used_ += width;
    ++next_;
    return true;
  }
  bool add_double(double value);
  bool add_string(std::string_view text);

  // Ends the row. InvalidArgument if a column was not added or the row is
  // longer than kMaxRowBytes.
  Status finish() const;
  // After finish(): the row, and *out = its primary key (encode_primary_key's bytes).
  std::string_view row() const { return std::string_view(out_->data(), used_); }
  Status primary_key(std::string* out) const;

 private:
  // `bytes` writable at used_ (*out_ grown if need be).
  char* room(size_t bytes) {
    if (used_ + bytes > out_->size()) grow(bytes);
    return out_->data() + used_;
  }
  void grow(size_t bytes);
  void mark_start() {
    if (next_ < kTracked) starts_[next_] = static_cast<uint32_t>(used_);
  }

  // Where each of the first kTracked columns starts: the key is read from there.
  static constexpr uint32_t kTracked = 32;
  const TableSchema* schema_ = nullptr;
  std::string* out_ = nullptr;
  uint32_t next_ = 0;
  size_t used_ = 0;  // bytes of *out_ written (the rest is room)
  uint32_t starts_[kTracked];
};

// Replaces *out with the encoded row `row` of `schema` in which column
// columns[k] holds values[k] (checked as by encode_row); every other column
// keeps its bytes, with no decoding of them. Cheaper than decode, change,
// encode_row when few columns change. InvalidArgument if `row` is not a row
// of `schema` or a column is out of range; on error *out is unspecified.
Status patch_row(const TableSchema& schema, std::string_view row,
                 std::span<const uint32_t> columns, std::span<const Value> values,
                 std::string* out);
// Replaces *out with the decoded row. Returns InvalidArgument if `bytes` is not
// a row of `schema`.
Status decode_row(const TableSchema& schema, std::string_view bytes, Row* out);

// Returns column `column` of an encoded row (no check of `bytes`: it must be a
// row of `schema` as stored by the engine).
Value decode_column(const TableSchema& schema, std::string_view bytes, uint32_t column);

// One column of an encoded row, read in place (no copy, no allocation).
struct ColumnView {
  Value::Kind kind = Value::Kind::kNull;
  int64_t int_value = 0;    // kInt: the integral types (DECIMAL scaled, TIMESTAMP in µs)
  double double_value = 0;  // kDouble
  std::string_view string;  // kString: points into the row's bytes, valid as long as they are
  // Where the column's bytes end in the row (for a NULL column, where the
  // column before it ends): set by decode_row_view and decode_leading_columns.
  uint32_t end = 0;
};

// A row as stored and its columns as decode_row_view gave them, handed to
// WriteTxn::patch_columns so that it need not find the columns again.
struct DecodedRow {
  std::string_view row;
  std::span<const ColumnView> columns;  // every column of the row's table
};

// Sets out[c] to column c of an encoded row, for every column, in one pass.
// Returns InvalidArgument if out has fewer entries than the schema has
// columns or `bytes` is not a row of `schema` (then out is unspecified).
Status decode_row_view(const TableSchema& schema, std::string_view bytes, std::span<ColumnView> out);
// The same for columns [0, count) only (the bytes after them are not looked at).
Status decode_leading_columns(const TableSchema& schema, std::string_view bytes, size_t count,
                              std::span<ColumnView> out);
// Where column `column` starts in every encoded row of `schema`: when the
// columns before it are all NOT NULL and of a fixed width (a leading integer
// primary key, typically), their bytes never move, so a reader of a few
// columns need not walk the ones before. True and *offset set for such a
// column, else false and *offset untouched. Any thread.
bool fixed_column_offset(const TableSchema& schema, uint32_t column, uint32_t* offset);
// Reads column `column` of an encoded row of `schema` in place into *out,
// its bytes starting at `offset` (fixed_column_offset's): what
// decode_leading_columns gives for it. False if `bytes` end too early (not a
// row of `schema`).
bool read_column_at(const TableSchema& schema, std::string_view bytes, uint32_t column,
                    uint32_t offset, ColumnView* out);

// Appends the key encoding of values[k] as column columns[k] of `schema`, for
// k < values.size() <= columns.size(). A shorter `values` gives a key prefix,
// usable as a scan prefix. Values are checked as by check_value, except that
// NULL is allowed in a nullable column.
Status append_key(const TableSchema& schema, std::span<const uint32_t> columns,
                  std::span<const Value> values, std::string* out);

// append_key for one integer value of a SMALLINT, INTEGER or BIGINT column:
// false (nothing appended) if the column is of another type or the value is
// out of its range; then append_key decides.
bool append_integer_key(const ColumnDef& column, int64_t value, std::string* out);

// The key bytes of one integer (engine/README.md "Key encoding"), written at
// `dst`, which must have room for kMaxIntKeyBytes (all of them may be
// written); returns how many are the key's. For callers that build a key of
// several integers in a buffer and append it once: an append per column cost
// more than the encoding.
inline constexpr size_t kMaxIntKeyBytes = 9;
inline size_t write_int_key(int64_t value, char* dst) {
  // v in [0, 239]: tag 0x08 + v; v >= 240: tag 0xF7 + n, then v - 240 in n
  // big-endian bytes; v < 0: tag 0x08 - n, then ~(-(v + 1)) in n bytes (n
  // minimal, >= 1).
  constexpr int64_t kSmallMax = 239;
  constexpr unsigned kZeroTag = 0x08;
  if (value >= 0 && value <= kSmallMax) {
    dst[0] = static_cast<char>(kZeroTag + static_cast<unsigned>(value));
    return 1;
  }
  auto magnitude_bytes = [](uint64_t magnitude) {
    return magnitude == 0 ? 1 : (71 - __builtin_clzll(magnitude)) / 8;
  };
  uint64_t bits;
  int bytes;
  if (value > kSmallMax) {
    bits = static_cast<uint64_t>(value) - (kSmallMax + 1);
    bytes = magnitude_bytes(bits);
    dst[0] = static_cast<char>(0xF7 + bytes);
  } else {
    const uint64_t magnitude = ~static_cast<uint64_t>(value);  // -(value + 1), >= 0
    bytes = magnitude_bytes(magnitude);
    bits = ~magnitude;  // larger magnitudes sort first
    dst[0] = static_cast<char>(kZeroTag - static_cast<unsigned>(bytes));
  }
  // The n low bytes of `bits`, big-endian: shifted to the top, byte-swapped.
  static_assert(std::endian::native == std::endian::little);
  const uint64_t big_endian = __builtin_bswap64(bits << (8 * (8 - bytes)));
  __builtin_memcpy(dst + 1, &big_endian, 8);
  return static_cast<size_t>(1 + bytes);
}

// write_int_key for a value of a SMALLINT, INTEGER or BIGINT column, after
// the NULL marker of a nullable one (as append_integer_key): room for
// kMaxIntKeyBytes + 1; 0 (nothing meant) if the column is of another type or
// the value is out of its range.
inline size_t write_integer_key(const ColumnDef& column, int64_t value, char* dst) {
  switch (column.type) {
    case Type::kSmallInt:
      if (value < INT16_MIN || value > INT16_MAX) return 0;
      break;
    case Type::kInteger:
      if (value < INT32_MIN || value > INT32_MAX) return 0;
      break;
    case Type::kBigInt: break;
    default: return 0;
  }
  if (column.not_null) return write_int_key(value, dst);
  dst[0] = '\x01';  // not NULL
  return 1 + write_int_key(value, dst + 1);
}

// Appends the key encoding of columns `columns` of an encoded row, read in
// place in one pass up to the last of them (no Value, no allocation), as
// append_key would give for the decoded values. The row's values are not
// checked (it must have been made by encode_row for `schema`);
// InvalidArgument if it ends before those columns do or a NOT NULL key
// column is NULL. *has_null: one of the columns is NULL.
Status append_row_key(const TableSchema& schema, std::span<const uint32_t> columns,
                      std::string_view row, std::string* out, bool* has_null);

// Primary key of a full row: append_key over schema.primary_key.
Status encode_primary_key(const TableSchema& schema, const Row& row, std::string* out);

// The smallest byte string greater than every string that starts with
// `prefix`; empty if there is none (prefix is empty or all 0xFF).
std::string prefix_successor(std::string_view prefix);

// Appends to `key` (the encoding of the key columns before `column`) the
// smallest key whose value of `column` is not NULL: a nullable key column's
// NULLs sort before all its values (append_key), so a range from here on
// skips them. Appends nothing for a NOT NULL column.
void append_not_null_floor(const ColumnDef& column, std::string* key);

}  // namespace solo
