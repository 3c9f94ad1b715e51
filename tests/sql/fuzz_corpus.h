// Seed statements for the fuzz tests: one of every statement kind and most of
// the expression grammar, so that mutations start from deep inside it.
// fuzz_seeds/seed_NN.sql hold the same statements for the libFuzzer target:
// change both together.
#pragma once

#include <array>
#include <string_view>

namespace solo::sql::testing {

inline constexpr std::array<std::string_view, 24> kFuzzSeeds = {
    "CREATE TABLE IF NOT EXISTS t (a INT PRIMARY KEY, b DECIMAL(10,2) NOT NULL DEFAULT -1.5, "
    "c VARCHAR(16), d CHAR(2), e TEXT, f TIMESTAMP, g DOUBLE PRECISION, h SMALLINT, i BIGINT)",
    "CREATE TABLE s (x INT, y REAL, z NUMERIC(4), PRIMARY KEY (x, y))",
    "CREATE UNIQUE INDEX IF NOT EXISTS i1 ON t (b DESC, c)",
    "DROP TABLE IF EXISTS t; DROP INDEX i1",
    "INSERT INTO t (a, b) VALUES (1, 2.50), (2, 3.25), (?, ?)",
    "INSERT INTO t SELECT x, y FROM s WHERE x > $1",
    "SELECT DISTINCT a, b AS bee, t.* FROM t JOIN s ON t.a = s.x LEFT JOIN u ON u.k = t.a "
    "WHERE a BETWEEN 1 AND 10 AND c LIKE 'ab%' ESCAPE '!' GROUP BY a, b HAVING count(*) > 1 "
    "ORDER BY a DESC, 2 LIMIT 10 OFFSET 3",
    "SELECT count(DISTINCT x), sum(y), min(y), max(y), avg(y) FROM s, t WHERE s.x = t.a",
    "SELECT a FROM t WHERE a IN (SELECT x FROM s WHERE s.y = t.b) OR NOT EXISTS (SELECT 1 FROM "
    "s)",
    "SELECT (SELECT max(x) FROM s) + 1, a NOT IN (1, 2, NULL), b IS NOT NULL FROM t",
    "SELECT CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE 'zero' END FROM t",
    "SELECT CASE a WHEN 1 THEN 'one' END, coalesce(c, 'none'), CAST(b AS INTEGER) FROM t",
    "SELECT upper(c) || lower(d) || trim(e), substr(c, 1, 3), length(c) FROM t",
    "SELECT -a * (b + 3) / 2 % 5 - +1, 1e10, .5, 'it''s', \"Quoted Col\" FROM t",
    "SELECT n.c FROM (SELECT count(*) AS c FROM t) AS n CROSS JOIN (s JOIN t ON TRUE)",
    "UPDATE t SET b = b + 1, c = CASE WHEN b > 10 THEN 'big' ELSE c END WHERE a = $2",
    "UPDATE s SET y = y * 1.1 WHERE x IN (1, 2, 3) AND y IS NULL",
    "DELETE FROM t WHERE a = ? AND b <> ? OR c >= 'x'",
    "BEGIN; COMMIT; BEGIN TRANSACTION; ROLLBACK",
    "EXPLAIN SELECT * FROM t WHERE a = 1",
    "SELECT a FROM t WHERE a = 1 -- comment\n AND /* block /* nested */ */ b = 2",
    "SELECT 1 = 1, 2 <> 3, 4 != 5, 6 <= 7, 8 >= 9, TRUE AND FALSE OR NOT NULL",
    "SELECT s_i_id FROM stock, order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 "
    "AND ol_o_id >= $3 - 20 AND s_w_id = $1 AND s_i_id = ol_i_id AND s_quantity < $4",
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
};

}  // namespace solo::sql::testing
