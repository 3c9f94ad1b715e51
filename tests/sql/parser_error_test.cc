// Bad input gives an error value with the right code and the position of the
// offending token.

#include "parser_test_util.h"

namespace solo::sql {
namespace {

using testing::ParseError;

struct ErrorCase {
  const char* sql;
  SqlState state;
  uint32_t line;
  uint32_t column;
  const char* message_part;  // must appear in the message
};

void CheckErrors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    SqlError error = ParseError(c.sql);
    INFO("sql: " << c.sql << "\nerror: " << error.ToString());
    CHECK(error.code() == SqlStateCode(c.state));
    CHECK(error.pos().line == c.line);
    CHECK(error.pos().column == c.column);
    CHECK(error.message().find(c.message_part) != std::string::npos);
  }
}

constexpr SqlState kSyntax = SqlState::kSyntaxError;

TEST_CASE("errors: statements", "[parser][errors]") {
  CheckErrors({
      {"SELEC 1", kSyntax, 1, 1, "syntax error at or near \"SELEC\": expected a statement"},
      {"", kSyntax, 1, 1, "syntax error at end of input"},
      {"  -- only a comment", kSyntax, 1, 20, "at end of input"},
      {"SELECT 1 SELECT 2", kSyntax, 1, 10, "\"SELECT\""},
      {"SELECT 1; SELECT 2", kSyntax, 1, 11, "one statement only"},
      {"SELECT", kSyntax, 1, 7, "end of input: expected an expression"},
      {"SELECT 1,", kSyntax, 1, 10, "end of input"},
      {"SELECT * FROM", kSyntax, 1, 14, "expected a table name"},
      {"SELECT * FROM t WHERE", kSyntax, 1, 22, "expected an expression"},
      {"SELECT * FROM t GROUP a", kSyntax, 1, 23, "expected BY"},
      {"SELECT * FROM t ORDER BY", kSyntax, 1, 25, "expected an expression"},
      {"SELECT a FROM t LIMIT", kSyntax, 1, 22, "expected an expression"},
      {"SELECT 1 UNION", kSyntax, 1, 15, "end of input: expected SELECT"},
      {"SELECT 1 UNION ALL (SELECT 2", kSyntax, 1, 29, "expected ')'"},
      {"SELECT 1 ORDER BY 1 UNION SELECT 2", kSyntax, 1, 21, "\"UNION\""},
      {"SELECT a FROM t ORDER BY a NULLS", kSyntax, 1, 33, "expected FIRST or LAST"},
      {"SELECT a FROM t ORDER BY a NULLS LAST DESC", kSyntax, 1, 39, "\"DESC\""},
      {"WITH SELECT 1", kSyntax, 1, 6, "expected a WITH query name"},
      {"WITH c SELECT 1", kSyntax, 1, 8, "expected AS"},
      {"WITH c AS SELECT 1", kSyntax, 1, 11, "expected '('"},
      {"WITH c AS (1) SELECT 1", kSyntax, 1, 12, "expected SELECT"},
      {"WITH c AS (SELECT 1)", kSyntax, 1, 21, "expected SELECT"},
      {"WITH c AS (SELECT 1) CREATE TABLE t (a INT)", kSyntax, 1, 22,
       "expected SELECT, INSERT, UPDATE or DELETE"},
      {"WITH c AS (INSERT INTO t VALUES (1)) SELECT 1", kSyntax, 1, 12, "expected SELECT"},
      {"WITH RECURSIVE c AS (SELECT 1) SELECT 1", SqlState::kFeatureNotSupported, 1, 6,
       "WITH RECURSIVE is not supported"},
      {"SELECT 1 INTERSECT (2)", kSyntax, 1, 21, "expected SELECT"},
      {"SELECT 1 EXCEPT ALL", kSyntax, 1, 20, "end of input: expected SELECT"},
      {"SELECT 1 INTERSECT ALL SELECT 2 ORDER BY 1 EXCEPT SELECT 3", kSyntax, 1, 44, "\"EXCEPT\""},
      {"(SELECT 1", kSyntax, 1, 10, "expected ')'"},
      {"(1)", kSyntax, 1, 2, "expected SELECT"},
      {"SELECT a FROM t OFFSET 3", kSyntax, 1, 17, "OFFSET"},
      {"SELECT a FROM t JOIN u", kSyntax, 1, 23, "expected ON"},
      {"SELECT a FROM t JOIN u WHERE", kSyntax, 1, 24, "expected ON"},
      {"SELECT a FROM t FULL u ON 1", kSyntax, 1, 22, "expected JOIN"},
      {"SELECT a FROM t RIGHT u ON 1", kSyntax, 1, 23, "expected JOIN"},
      {"SELECT * FROM (SELECT 1)", kSyntax, 1, 25, "must have an alias"},
      {"SELECT a FROM t WHERE a IN ()", kSyntax, 1, 29, "expected an expression"},
      {"SELECT EXISTS (1)", kSyntax, 1, 16, "expected SELECT"},
      {"SELECT (SELECT 1", kSyntax, 1, 17, "expected ')'"},
      {"SELECT CASE END", kSyntax, 1, 13, "expected an expression"},
      {"SELECT CASE a END", kSyntax, 1, 15, "expected WHEN"},
      {"SELECT CASE WHEN 1 THEN 2", kSyntax, 1, 26, "expected END"},
      {"SELECT CAST(1 AS blob)", kSyntax, 1, 18, "expected a type name"},
      {"SELECT CAST(1 int)", kSyntax, 1, 15, "expected AS"},
      {"SELECT a.", kSyntax, 1, 10, "expected a column name"},
      {"SELECT count(*, a)", kSyntax, 1, 15, "expected ')'"},
      {"SELECT a = b = c", kSyntax, 1, 14, "do not chain"},
      {"SELECT a < b > c", kSyntax, 1, 14, "do not chain"},
      {"SELECT a < b = c IS NULL", kSyntax, 1, 14, "do not chain"},
      {"SELECT a BETWEEN 1 AND 2 BETWEEN 3 AND 4", kSyntax, 1, 26, "do not chain"},
      {"SELECT a BETWEEN 1 OR 2", kSyntax, 1, 20, "expected AND"},
      {"SELECT a IS 1", kSyntax, 1, 13, "expected NULL"},
      {"SELECT a NOT 1", kSyntax, 1, 10, "NOT"},
      {"SELECT select", kSyntax, 1, 8, "expected an expression"},
      {"SELECT a AS from", kSyntax, 1, 13, "expected an alias"},
      {"SELECT ? + $1", kSyntax, 1, 12, "cannot mix"},
      {"SELECT $1 + ?", kSyntax, 1, 13, "cannot mix"},
      {"SELECT 1 FROM t WHERE (a = 1", kSyntax, 1, 29, "expected ')'"},
      {"SELECT 1)", kSyntax, 1, 9, "\")\""},
  });
}

TEST_CASE("errors: INSERT, UPDATE, DELETE", "[parser][errors]") {
  CheckErrors({
      {"INSERT t VALUES (1)", kSyntax, 1, 8, "expected INTO"},
      {"INSERT INTO t", kSyntax, 1, 14, "expected VALUES or SELECT"},
      {"INSERT INTO t VALUES", kSyntax, 1, 21, "expected '('"},
      {"INSERT INTO t VALUES (1), (2, 3)", kSyntax, 1, 27, "same length"},
      {"INSERT INTO t (a,) VALUES (1)", kSyntax, 1, 18, "expected a column name"},
      {"INSERT INTO t VALUES (1) (2)", kSyntax, 1, 26, "';' or end of input"},
      {"UPDATE t a = 1", kSyntax, 1, 10, "expected SET"},
      {"UPDATE t SET a 1", kSyntax, 1, 16, "expected '='"},
      {"UPDATE t SET", kSyntax, 1, 13, "expected a column name"},
      {"DELETE t", kSyntax, 1, 8, "expected FROM"},
      {"DELETE FROM t WHERE", kSyntax, 1, 20, "expected an expression"},
  });
}

TEST_CASE("errors: DDL", "[parser][errors]") {
  CheckErrors({
      {"CREATE t", kSyntax, 1, 8, "expected TABLE, INDEX or UNIQUE INDEX"},
      {"CREATE UNIQUE TABLE t (a INT)", kSyntax, 1, 15, "expected INDEX"},
      {"CREATE TABLE t", kSyntax, 1, 15, "expected '('"},
      {"CREATE TABLE t ()", kSyntax, 1, 17, "expected a column name"},
      {"CREATE TABLE t (a)", kSyntax, 1, 18, "expected a type name"},
      {"CREATE TABLE t (a blob)", kSyntax, 1, 19, "expected a type name"},
      {"CREATE TABLE t (a INT,)", kSyntax, 1, 23, "expected a column name"},
      {"CREATE TABLE t (select INT)", kSyntax, 1, 17, "expected a column name"},
      {"CREATE TABLE t (a INT PRIMARY KEY, b INT PRIMARY KEY)", SqlState::kInvalidTableDefinition,
       1, 42, "multiple primary keys"},
      {"CREATE TABLE t (a INT PRIMARY KEY, PRIMARY KEY (a))", SqlState::kInvalidTableDefinition, 1,
       36, "multiple primary keys"},
      {"CREATE TABLE t (a INT NOT NULL NULL)", kSyntax, 1, 32, "conflicting NULL"},
      {"CREATE TABLE t (a INT NULL NOT NULL)", kSyntax, 1, 28,
       "conflicting NULL/NOT NULL declarations for column \"a\" of table \"t\""},
      {"CREATE TABLE t (a INT NULL PRIMARY KEY)", kSyntax, 1, 28,
       "conflicting NULL/NOT NULL declarations for column \"a\" of table \"t\""},
      {"CREATE TABLE t (a INT PRIMARY KEY DEFAULT 1 NULL)", kSyntax, 1, 45, "conflicting NULL"},
      {"CREATE TABLE t (a INT DEFAULT 1 DEFAULT 2)", kSyntax, 1, 33, "multiple default"},
      {"CREATE TABLE t (a DECIMAL(0))", SqlState::kInvalidParameterValue, 1, 27, "precision"},
      {"CREATE TABLE t (a DECIMAL(2, 3))", SqlState::kInvalidParameterValue, 1, 30, "scale"},
      {"CREATE TABLE t (a DECIMAL(x))", kSyntax, 1, 27, "expected integer"},
      {"CREATE TABLE t (a VARCHAR(0))", SqlState::kInvalidParameterValue, 1, 27,
       "length for type VARCHAR must be at least 1"},
      {"CREATE TABLE t (a CHARACTER VARYING(0))", SqlState::kInvalidParameterValue, 1, 37,
       "length for type CHARACTER VARYING must"},
      {"CREATE TABLE t (a CHAR(0))", SqlState::kInvalidParameterValue, 1, 24,
       "length for type CHAR must"},
      {"CREATE TABLE t (a NUMERIC(0))", SqlState::kInvalidParameterValue, 1, 27,
       "NUMERIC precision must be at least 1"},
      {"CREATE TABLE t (a CHAR(99999999999))", SqlState::kInvalidParameterValue, 1, 24,
       "out of range"},
      {"CREATE TABLE t (a INT) x", kSyntax, 1, 24, "';' or end of input"},
      {"CREATE TABLE IF EXISTS t (a INT)", kSyntax, 1, 17, "expected NOT"},
      {"CREATE INDEX ON t (a)", kSyntax, 1, 14, "expected an index name"},
      {"CREATE INDEX i t (a)", kSyntax, 1, 16, "expected ON"},
      {"CREATE INDEX i ON t ()", kSyntax, 1, 22, "expected a column name"},
      {"DROP t", kSyntax, 1, 6, "expected TABLE or INDEX"},
      {"DROP TABLE IF t", kSyntax, 1, 15, "expected EXISTS"},
      {"DROP INDEX", kSyntax, 1, 11, "expected an index name"},
      {"EXPLAIN", kSyntax, 1, 8, "expected a statement"},
      {"EXPLAIN EXPLAIN SELECT 1", kSyntax, 1, 9, "expected a statement to explain"},
      {"BEGIN WORK", kSyntax, 1, 7, "';' or end of input"},
  });
}

TEST_CASE("errors: positions across lines", "[parser][errors]") {
  CheckErrors({
      {"SELECT a,\n       b\n  FROM t\n WHERE a = = 1", kSyntax, 4, 12, "\"=\""},
      {"SELECT 'x',\n\t'y' z w", kSyntax, 2, 8, "\"w\""},
      {"SELECT 'unterminated\n\nmore", kSyntax, 1, 8, "unterminated quoted string"},
  });
}

TEST_CASE("errors: nesting beyond the limit is refused, not a crash", "[parser][limits]") {
  const int depth = kMaxNestingDepth + 5;
  SqlError parens = ParseError("SELECT " + std::string(depth, '(') + "1" + std::string(depth, ')'));
  CHECK(parens.state() == SqlState::kStatementTooComplex);
  std::string chain = "SELECT 1";
  for (int term = 0; term < 100000; ++term) chain += "+1";
  CHECK(ParseError(chain).state() == SqlState::kStatementTooComplex);
  std::string negations = "SELECT ";
  for (int term = 0; term < 100000; ++term) negations += "- ";
  negations += "1";
  CHECK(ParseError(negations).state() == SqlState::kStatementTooComplex);
  std::string nots = "SELECT ";
  for (int term = 0; term < 5000; ++term) nots += "NOT ";
  CHECK(ParseError(nots + "1").state() == SqlState::kStatementTooComplex);
  std::string subqueries = "SELECT ";
  for (int level = 0; level < 2000; ++level) subqueries += "(SELECT ";
  CHECK(ParseError(subqueries + "1").state() == SqlState::kStatementTooComplex);
  std::string joins = "SELECT * FROM t0";
  for (int table = 1; table < 5000; ++table) joins += " CROSS JOIN t";
  CHECK(ParseError(joins).state() == SqlState::kStatementTooComplex);
}

}  // namespace
}  // namespace solo::sql
