#include "solo/sql/error.h"

#include <fmt/format.h>

#include <array>

namespace solo::sql {
namespace {

struct StateEntry {
  SqlState state;
  std::string_view code;
};

// Indexed by SqlState; the static_assert below keeps it complete.
constexpr std::array kStateTable = {
    StateEntry{SqlState::kSyntaxError, "42601"},
    StateEntry{SqlState::kUndefinedTable, "42P01"},
    StateEntry{SqlState::kUndefinedColumn, "42703"},
    StateEntry{SqlState::kUndefinedFunction, "42883"},
    StateEntry{SqlState::kUndefinedObject, "42704"},
    StateEntry{SqlState::kUndefinedParameter, "42P02"},
    StateEntry{SqlState::kDuplicateTable, "42P07"},
    StateEntry{SqlState::kDuplicateColumn, "42701"},
    StateEntry{SqlState::kAmbiguousColumn, "42702"},
    StateEntry{SqlState::kGroupingError, "42803"},
    StateEntry{SqlState::kDatatypeMismatch, "42804"},
    StateEntry{SqlState::kInvalidTableDefinition, "42P16"},
    StateEntry{SqlState::kIndeterminateDatatype, "42P18"},
    StateEntry{SqlState::kUniqueViolation, "23505"},
    StateEntry{SqlState::kNotNullViolation, "23502"},
    StateEntry{SqlState::kNumericValueOutOfRange, "22003"},
    StateEntry{SqlState::kDivisionByZero, "22012"},
    StateEntry{SqlState::kStringDataRightTruncation, "22001"},
    StateEntry{SqlState::kInvalidTextRepresentation, "22P02"},
    StateEntry{SqlState::kInvalidParameterValue, "22023"},
    StateEntry{SqlState::kSubstringError, "22011"},
    StateEntry{SqlState::kDatetimeFieldOverflow, "22008"},
    StateEntry{SqlState::kInvalidColumnReference, "42P10"},
    StateEntry{SqlState::kCardinalityViolation, "21000"},
    StateEntry{SqlState::kActiveSqlTransaction, "25001"},
    StateEntry{SqlState::kNoActiveSqlTransaction, "25P01"},
    StateEntry{SqlState::kInFailedSqlTransaction, "25P02"},
    StateEntry{SqlState::kIdleInTransactionTimeout, "25P03"},
    StateEntry{SqlState::kFeatureNotSupported, "0A000"},
    StateEntry{SqlState::kStatementTooComplex, "54001"},
    StateEntry{SqlState::kProgramLimitExceeded, "54000"},
    StateEntry{SqlState::kObjectNotInPrerequisiteState, "55000"},
    StateEntry{SqlState::kInvalidEscapeSequence, "22025"},
    StateEntry{SqlState::kCharacterNotInRepertoire, "22021"},
    StateEntry{SqlState::kTooManyColumns, "54011"},
    StateEntry{SqlState::kInsufficientPrivilege, "42501"},
    StateEntry{SqlState::kInternalError, "XX000"},
};
static_assert(kStateTable.size() == static_cast<size_t>(SqlState::kInternalError) + 1);

constexpr bool TableIsIndexedByState() {
  for (size_t idx = 0; idx < kStateTable.size(); ++idx) {
    if (static_cast<size_t>(kStateTable[idx].state) != idx) return false;
  }
  return true;
}
static_assert(TableIsIndexedByState());

// Returns the byte range [begin, end) of the line that holds offset.
std::pair<size_t, size_t> LineAround(std::string_view sql, size_t offset) {
  size_t newline_before = offset == 0 ? std::string_view::npos : sql.rfind('\n', offset - 1);
  size_t begin = newline_before == std::string_view::npos ? 0 : newline_before + 1;
  size_t end = sql.find('\n', offset);
  if (end == std::string_view::npos) end = sql.size();
  if (end > begin && sql[end - 1] == '\r') --end;
  return {begin, end};
}

}  // namespace

std::string_view SqlStateCode(SqlState state) {
  return kStateTable[static_cast<size_t>(state)].code;
}

std::optional<SqlState> SqlStateFromCode(std::string_view code) {
  for (const StateEntry& entry : kStateTable) {
    if (entry.code == code) return entry.state;
  }
  return std::nullopt;
}

std::string SqlError::ToString() const {
  if (!pos_.valid()) return fmt::format("{}: {}", code(), message_);
  return fmt::format("{} at {}:{}: {}", code(), pos_.line, pos_.column, message_);
}

std::string FormatError(const SqlError& error, std::string_view sql, std::string_view source_name) {
  std::string out = fmt::format("ERROR {}: {}\n", error.code(), error.message());
  const SourcePos pos = error.pos();
  if (!pos.valid() || pos.offset > sql.size()) return out;
  auto [line_begin, line_end] = LineAround(sql, pos.offset);
  std::string_view line = sql.substr(line_begin, line_end - line_begin);
  std::string prefix = source_name.empty()
                           ? fmt::format("LINE {}:{}: ", pos.line, pos.column)
                           : fmt::format("LINE {}:{}:{}: ", source_name, pos.line, pos.column);
  out += prefix;
  out += line;
  out += '\n';
  // The caret line: a space under each code point of the prefix, then the
  // line's own characters up to the column, tabs kept and every other code
  // point as one space.
  std::string caret;
  for (char ch : prefix) {
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) caret += ' ';
  }
  size_t caret_end = std::min(static_cast<size_t>(pos.offset), line_end);
  for (size_t idx = line_begin; idx < caret_end; ++idx) {
    unsigned char byte = static_cast<unsigned char>(sql[idx]);
    if (byte == '\t') {
      caret += '\t';
    } else if ((byte & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      caret += ' ';
    }
  }
  caret += "^\n";
  out += caret;
  return out;
}

}  // namespace solo::sql
