#include "outcome.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace solo::sql::differential {
namespace {

// "2.50" -> "2.5", "3.00" -> "3", "-0.0" -> "0"; numbers in exponent form
// and integers are left alone (apart from "-0").
std::string TrimFraction(std::string text) {
  if (text.find('.') != std::string::npos && text.find_first_of("eE") == std::string::npos) {
    while (!text.empty() && text.back() == '0') text.pop_back();
    if (!text.empty() && text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

bool SameCell(const Cell& a, const Cell& b) {
  if (a.kind != b.kind) return false;
  if (a.text == b.text) return true;
  if (a.kind != CellKind::kNumber || !(a.approximate || b.approximate)) return false;
  const long double x = std::strtold(a.text.c_str(), nullptr);
  const long double y = std::strtold(b.text.c_str(), nullptr);
  const long double scale = std::max(std::fabs(x), std::fabs(y));
  return std::fabs(x - y) <= kDoubleTolerance * scale;
}

bool SameRow(const Row& a, const Row& b) {
  if (a.size() != b.size()) return false;
  for (size_t col = 0; col < a.size(); ++col) {
    if (!SameCell(a[col], b[col])) return false;
  }
  return true;
}

// A key that sorts rows the same way on both sides: approximate numbers are
// rounded to fewer digits than kDoubleTolerance distinguishes.
std::string SortKey(const Row& row) {
  std::string key;
  for (const Cell& cell : row) {
    key += static_cast<char>('0' + static_cast<int>(cell.kind));
    if (cell.kind == CellKind::kNumber && cell.approximate) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.7Lg", std::strtold(cell.text.c_str(), nullptr));
      key += buffer;
    } else {
      key += cell.text;
    }
    key += '\x1f';
  }
  return key;
}

std::vector<Row> Sorted(const std::vector<Row>& rows) {
  std::vector<std::pair<std::string, Row>> keyed;
  keyed.reserve(rows.size());
  for (const Row& row : rows) keyed.emplace_back(SortKey(row), row);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Row> sorted;
  sorted.reserve(keyed.size());
  for (auto& entry : keyed) sorted.push_back(std::move(entry.second));
  return sorted;
}

}  // namespace

Cell NumberCell(std::string digits, bool approximate) {
  Cell cell;
  cell.kind = CellKind::kNumber;
  cell.text = TrimFraction(std::move(digits));
  cell.approximate = approximate;
  return cell;
}

Cell TimestampCell(std::string stamp) {
  Cell cell;
  cell.kind = CellKind::kTimestamp;
  if (stamp.find('.') != std::string::npos) {
    while (stamp.back() == '0') stamp.pop_back();
    if (stamp.back() == '.') stamp.pop_back();
  }
  cell.text = std::move(stamp);
  return cell;
}

bool SameOutcome(const Outcome& solo, const Outcome& pg, bool ordered) {
  if (solo.ok != pg.ok) return false;
  if (!solo.ok) return solo.sqlstate == pg.sqlstate;
  if (solo.rows.size() != pg.rows.size()) return false;
  if (ordered) {
    for (size_t row_idx = 0; row_idx < solo.rows.size(); ++row_idx) {
      if (!SameRow(solo.rows[row_idx], pg.rows[row_idx])) return false;
    }
    return true;
  }
  const std::vector<Row> solo_sorted = Sorted(solo.rows);
  const std::vector<Row> pg_sorted = Sorted(pg.rows);
  for (size_t row_idx = 0; row_idx < solo_sorted.size(); ++row_idx) {
    if (!SameRow(solo_sorted[row_idx], pg_sorted[row_idx])) return false;
  }
  return true;
}

std::string Describe(const Outcome& outcome) {
  if (!outcome.ok) return "ERROR " + outcome.sqlstate + ": " + outcome.message + "\n";
  std::string text = std::to_string(outcome.rows.size()) + " row(s)\n";
  for (const Row& row : outcome.rows) {
    text += "  ";
    for (size_t col = 0; col < row.size(); ++col) {
      if (col > 0) text += " | ";
      const Cell& cell = row[col];
      switch (cell.kind) {
        case CellKind::kNull:
          text += "NULL";
          break;
        case CellKind::kText:
          text += "'" + cell.text + "'";
          break;
        default:
          text += cell.text;
          break;
      }
    }
    text += "\n";
  }
  return text;
}

}  // namespace solo::sql::differential
