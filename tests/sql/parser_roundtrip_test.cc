// Every statement kind parses and prints back to canonical SQL, and the
// canonical SQL parses to the same tree (it prints the same again).

#include "parser_test_util.h"

namespace solo::sql {
namespace {

using testing::Canonical;
using testing::Grouping;

// Checks that input prints as canonical, and canonical as itself.
void CheckRoundTrip(std::string_view input, std::string_view canonical) {
  INFO("input: " << input);
  CHECK(Canonical(input) == canonical);
  CHECK(Canonical(canonical) == canonical);
  // And the grouping survives the trip.
  PrintOptions all{.parenthesize_all = true};
  CHECK(Canonical(input, all) == Canonical(canonical, all));
}

TEST_CASE("roundtrip: CREATE TABLE", "[parser][roundtrip]") {
  CheckRoundTrip("create table t (a int primary key, b decimal(10,2) not null default 0)",
                 "CREATE TABLE t (a INTEGER PRIMARY KEY, b DECIMAL(10, 2) NOT NULL DEFAULT 0)");
  CheckRoundTrip(
      "CREATE TABLE IF NOT EXISTS warehouse (w_id SMALLINT, w_name VARCHAR(10), w_tax "
      "NUMERIC(4, 4), w_ytd numeric(12,2), w_zip CHAR(9), PRIMARY KEY (w_id))",
      "CREATE TABLE IF NOT EXISTS warehouse (w_id SMALLINT, w_name VARCHAR(10), w_tax "
      "DECIMAL(4, 4), w_ytd DECIMAL(12, 2), w_zip CHAR(9), PRIMARY KEY (w_id))");
  CheckRoundTrip(
      "CREATE TABLE x (a BIGINT, b TEXT, c TIMESTAMP, d DOUBLE, e DOUBLE PRECISION, f REAL, g "
      "FLOAT, h CHARACTER VARYING(5), i CHARACTER, j DECIMAL, k DECIMAL(5), l INTEGER NULL)",
      "CREATE TABLE x (a BIGINT, b TEXT, c TIMESTAMP, d DOUBLE PRECISION, e DOUBLE PRECISION, f "
      "REAL, g DOUBLE PRECISION, h VARCHAR(5), i CHAR, j DECIMAL, k DECIMAL(5, 0), l INTEGER)");
  CheckRoundTrip("CREATE TABLE t (a INT DEFAULT -1, b TEXT DEFAULT 'x''y', c INT DEFAULT (1 + 2))",
                 "CREATE TABLE t (a INTEGER DEFAULT -1, b TEXT DEFAULT 'x''y', c INTEGER DEFAULT "
                 "(1 + 2))");
  CheckRoundTrip(
      "CREATE TABLE \"Order\" (\"key\" INT, text TEXT, \"Upper\" INT, PRIMARY KEY (\"key\", text))",
      "CREATE TABLE \"Order\" (\"key\" INTEGER, \"text\" TEXT, \"Upper\" INTEGER, "
      "PRIMARY KEY (\"key\", \"text\"))");
}

TEST_CASE("roundtrip: CREATE INDEX and DROP", "[parser][roundtrip]") {
  CheckRoundTrip("create index i on t (a, b)", "CREATE INDEX i ON t (a, b)");
  CheckRoundTrip("CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a ASC, b DESC)",
                 "CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a, b DESC)");
  CheckRoundTrip("drop table t", "DROP TABLE t");
  CheckRoundTrip("DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS t");
  CheckRoundTrip("drop index if exists i", "DROP INDEX IF EXISTS i");
}

TEST_CASE("roundtrip: INSERT", "[parser][roundtrip]") {
  CheckRoundTrip("insert into t values (1, 'a'), (2, NULL)",
                 "INSERT INTO t VALUES (1, 'a'), (2, NULL)");
  CheckRoundTrip("INSERT INTO t (a, b) VALUES (?, ?)", "INSERT INTO t (a, b) VALUES ($1, $2)");
  CheckRoundTrip("INSERT INTO t (a) SELECT x + 1 FROM u WHERE x > 3",
                 "INSERT INTO t (a) SELECT x + 1 FROM u WHERE x > 3");
  CheckRoundTrip("INSERT INTO t VALUES (-1.50, 2.5e3, .5, TRUE, FALSE)",
                 "INSERT INTO t VALUES (-1.50, 2.5e3, .5, TRUE, FALSE)");
}

TEST_CASE("roundtrip: SELECT clauses", "[parser][roundtrip]") {
  CheckRoundTrip("select 1", "SELECT 1");
  CheckRoundTrip("SELECT * FROM t", "SELECT * FROM t");
  CheckRoundTrip("SELECT t.*, u.a AS x, b y FROM t, u", "SELECT t.*, u.a AS x, b AS y FROM t, u");
  CheckRoundTrip("SELECT DISTINCT a FROM t WHERE a > 1 ORDER BY a DESC, b ASC LIMIT 10 OFFSET 5",
                 "SELECT DISTINCT a FROM t WHERE a > 1 ORDER BY a DESC, b LIMIT 10 OFFSET 5");
  CheckRoundTrip("SELECT ALL a FROM t LIMIT ?", "SELECT a FROM t LIMIT $1");
  CheckRoundTrip(
      "SELECT d_id, COUNT(*), count(distinct s_i_id), SUM(x), MIN(x), MAX(x), AVG(x) FROM t "
      "GROUP BY d_id HAVING COUNT(*) > 1",
      "SELECT d_id, count(*), count(DISTINCT s_i_id), sum(x), min(x), max(x), avg(x) FROM t "
      "GROUP BY d_id HAVING count(*) > 1");
  CheckRoundTrip("SELECT a FROM t AS x, u y", "SELECT a FROM t AS x, u AS y");
}

TEST_CASE("roundtrip: joins", "[parser][roundtrip]") {
  CheckRoundTrip("SELECT * FROM a JOIN b ON a.x = b.x", "SELECT * FROM a JOIN b ON a.x = b.x");
  CheckRoundTrip("SELECT * FROM a INNER JOIN b ON a.x = b.x LEFT OUTER JOIN c ON c.y = b.y",
                 "SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c ON c.y = b.y");
  CheckRoundTrip(
      "SELECT * FROM a RIGHT OUTER JOIN b ON a.x = b.x RIGHT JOIN (c JOIN d ON TRUE) ON TRUE",
      "SELECT * FROM a RIGHT JOIN b ON a.x = b.x RIGHT JOIN (c JOIN d ON TRUE) ON TRUE");
  CheckRoundTrip("SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x AND a.y > 1",
                 "SELECT * FROM a FULL JOIN b ON a.x = b.x AND a.y > 1");
  CheckRoundTrip("SELECT * FROM a CROSS JOIN b, c LEFT JOIN d ON TRUE",
                 "SELECT * FROM a CROSS JOIN b, c LEFT JOIN d ON TRUE");
  CheckRoundTrip("SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x",
                 "SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x");
  CheckRoundTrip("SELECT * FROM (a JOIN b ON p) JOIN c ON q",
                 "SELECT * FROM a JOIN b ON p JOIN c ON q");
  CheckRoundTrip("SELECT s.n FROM (SELECT count(*) AS n FROM t) s",
                 "SELECT s.n FROM (SELECT count(*) AS n FROM t) AS s");
}

TEST_CASE("roundtrip: subqueries", "[parser][roundtrip]") {
  CheckRoundTrip("SELECT (SELECT max(a) FROM t) + 1", "SELECT (SELECT max(a) FROM t) + 1");
  CheckRoundTrip("SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE u.c = t.c)",
                 "SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE u.c = t.c)");
  CheckRoundTrip("SELECT a FROM t WHERE a NOT IN (SELECT b FROM u)",
                 "SELECT a FROM t WHERE a NOT IN (SELECT b FROM u)");
  CheckRoundTrip("SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
                 "SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)");
  CheckRoundTrip("SELECT a FROM t WHERE exists(select * from u)",
                 "SELECT a FROM t WHERE EXISTS (SELECT * FROM u)");
}

TEST_CASE("roundtrip: UNION", "[parser][roundtrip]") {
  CheckRoundTrip("select a from t union all select b from u union distinct select 1",
                 "SELECT a FROM t UNION ALL SELECT b FROM u UNION SELECT 1");
  // ORDER BY and LIMIT after the last arm belong to the whole.
  CheckRoundTrip("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 DESC LIMIT 2 OFFSET 1",
                 "SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 DESC LIMIT 2 OFFSET 1");
  // An arm in parentheses keeps them when it has its own ORDER BY, LIMIT or
  // arms, and loses them otherwise.
  CheckRoundTrip("SELECT 1 UNION (SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT 2)",
                 "SELECT 1 UNION (SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL SELECT 2");
  CheckRoundTrip("SELECT 1 UNION ALL (SELECT 2 UNION SELECT 3)",
                 "SELECT 1 UNION ALL (SELECT 2 UNION SELECT 3)");
  CheckRoundTrip(
      "SELECT x FROM (SELECT a AS x FROM t UNION SELECT b FROM u) AS s WHERE x IN "
      "(SELECT 1 UNION ALL SELECT 2)",
      "SELECT x FROM (SELECT a AS x FROM t UNION SELECT b FROM u) AS s WHERE x IN "
      "(SELECT 1 UNION ALL SELECT 2)");
  CheckRoundTrip("INSERT INTO t SELECT a FROM u UNION SELECT 1",
                 "INSERT INTO t SELECT a FROM u UNION SELECT 1");
}

TEST_CASE("roundtrip: INTERSECT and EXCEPT", "[parser][roundtrip]") {
  CheckRoundTrip("select a from t intersect all select b from u except distinct select 1",
                 "SELECT a FROM t INTERSECT ALL SELECT b FROM u EXCEPT SELECT 1");
  // INTERSECT binds tighter: its operands become one arm.
  CheckRoundTrip("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT ALL SELECT 4",
                 "SELECT 1 UNION (SELECT 2 INTERSECT SELECT 3) EXCEPT ALL SELECT 4");
  CheckRoundTrip("SELECT 1 INTERSECT SELECT 2 UNION SELECT 3",
                 "SELECT 1 INTERSECT SELECT 2 UNION SELECT 3");
  CheckRoundTrip("SELECT 1 EXCEPT (SELECT 2 EXCEPT SELECT 3)",
                 "SELECT 1 EXCEPT (SELECT 2 EXCEPT SELECT 3)");
  // A parenthesized operand followed by INTERSECT, and a statement that
  // begins with a parenthesis, keep theirs.
  CheckRoundTrip("SELECT 1 UNION (SELECT 2 UNION SELECT 3) INTERSECT SELECT 4",
                 "SELECT 1 UNION ((SELECT 2 UNION SELECT 3) INTERSECT SELECT 4)");
  CheckRoundTrip("(select 1 order by 1 limit 1) intersect (select 2) order by 1",
                 "(SELECT 1 ORDER BY 1 LIMIT 1) INTERSECT SELECT 2 ORDER BY 1");
  CheckRoundTrip("((SELECT 1))", "((SELECT 1))");
  CheckRoundTrip("EXPLAIN (SELECT a FROM t) EXCEPT SELECT b FROM u",
                 "EXPLAIN (SELECT a FROM t) EXCEPT SELECT b FROM u");
  // A derived table, an IN subquery and a scalar subquery whose text begins
  // with a parenthesis (session 48), told from a join and an expression.
  CheckRoundTrip("SELECT * FROM ((SELECT 1) UNION (SELECT 2) ORDER BY 1 LIMIT 1) s",
                 "SELECT * FROM ((SELECT 1) UNION SELECT 2 ORDER BY 1 LIMIT 1) AS s");
  CheckRoundTrip("SELECT * FROM ((SELECT 1 AS x) s JOIN t ON t.a = s.x)",
                 "SELECT * FROM (SELECT 1 AS x) AS s JOIN t ON t.a = s.x");
  CheckRoundTrip("SELECT a FROM t WHERE a IN ((SELECT 1) EXCEPT (SELECT 2))",
                 "SELECT a FROM t WHERE a IN ((SELECT 1) EXCEPT SELECT 2)");
  CheckRoundTrip("SELECT ((SELECT 1) INTERSECT SELECT 1), ((SELECT 1) + 1)",
                 "SELECT ((SELECT 1) INTERSECT SELECT 1), (SELECT 1) + 1");
  CheckRoundTrip("WITH w AS ((SELECT 1) INTERSECT SELECT 2) SELECT * FROM w",
                 "WITH w AS ((SELECT 1) INTERSECT SELECT 2) SELECT * FROM w");
  CheckRoundTrip("SELECT EXISTS ((SELECT 1) EXCEPT SELECT 2)",
                 "SELECT EXISTS ((SELECT 1) EXCEPT SELECT 2)");
  CheckRoundTrip("SELECT a FROM t WHERE a IN (SELECT b FROM u INTERSECT SELECT c FROM v)",
                 "SELECT a FROM t WHERE a IN (SELECT b FROM u INTERSECT SELECT c FROM v)");
}

TEST_CASE("roundtrip: NULLS FIRST and LAST", "[parser][roundtrip]") {
  CheckRoundTrip("select a from t order by a nulls first, b desc nulls last, c asc, d desc",
                 "SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST, c, d DESC");
  // A name that is a keyword is printed quoted.
  CheckRoundTrip("SELECT nulls FROM t ORDER BY nulls NULLS LAST",
                 "SELECT \"nulls\" FROM t ORDER BY \"nulls\" NULLS LAST");
}

TEST_CASE("roundtrip: BOOLEAN", "[parser][roundtrip]") {
  // BOOL is BOOLEAN; both stay names where a name is wanted (session 48).
  CheckRoundTrip("create table t (a bool not null default true, b boolean)",
                 "CREATE TABLE t (a BOOLEAN NOT NULL DEFAULT TRUE, b BOOLEAN)");
  CheckRoundTrip("SELECT CAST(x AS BOOL), bool, boolean FROM boolean",
                 "SELECT CAST(x AS BOOLEAN), \"bool\", \"boolean\" FROM \"boolean\"");
}

TEST_CASE("roundtrip: WITH", "[parser][roundtrip]") {
  CheckRoundTrip(
      "with c as (select a from t), \"D\" (x, y) as (select 1, 2) select * from c, \"D\"",
      "WITH c AS (SELECT a FROM t), \"D\" (x, y) AS (SELECT 1, 2) SELECT * FROM c, \"D\"");
  // In a subquery, in INSERT, around a UNION, and in a parenthesized arm.
  CheckRoundTrip("SELECT (WITH m AS (SELECT max(a) AS v FROM t) SELECT v FROM m) + 1",
                 "SELECT (WITH m AS (SELECT max(a) AS v FROM t) SELECT v FROM m) + 1");
  CheckRoundTrip("INSERT INTO u WITH c AS (SELECT a FROM t) SELECT a FROM c",
                 "INSERT INTO u WITH c AS (SELECT a FROM t) SELECT a FROM c");
  // Before INSERT, UPDATE and DELETE (session 48).
  CheckRoundTrip("with c as (select a from t) insert into u (a) select a from c",
                 "WITH c AS (SELECT a FROM t) INSERT INTO u (a) SELECT a FROM c");
  CheckRoundTrip("WITH c (x) AS (SELECT 1) INSERT INTO u VALUES ((SELECT x FROM c))",
                 "WITH c (x) AS (SELECT 1) INSERT INTO u VALUES ((SELECT x FROM c))");
  CheckRoundTrip(
      "WITH c AS (SELECT a FROM t), d AS (SELECT 2) UPDATE u SET b = 1 WHERE a IN (SELECT a FROM "
      "c) RETURNING a",
      "WITH c AS (SELECT a FROM t), d AS (SELECT 2) UPDATE u SET b = 1 WHERE a IN (SELECT a FROM "
      "c) RETURNING a");
  CheckRoundTrip("WITH c AS (SELECT a FROM t) DELETE FROM u WHERE EXISTS (SELECT 1 FROM c)",
                 "WITH c AS (SELECT a FROM t) DELETE FROM u WHERE EXISTS (SELECT 1 FROM c)");
  CheckRoundTrip(
      "WITH c AS (SELECT 1 AS a) SELECT a FROM c UNION ALL (WITH d AS (SELECT 2) "
      "SELECT * FROM d) ORDER BY 1",
      "WITH c AS (SELECT 1 AS a) SELECT a FROM c UNION ALL (WITH d AS (SELECT 2) "
      "SELECT * FROM d) ORDER BY 1");
  CheckRoundTrip(
      "SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) AS s WHERE EXISTS (WITH d AS "
      "(SELECT 2) SELECT * FROM d)",
      "SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) AS s WHERE EXISTS (WITH d AS "
      "(SELECT 2) SELECT * FROM d)");
}

TEST_CASE("roundtrip: UPDATE and DELETE", "[parser][roundtrip]") {
  CheckRoundTrip("update t set a = a + 1, b = CASE WHEN b > 0 THEN b - 1 ELSE 0 END where c = ?",
                 "UPDATE t SET a = a + 1, b = CASE WHEN b > 0 THEN b - 1 ELSE 0 END WHERE c = $1");
  CheckRoundTrip("UPDATE t SET s_data = substr(s_data || 'x', 1, 500)",
                 "UPDATE t SET s_data = substr(s_data || 'x', 1, 500)");
  CheckRoundTrip("delete from t", "DELETE FROM t");
  CheckRoundTrip("DELETE FROM t WHERE a = $2 AND b = $1", "DELETE FROM t WHERE a = $2 AND b = $1");
}

TEST_CASE("roundtrip: transactions and EXPLAIN", "[parser][roundtrip]") {
  CheckRoundTrip("begin", "BEGIN");
  CheckRoundTrip("BEGIN TRANSACTION", "BEGIN");
  CheckRoundTrip("commit", "COMMIT");
  CheckRoundTrip("ROLLBACK TRANSACTION", "ROLLBACK");
  CheckRoundTrip("explain select a from t where a = 1", "EXPLAIN SELECT a FROM t WHERE a = 1");
  CheckRoundTrip("EXPLAIN UPDATE t SET a = 1", "EXPLAIN UPDATE t SET a = 1");
}

TEST_CASE("roundtrip: expressions", "[parser][roundtrip]") {
  CheckRoundTrip("SELECT a BETWEEN 1 AND 2, a NOT BETWEEN b AND c + 1",
                 "SELECT a BETWEEN 1 AND 2, a NOT BETWEEN b AND c + 1");
  CheckRoundTrip("SELECT a IN (1, 2, 3), a NOT IN ('x')", "SELECT a IN (1, 2, 3), a NOT IN ('x')");
  CheckRoundTrip("SELECT a LIKE 'x%', a NOT LIKE '%\\_' ESCAPE '\\'",
                 "SELECT a LIKE 'x%', a NOT LIKE '%\\_' ESCAPE '\\'");
  CheckRoundTrip("SELECT a IS NULL, a IS NOT NULL", "SELECT a IS NULL, a IS NOT NULL");
  CheckRoundTrip("SELECT CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
                 "SELECT CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END");
  CheckRoundTrip("SELECT coalesce(a, b, 0), CAST(a AS DECIMAL(10,2)), cast('1' as int)",
                 "SELECT coalesce(a, b, 0), CAST(a AS DECIMAL(10, 2)), CAST('1' AS INTEGER)");
  CheckRoundTrip("SELECT upper(a), lower(a), trim(a), length(a), substr(a, 2)",
                 "SELECT upper(a), lower(a), trim(a), length(a), substr(a, 2)");
  CheckRoundTrip("SELECT a != b, a <> b, a <= b, a >= b, a < b, a > b",
                 "SELECT a <> b, a <> b, a <= b, a >= b, a < b, a > b");
  CheckRoundTrip("SELECT - - 1, -(-1), - a, +a, -(a + b)", "SELECT - -1, - -1, -a, +a, -(a + b)");
  CheckRoundTrip("SELECT (((1)))", "SELECT 1");
  CheckRoundTrip("SELECT 'it''s', '', \"Col\", \"a\"\"b\"",
                 "SELECT 'it''s', '', \"Col\", \"a\"\"b\"");
  CheckRoundTrip("SELECT f(), g(1, 2)", "SELECT f(), g(1, 2)");
}

TEST_CASE("roundtrip: precedence needs only the parentheses it needs", "[parser][roundtrip]") {
  CheckRoundTrip("SELECT (1 + 2) * 3, 1 + (2 * 3), (1 - 2) - 3, 1 - (2 - 3)",
                 "SELECT (1 + 2) * 3, 1 + 2 * 3, 1 - 2 - 3, 1 - (2 - 3)");
  CheckRoundTrip("SELECT (a OR b) AND c, a OR (b AND c), NOT (a AND b), (NOT a) AND b",
                 "SELECT (a OR b) AND c, a OR b AND c, NOT (a AND b), NOT a AND b");
  CheckRoundTrip("SELECT (a = b) IS NULL, a = (b IS NULL), (a IS NULL) = b",
                 "SELECT a = b IS NULL, a = (b IS NULL), (a IS NULL) = b");
  CheckRoundTrip("SELECT (a < b) = c, (a || b) || c, a || (b || c)",
                 "SELECT (a < b) = c, a || b || c, a || (b || c)");
  CheckRoundTrip("SELECT (a BETWEEN 1 AND 2) = TRUE, (a + 1) BETWEEN (b - 1) AND (c || d)",
                 "SELECT a BETWEEN 1 AND 2 = TRUE, a + 1 BETWEEN b - 1 AND c || d");
  CheckRoundTrip("SELECT (NOT a) IS NULL, - (a * b), (-a) * b",
                 "SELECT (NOT a) IS NULL, -(a * b), -a * b");
  CheckRoundTrip("SELECT a + (NOT b), a = (NOT b), a AND NOT b",
                 "SELECT a + (NOT b), a = (NOT b), a AND NOT b");
}

TEST_CASE("grouping: precedence matches PostgreSQL", "[parser][precedence]") {
  CHECK(Grouping("1 + 2 * 3") == "1 + (2 * 3)");
  CHECK(Grouping("1 * 2 + 3") == "(1 * 2) + 3");
  CHECK(Grouping("1 - 2 - 3") == "(1 - 2) - 3");
  CHECK(Grouping("8 / 4 / 2 % 3") == "((8 / 4) / 2) % 3");
  CHECK(Grouping("-a * b") == "(-a) * b");
  CHECK(Grouping("a || b + c") == "a || (b + c)");
  CHECK(Grouping("a || b = c") == "(a || b) = c");
  CHECK(Grouping("a + 1 BETWEEN b AND c + 2") == "(a + 1) BETWEEN b AND (c + 2)");
  CHECK(Grouping("a BETWEEN 1 AND 2 AND b") == "(a BETWEEN 1 AND 2) AND b");
  CHECK(Grouping("a = 1 OR b = 2 AND c = 3") == "(a = 1) OR ((b = 2) AND (c = 3))");
  CHECK(Grouping("NOT a = b") == "NOT (a = b)");
  CHECK(Grouping("NOT a AND b") == "(NOT a) AND b");
  CHECK(Grouping("NOT a IS NULL") == "NOT (a IS NULL)");
  CHECK(Grouping("a = b IS NOT NULL") == "(a = b) IS NOT NULL");
  CHECK(Grouping("a NOT IN (1, 2) OR a LIKE 'x' || 'y'") ==
        "(a NOT IN (1, 2)) OR (a LIKE ('x' || 'y'))");
  CHECK(Grouping("a BETWEEN 1 AND 2 = TRUE") == "(a BETWEEN 1 AND 2) = TRUE");
  CHECK(Grouping("a < b IS NULL") == "(a < b) IS NULL");
  CHECK(Grouping("x = CASE WHEN a > 1 THEN b + 1 END") == "x = CASE WHEN a > 1 THEN b + 1 END");
}

TEST_CASE("parameters: ? are numbered by appearance, $n explicit", "[parser][params]") {
  auto positional = ParseStatement("SELECT ? + ? FROM t WHERE a = ? LIMIT ?");
  REQUIRE(positional.ok());
  CHECK(positional->parameter_count == 4);
  CHECK(ToSql(*positional->statement) == "SELECT $1 + $2 FROM t WHERE a = $3 LIMIT $4");
  auto numbered = ParseStatement("UPDATE t SET a = $3 WHERE b = $1 AND c = $3");
  REQUIRE(numbered.ok());
  CHECK(numbered->parameter_count == 3);
  auto none = ParseStatement("SELECT 1");
  REQUIRE(none.ok());
  CHECK(none->parameter_count == 0);
}

TEST_CASE("script: statements, offsets and empty statements", "[parser][script]") {
  std::string_view sql = " ; SELECT 1;\n\nINSERT INTO t VALUES (?) ;;  DELETE FROM t WHERE a = ?";
  auto script = ParseScript(sql);
  REQUIRE(script.ok());
  REQUIRE(script->size() == 3);
  const auto& statements = script.value();
  auto text = [&](const ParsedStatement& parsed) {
    return sql.substr(parsed.begin_offset, parsed.end_offset - parsed.begin_offset);
  };
  CHECK(text(statements[0]) == "SELECT 1");
  CHECK(text(statements[1]) == "INSERT INTO t VALUES (?)");
  CHECK(text(statements[2]) == "DELETE FROM t WHERE a = ?");
  // Parameters are numbered per statement.
  CHECK(statements[1].parameter_count == 1);
  CHECK(statements[2].parameter_count == 1);
  CHECK(ToSql(*statements[2].statement) == "DELETE FROM t WHERE a = $1");
  auto empty = ParseScript(" -- nothing\n ; ");
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("ast: positions point at tokens", "[parser][ast]") {
  auto parsed = ParseStatement("SELECT a,\n  b + c\nFROM tab");
  REQUIRE(parsed.ok());
  const auto& select = parsed->statement->As<SelectStmt>();
  CHECK(select.pos == SourcePos{1, 1, 0});
  const auto& sum = select.items[1].expr->As<BinaryExpr>();
  CHECK(sum.pos.line == 2);
  CHECK(sum.pos.column == 5);  // the operator
  CHECK(sum.left->pos.column == 3);
  const auto& table = select.from[0]->As<BaseTableRef>();
  CHECK(table.name.name == "tab");
  CHECK(table.name.pos == SourcePos{3, 6, 23});
}

TEST_CASE("ast: deep but legal nesting parses", "[parser][limits]") {
  const int depth = kMaxNestingDepth - 10;
  std::string sql = "SELECT " + std::string(depth, '(') + "1" + std::string(depth, ')');
  CHECK(Canonical(sql) == "SELECT 1");
  std::string chain = "SELECT 1";
  for (int term = 0; term < depth; ++term) chain += " + 1";
  CHECK(Canonical(chain).size() == chain.size());
}

}  // namespace
}  // namespace solo::sql
