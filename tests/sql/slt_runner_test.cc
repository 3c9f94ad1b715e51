// The sqllogictest runner itself: file format, value formatting, and that a
// wrong result or a wrong error code is reported as a failure.

#include "slt/slt_runner.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "slt/slt_file.h"
#include "slt/sqlite_backend.h"

namespace solo::sql::slt {
namespace {

std::vector<Record> Parse(std::string_view text) {
  std::vector<Record> records;
  std::string error;
  INFO(text);
  REQUIRE(ParseSltFile(text, &records, &error));
  return records;
}

std::string ParseFailure(std::string_view text) {
  std::vector<Record> records;
  std::string error;
  REQUIRE_FALSE(ParseSltFile(text, &records, &error));
  return error;
}

TEST_CASE("slt: records and conditions", "[slt]") {
  auto records = Parse(
      "# comment\n"
      "statement ok\n"
      "CREATE TABLE t (a INT)\n"
      "\n"
      "skipif sqlite\n"
      "onlyif solo\n"
      "statement error 23505\n"
      "INSERT INTO t\n"
      "VALUES (1)\n"
      "\n"
      "query IT rowsort\n"
      "SELECT a, 'x' FROM t\n"
      "----\n"
      "1\tx\n"
      "2\t(empty)\n"
      "\n"
      "query I\n"
      "SELECT 1 WHERE 1 = 0\n"
      "----\n"
      "\n"
      "halt\n");
  REQUIRE(records.size() == 5);
  CHECK(records[0].kind == Record::Kind::kStatement);
  CHECK_FALSE(records[0].expect_error);
  CHECK(records[0].line == 2);
  CHECK(records[1].expect_error);
  CHECK(records[1].expected_code == "23505");
  CHECK(records[1].sql == "INSERT INTO t\nVALUES (1)");
  CHECK_FALSE(records[1].RunsOn({"sqlite"}));
  CHECK(records[1].RunsOn({"solo"}));
  CHECK_FALSE(records[1].RunsOn({"postgres"}));
  CHECK(records[2].types == "IT");
  CHECK(records[2].sort == SortMode::kRows);
  CHECK(records[2].expected_rows == std::vector<std::string>{"1\tx", "2\t(empty)"});
  CHECK(records[3].expected_rows.empty());
  CHECK(records[4].kind == Record::Kind::kHalt);
}

TEST_CASE("slt: malformed files are refused with a line number", "[slt]") {
  CHECK(ParseFailure("statement maybe\nSELECT 1\n") ==
        "line 1: expected 'statement ok' or 'statement error [SQLSTATE]'");
  CHECK(ParseFailure("\nquery X\nSELECT 1\n").rfind("line 2:", 0) == 0);
  CHECK(ParseFailure("query I sideways\nSELECT 1\n").find("sort mode") != std::string::npos);
  CHECK(ParseFailure("statement error 123\nSELECT 1\n").find("five") != std::string::npos);
  CHECK(ParseFailure("statement ok\n\n").find("without SQL") != std::string::npos);
  CHECK(ParseFailure("bogus\n").find("unknown record") != std::string::npos);
  CHECK(ParseFailure("statement ok\nSELECT 1\n\nskipif sqlite\n").find("end of the file") !=
        std::string::npos);
}

TEST_CASE("slt: values format by column type", "[slt]") {
  auto integer = [](int64_t v) { return Value{Value::Type::kInteger, v, 0, ""}; };
  auto real = [](double v) { return Value{Value::Type::kReal, 0, v, ""}; };
  auto text = [](std::string v) { return Value{Value::Type::kText, 0, 0, std::move(v)}; };
  CHECK(FormatValue(Value{}, 'I') == "NULL");
  CHECK(FormatValue(integer(-42), 'I') == "-42");
  CHECK(FormatValue(integer(7), 'R') == "7.000");
  CHECK(FormatValue(integer(7), 'T') == "7");
  CHECK(FormatValue(real(2.5), 'R') == "2.500");
  CHECK(FormatValue(real(-0.0001), 'R') == "0.000");
  CHECK(FormatValue(real(3.0), 'I') == "3");
  CHECK(FormatValue(text(""), 'T') == "(empty)");
  CHECK(FormatValue(text("abc"), 'T') == "abc");
  // Exact decimals as text round half away from zero.
  CHECK(FormatValue(text("2.0625"), 'R') == "2.063");
  CHECK(FormatValue(text("-2.0625"), 'R') == "-2.063");
  CHECK(FormatValue(text("9.9995"), 'R') == "10.000");
  CHECK(FormatValue(text("-0.0004"), 'R') == "0.000");
  CHECK(FormatValue(text("12"), 'R') == "12.000");
  CHECK(FormatValue(text(".5"), 'R') == "0.500");
  CHECK(FormatValue(text("abc"), 'R') == "abc");
}

// Runs text on a fresh SQLite database; returns the stats and the report.
RunStats RunOnSqlite(std::string_view text, std::string* report) {
  SqliteBackend backend;
  std::ostringstream out;
  RunStats stats = RunRecords("x.test", Parse(text), backend, out, false);
  *report = out.str();
  return stats;
}

TEST_CASE("slt: the runner catches wrong results and wrong codes", "[slt]") {
  std::string report;
  RunStats good = RunOnSqlite(
      "statement ok\nCREATE TABLE t (a INT PRIMARY KEY)\n\n"
      "statement ok\nINSERT INTO t VALUES (2), (1)\n\n"
      "query I rowsort\nSELECT a FROM t\n----\n1\n2\n\n"
      "statement error 23505\nINSERT INTO t VALUES (1)\n\n"
      "skipif sqlite\nstatement ok\nnot even sql\n",
      &report);
  CHECK(good.passed == 4);
  CHECK(good.failed == 0);
  CHECK(good.skipped == 1);
  CHECK(report.empty());

  RunStats bad = RunOnSqlite(
      "statement ok\nCREATE TABLE t (a INT PRIMARY KEY)\n\n"
      "statement ok\nINSERT INTO t VALUES (2), (1)\n\n"
      "query I\nSELECT a FROM t ORDER BY a\n----\n2\n1\n\n"
      "query II\nSELECT a FROM t\n----\n1\n2\n\n"
      "statement error 42P01\nINSERT INTO t VALUES (1)\n\n"
      "statement error\nSELECT 1\n\n"
      "statement ok\nSELEC 1\n",
      &report);
  CHECK(bad.passed == 2);
  CHECK(bad.failed == 5);
  CHECK(report.find("x.test:7: wrong result") != std::string::npos);
  CHECK(report.find("x.test:13: expected 2 columns, got 1") != std::string::npos);
  CHECK(report.find("x.test:19: expected error 42P01, got 23505") != std::string::npos);
  CHECK(report.find("x.test:22: expected an error") != std::string::npos);
  CHECK(report.find("x.test:25: unexpected error 42601") != std::string::npos);
}

TEST_CASE("slt: SQLite errors map to PostgreSQL's SQLSTATEs", "[slt]") {
  CHECK(SqlStateForSqliteError(0, "no such table: x") == "42P01");
  CHECK(SqlStateForSqliteError(0, "near \"SELEC\": syntax error") == "42601");
  CHECK(SqlStateForSqliteError(0, "something new") == "");
}

}  // namespace
}  // namespace solo::sql::slt
