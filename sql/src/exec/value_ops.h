// Operations on sql::Value for the executor: comparison, arithmetic with
// exact decimals (overflow 22003, division by zero 22012), casts and the
// conversions between SQL values and the engine's column values.
// Errors are thrown as ExecFailure (see exec_failure.h), caught at the
// statement's boundary. All functions are pure: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "solo/codec.h"
#include "solo/schema.h"
#include "solo/sql/ast.h"
#include "solo/sql/error.h"
#include "solo/sql/value.h"

namespace solo::sql {

// An error that ends the execution of one statement. Thrown only inside the
// SQL layer and caught where a statement's execution starts.
struct ExecFailure {
  SqlError error;
};
[[noreturn]] void ThrowSql(SqlState state, std::string message, SourcePos pos = {});

inline constexpr int kMaxDecimalScale = 18;
extern const int64_t kPow10[19];

bool IsNumeric(const Value& value);
// Three-way comparison of two non-NULL values: <0, 0, >0. Numbers compare by
// value across kinds; text with a number, timestamp or boolean is
// converted first (22P02 if it cannot be); other mixes are 42883.
int CompareValues(const Value& left, const Value& right, SourcePos pos = {});

// Binary arithmetic on non-NULL values into *out.
void Arithmetic(BinaryOp op, const Value& left, const Value& right, Value* out, SourcePos pos);
void Negate(const Value& operand, Value* out, SourcePos pos);
// (lu / 10^ls) / (ru / 10^rs) as a decimal into *out, ru != 0: 6 more
// fraction digits than the wider operand (at most 18), fewer where the
// result would not fit 64 bits; 22003 if even no fraction does. Division's
// numeric case, and AVG's over a 128-bit sum.
void DivideDecimal(__int128 lu, int ls, __int128 ru, int rs, Value* out, SourcePos pos);
// left || right, both non-NULL (any kinds, printed as text).
void Concat(const Value& left, const Value& right, Value* out);

// Rescales units from one scale to another, rounding half away from zero.
// Returns false on overflow.
bool Rescale(int64_t units, int from_scale, int to_scale, int64_t* out);
// Parses a numeric literal as written ("42", "1.50", ".5", "1e3"), negated
// if `negative` (so that -9223372036854775808 is a BIGINT although
// 9223372036854775808 is not). 22003 if it does not fit.
Value ParseNumber(std::string_view text, SourcePos pos, bool negative = false);
// Parses text as a number for a cast or comparison ("  -12.5 "); 22P02 if not
// one, "invalid input syntax for type <type_name>" (PostgreSQL names the type
// the text was read as: "integer" for an INTEGER column).
Value ParseNumericText(std::string_view text, SourcePos pos,
                       std::string_view type_name = "numeric");

// Parses text as a BOOLEAN, as PostgreSQL's boolean input does: 't',
// 'true', 'y', 'yes', 'on', '1' and 'f', 'false', 'n', 'no', 'off', '0', in
// any case, with white space around them, and prefixes of true, false, yes
// and no ('tr', 'fa'; 'of' for off). 22P02 "invalid input syntax for type
// boolean" for anything else (also '', 'o').
Value ParseBoolText(std::string_view text, SourcePos pos);

// PostgreSQL's name of a type in its messages ("character varying",
// "double precision").
std::string_view PgTypeName(Type type);

// The engine column type of a SQL type name (see sql/README.md "Types").
// Throws 0A000/22023 for what the engine cannot store.
solo::ColumnDef ColumnForType(const TypeName& type);

// CAST(value AS column's type): rounds, truncates strings to the length
// (PostgreSQL), 22003 out of range, 22P02 bad text.
void CastValue(const Value& value, const solo::ColumnDef& column, Value* out, SourcePos pos);

// Converts a SQL value for storing in `column` (assignment): like CastValue,
// but text longer than the column is 22001 and NULL into NOT NULL is 23502.
void ToEngine(const Value& value, const solo::ColumnDef& column, solo::Value* out);
// ToEngine written straight into a row being built: appends `value`,
// converted, as the builder's next column (`column`). Throws what ToEngine
// throws; false (nothing appended) if the converted value does not fit the
// column (then ToEngine and solo::check_value on it say why).
bool AppendToRowSlow(const Value& value, const solo::ColumnDef& column, solo::RowBuilder* row);
inline bool IsIntegerColumn(const solo::ColumnDef& column) {
  return column.type == solo::Type::kBigInt || column.type == solo::Type::kInteger ||
         column.type == solo::Type::kSmallInt;
}
// The commonest case, an integer into an integer column (TPC-C's keys and
// counts), inline; the rest out of line (its string and conversion paths
// made every call pay for saving registers).
inline bool AppendToRow(const Value& value, const solo::ColumnDef& column, solo::RowBuilder* row) {
  if (value.kind() == ValueKind::kInt && IsIntegerColumn(column) && row->add_int(value.as_int())) {
    return true;
  }
  return AppendToRowSlow(value, column, row);
}
// The SQL value of an engine column value.
void FromEngine(const solo::Value& value, const solo::ColumnDef& column, Value* out);
// The same for a column read in place (decode_row_view); reuses out's text
// buffer. The columns stored as integers inline, as for AppendToRow.
void FromEngineSlow(const solo::ColumnView& value, const solo::ColumnDef& column, Value* out);
inline void FromEngine(const solo::ColumnView& value, const solo::ColumnDef& column, Value* out) {
  if (value.kind == solo::Value::Kind::kInt) {
    switch (column.type) {
      case solo::Type::kSmallInt:
      case solo::Type::kInteger:
      case solo::Type::kBigInt:
        out->SetInt(value.int_value);
        return;
      case solo::Type::kDecimal:
        out->SetDecimal(value.int_value, column.scale);
        return;
      case solo::Type::kTimestamp:
        out->SetTimestamp(value.int_value);
        return;
      default:
        break;
    }
  }
  FromEngineSlow(value, column, out);
}

// CHAR(n), PostgreSQL's bpchar: a value is held without its trailing spaces
// (stored so, and so in keys: 'ab' and 'ab ' are one key), which is what
// comparing bpchar values and converting one to text give; it is padded to n
// characters where PostgreSQL's padded value shows (see sql/README.md
// "CHAR(n)"). BpcharStripped returns text without its trailing spaces;
// PadBpchar pads *text with spaces to `length` UTF-8 characters (a longer
// text is left as it is).
inline std::string_view BpcharStripped(std::string_view text) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == ' ') --end;
  return text.substr(0, end);
}
void PadBpchar(uint32_t length, std::string* text);

// Appends a byte string that is equal for equal values (numbers of any kind
// compare by value), for hashing in GROUP BY, DISTINCT and IN.
void AppendHashKey(const Value& value, std::string* out);

// LIKE with % and _ and an escape character: `escape` holds one UTF-8
// character's bytes, or is empty for none (ESCAPE ''). The escaped character
// is matched literally, whole. The pattern must not end with an unescaped
// escape (LikePatternEndsInEscape).
bool Like(std::string_view text, std::string_view pattern, std::string_view escape);
// True if pattern ends with an escape character that escapes nothing, which
// PostgreSQL refuses (22025) whatever the text.
bool LikePatternEndsInEscape(std::string_view pattern, std::string_view escape);
// True if text is empty or one UTF-8 character: what ESCAPE takes
// (PostgreSQL: 22025 "invalid escape string" otherwise).
bool IsLikeEscape(std::string_view text);

}  // namespace solo::sql
