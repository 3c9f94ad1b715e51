// Row and key encodings: round trips, order preservation, checks.
#include <algorithm>
#include <random>

#include "durable_codec.h"
#include "row_patch.h"
#include "test_util.h"

using namespace solo;

namespace {

std::string key_of(const TableSchema& schema, uint32_t column, const Value& value) {
  std::string key;
  uint32_t columns[1] = {column};
  REQUIRE(append_key(schema, columns, std::span<const Value>(&value, 1), &key).ok());
  return key;
}

TableSchema all_types() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {ColumnDef::SmallInt("a"),       ColumnDef::Integer("b"),
                    ColumnDef::BigInt("c"),         ColumnDef::Decimal("d", 10, 2),
                    ColumnDef::Char("e", 4),        ColumnDef::VarChar("f", 10),
                    ColumnDef::Text("g"),           ColumnDef::Timestamp("h"),
                    ColumnDef::Double("i"),         ColumnDef::Integer("j", true)};
  schema.primary_key = {9};
  return schema;
}

}  // namespace

TEST_CASE("row encoding round-trips every type and NULL") {
  TableSchema schema = all_types();
  REQUIRE(validate_schema(schema).ok());
  Row row = {Value::Int(-32768),      Value::Int(2147483647),  Value::Int(INT64_MIN),
             Value::Int(-12345),      Value::String("ab"),     Value::Null(),
             Value::String(std::string("x\0y", 3)), Value::Int(1700000000000000),
             Value::Double(-2.5),     Value::Int(7)};
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).ok());
  Row back;
  REQUIRE(decode_row(schema, bytes, &back).ok());
  REQUIRE(back == row);
  for (uint32_t column = 0; column < row.size(); ++column) {
    REQUIRE(decode_column(schema, bytes, column) == row[column]);
  }
  // Compact: 2-byte bitmap + fixed widths + 1-byte lengths.
  REQUIRE(bytes.size() == 2 + 2 + 4 + 8 + 8 + 3 + 4 + 8 + 8 + 4);
  REQUIRE(!decode_row(schema, bytes.substr(0, bytes.size() - 1), &back).ok());

  // In place: the same values, strings pointing into the bytes.
  std::vector<ColumnView> views(row.size());
  REQUIRE(decode_row_view(schema, bytes, views).ok());
  for (uint32_t column = 0; column < row.size(); ++column) {
    const ColumnView& view = views[column];
    REQUIRE(view.kind == row[column].kind());
    switch (view.kind) {
      case Value::Kind::kInt: REQUIRE(view.int_value == row[column].as_int()); break;
      case Value::Kind::kDouble: REQUIRE(view.double_value == row[column].as_double()); break;
      case Value::Kind::kString:
        REQUIRE(view.string == row[column].as_string());
        REQUIRE(view.string.data() >= bytes.data());
        REQUIRE(view.string.data() + view.string.size() <= bytes.data() + bytes.size());
        break;
      case Value::Kind::kNull: break;
    }
  }
  REQUIRE(!decode_row_view(schema, bytes.substr(0, bytes.size() - 1), views).ok());
  REQUIRE(!decode_row_view(schema, bytes + "z", views).ok());
  std::vector<ColumnView> too_few(row.size() - 1);
  REQUIRE(!decode_row_view(schema, bytes, too_few).ok());
}

TEST_CASE("decode_row_view agrees with decode_row on long strings, and refuses every truncation") {
  TableSchema schema = all_types();
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    // Strings of 0..300 bytes and one of 20000: one-, two- and three-byte
    // lengths; some columns NULL.
    auto text = [&](size_t length) {
      std::string out(length, '\0');
      for (char& ch : out) ch = static_cast<char>(rng());
      return out;
    };
    auto maybe = [&](Value value) { return rng() % 5 == 0 ? Value::Null() : value; };
    const size_t long_length = trial % 10 == 0 ? 20000 : rng() % 301;
    Row row = {maybe(Value::Int(static_cast<int16_t>(rng()))), maybe(Value::Int(static_cast<int32_t>(rng()))),
               maybe(Value::Int(static_cast<int64_t>(rng()))), maybe(Value::Int(static_cast<int64_t>(rng() % 1000000))),
               maybe(Value::String(text(rng() % 5))),          maybe(Value::String(text(rng() % 11))),
               maybe(Value::String(text(long_length))),        maybe(Value::Int(static_cast<int64_t>(rng() >> 1))),
               maybe(Value::Double(static_cast<double>(rng() % 1000) / 8)),
               Value::Int(static_cast<int32_t>(rng()))};
    std::string bytes;
    REQUIRE(encode_row(schema, row, &bytes).ok());
    std::vector<ColumnView> views(row.size());
    REQUIRE(decode_row_view(schema, bytes, views).ok());
    size_t pos = 2;  // after the bitmap
    for (uint32_t column = 0; column < row.size(); ++column) {
      const ColumnView& view = views[column];
      REQUIRE(view.kind == row[column].kind());
      if (view.kind == Value::Kind::kInt) REQUIRE(view.int_value == row[column].as_int());
      if (view.kind == Value::Kind::kDouble) REQUIRE(view.double_value == row[column].as_double());
      if (view.kind == Value::Kind::kString) {
        REQUIRE(view.string == row[column].as_string());
        pos = static_cast<size_t>(view.string.data() + view.string.size() - bytes.data());
      } else if (view.kind != Value::Kind::kNull) {
        pos += column == 0 ? 2 : (column == 1 || column == 9) ? 4 : 8;
      }
      REQUIRE(view.end == pos);  // where the column's bytes end
    }
    REQUIRE(pos == bytes.size());
    // The leading columns alone, up to each count.
    for (size_t count = 0; count <= row.size(); ++count) {
      std::vector<ColumnView> lead(row.size());
      REQUIRE(decode_leading_columns(schema, bytes, count, lead).ok());
      for (size_t column = 0; column < count; ++column) REQUIRE(lead[column].end == views[column].end);
    }
    // Every shorter prefix is refused as a row; of its leading columns,
    // exactly those that end within it can be read (no column read past it).
    for (size_t cut = 0; cut < bytes.size(); cut += (bytes.size() > 1000 ? 97 : 1)) {
      std::string prefix = bytes.substr(0, cut);
      std::vector<ColumnView> lead(row.size());
      REQUIRE(!decode_row_view(schema, prefix, lead).ok());
      if (cut < 2) {
        REQUIRE(!decode_leading_columns(schema, prefix, 0, lead).ok());  // no bitmap
        continue;
      }
      size_t whole = 0;
      while (whole < row.size() && views[whole].end <= cut) ++whole;
      REQUIRE(decode_leading_columns(schema, prefix, whole, lead).ok());
      REQUIRE(!decode_leading_columns(schema, prefix, whole + 1, lead).ok());
    }
  }
}

TEST_CASE(
    "decode_row_view reads NULLs in every byte of a wide row's bitmap, and what read_column_at "
    "reads") {
  // 20 columns, a string between integers: three bytes of NULL bitmap, the
  // last one partly used; the leading NOT NULL integer has a fixed offset.
  TableSchema schema;
  schema.name = "wide";
  schema.columns.push_back(ColumnDef::Integer("id", true));
  for (uint32_t column = 1; column < 20; ++column) {
    const std::string name = "c" + std::to_string(column);
    schema.columns.push_back(column % 2 == 1 ? ColumnDef::Text(name) : ColumnDef::BigInt(name));
  }
  schema.primary_key = {0};
  REQUIRE(validate_schema(schema).ok());
  uint32_t offset = 0;
  REQUIRE(fixed_column_offset(schema, 1, &offset));
  REQUIRE(offset == 3 + 4);
  REQUIRE(!fixed_column_offset(schema, 2, &offset));
  for (uint32_t null_column = 0; null_column <= 20; ++null_column) {
    // Row null_column has that column NULL (none for 0 and 20), and every
    // column after 16 as well; strings of 0, 127, 128 and 300 bytes.
    Row row;
    row.push_back(Value::Int(42));
    for (uint32_t column = 1; column < 20; ++column) {
      if (column == null_column || column > 16) {
        row.push_back(Value::Null());
      } else if (column % 2 == 1) {
        const size_t lengths[] = {0, 127, 128, 300};
        row.push_back(
            Value::String(std::string(lengths[column / 2 % 4], static_cast<char>('a' + column))));
      } else {
        row.push_back(Value::Int(-(static_cast<int64_t>(column) << 40)));
      }
    }
    std::string bytes;
    REQUIRE(encode_row(schema, row, &bytes).ok());
    Row back;
    REQUIRE(decode_row(schema, bytes, &back).ok());
    REQUIRE(back == row);
    std::vector<ColumnView> views(row.size());
    REQUIRE(decode_row_view(schema, bytes, views).ok());
    for (uint32_t column = 0; column < row.size(); ++column) {
      REQUIRE(views[column].kind == row[column].kind());
      if (row[column].kind() == Value::Kind::kInt)
        REQUIRE(views[column].int_value == row[column].as_int());
      if (row[column].kind() == Value::Kind::kString)
        REQUIRE(views[column].string == row[column].as_string());
    }
    REQUIRE(views.back().end == bytes.size());
    // Column 1 read where it starts, as decode_row_view read it.
    ColumnView at;
    REQUIRE(read_column_at(schema, bytes, 1, offset, &at));
    REQUIRE(at.kind == views[1].kind);
    REQUIRE(at.end == views[1].end);
    REQUIRE(at.string == views[1].string);
    if (row[1].kind() == Value::Kind::kString) {
      REQUIRE(!read_column_at(schema, bytes.substr(0, views[1].end - 1), 1, offset, &at));
    }
  }
}

TEST_CASE("a row whose string length is damaged is refused") {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {ColumnDef::Integer("id", true), ColumnDef::Text("s")};
  schema.primary_key = {0};
  // The bitmap, id 7, then `tail`: the string's length and bytes.
  auto row_with = [](std::string_view tail) {
    return std::string("\0\x07\0\0\0", 5) + std::string(tail);
  };
  std::vector<ColumnView> views(2);
  REQUIRE(decode_row_view(schema, row_with("\x02xy"), views).ok());
  REQUIRE(decode_row_view(schema, row_with("\x82\x01" + std::string(130, 'x')), views).ok());
  REQUIRE(views[1].string.size() == 130);
  // Longer than the bytes after it, by one.
  REQUIRE(!decode_row_view(schema, row_with("\x03xy"), views).ok());
  REQUIRE(!decode_row_view(schema, row_with("\x82\x01" + std::string(129, 'x')), views).ok());
  // A length cut short, and one longer than five bytes.
  const std::string_view six_bytes("\x80\x80\x80\x80\x80\x00", 6);
  REQUIRE(!decode_row_view(schema, row_with("\x82"), views).ok());
  REQUIRE(!decode_row_view(schema, row_with(six_bytes), views).ok());
  Row row;
  REQUIRE(!decode_row(schema, row_with(six_bytes), &row).ok());
  ColumnView at;
  REQUIRE(!read_column_at(schema, row_with(six_bytes), 1, 5, &at));
  REQUIRE(read_column_at(schema, row_with(six_bytes.substr(1)), 1, 5, &at));  // five bytes: 0
  REQUIRE(at.string.empty());
  REQUIRE(at.end == 5 + 5);
}

TEST_CASE("a table of more columns than a log or checkpoint record may name is refused") {
  // The readers (durable_codec.cc) refuse a table of more than
  // kMaxTableColumns columns: one created with more could not be opened again.
  TableSchema schema;
  schema.name = "wide";
  for (size_t column = 0; column < kMaxTableColumns; ++column) {
    schema.columns.push_back(ColumnDef::Integer("c" + std::to_string(column), column == 0));
  }
  schema.primary_key = {0};
  REQUIRE(validate_schema(schema).ok());
  schema.columns.push_back(ColumnDef::Integer("one_more"));
  Status status = validate_schema(schema);
  REQUIRE(status.code() == Status::Code::kInvalidArgument);
  REQUIRE(status.message().find("at most 4096 columns") != std::string::npos);
}

TEST_CASE("value checks: NOT NULL, ranges, lengths, kinds") {
  TableSchema schema = all_types();
  Row row(10, Value::Null());
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).IsConstraint());  // j is NOT NULL
  row[9] = Value::Int(1);
  REQUIRE(encode_row(schema, row, &bytes).ok());
  row[0] = Value::Int(40000);
  REQUIRE(encode_row(schema, row, &bytes).IsInvalidArgument());
  row[0] = Value::Null();
  row[3] = Value::Int(10000000000);  // DECIMAL(10,2) holds < 10^10 scaled
  REQUIRE(encode_row(schema, row, &bytes).IsInvalidArgument());
  row[3] = Value::Int(9999999999);
  REQUIRE(encode_row(schema, row, &bytes).ok());
  row[4] = Value::String("abcde");
  REQUIRE(encode_row(schema, row, &bytes).IsInvalidArgument());
  row[4] = Value::Int(3);
  REQUIRE(encode_row(schema, row, &bytes).IsInvalidArgument());
}

TEST_CASE("CHAR(n) and VARCHAR(n) count UTF-8 characters, not bytes") {
  const ColumnDef char4 = ColumnDef::Char("e", 4);
  const std::string e_acute = "\xC3\xA9";       // 2 bytes
  const std::string yen = "\xE5\x86\x86";       // 3 bytes
  const std::string grin = "\xF0\x9F\x98\x80";  // 4 bytes
  for (const std::string& text : {e_acute + e_acute + e_acute + e_acute, grin + grin + grin + grin,
                                  "a" + yen + grin + e_acute, std::string("abcd")}) {
    INFO(text);
    REQUIRE(check_value(char4, Value::String(text)).ok());
    REQUIRE(value_fits(char4, Value::String(text)));
    REQUIRE(!check_value(char4, Value::String(text + "x")).ok());
    REQUIRE(!value_fits(char4, Value::String(text + e_acute)));
  }
  // 17 bytes that are 4 lead bytes and 13 continuation bytes: not UTF-8, but
  // counted the same way, and longer than any 4 characters can be.
  REQUIRE(!string_fits_length(std::string(4, 'a') + std::string(13, '\x80'), 4));
  REQUIRE(string_fits_length(grin + grin, 2));
  REQUIRE(!string_fits_length(grin + grin, 1));
  REQUIRE(string_fits_length("", 0));
  // A row with such a value encodes and decodes, and RowBuilder agrees.
  TableSchema schema;
  schema.name = "u";
  schema.columns = {ColumnDef::Integer("k", true), ColumnDef::VarChar("v", 2)};
  schema.primary_key = {0};
  std::string bytes;
  REQUIRE(encode_row(schema, {Value::Int(1), Value::String(grin + yen)}, &bytes).ok());
  Row back;
  REQUIRE(decode_row(schema, bytes, &back).ok());
  REQUIRE(back[1].as_string() == grin + yen);
  RowBuilder builder;
  std::string built;
  builder.start(schema, &built);
  REQUIRE(builder.add_int(1));
  REQUIRE(builder.add_string(grin + yen));
  REQUIRE(builder.row() == bytes);
  builder.start(schema, &built);
  REQUIRE(builder.add_int(1));
  REQUIRE(!builder.add_string(grin + yen + "a"));
}

TEST_CASE("value_fits agrees with check_value on every kind, type and edge") {
  std::vector<ColumnDef> columns = {
      ColumnDef::SmallInt("a"),     ColumnDef::SmallInt("a", true), ColumnDef::Integer("b"),
      ColumnDef::BigInt("c", true), ColumnDef::Decimal("d", 10, 2), ColumnDef::Decimal("d", 18, 4),
      ColumnDef::Decimal("d", 1, 0), ColumnDef::Char("e", 4),       ColumnDef::VarChar("f", 10, true),
      ColumnDef::Text("g"),         ColumnDef::Timestamp("h"),      ColumnDef::Double("i"),
      ColumnDef::Double("i", true)};
  std::vector<Value> values = {Value::Null(), Value::Double(1.5), Value::String(""),
                               Value::String("abcd"), Value::String("abcde"),
                               Value::String(std::string(11, 'x'))};
  for (int64_t edge : {int64_t{0}, int64_t{9}, int64_t{10}, int64_t{-10}, int64_t{INT16_MAX},
                       int64_t{INT16_MAX} + 1, int64_t{INT16_MIN}, int64_t{INT16_MIN} - 1,
                       int64_t{INT32_MAX}, int64_t{INT32_MAX} + 1, int64_t{INT32_MIN},
                       int64_t{INT32_MIN} - 1, int64_t{9999999999}, int64_t{10000000000},
                       int64_t{-9999999999}, int64_t{-10000000000}, INT64_MAX, INT64_MIN,
                       int64_t{999999999999999999}, int64_t{1000000000000000000}}) {
    values.push_back(Value::Int(edge));
  }
  int fits = 0, refused = 0;
  for (const ColumnDef& column : columns) {
    for (const Value& value : values) {
      const bool ok = check_value(column, value).ok();
      INFO(type_name(column.type) << " not_null " << column.not_null << " value "
                                  << static_cast<int>(value.kind()));
      REQUIRE(value_fits(column, value) == ok);
      (ok ? fits : refused)++;
    }
  }
  REQUIRE(fits > 50);
  REQUIRE(refused > 50);
}

TEST_CASE(
    "RowBuilder gives encode_row's bytes and encode_primary_key's key, and refuses what value_fits "
    "does") {
  // Schemas whose keys take each path: integer columns read back where the
  // builder wrote them (out of column order), a key with a string or a
  // DECIMAL (derived from the bytes), key columns beyond the 32 tracked.
  std::vector<TableSchema> schemas;
  {
    TableSchema order_line;  // like TPC-C's: the key's columns out of row order
    order_line.name = "ol";
    order_line.columns = {ColumnDef::Integer("o", true), ColumnDef::SmallInt("d", true),
                          ColumnDef::BigInt("w", true),  ColumnDef::Integer("n", true),
                          ColumnDef::Timestamp("t"),     ColumnDef::Decimal("amount", 6, 2),
                          ColumnDef::Char("info", 24),   ColumnDef::Double("x")};
    order_line.primary_key = {2, 1, 0, 3};
    schemas.push_back(order_line);
  }
  {
    TableSchema text_key = all_types();
    text_key.columns[5].not_null = true;
    text_key.columns[3].not_null = true;
    text_key.primary_key = {5, 9, 3};  // VARCHAR, INTEGER, DECIMAL
    schemas.push_back(text_key);
  }
  {
    TableSchema wide;
    wide.name = "wide";
    for (int column = 0; column < 40; ++column) {
      wide.columns.push_back(ColumnDef::Integer("c" + std::to_string(column), column % 3 == 0));
    }
    wide.primary_key = {36, 3, 39};  // two of them past the tracked 32
    schemas.push_back(wide);
  }
  std::mt19937_64 random(7);
  auto value_for = [&](const ColumnDef& column) {
    if (!column.not_null && random() % 5 == 0) return Value::Null();
    switch (column.type) {
      case Type::kSmallInt:
        return Value::Int(static_cast<int16_t>(random()));
      case Type::kInteger:
        return Value::Int(static_cast<int32_t>(random()) >> (random() % 32));
      case Type::kBigInt:
        return Value::Int(static_cast<int64_t>(random()) >> (random() % 64));
      case Type::kDecimal: {
        const int64_t limit = column.precision >= 18 ? INT64_MAX : [&] {
          int64_t power = 1;
          for (int digit = 0; digit < column.precision; ++digit) power *= 10;
          return power - 1;
        }();
        return Value::Int(static_cast<int64_t>(random() % static_cast<uint64_t>(limit)) *
                          (random() % 2 ? 1 : -1));
      }
      case Type::kTimestamp:
        return Value::Int(static_cast<int64_t>(random() % (uint64_t{1} << 52)));
      case Type::kDouble:
        return Value::Double(static_cast<double>(random() % 1000) / 7.0);
      default: {
        const size_t longest = column.type == Type::kText ? 300 : column.length;
        return Value::String(
            std::string(random() % (longest + 1), static_cast<char>('a' + random() % 26)));
      }
    }
  };
  std::string buffer;  // shared by every row: a builder reuses it
  RowBuilder builder;
  int rows = 0;
  for (const TableSchema& schema : schemas) {
    REQUIRE(validate_schema(schema).ok());
    for (int trial = 0; trial < 300; ++trial) {
      Row row;
      for (const ColumnDef& column : schema.columns) row.push_back(value_for(column));
      std::string expected_row, expected_key;
      REQUIRE(encode_row(schema, row, &expected_row).ok());
      REQUIRE(encode_primary_key(schema, row, &expected_key).ok());
      builder.start(schema, &buffer);
      for (size_t column = 0; column < row.size(); ++column) {
        REQUIRE(builder.next_column() == column);
        // The typed adds where a caller has the value in its own form.
        const Value& value = row[column];
        bool added;
        switch (value.kind()) {
          case Value::Kind::kNull:
            added = builder.add_null();
            break;
          case Value::Kind::kInt:
            added = builder.add_int(value.as_int());
            break;
          case Value::Kind::kDouble:
            added = builder.add_double(value.as_double());
            break;
          default:
            added = trial % 2 ? builder.add(value) : builder.add_string(value.as_string());
        }
        REQUIRE(added);
      }
      REQUIRE(builder.finish().ok());
      REQUIRE(builder.row() == expected_row);
      std::string key = "stale";
      REQUIRE(builder.primary_key(&key).ok());
      REQUIRE(key == expected_key);
      ++rows;
    }
  }
  REQUIRE(rows == 900);

  // Each value value_fits refuses is refused, and nothing is appended: the
  // next value still lands in the same column.
  TableSchema schema = all_types();
  std::vector<Value> misfits = {Value::Int(INT16_MAX + 1),
                                Value::Int(int64_t{INT32_MIN} - 1),
                                Value::Double(1),
                                Value::Int(10000000000),
                                Value::String("abcde"),
                                Value::String(std::string(11, 'x')),
                                Value::Int(1),
                                Value::String("1"),
                                Value::Int(1),
                                Value::Null()};
  Row good = {Value::Int(1),
              Value::Int(2),
              Value::Int(3),
              Value::Int(-9999999999),
              Value::String("abcd"),
              Value::Null(),
              Value::String(std::string(1000, 'g')),
              Value::Int(5),
              Value::Double(0.5),
              Value::Int(6)};
  builder.start(schema, &buffer);
  for (uint32_t column = 0; column < schema.columns.size(); ++column) {
    INFO("column " << column);
    REQUIRE(!value_fits(schema.columns[column], misfits[column]));
    REQUIRE(!builder.add(misfits[column]));
    REQUIRE(builder.next_column() == column);
    REQUIRE(builder.add(good[column]));
  }
  REQUIRE(!builder.add(Value::Int(1)));  // no column left
  REQUIRE(builder.finish().ok());
  std::string expected;
  REQUIRE(encode_row(schema, good, &expected).ok());
  REQUIRE(builder.row() == expected);

  // A row with a column missing is not finished.
  builder.start(schema, &buffer);
  REQUIRE(builder.add(good[0]));
  REQUIRE(!builder.finish().ok());
}

TEST_CASE("key encoding preserves the order of integers, doubles and strings") {
  TableSchema schema = all_types();
  std::mt19937_64 rng(42);
  for (uint32_t column : {0u, 1u, 2u, 3u, 7u}) {
    std::vector<int64_t> numbers = {0, 1, -1};
    int64_t limit = column == 0 ? 32767 : column == 1 ? 2147483647 : column == 3 ? 9999999999 : INT64_MAX;
    for (int sample = 0; sample < 200; ++sample) {
      numbers.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(limit)) *
                        (sample % 2 ? 1 : -1));
    }
    for (size_t a = 0; a < numbers.size(); ++a) {
      size_t b = (a * 7 + 3) % numbers.size();
      std::string ka = key_of(schema, column, Value::Int(numbers[a]));
      std::string kb = key_of(schema, column, Value::Int(numbers[b]));
      REQUIRE((ka < kb) == (numbers[a] < numbers[b]));
      REQUIRE((ka == kb) == (numbers[a] == numbers[b]));
    }
  }
  std::vector<double> doubles = {-1e300, -2.5, -0.0, 0.0, 1e-300, 3.25, 1e300};
  for (size_t a = 0; a + 1 < doubles.size(); ++a) {
    std::string ka = key_of(schema, 8, Value::Double(doubles[a]));
    std::string kb = key_of(schema, 8, Value::Double(doubles[a + 1]));
    if (doubles[a] == doubles[a + 1]) {
      REQUIRE(ka == kb);
    } else {
      REQUIRE(ka < kb);
    }
  }
  std::vector<std::string> strings = {"", std::string("\0", 1), std::string("\0\0", 2),
                                      std::string("a\0", 2), "a", "ab", "b", "\xff"};
  std::sort(strings.begin(), strings.end());
  for (size_t a = 0; a + 1 < strings.size(); ++a) {
    REQUIRE(key_of(schema, 6, Value::String(strings[a])) <
            key_of(schema, 6, Value::String(strings[a + 1])));
  }
  // Composite keys: the first column decides before the second is looked at.
  TableSchema pair;
  pair.name = "p";
  pair.columns = {ColumnDef::VarChar("s", 10, true), ColumnDef::Integer("n", true)};
  pair.primary_key = {0, 1};
  auto composite = [&](const char* text, int64_t number) {
    std::string key;
    Value values[2] = {Value::String(text), Value::Int(number)};
    REQUIRE(append_key(pair, pair.primary_key, values, &key).ok());
    return key;
  };
  REQUIRE(composite("a", 1000) < composite("ab", -5));
  REQUIRE(composite("a", -5) < composite("a", 1000));
}

TEST_CASE("integer keys: every length boundary sorts in order, and small ids are short") {
  TableSchema schema = all_types();
  std::vector<int64_t> numbers = {INT64_MIN, INT64_MIN + 1, INT64_MAX - 1, INT64_MAX, 0, 1, -1, 238,
                                  239, 240, 241, 495, 496, 497};
  // Around each power of 256, on both sides of zero and of the 240 offset.
  for (int shift = 8; shift <= 56; shift += 8) {
    for (int64_t base : {int64_t{1} << shift, (int64_t{1} << shift) + 240}) {
      for (int64_t delta = -2; delta <= 2; ++delta) {
        numbers.push_back(base + delta);
        numbers.push_back(-(base + delta));
      }
    }
  }
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  for (size_t a = 0; a + 1 < numbers.size(); ++a) {
    std::string ka = key_of(schema, 2, Value::Int(numbers[a]));
    std::string kb = key_of(schema, 2, Value::Int(numbers[a + 1]));
    INFO(numbers[a] << " < " << numbers[a + 1]);
    REQUIRE(ka < kb);
  }
  // Sizes of a NOT NULL column (no NULL marker).
  TableSchema big;
  big.name = "big";
  big.columns = {ColumnDef::BigInt("k", true)};
  big.primary_key = {0};
  REQUIRE(key_of(big, 0, Value::Int(0)).size() == 1);
  REQUIRE(key_of(big, 0, Value::Int(239)).size() == 1);
  REQUIRE(key_of(big, 0, Value::Int(240)).size() == 2);
  REQUIRE(key_of(big, 0, Value::Int(3000)).size() == 3);
  REQUIRE(key_of(big, 0, Value::Int(100000)).size() == 4);
  REQUIRE(key_of(big, 0, Value::Int(-1)).size() == 2);
  REQUIRE(key_of(big, 0, Value::Int(INT64_MAX)).size() == 9);
  REQUIRE(key_of(big, 0, Value::Int(INT64_MIN)).size() == 9);
  // Composite keys of ints: the first column decides, whatever the lengths.
  TableSchema ids;
  ids.name = "ids";
  ids.columns = {ColumnDef::Integer("a"), ColumnDef::Integer("b")};
  ids.primary_key = {0, 1};
  auto pair_key = [&](int64_t first, int64_t second) {
    std::string key;
    Value values[2] = {Value::Int(first), Value::Int(second)};
    REQUIRE(append_key(ids, ids.primary_key, values, &key).ok());
    return key;
  };
  REQUIRE(pair_key(1, 1000000) < pair_key(2, 0));
  REQUIRE(pair_key(239, 5) < pair_key(240, -1000000));
  REQUIRE(pair_key(-1, 1000000) < pair_key(0, -1000000));
  // A TPC-C order line (w, d, o, number) fits in the 8 compared bytes.
  TableSchema line;
  line.name = "line";
  line.columns = {ColumnDef::Integer("w", true), ColumnDef::Integer("d", true),
                  ColumnDef::Integer("o", true), ColumnDef::Integer("n", true)};
  line.primary_key = {0, 1, 2, 3};
  std::string key;
  Value values[4] = {Value::Int(1), Value::Int(10), Value::Int(3000), Value::Int(15)};
  REQUIRE(append_key(line, line.primary_key, values, &key).ok());
  REQUIRE(key.size() == 6);
}

TEST_CASE("append_integer_key gives append_key's bytes, and refuses what append_key would") {
  TableSchema schema = all_types();  // a SMALLINT, b INTEGER, c BIGINT nullable; j INTEGER NOT NULL
  std::vector<int64_t> numbers = {0,         1,         -1,        239,       240,      32767,
                                  32768,     -32768,    -32769,    INT32_MAX, INT32_MIN, int64_t{INT32_MAX} + 1,
                                  INT64_MAX, INT64_MIN, 123456789};
  for (uint32_t column : {0u, 1u, 2u, 9u}) {
    for (int64_t number : numbers) {
      INFO("column " << column << " value " << number);
      std::string fast = "prefix";
      bool taken = append_integer_key(schema.columns[column], number, &fast);
      std::string general = "prefix";
      Value value = Value::Int(number);
      uint32_t columns[1] = {column};
      bool fits = append_key(schema, columns, std::span<const Value>(&value, 1), &general).ok();
      REQUIRE(taken == fits);
      if (taken) {
        REQUIRE(fast == general);
      } else {
        REQUIRE(fast == "prefix");
      }
    }
  }
  // Not an integer column: always the general path.
  for (uint32_t column : {3u, 4u, 7u, 8u}) {
    std::string out;
    REQUIRE_FALSE(append_integer_key(schema.columns[column], 5, &out));
    REQUIRE(out.empty());
  }
}

// The integer key form as engine/README.md "Key encoding" documents it,
// written out byte by byte: keys are stored in logs and checkpoints, so the
// encoder may change but its bytes may not.
std::string reference_int_key(int64_t value) {
  std::string out;
  auto big_endian = [&](uint64_t bits, int bytes) {
    for (int idx = bytes - 1; idx >= 0; --idx) out.push_back(static_cast<char>((bits >> (8 * idx)) & 0xFF));
  };
  auto bytes_for = [](uint64_t magnitude) {
    int bytes = 1;
    while (bytes < 8 && (magnitude >> (8 * bytes)) != 0) ++bytes;
    return bytes;
  };
  if (value >= 0 && value <= 239) {
    out.push_back(static_cast<char>(0x08 + value));
  } else if (value > 239) {
    const uint64_t bits = static_cast<uint64_t>(value) - 240;
    const int bytes = bytes_for(bits);
    out.push_back(static_cast<char>(0xF7 + bytes));
    big_endian(bits, bytes);
  } else {
    const uint64_t magnitude = static_cast<uint64_t>(-(value + 1));
    const int bytes = bytes_for(magnitude);
    out.push_back(static_cast<char>(0x08 - bytes));
    big_endian(~magnitude, bytes);
  }
  return out;
}

TEST_CASE("integer keys have the documented bytes, whichever path builds them") {
  std::mt19937_64 rng(5);
  std::vector<int64_t> numbers = {0, 1, 238, 239, 240, 241, 495, 496, 65775, 65776, -1, -2, -256, -257,
                                  -65536, -65537, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN,
                                  INT64_MAX - 239, INT64_MIN + 1};
  for (int shift = 0; shift < 64; ++shift) {
    numbers.push_back(static_cast<int64_t>(uint64_t{1} << shift));
    numbers.push_back(static_cast<int64_t>(uint64_t{0} - (uint64_t{1} << shift)));  // -2^shift, no UB
    const uint64_t bits = rng() >> shift;
    numbers.push_back(static_cast<int64_t>(shift % 2 ? bits : uint64_t{0} - bits));
  }
  TableSchema schema;
  schema.name = "k";
  schema.columns = {ColumnDef::BigInt("a", true), ColumnDef::BigInt("b"), ColumnDef::VarChar("c", 20, true),
                    ColumnDef::Timestamp("d", true), ColumnDef::BigInt("e", true)};
  schema.primary_key = {0, 1, 2, 3, 4};
  for (size_t idx = 0; idx < numbers.size(); ++idx) {
    const int64_t number = numbers[idx];
    const int64_t other = numbers[(idx * 7 + 1) % numbers.size()];
    INFO("value " << number);
    const std::string want = reference_int_key(number);
    char buffer[kMaxIntKeyBytes];
    REQUIRE(std::string(buffer, write_int_key(number, buffer)) == want);
    // NOT NULL and nullable (a 0x01 marker first) columns.
    std::string key;
    REQUIRE(append_integer_key(schema.columns[0], number, &key));
    REQUIRE(key == want);
    key.clear();
    REQUIRE(append_integer_key(schema.columns[1], number, &key));
    REQUIRE(key == "\x01" + want);
    // A composite key of integers, a text and a timestamp: by values, from
    // a Row, and from the encoded row, the same bytes.
    Row row = {Value::Int(number), Value::Int(other), Value::String(std::string("x\0y", 3)),
               Value::Int(other), Value::Int(number)};
    const std::string composite = want + "\x01" + reference_int_key(other) + std::string("x\0\xFFy\0\x01", 6) +
                                  reference_int_key(other) + want;
    std::string by_values;
    REQUIRE(append_key(schema, schema.primary_key, row, &by_values).ok());
    REQUIRE(by_values == composite);
    std::string by_row;
    REQUIRE(encode_primary_key(schema, row, &by_row).ok());
    REQUIRE(by_row == composite);
    std::string bytes;
    REQUIRE(encode_row(schema, row, &bytes).ok());
    std::string by_bytes;
    bool has_null = true;
    REQUIRE(append_row_key(schema, schema.primary_key, bytes, &by_bytes, &has_null).ok());
    REQUIRE(by_bytes == composite);
    REQUIRE(!has_null);
    // With the nullable column NULL: its marker 0x00 and nothing else.
    row[1] = Value::Null();
    const std::string with_null = want + std::string(1, '\0') + std::string("x\0\xFFy\0\x01", 6) +
                                  reference_int_key(other) + want;
    by_row.clear();
    REQUIRE(encode_primary_key(schema, row, &by_row).ok());
    REQUIRE(by_row == with_null);
    REQUIRE(encode_row(schema, row, &bytes).ok());
    by_bytes.clear();
    REQUIRE(append_row_key(schema, schema.primary_key, bytes, &by_bytes, &has_null).ok());
    REQUIRE(by_bytes == with_null);
    REQUIRE(has_null);
  }
}

TEST_CASE("nullable key columns sort NULL first") {
  TableSchema schema = all_types();
  std::string null_key = key_of(schema, 1, Value::Null());
  std::string min_key = key_of(schema, 1, Value::Int(INT32_MIN));
  REQUIRE(null_key < min_key);
}

TEST_CASE("prefix_successor bounds every extension of a prefix") {
  REQUIRE(prefix_successor("ab") == "ac");
  REQUIRE(prefix_successor(std::string("a\xff", 2)) == "b");
  REQUIRE(prefix_successor("\xff\xff").empty());
  REQUIRE(std::string("ab\xff\xff") < prefix_successor("ab"));
}

TEST_CASE("patches whose values keep every size overwrite the row in place") {
  // patch_row_spans with the row's columns known: when each new value takes
  // as many bytes as the old one (a counter, an amount, a date, a string of
  // the same length, NULL over NULL), the row is copied whole and the values
  // written over the old ones. The result and the spans must be what
  // encoding the changed row gives.
  TableSchema schema = all_types();
  Row row = {Value::Int(5),     Value::Null(),        Value::Int(-7),    Value::Int(12345),
             Value::String("ab"), Value::String("hello"), Value::String("xyz"),
             Value::Int(1),     Value::Double(0.5),   Value::Int(9)};
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).ok());
  std::vector<ColumnView> views(schema.columns.size());
  REQUIRE(decode_row_view(schema, bytes, views).ok());
  const std::vector<uint32_t> columns = {9, 0, 3, 1, 7, 8, 5, 2};
  const std::vector<Value> values = {Value::Int(-9),     Value::Int(300),  Value::Int(-5),
                                     Value::Null(),      Value::Int(2),    Value::Double(7.75),
                                     Value::String("HELLO"), Value::Int(INT64_MAX)};
  Row expected = row;
  for (size_t idx = 0; idx < columns.size(); ++idx) expected[columns[idx]] = values[idx];
  std::string want, got;
  REQUIRE(encode_row(schema, expected, &want).ok());
  REQUIRE(want.size() == bytes.size());
  std::vector<internal::PatchedColumn> spans;
  REQUIRE(internal::patch_row_spans(schema, bytes, columns, values, &got, &spans, views.data()).ok());
  REQUIRE(got == want);
  std::vector<ColumnView> changed(schema.columns.size());
  REQUIRE(decode_row_view(schema, want, changed).ok());
  REQUIRE(spans.size() == columns.size());
  uint32_t last = 0;
  for (const internal::PatchedColumn& span : spans) {
    REQUIRE((span.column >= last));  // ascending, as the redo entry wants them
    last = span.column;
    const uint32_t start = span.column == 0 ? 2 : changed[span.column - 1].end;
    REQUIRE(span.start == start);
    REQUIRE(span.end == changed[span.column].end);
    REQUIRE(span.null == (span.column == 1));
  }
  // One longer value among them: the general path, the same row again.
  std::vector<uint32_t> longer_columns = columns;
  std::vector<Value> longer_values = values;
  longer_columns.push_back(6);
  longer_values.push_back(Value::String("longer than before"));
  expected[6] = longer_values.back();
  REQUIRE(encode_row(schema, expected, &want).ok());
  REQUIRE(internal::patch_row_spans(schema, bytes, longer_columns, longer_values, &got, &spans,
                                    views.data())
              .ok());
  REQUIRE(got == want);
}

TEST_CASE("write_raw copies every size exactly, the short ones without memcpy") {
  // Sizes around each of its paths (bytes, 4-8 and 8-16 with overlapping
  // loads and stores, memcpy): every byte copied, none written past the end.
  std::string source(64, '\0');
  for (size_t idx = 0; idx < source.size(); ++idx) source[idx] = static_cast<char>(idx * 7 + 1);
  for (size_t size = 0; size <= 40; ++size) {
    std::string target(size + 16, '#');
    char* end = internal::write_raw(target.data() + 8, source.data() + 3, size);
    REQUIRE(end == target.data() + 8 + size);
    REQUIRE(target.substr(0, 8) == std::string(8, '#'));
    REQUIRE(target.substr(8, size) == source.substr(3, size));
    REQUIRE(target.substr(8 + size) == std::string(8, '#'));
  }
}

TEST_CASE("patch_decoded_row asks once for the new row's bytes and writes them all") {
  // WriteTxn::patch_columns writes the patched row straight into a new
  // record: make(size) must be called once, with the new row's size, only
  // after every check passed, and every byte it returned must be written.
  TableSchema schema = all_types();
  Row row = {Value::Int(5),       Value::Null(),          Value::Int(-7),       Value::Int(12345),
             Value::String("ab"), Value::String("hello"), Value::String("xyz"), Value::Int(1),
             Value::Double(0.5),  Value::Int(9)};
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).ok());
  std::vector<ColumnView> views(schema.columns.size());
  REQUIRE(decode_row_view(schema, bytes, views).ok());
  struct Case {
    std::vector<uint32_t> columns;
    std::vector<Value> values;
  };
  const Case cases[] = {
      {{3}, {Value::Int(54321)}},                                    // same size: copied whole
      {{6, 0}, {Value::String("a longer string"), Value::Int(-1)}},  // longer: runs copied
      {{5, 1}, {Value::Null(), Value::Int(4)}},                      // NULL in, NULL out
  };
  for (const Case& patch : cases) {
    Row expected = row;
    for (size_t idx = 0; idx < patch.columns.size(); ++idx) {
      expected[patch.columns[idx]] = patch.values[idx];
    }
    std::string want;
    REQUIRE(encode_row(schema, expected, &want).ok());
    std::string buffer;
    int calls = 0;
    std::vector<internal::PatchedColumn> spans;
    REQUIRE(internal::patch_decoded_row(
                schema, bytes, patch.columns, patch.values, views.data(),
                [&](size_t size) {
                  ++calls;
                  buffer.assign(size, '\xAA');  // no byte left as it was
                  return buffer.data();
                },
                &spans)
                .ok());
    REQUIRE(calls == 1);
    REQUIRE(buffer == want);
    REQUIRE(spans.size() == patch.columns.size());
  }
  // A refused value: nothing is asked for.
  int calls = 0;
  const uint32_t column[1] = {0};
  const Value too_big[1] = {Value::Int(1 << 20)};  // a SMALLINT
  std::vector<internal::PatchedColumn> spans;
  Status status = internal::patch_decoded_row(
      schema, bytes, column, too_big, views.data(),
      [&](size_t) -> char* {
        ++calls;
        return nullptr;
      },
      &spans);
  REQUIRE_FALSE(status.ok());
  REQUIRE(calls == 0);
  REQUIRE(spans.empty());
}

TEST_CASE("patch_row equals decode, change, encode_row") {
  TableSchema schema = all_types();
  Row row = {Value::Int(5),        Value::Null(),          Value::Int(-7),
             Value::Int(12345),    Value::String("ab"),    Value::String("hello"),
             Value::String(std::string(300, 'x')),         Value::Int(1),
             Value::Double(0.5),   Value::Int(9)};
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).ok());
  std::mt19937_64 rng(7);
  const Value replacements[] = {Value::Null(), Value::Int(3), Value::String("z"),
                                Value::String(std::string(200, 'q')), Value::Double(-1.25)};
  int patched_rows = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<uint32_t> columns;
    std::vector<Value> values;
    Row expected = row;
    for (uint32_t column = 0; column < row.size(); ++column) {
      if (rng() % 3 != 0) continue;
      columns.push_back(column);
      values.push_back(replacements[rng() % std::size(replacements)]);
      expected[column] = values.back();
    }
    std::string want, got;
    Status encoded = encode_row(schema, expected, &want);
    Status patched = patch_row(schema, bytes, columns, values, &got);
    // Exactly the values encode_row refuses are refused, with the same kind.
    REQUIRE(patched.code() == encoded.code());
    if (!encoded.ok()) continue;
    REQUIRE(got == want);
    ++patched_rows;
    // With the row's columns as decode_row_view found them (their ends say
    // where each column is; WriteTxn::patch_columns' DecodedRow): the same
    // row and the same spans as the pass over the row gives.
    std::vector<ColumnView> views(schema.columns.size());
    REQUIRE(decode_row_view(schema, bytes, views).ok());
    REQUIRE(views.back().end == bytes.size());
    std::string hinted;
    std::vector<internal::PatchedColumn> spans, hinted_spans;
    REQUIRE(internal::patch_row_spans(schema, bytes, columns, values, &got, &spans).ok());
    REQUIRE(internal::patch_row_spans(schema, bytes, columns, values, &hinted, &hinted_spans,
                                      views.data())
                .ok());
    REQUIRE(hinted == want);
    REQUIRE(hinted_spans.size() == spans.size());
    for (size_t idx = 0; idx < spans.size(); ++idx) {
      REQUIRE(hinted_spans[idx].column == spans[idx].column);
      REQUIRE(hinted_spans[idx].start == spans[idx].start);
      REQUIRE(hinted_spans[idx].end == spans[idx].end);
      REQUIRE(hinted_spans[idx].null == spans[idx].null);
    }
    // The same patches in another order, after earlier values for some of
    // their columns (up to 20 patches in all, more than patch_row_spans
    // sorts in place): a column given twice takes its last value.
    if (columns.empty()) continue;
    std::vector<uint32_t> mixed_columns;
    std::vector<Value> mixed_values;
    size_t earlier = trial % 8 == 0 ? 20 - columns.size() : trial % 2;
    while (mixed_columns.size() < earlier) {
      uint32_t column = columns[rng() % columns.size()];
      const Value& value = replacements[rng() % std::size(replacements)];
      if (!check_value(schema.columns[column], value).ok()) continue;
      mixed_columns.push_back(column);
      mixed_values.push_back(value);
    }
    std::vector<size_t> order(columns.size());
    for (size_t idx = 0; idx < order.size(); ++idx) order[idx] = idx;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t idx : order) {
      mixed_columns.push_back(columns[idx]);
      mixed_values.push_back(values[idx]);
    }
    std::string mixed;
    REQUIRE(patch_row(schema, bytes, mixed_columns, mixed_values, &mixed).ok());
    REQUIRE(mixed == want);
    // With the decoded columns too: the sizes summed in the first pass count
    // the earlier values of repeated columns, which must not decide the row.
    std::string mixed_hinted;
    std::vector<internal::PatchedColumn> mixed_spans;
    REQUIRE(internal::patch_row_spans(schema, bytes, mixed_columns, mixed_values, &mixed_hinted,
                                      &mixed_spans, views.data())
                .ok());
    REQUIRE(mixed_hinted == want);
  }
  REQUIRE(patched_rows > 20);
  std::string out;
  uint32_t bad_column[1] = {10};
  Value one[1] = {Value::Int(1)};
  REQUIRE(patch_row(schema, bytes, bad_column, one, &out).IsInvalidArgument());
  uint32_t first[1] = {0};
  REQUIRE(patch_row(schema, bytes.substr(0, bytes.size() - 1), first, one, &out).IsInvalidArgument());
  REQUIRE(patch_row(schema, bytes + "z", first, one, &out).IsInvalidArgument());
}

TEST_CASE("column patches: applying the diff of two rows gives the new row") {
  TableSchema schema = all_types();
  const Value choices[][3] = {
      {Value::Int(5), Value::Null(), Value::Int(-300)},           // a: smallint
      {Value::Int(1), Value::Null(), Value::Int(70000)},          // b: integer
      {Value::Int(-7), Value::Null(), Value::Int(1LL << 40)},     // c: bigint
      {Value::Int(12345), Value::Null(), Value::Int(1)},          // d: decimal
      {Value::String("ab"), Value::Null(), Value::String("abcd")},
      {Value::String(""), Value::Null(), Value::String("0123456789")},
      {Value::String(std::string(300, 'x')), Value::Null(), Value::String("g")},
      {Value::Int(1), Value::Null(), Value::Int(2)},              // h: timestamp
      {Value::Double(0.5), Value::Null(), Value::Double(-1e9)},
      {Value::Int(9), Value::Int(10), Value::Int(11)},            // j: NOT NULL key
  };
  std::mt19937_64 rng(11);
  auto random_row = [&]() {
    Row row(schema.columns.size());
    for (size_t column = 0; column < row.size(); ++column) row[column] = choices[column][rng() % 3];
    return row;
  };
  int patches = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string old_bytes, new_bytes;
    Row old_row = random_row();
    Row new_row = old_row;
    for (size_t column = 0; column < new_row.size(); ++column) {
      if (rng() % 4 == 0) new_row[column] = choices[column][rng() % 3];
    }
    REQUIRE(encode_row(schema, old_row, &old_bytes).ok());
    REQUIRE(encode_row(schema, new_row, &new_bytes).ok());
    std::string patch = "prefix";
    bool made = internal::append_column_patch(schema, old_bytes, new_bytes, &patch);
    REQUIRE(made == (old_bytes != new_bytes));
    if (!made) {
      REQUIRE(patch == "prefix");
      continue;
    }
    ++patches;
    std::string applied;
    std::vector<uint32_t> columns;
    size_t used = 0;
    patch += "trailing entries";
    std::string_view body = std::string_view(patch).substr(6);
    REQUIRE(internal::apply_column_patch(schema, old_bytes, body, &applied, &columns, &used).ok());
    REQUIRE(applied == new_bytes);
    REQUIRE(body.substr(used) == "trailing entries");
    // Exactly the columns whose values differ, ascending.
    std::vector<uint32_t> differing;
    for (uint32_t column = 0; column < new_row.size(); ++column) {
      if (!(old_row[column] == new_row[column])) differing.push_back(column);
    }
    REQUIRE(columns == differing);
    // Given the list (here with a repeat and one unchanged column more), the
    // patch holds those columns and applies to the same row.
    std::vector<uint32_t> listed = differing;
    listed.push_back(differing.front());
    uint32_t extra = static_cast<uint32_t>(rng() % new_row.size());
    listed.insert(listed.begin(), extra);
    std::string listed_patch;
    REQUIRE(internal::append_listed_column_patch(schema, new_bytes, listed, &listed_patch));
    REQUIRE(internal::apply_column_patch(schema, old_bytes, listed_patch, &applied, &columns, &used).ok());
    REQUIRE(applied == new_bytes);
    REQUIRE(used == listed_patch.size());
    // patch_row_spans with the list's values: the same row, and from its
    // spans the same patch as append_listed_column_patch (repeats once).
    std::vector<Value> listed_values;
    for (uint32_t column : listed) listed_values.push_back(new_row[column]);
    std::string spans_row;
    std::vector<internal::PatchedColumn> spans;
    REQUIRE(internal::patch_row_spans(schema, old_bytes, listed, listed_values, &spans_row, &spans).ok());
    REQUIRE(spans_row == new_bytes);
    std::string spans_patch;
    REQUIRE(internal::append_spans_column_patch(spans_row, spans, &spans_patch));
    REQUIRE(spans_patch == listed_patch);
    REQUIRE(internal::rows_differ_only_in(schema, old_bytes, new_bytes, listed));
    REQUIRE(internal::rows_differ_only_in(schema, old_bytes, new_bytes, differing));
    if (differing.size() > 1) {
      std::vector<uint32_t> short_list(differing.begin() + 1, differing.end());
      REQUIRE(!internal::rows_differ_only_in(schema, old_bytes, new_bytes, short_list));
    }
  }
  REQUIRE(patches > 1000);
  std::string unchanged;
  const uint32_t none[1] = {10};
  REQUIRE(!internal::append_listed_column_patch(schema, "\0\0", none, &unchanged));
  REQUIRE(unchanged.empty());
}

TEST_CASE("column patches: a malformed patch is refused, never half applied") {
  TableSchema schema = all_types();
  Row row = {Value::Int(5),     Value::Int(1),         Value::Int(-7),  Value::Int(12345),
             Value::String("ab"), Value::String("hi"), Value::String("text"), Value::Int(1),
             Value::Double(0.5), Value::Int(9)};
  std::string old_bytes;
  REQUIRE(encode_row(schema, row, &old_bytes).ok());
  std::string applied;
  std::vector<uint32_t> columns;
  size_t used = 0;
  auto refused = [&](std::string_view patch) {
    Status status = internal::apply_column_patch(schema, old_bytes, patch, &applied, &columns, &used);
    INFO(status.ToString());
    return status.IsCorruption();
  };
  using namespace std::string_literals;
  // count | column | null flag | bytes
  REQUIRE(!refused("\x01\x01\x00\x07\x00\x00\x00"s));        // b := 7: sound
  REQUIRE(refused(""s));                                     // no count
  REQUIRE(refused("\x00"s));                                 // no column
  REQUIRE(refused("\x0B"s));                                 // more columns than the table
  REQUIRE(refused("\x01\x0A\x00\x07\x00\x00\x00"s));        // column 10 of 10
  REQUIRE(refused("\x01\x01\x02\x07\x00\x00\x00"s));        // null flag 2
  REQUIRE(refused("\x01\x01\x00\x07\x00"s));                 // integer cut short
  REQUIRE(refused("\x01\x05\x00\x05hi"s));                   // string longer than the bytes
  REQUIRE(refused("\x01\x09\x01"s));                         // NULL into NOT NULL j
  REQUIRE(refused("\x02\x02\x01\x01\x01"s));                 // columns not ascending
  REQUIRE(refused("\x02\x01\x01"s));                         // second column missing
  REQUIRE(refused("\x01\x01\x00\x07\x00\x00\x00"s.substr(0, 3)));
  // A stored row that is not a row of the table.
  Status bad_row = internal::apply_column_patch(schema, old_bytes.substr(0, old_bytes.size() - 1),
                                                "\x01\x01\x00\x07\x00\x00\x00"s, &applied, &columns,
                                                &used);
  REQUIRE(bad_row.IsCorruption());
}

TEST_CASE("column patches of more than 127 columns: the count takes two bytes") {
  TableSchema schema;
  schema.name = "wide";
  for (int column = 0; column < 200; ++column) {
    schema.columns.push_back(ColumnDef::BigInt("c" + std::to_string(column), column == 0));
  }
  schema.primary_key = {0};
  Row old_row, new_row;
  for (int column = 0; column < 200; ++column) {
    old_row.push_back(Value::Int(column));
    new_row.push_back(column == 0 ? Value::Int(0) : Value::Int(column * 1000));
  }
  std::string old_bytes, new_bytes;
  REQUIRE(encode_row(schema, old_row, &old_bytes).ok());
  REQUIRE(encode_row(schema, new_row, &new_bytes).ok());
  std::vector<uint32_t> listed;
  for (uint32_t column = 1; column < 200; ++column) listed.push_back(column);
  std::string diffed, from_list;
  REQUIRE(internal::append_column_patch(schema, old_bytes, new_bytes, &diffed));
  REQUIRE(internal::append_listed_column_patch(schema, new_bytes, listed, &from_list));
  REQUIRE(diffed == from_list);
  REQUIRE(static_cast<uint8_t>(diffed[0]) == ((199 & 0x7F) | 0x80));  // 199 as a 2-byte varint
  std::string applied;
  std::vector<uint32_t> columns;
  size_t used = 0;
  REQUIRE(internal::apply_column_patch(schema, old_bytes, diffed, &applied, &columns, &used).ok());
  REQUIRE(applied == new_bytes);
  REQUIRE(columns == listed);
  REQUIRE(used == diffed.size());
}

// BOOLEAN (session 48): one byte, 0 or 1, keyed as an integer (false sorts
// before true); the type number is new, so a log or checkpoint record names
// it and a build before it refuses the record rather than misread it.
TEST_CASE("a BOOLEAN column is one byte holding 0 or 1, keyed false before true") {
  TableSchema schema{
      "flags",
      {ColumnDef::Integer("k", true), ColumnDef::Boolean("f"), ColumnDef::Boolean("g", true)},
      {0}};
  REQUIRE(validate_schema(schema).ok());
  REQUIRE(type_name(Type::kBoolean) == "BOOLEAN");
  const Row row = {Value::Int(7), Value::Null(), Value::Int(1)};
  std::string bytes;
  REQUIRE(encode_row(schema, row, &bytes).ok());
  REQUIRE(bytes.size() == 1 + 4 + 1);  // the NULL bitmap, k, g (a NULL takes no bytes)
  Row back;
  REQUIRE(decode_row(schema, bytes, &back).ok());
  REQUIRE(back == row);
  REQUIRE(decode_column(schema, bytes, 2) == Value::Int(1));
  for (int64_t number : {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{2}, int64_t{256}}) {
    const bool fits = number == 0 || number == 1;
    INFO("value " << number);
    REQUIRE(check_value(schema.columns[1], Value::Int(number)).ok() == fits);
    REQUIRE(value_fits(schema.columns[1], Value::Int(number)) == fits);
  }
  REQUIRE(!check_value(schema.columns[1], Value::String("t")).ok());
  REQUIRE(!value_fits(schema.columns[1], Value::Double(1)));
  REQUIRE(!check_value(schema.columns[2], Value::Null()).ok());

  // The builder writes what encode_row writes, and refuses 2 without writing.
  std::string built;
  RowBuilder builder;
  builder.start(schema, &built);
  REQUIRE(builder.add_int(7));
  REQUIRE(!builder.add_int(2));
  REQUIRE(builder.add_int(0));
  REQUIRE(builder.add_int(1));
  REQUIRE(builder.finish().ok());
  REQUIRE(encode_row(schema, {Value::Int(7), Value::Int(0), Value::Int(1)}, &bytes).ok());
  REQUIRE(builder.row() == bytes);

  REQUIRE(key_of(schema, 1, Value::Int(0)) < key_of(schema, 1, Value::Int(1)));
  REQUIRE(key_of(schema, 1, Value::Null()) < key_of(schema, 1, Value::Int(0)));

  // A log or checkpoint record's table: the type survives; a number past
  // the last type is refused.
  std::string record;
  internal::put_table_schema(&record, schema);
  internal::ByteReader reader{record};
  TableSchema read;
  REQUIRE(internal::get_table_schema(&reader, &read));
  REQUIRE(read.columns[1].type == Type::kBoolean);
  REQUIRE(read.columns[2].not_null);
  const size_t type_at = record.find(std::string("\x01"
                                                 "f",
                                                 2)) +
                         2;  // after "f"'s length and name
  REQUIRE(static_cast<uint8_t>(record[type_at]) == static_cast<uint8_t>(Type::kBoolean));
  record[type_at] = static_cast<char>(static_cast<uint8_t>(Type::kBoolean) + 1);
  internal::ByteReader bad{record};
  REQUIRE(!internal::get_table_schema(&bad, &read));
}
