// The sqllogictest file format, as used by tests/sql/*.test:
//
//   # comment
//   skipif sqlite          <- conditions for the next record: skip on that
//   onlyif solo               backend / run only on that backend
//   statement ok           <- the SQL (up to a blank line) must succeed
//   CREATE TABLE t (a INT)
//
//   statement error 23505  <- must fail, with that SQLSTATE if one is given
//   INSERT INTO t VALUES (1)
//
//   query ITR rowsort      <- one type letter per column (I integer, T text,
//   SELECT a, b, c FROM t     R real or decimal, printed with 3 decimals);
//   ----                      nosort (default), rowsort or valuesort
//   1	x	2.500            <- expected rows, values separated by tabs;
//                             NULL for null, (empty) for ''
//   halt                   <- stop reading the file
//
// Records are separated by blank lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace solo::sql::slt {

enum class SortMode { kNone, kRows, kValues };

struct Record {
  enum class Kind { kStatement, kQuery, kHalt };
  Kind kind = Kind::kStatement;
  int line = 0;                      // 1-based line of the record's first line
  std::vector<std::string> skip_if;  // backend names
  std::vector<std::string> only_if;
  std::string sql;
  // kStatement
  bool expect_error = false;
  std::string expected_code;  // empty: any error
  // kQuery
  std::string types;
  SortMode sort = SortMode::kNone;
  std::vector<std::string> expected_rows;  // as written, tab-separated values

  // Returns true if the record applies to a backend that answers to the
  // condition names backend_names (see Backend::condition_names()).
  bool RunsOn(const std::vector<std::string_view>& backend_names) const;
};

// Parses the text of a .test file. On a malformed record returns false and
// sets *error to "line N: what is wrong".
bool ParseSltFile(std::string_view text, std::vector<Record>* records, std::string* error);

}  // namespace solo::sql::slt
