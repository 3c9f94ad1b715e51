// Row-by-row comparison of the TPC-C tables of two engines.
//
// Values are normalized by their column's declared type before comparing:
// integers exactly, DECIMAL(p,s) as units at scale s (so SQLite's doubles and
// exact decimals compare equal when they agree to the column's scale),
// TIMESTAMP as microseconds, CHAR(n) without trailing blanks (PostgreSQL pads,
// SQLite does not), VARCHAR exactly. Rows are sorted in C++ by the primary key
// (history: the whole row) with a typed comparison, so engines' collations do
// not matter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

struct TableDiff {
  std::string table;
  uint64_t rows_a = 0;
  uint64_t rows_b = 0;
  uint64_t differing = 0;  // rows present on one side only or with other values
  std::string examples;    // the first differing rows, one per line
  bool identical() const { return differing == 0 && rows_a == rows_b; }
};

// Compares the nine TPC-C tables (not tpcc_meta) of `a` and `b`.
// Throws BackendError if a table cannot be read.
std::vector<TableDiff> compare_tables(Connection& a, Connection& b, int max_examples = 3);

}  // namespace tpcc
