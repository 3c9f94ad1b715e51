// Errors of the SQL layer: a user's mistake is a value, never an exception
// or a crash. See sql/README.md, "Errors".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace solo::sql {

// A position in SQL text. line and column are 1-based; column counts
// characters (UTF-8 code points) from the start of the line, a tab counting
// as one; offset is the byte offset from the start of the text.
// A default-constructed SourcePos (line 0) means "no position".
struct SourcePos {
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t offset = 0;

  bool valid() const { return line != 0; }
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

// The SQLSTATE classes the SQL layer reports, with PostgreSQL's codes so that
// the same .test files hold for solo and PostgreSQL. SqlStateCode() gives the
// five-character code.
enum class SqlState : uint8_t {
  kSyntaxError,                   // 42601
  kUndefinedTable,                // 42P01
  kUndefinedColumn,               // 42703
  kUndefinedFunction,             // 42883
  kUndefinedObject,               // 42704 (e.g. an index)
  kUndefinedParameter,            // 42P02
  kDuplicateTable,                // 42P07 (a table or an index)
  kDuplicateColumn,               // 42701
  kDuplicateAlias,                // 42712 (a FROM name or WITH query name given twice)
  kAmbiguousColumn,               // 42702
  kGroupingError,                 // 42803
  kDatatypeMismatch,              // 42804
  kInvalidTableDefinition,        // 42P16 (e.g. two primary keys)
  kIndeterminateDatatype,         // 42P18
  kUniqueViolation,               // 23505
  kNotNullViolation,              // 23502
  kNumericValueOutOfRange,        // 22003
  kDivisionByZero,                // 22012
  kStringDataRightTruncation,     // 22001
  kInvalidTextRepresentation,     // 22P02
  kInvalidParameterValue,         // 22023
  kSubstringError,                // 22011 (a negative SUBSTR length)
  kDatetimeFieldOverflow,         // 22008 (e.g. February 30th)
  kInvalidDatetimeFormat,         // 22007 (text that is no timestamp)
  kInvalidColumnReference,        // 42P10 (e.g. a column in LIMIT)
  kCardinalityViolation,          // 21000 (a scalar subquery gave two rows)
  kActiveSqlTransaction,          // 25001 (BEGIN inside a transaction)
  kNoActiveSqlTransaction,        // 25P01
  kInFailedSqlTransaction,        // 25P02
  kIdleInTransactionTimeout,      // 25P03
  kFeatureNotSupported,           // 0A000
  kStatementTooComplex,           // 54001 (nesting deeper than the parser allows)
  kProgramLimitExceeded,          // 54000
  kObjectNotInPrerequisiteState,  // 55000 (a plan whose schema changed)
  kInvalidEscapeSequence,         // 22025 (a LIKE pattern ending in its escape)
  kCharacterNotInRepertoire,      // 22021 (text that is not UTF-8, or a NUL byte)
  kTooManyColumns,                // 54011 (a table of more than 1,600 columns)
  kInsufficientPrivilege,         // 42501 (changing a system table)
  kQueryCanceled,                 // 57014 (the caller's cancel flag was set)
  kInternalError,                 // XX000
};

// Returns the five-character SQLSTATE of state, e.g. "42601".
std::string_view SqlStateCode(SqlState state);

// Returns the SqlState whose code is code, or nullopt for a code the SQL layer
// does not report.
std::optional<SqlState> SqlStateFromCode(std::string_view code);

// A user-visible error: a SQLSTATE, a message in lower case without a final
// period (PostgreSQL's style), and the position of the problem in the
// statement text (invalid when the error has no position, e.g. a constraint
// violation found at execution).
class SqlError {
 public:
  SqlError(SqlState state, std::string message, SourcePos pos = {})
      : state_(state), message_(std::move(message)), pos_(pos) {}

  SqlState state() const { return state_; }
  std::string_view code() const { return SqlStateCode(state_); }
  const std::string& message() const { return message_; }
  SourcePos pos() const { return pos_; }

  // One line: "42601 at 1:1: syntax error at or near \"SELEC\"" (without the
  // " at L:C" part when there is no position).
  std::string ToString() const;

 private:
  SqlState state_;
  std::string message_;
  SourcePos pos_;
};

// The most characters of the error's line that FormatError shows, and of
// those at most kErrorContextBefore before the error's column.
inline constexpr size_t kMaxErrorContext = 120;
inline constexpr size_t kErrorContextBefore = 80;

// Renders error for a person, given the SQL text it was found in:
//
//   ERROR 42601: syntax error at or near "SELEC"
//   LINE 1:1: SELEC 1
//             ^
//
// The caret sits under the error's column (tabs in the line are kept so that
// it lines up). A line longer than kMaxErrorContext characters is cut to that
// many around the column, with "..." where it was cut (the caret still under
// the column). Without a valid position, or when the position is outside sql,
// only the first line is printed. The result ends with a newline. A
// source_name (e.g. the file the SQL was read from) goes before the line
// number: "LINE setup.sql:4:3: ...".
std::string FormatError(const SqlError& error, std::string_view sql,
                        std::string_view source_name = {});

}  // namespace solo::sql
