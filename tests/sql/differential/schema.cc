#include "schema.h"

namespace solo::sql::differential {

const std::vector<std::string> kInt2Values = {"0",  "1", "-1",  "2",    "3",     "5",
                                              "-5", "7", "100", "-100", "32767", "-32768"};
const std::vector<std::string> kInt4Values = {
    "0", "1", "-1", "2", "3", "4", "5", "-5", "10", "42", "-1000", "2147483647", "-2147483648"};
const std::vector<std::string> kSmallInt4Values = {"0", "1", "2", "3", "4", "5", "-1", "-2", "7"};
const std::vector<std::string> kWideInt8Values = {"0",
                                                  "1",
                                                  "-1",
                                                  "3",
                                                  "1000000000000",
                                                  "-1000000000000",
                                                  "4294967296",
                                                  "9223372036854775807",
                                                  "-9223372036854775808",
                                                  "9223372036854775806"};
const std::vector<std::string> kInt8Values = {"0",   "1",       "-1",           "3", "17",
                                              "-40", "1000000", "123456789012", "-5"};
const std::vector<std::string> kNumeric102Values = {
    "12.34", "-0.01", "0", "1.005", "99999999.99", "-99999999.99", "3", "2.5", "-7.25", "0.5"};
const std::vector<std::string> kNumeric63Values = {"1.5", "-2.125", "0.001",  "999.999", "-999.999",
                                                   "0",   "3",      "2.0005", "1.5"};
const std::vector<std::string> kNumeric41Values = {"1.5", "-2.5", "0",    "999.9",
                                                   "3",   "0.05", "-0.04"};
const std::vector<std::string> kDoubleValues = {"0", "1.5",  "-2.25", "1e10",   "0.1",
                                                "3", "-0.5", "1e-5",  "2.5e-3", "100"};
// CHAR(4): trailing spaces (equal to the value without them), a full
// column, non-ASCII, and the empty string (all spaces in PostgreSQL).
const std::vector<std::string> kCharValues = {
    "''",  "'a'",  "'ab'",  "'ab  '", "'a b'",      "'abcd'",
    "'B'", "' b'", "'x_y'", "'zz '",  "'\xc3\x9c'", "'\xc3\x9c\xc3\x9c\xc3\x9c\xc3\x9c'"};
const std::vector<std::string> kVarcharValues = {"''",       "'a'",   "'ab'",   "'abc'",   "'B'",
                                                 "'Ab'",     "'a%b'", "'x_y'",  "' pad '", "'zz'",
                                                 "'abcdef'", "'b'",   "'a''q'", "'a\\b'"};
const std::vector<std::string> kTextValues = {"''",
                                              "'a'",
                                              "'ab'",
                                              "'abc'",
                                              "'B'",
                                              "'Ab'",
                                              "'a%b'",
                                              "'x_y'",
                                              "' pad '",
                                              "'zz'",
                                              "'b'",
                                              "'\xc3\x9c'",
                                              "'hello world'",
                                              "'A b C'",
                                              "'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e'",
                                              "'\xc3\x9c\xc3\x9c\xc3\x9c\xc3\x9c'"};
const std::vector<std::string> kKeyTextValues = {"'a'", "'ab'", "'b'",  "'B'",
                                                 "''",  "'zz'", "'abc'"};
const std::vector<std::string> kBoolValues = {"TRUE", "FALSE"};
const std::vector<std::string> kTimestampValues = {"'2024-02-29 12:34:56.123456'",
                                                   "'2000-01-01 00:00:00'",
                                                   "'1999-12-31 23:59:59.9999995'",
                                                   "'1970-01-01 00:00:00'",
                                                   "'1969-12-31 23:59:59.5'",
                                                   "'2024-01-01 10:00'",
                                                   "'2024-01-01'",
                                                   "'2030-06-15 08:00:00.5'",
                                                   "'2024-01-01 10:00:00.000001'"};

namespace {

std::vector<Table> MakeTables() {
  std::vector<Table> tables(3);
  Table& t1 = tables[0];
  t1.name = "t1";
  t1.columns = {{"id", Type::kInt8, false, &kInt8Values, true, true},
                {"a", Type::kInt4, false, &kSmallInt4Values},
                {"b", Type::kInt2, true, &kInt2Values},
                {"c", Type::kInt8, true, &kWideInt8Values, false},
                {"s", Type::kVarchar, true, &kVarcharValues},
                {"t", Type::kText, false, &kTextValues},
                {"d", Type::kDouble, true, &kDoubleValues},
                {"n", Type::kNumeric, true, &kNumeric102Values},
                {"ts", Type::kTimestamp, true, &kTimestampValues}};
  t1.create =
      "CREATE TABLE t1 (id BIGINT PRIMARY KEY, a INTEGER NOT NULL, b SMALLINT, c BIGINT, "
      "s VARCHAR(12), t TEXT NOT NULL, d DOUBLE PRECISION, n NUMERIC(10,2), ts TIMESTAMP)";
  t1.indexes = {"CREATE INDEX t1_a_s ON t1 (a, s)", "CREATE INDEX t1_b ON t1 (b DESC)",
                "CREATE INDEX t1_n_ts ON t1 (n, ts DESC)", "CREATE UNIQUE INDEX t1_c ON t1 (c)"};
  Table& t2 = tables[1];
  t2.name = "t2";
  t2.columns = {{"k1", Type::kInt4, false, &kSmallInt4Values, true, true},
                {"k2", Type::kVarchar, false, &kKeyTextValues, true, true},
                {"v", Type::kInt8, true, &kInt8Values},
                {"w", Type::kNumeric, false, &kNumeric63Values},
                {"x", Type::kInt4, true, &kInt4Values},
                {"f", Type::kBool, true, &kBoolValues}};
  t2.create =
      "CREATE TABLE t2 (k1 INTEGER, k2 VARCHAR(8), v BIGINT, w NUMERIC(6,3) NOT NULL, x INTEGER, "
      "f BOOLEAN, PRIMARY KEY (k1, k2))";
  t2.indexes = {"CREATE INDEX t2_x_v ON t2 (x DESC, v)", "CREATE INDEX t2_w ON t2 (w)",
                "CREATE INDEX t2_f ON t2 (f, k1)"};
  Table& t3 = tables[2];
  t3.name = "t3";
  t3.columns = {{"g", Type::kInt2, true, &kInt2Values},
                {"h", Type::kText, true, &kTextValues},
                {"m", Type::kDouble, true, &kDoubleValues},
                {"p", Type::kNumeric, true, &kNumeric41Values},
                {"q", Type::kChar, true, &kCharValues}};
  t3.create = "CREATE TABLE t3 (g SMALLINT, h TEXT, m DOUBLE PRECISION, p NUMERIC(4,1), q CHAR(4))";
  t3.indexes = {"CREATE INDEX t3_g_h ON t3 (g, h)", "CREATE INDEX t3_q ON t3 (q)"};
  return tables;
}

}  // namespace

const std::vector<Table>& Tables() {
  static const std::vector<Table> tables = MakeTables();
  return tables;
}

}  // namespace solo::sql::differential
