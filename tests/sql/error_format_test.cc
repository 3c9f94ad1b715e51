#include <catch2/catch.hpp>

#include "solo/sql/error.h"
#include "solo/sql/parser.h"

namespace solo::sql {
namespace {

TEST_CASE("error: every state has a distinct five-character code", "[error]") {
  for (int idx = 0; idx <= static_cast<int>(SqlState::kInternalError); ++idx) {
    auto state = static_cast<SqlState>(idx);
    std::string_view code = SqlStateCode(state);
    CHECK(code.size() == 5);
    REQUIRE(SqlStateFromCode(code).has_value());
    CHECK(*SqlStateFromCode(code) == state);
  }
  CHECK(SqlStateCode(SqlState::kSyntaxError) == "42601");
  CHECK(SqlStateCode(SqlState::kUndefinedTable) == "42P01");
  CHECK(SqlStateCode(SqlState::kUndefinedColumn) == "42703");
  CHECK(SqlStateCode(SqlState::kUniqueViolation) == "23505");
  CHECK(SqlStateCode(SqlState::kNotNullViolation) == "23502");
  CHECK(SqlStateCode(SqlState::kNumericValueOutOfRange) == "22003");
  CHECK(SqlStateCode(SqlState::kDivisionByZero) == "22012");
  CHECK(SqlStateCode(SqlState::kInFailedSqlTransaction) == "25P02");
  CHECK(SqlStateCode(SqlState::kQueryCanceled) == "57014");
  CHECK(SqlStateFromCode("57014") == SqlState::kQueryCanceled);
  CHECK_FALSE(SqlStateFromCode("99999").has_value());
}

TEST_CASE("error: ToString has code, position and message", "[error]") {
  CHECK(SqlError(SqlState::kSyntaxError, "boom", {2, 5, 9}).ToString() == "42601 at 2:5: boom");
  CHECK(SqlError(SqlState::kUniqueViolation, "dup").ToString() == "23505: dup");
}

TEST_CASE("error: FormatError puts a caret under the column", "[error]") {
  SqlError error(SqlState::kSyntaxError, "syntax error at or near \"SELEC\"", {1, 1, 0});
  CHECK(FormatError(error, "SELEC 1") ==
        "ERROR 42601: syntax error at or near \"SELEC\"\n"
        "LINE 1:1: SELEC 1\n"
        "          ^\n");
}

TEST_CASE("error: FormatError shows only the offending line of many", "[error]") {
  std::string sql = "SELECT a,\n       b +\n       FROM t";
  SqlError error(SqlState::kSyntaxError, "x", {3, 8, 28});
  CHECK(FormatError(error, sql) ==
        "ERROR 42601: x\n"
        "LINE 3:8:        FROM t\n"
        "                 ^\n");
}

TEST_CASE("error: FormatError keeps tabs and counts UTF-8 characters", "[error]") {
  // "\t'é' +" then the error at "+": column 6, byte offset 6.
  std::string sql = "\t'\xC3\xA9' + ";
  SqlError error(SqlState::kSyntaxError, "x", {1, 6, 6});
  CHECK(FormatError(error, sql) ==
        "ERROR 42601: x\n"
        "LINE 1:6: \t'\xC3\xA9' + \n"
        "          \t    ^\n");
}

TEST_CASE("error: FormatError names the source before the line, caret still under the column",
          "[error]") {
  SqlError error(SqlState::kSyntaxError, "x", {2, 3, 12});
  CHECK(FormatError(error, "select 1;\n  nosuchcol", "inner.sql") ==
        "ERROR 42601: x\n"
        "LINE inner.sql:2:3:   nosuchcol\n"
        "                      ^\n");
  // A name with a two-byte character still puts the caret under the column.
  CHECK(FormatError(error, "select 1;\n  nosuchcol", "\xC3\xA9.sql") ==
        "ERROR 42601: x\n"
        "LINE \xC3\xA9.sql:2:3:   nosuchcol\n"
        "                  ^\n");
}

TEST_CASE("error: FormatError at the end of the text and without position", "[error]") {
  SqlError at_end(SqlState::kSyntaxError, "syntax error at end of input", {1, 9, 8});
  CHECK(FormatError(at_end, "SELECT (") ==
        "ERROR 42601: syntax error at end of input\n"
        "LINE 1:9: SELECT (\n"
        "                  ^\n");
  SqlError no_pos(SqlState::kUniqueViolation, "duplicate key");
  CHECK(FormatError(no_pos, "INSERT ...") == "ERROR 23505: duplicate key\n");
  SqlError outside(SqlState::kSyntaxError, "x", {1, 50, 50});
  CHECK(FormatError(outside, "short") == "ERROR 42601: x\n");
}

// Regression (s40 item 3): a long line was printed whole (a 10 MB statement
// on one line printed 10 MB); it is cut to kMaxErrorContext characters
// around the column, "..." at each cut, the caret still under the column.
TEST_CASE("error: FormatError cuts a long line around the column", "[error]") {
  static_assert(kMaxErrorContext == 120 && kErrorContextBefore == 80);
  // In the middle: 80 characters before the column, 120 in all.
  std::string sql = std::string(300, 'a') + "BAD" + std::string(300, 'b');
  SqlError middle(SqlState::kSyntaxError, "x", {1, 301, 300});
  CHECK(FormatError(middle, sql) ==
        "ERROR 42601: x\n"
        "LINE 1:301: ..." +
            std::string(80, 'a') + "BAD" + std::string(37, 'b') + "...\n" +
            std::string(12 + 3 + 80, ' ') + "^\n");
  // Near the start: no cut before it.
  SqlError start(SqlState::kSyntaxError, "x", {1, 6, 5});
  CHECK(FormatError(start, sql) ==
        "ERROR 42601: x\n"
        "LINE 1:6: " +
            std::string(120, 'a') + "...\n" + std::string(10 + 5, ' ') + "^\n");
  // At the end of the text: its last 120 characters, the caret after them.
  SqlError at_end(SqlState::kSyntaxError, "x", {1, 604, 603});
  CHECK(FormatError(at_end, sql) ==
        "ERROR 42601: x\n"
        "LINE 1:604: ..." +
            std::string(120, 'b') + "\n" + std::string(12 + 3 + 120, ' ') + "^\n");
  // Exactly 120 characters: whole.
  SqlError whole(SqlState::kSyntaxError, "x", {1, 101, 100});
  CHECK(FormatError(whole, std::string(120, 'c')) ==
        "ERROR 42601: x\n"
        "LINE 1:101: " +
            std::string(120, 'c') + "\n" + std::string(12 + 100, ' ') + "^\n");
  // Characters, not bytes: 200 two-byte characters, the column at the 152nd;
  // no character is cut in two. Other lines are not shown.
  std::string e_acute = "\xC3\xA9";
  std::string wide;
  for (int idx = 0; idx < 200; ++idx) wide += e_acute;
  std::string shown;
  for (int idx = 0; idx < 120; ++idx) shown += e_acute;
  SqlError utf8(SqlState::kSyntaxError, "x", {2, 152, 4 + 300});
  CHECK(FormatError(utf8, "a;\n " + wide + "\nb") ==
        "ERROR 42601: x\n"
        "LINE 2:152: ..." +
            shown + "...\n" + std::string(12 + 3 + 80, ' ') + "^\n");
}

TEST_CASE("error: a 10 MB statement's syntax error prints a few hundred bytes", "[error]") {
  // The near token is cut too (kMaxQuotedToken): a 10 MB literal.
  std::string sql = "SELECT 1 '" + std::string(10'000'000, 'a') + "'";
  Result<ParsedStatement> parsed = ParseStatement(sql);
  REQUIRE(!parsed.ok());
  CHECK(parsed.error().message() == "syntax error at or near \"'" + std::string(59, 'a') +
                                        "...\": expected ';' or end of input");
  std::string text = FormatError(parsed.error(), sql);
  CHECK(text.size() < 400);
  CHECK(text.find("LINE 1:10: SELECT 1 '" + std::string(110, 'a') + "...\n") != std::string::npos);
}

}  // namespace
}  // namespace solo::sql
