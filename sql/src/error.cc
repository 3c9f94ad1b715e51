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
    StateEntry{SqlState::kDuplicateAlias, "42712"},
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
    StateEntry{SqlState::kInvalidDatetimeFormat, "22007"},
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
    StateEntry{SqlState::kQueryCanceled, "57014"},
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

bool IsCharacterStart(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
}

// The byte where the character `count` characters before `from` starts, but
// not before `limit` (characters: bytes that are no UTF-8 continuation byte).
size_t CharactersBack(std::string_view text, size_t from, size_t limit, size_t count) {
  size_t at = from;
  for (; count > 0 && at > limit; --count) {
    --at;
    while (at > limit && !IsCharacterStart(text[at])) --at;
  }
  return at;
}

// The byte `count` characters after `from`, but not past `limit`.
size_t CharactersForward(std::string_view text, size_t from, size_t limit, size_t count) {
  size_t at = from;
  for (; count > 0 && at < limit; --count) {
    ++at;
    while (at < limit && !IsCharacterStart(text[at])) ++at;
  }
  return at;
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
  size_t caret_at = std::min(static_cast<size_t>(pos.offset), line_end);
  // A long line (a whole script or a 10 MB INSERT on one line) is cut to a
  // window of kMaxErrorContext characters around the position, each cut
  // marked "...", rather than printed whole.
  size_t shown_begin = line_begin;
  size_t shown_end = line_end;
  if (CharactersForward(sql, line_begin, line_end, kMaxErrorContext) < line_end) {
    shown_begin = CharactersBack(sql, caret_at, line_begin, kErrorContextBefore);
    shown_end = CharactersForward(sql, shown_begin, line_end, kMaxErrorContext);
    // Near the line's end: the window ends there and starts earlier instead.
    if (shown_end == line_end) {
      shown_begin = CharactersBack(sql, line_end, line_begin, kMaxErrorContext);
    }
  }
  constexpr std::string_view kCut = "...";
  std::string_view line = sql.substr(shown_begin, shown_end - shown_begin);
  std::string prefix = source_name.empty()
                           ? fmt::format("LINE {}:{}: ", pos.line, pos.column)
                           : fmt::format("LINE {}:{}:{}: ", source_name, pos.line, pos.column);
  out += prefix;
  if (shown_begin > line_begin) out += kCut;
  out += line;
  if (shown_end < line_end) out += kCut;
  out += '\n';
  // The caret line: a space under each code point of the prefix (and of a
  // leading "..."), then the line's own characters up to the column, tabs
  // kept and every other code point as one space.
  std::string caret;
  for (char ch : prefix) {
    if (IsCharacterStart(ch)) caret += ' ';
  }
  if (shown_begin > line_begin) caret.append(kCut.size(), ' ');
  for (size_t idx = shown_begin; idx < caret_at; ++idx) {
    unsigned char byte = static_cast<unsigned char>(sql[idx]);
    if (byte == '\t') {
      caret += '\t';
    } else if (IsCharacterStart(static_cast<char>(byte))) {
      caret += ' ';
    }
  }
  caret += "^\n";
  out += caret;
  return out;
}

}  // namespace solo::sql
