#include "tpcc/table_compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "tpcc/schema.h"

namespace tpcc {
namespace {

// A normalized value: numbers as int64 (ints, decimal units, micros), text
// as a string, or NULL.
struct Cell {
  bool null = false;
  bool is_number = false;
  int64_t number = 0;
  std::string text;

  bool operator==(const Cell& other) const {
    return null == other.null && is_number == other.is_number && number == other.number &&
           text == other.text;
  }
  // NULLs first, then numbers, then text.
  bool operator<(const Cell& other) const {
    if (null != other.null) return null;
    if (is_number != other.is_number) return is_number;
    if (is_number) return number < other.number;
    return text < other.text;
  }
  std::string show(const ColumnInfo& column) const {
    if (null) return "NULL";
    if (column.kind == ColumnKind::kDecimal) return format_decimal(number, column.scale);
    if (column.kind == ColumnKind::kTimestamp) return format_timestamp(number);
    if (is_number) return std::to_string(number);
    return "'" + text + "'";
  }
};

using NormalRow = std::vector<Cell>;

Cell normalize(const Rows& rows, size_t row, size_t col, const ColumnInfo& column) {
  Cell cell;
  if (rows.is_null(row, col)) {
    cell.null = true;
    return cell;
  }
  switch (column.kind) {
    case ColumnKind::kInteger:
      cell.is_number = true;
      cell.number = rows.get_int(row, col);
      break;
    case ColumnKind::kDecimal:
      cell.is_number = true;
      cell.number = rows.get_decimal(row, col, column.scale);
      break;
    case ColumnKind::kTimestamp:
      cell.is_number = true;
      cell.number = rows.get_timestamp(row, col);
      break;
    case ColumnKind::kChar: {
      cell.text = rows.get_text(row, col);
      size_t end = cell.text.find_last_not_of(' ');
      cell.text.resize(end == std::string::npos ? 0 : end + 1);
      break;
    }
    case ColumnKind::kVarchar:
      cell.text = rows.get_text(row, col);
      break;
  }
  return cell;
}

std::vector<NormalRow> fetch(Connection& conn, const std::string& table,
                             const std::vector<ColumnInfo>& columns, size_t key_columns) {
  std::string list;
  for (const ColumnInfo& column : columns) list += (list.empty() ? "" : ", ") + column.name;
  StmtId stmt = conn.prepare(fmt::format("SELECT {} FROM {}", list, table));
  Rows rows;
  conn.read([&](Txn& txn) {
    txn.exec(stmt, {}, &rows);
    return Outcome::kCommit;
  });
  std::vector<NormalRow> normal(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    normal[row].reserve(columns.size());
    for (size_t col = 0; col < columns.size(); ++col) {
      normal[row].push_back(normalize(rows, row, col, columns[col]));
    }
  }
  auto key_less = [key_columns](const NormalRow& left, const NormalRow& right) {
    return std::lexicographical_compare(left.begin(), left.begin() + key_columns, right.begin(),
                                        right.begin() + key_columns);
  };
  std::sort(normal.begin(), normal.end(), key_less);
  return normal;
}

std::string show_row(const NormalRow& row, const std::vector<ColumnInfo>& columns) {
  std::string text = "(";
  for (size_t col = 0; col < row.size(); ++col) {
    text += (col ? ", " : "") + row[col].show(columns[col]);
  }
  return text + ")";
}

}  // namespace

std::vector<TableDiff> compare_tables(Connection& a, Connection& b, int max_examples) {
  std::vector<TableDiff> diffs;
  for (std::string_view table_name : kTableNames) {
    if (table_name == "tpcc_meta") continue;
    std::string table(table_name);
    std::vector<ColumnInfo> columns = table_columns(table);
    // Key columns first so that sorting and merging use the key.
    std::vector<std::string> key = table_key_columns(table);
    std::vector<ColumnInfo> ordered;
    for (const std::string& name : key) {
      for (const ColumnInfo& column : columns) {
        if (column.name == name) ordered.push_back(column);
      }
    }
    for (const ColumnInfo& column : columns) {
      if (std::find(key.begin(), key.end(), column.name) == key.end()) ordered.push_back(column);
    }
    size_t key_columns = key.empty() ? ordered.size() : key.size();
    std::vector<NormalRow> left = fetch(a, table, ordered, key_columns);
    std::vector<NormalRow> right = fetch(b, table, ordered, key_columns);

    TableDiff diff;
    diff.table = table;
    diff.rows_a = left.size();
    diff.rows_b = right.size();
    int shown = 0;
    auto example = [&](const std::string& line) {
      if (shown++ < max_examples) diff.examples += "    " + line + "\n";
    };
    auto key_less = [key_columns](const NormalRow& l, const NormalRow& r) {
      return std::lexicographical_compare(l.begin(), l.begin() + key_columns, r.begin(),
                                          r.begin() + key_columns);
    };
    size_t li = 0, ri = 0;
    while (li < left.size() || ri < right.size()) {
      if (ri == right.size() || (li < left.size() && key_less(left[li], right[ri]))) {
        ++diff.differing;
        example("only in A: " + show_row(left[li++], ordered));
      } else if (li == left.size() || key_less(right[ri], left[li])) {
        ++diff.differing;
        example("only in B: " + show_row(right[ri++], ordered));
      } else {
        if (!(left[li] == right[ri])) {
          ++diff.differing;
          example("A: " + show_row(left[li], ordered));
          example("B: " + show_row(right[ri], ordered));
        }
        ++li;
        ++ri;
      }
    }
    diffs.push_back(std::move(diff));
  }
  return diffs;
}

}  // namespace tpcc
