#include "slt_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace solo::sql::slt {
namespace {

constexpr int kRealDecimals = 3;

bool IsDecimalText(std::string_view text) {
  size_t idx = 0;
  if (idx < text.size() && (text[idx] == '-' || text[idx] == '+')) ++idx;
  bool digits = false;
  bool dot = false;
  for (; idx < text.size(); ++idx) {
    if (text[idx] >= '0' && text[idx] <= '9') {
      digits = true;
    } else if (text[idx] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digits;
}

// Rounds an exact decimal string to kRealDecimals places, half away from zero.
std::string RoundDecimalText(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  size_t dot = text.find('.');
  std::string whole(text.substr(0, dot));
  std::string fraction = dot == std::string_view::npos ? "" : std::string(text.substr(dot + 1));
  if (whole.empty()) whole = "0";
  bool round_up = fraction.size() > kRealDecimals && fraction[kRealDecimals] >= '5';
  fraction.resize(kRealDecimals, '0');
  std::string digits = whole + fraction;
  if (round_up) {
    size_t idx = digits.size();
    while (idx > 0) {
      --idx;
      if (digits[idx] == '9') {
        digits[idx] = '0';
      } else {
        ++digits[idx];
        break;
      }
      if (idx == 0) digits.insert(digits.begin(), '1');
    }
  }
  std::string out = digits.substr(0, digits.size() - kRealDecimals);
  size_t first = out.find_first_not_of('0');
  out = first == std::string::npos ? "0" : out.substr(first);
  out += '.';
  out += digits.substr(digits.size() - kRealDecimals);
  bool zero = out.find_first_not_of("0.") == std::string::npos;
  return (negative && !zero) ? "-" + out : out;
}

std::string FormatReal(double real) {
  std::string text = fmt::format("{:.{}f}", real, kRealDecimals);
  if (text == "-0.000") text = "0.000";
  return text;
}

std::string JoinRow(const std::vector<std::string>& values) {
  std::string row;
  for (size_t idx = 0; idx < values.size(); ++idx) {
    if (idx > 0) row += '\t';
    row += values[idx];
  }
  return row;
}

std::vector<std::string> SplitTabs(std::string_view row) {
  std::vector<std::string> values;
  size_t begin = 0;
  while (true) {
    size_t tab = row.find('\t', begin);
    values.emplace_back(row.substr(begin, tab == std::string_view::npos ? tab : tab - begin));
    if (tab == std::string_view::npos) return values;
    begin = tab + 1;
  }
}

// Puts lines in the record's order: rows sorted, or every value on its own
// line sorted.
std::vector<std::string> Arrange(std::vector<std::string> rows, SortMode sort) {
  if (sort == SortMode::kValues) {
    std::vector<std::string> values;
    for (const std::string& row : rows) {
      for (std::string& value : SplitTabs(row)) values.push_back(std::move(value));
    }
    std::sort(values.begin(), values.end());
    return values;
  }
  if (sort == SortMode::kRows) std::sort(rows.begin(), rows.end());
  return rows;
}

std::string Indent(std::string_view text) {
  std::string out = "    ";
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += "    ";
  }
  return out;
}

}  // namespace

std::string FormatValue(const Value& value, char type) {
  switch (value.type) {
    case Value::Type::kNull:
      return "NULL";
    case Value::Type::kInteger:
      return type == 'R' ? fmt::format("{}.{:0>{}}", value.integer, 0, kRealDecimals)
                         : std::to_string(value.integer);
    case Value::Type::kReal:
      if (type == 'R') return FormatReal(value.real);
      if (type == 'I' && std::nearbyint(value.real) == value.real && std::fabs(value.real) < 1e18) {
        return std::to_string(static_cast<int64_t>(value.real));
      }
      return fmt::format("{}", value.real);
    case Value::Type::kText:
      if (value.text.empty()) return "(empty)";
      if (type == 'R' && IsDecimalText(value.text)) return RoundDecimalText(value.text);
      return value.text;
  }
  return "?";
}

RunStats RunRecords(std::string_view file_name, const std::vector<Record>& records,
                    Backend& backend, std::ostream& out, bool verbose) {
  RunStats stats;
  auto report = [&](const Record& record, std::string_view what) {
    out << fmt::format("{}:{}: {}\n{}\n", file_name, record.line, what, Indent(record.sql));
  };
  for (const Record& record : records) {
    if (!record.RunsOn(backend.condition_names())) {
      ++stats.skipped;
      continue;
    }
    if (record.kind == Record::Kind::kHalt) break;
    ExecResult result = backend.Execute(record.sql);
    std::string error_text =
        fmt::format("{} {}", result.error_code.empty() ? "(no SQLSTATE)" : result.error_code,
                    result.error_message);
    if (record.kind == Record::Kind::kStatement && record.expect_error) {
      if (result.ok) {
        if (backend.syntax_only() && record.expected_code != "42601") {
          // The parser accepted it; the error it expects is found later.
          ++stats.unchecked;
          ++stats.passed;
          continue;
        }
        report(record, fmt::format("expected an error {}, but the statement succeeded",
                                   record.expected_code));
        ++stats.failed;
      } else if (!record.expected_code.empty() && !result.error_code.empty() &&
                 result.error_code != record.expected_code) {
        report(record, fmt::format("expected error {}, got {}", record.expected_code, error_text));
        ++stats.failed;
      } else {
        if (!record.expected_code.empty() && result.error_code.empty()) {
          ++stats.unchecked;
          if (verbose) report(record, "error code not confirmed: " + error_text);
        }
        ++stats.passed;
      }
      continue;
    }
    if (!result.ok) {
      report(record, "unexpected error " + error_text);
      ++stats.failed;
      continue;
    }
    if (record.kind == Record::Kind::kStatement || backend.syntax_only()) {
      ++stats.passed;
      continue;
    }
    // A query: compare the formatted rows.
    if (result.column_count != record.types.size() && !result.rows.empty()) {
      report(record,
             fmt::format("expected {} columns, got {}", record.types.size(), result.column_count));
      ++stats.failed;
      continue;
    }
    std::vector<std::string> actual;
    for (const std::vector<Value>& row : result.rows) {
      std::vector<std::string> values;
      for (size_t col = 0; col < row.size(); ++col) {
        values.push_back(FormatValue(row[col], record.types[col]));
      }
      actual.push_back(JoinRow(values));
    }
    actual = Arrange(std::move(actual), record.sort);
    std::vector<std::string> expected = Arrange(record.expected_rows, record.sort);
    if (actual != expected) {
      std::string detail = "wrong result\n  expected:\n";
      for (const std::string& line : expected) detail += "    " + line + "\n";
      detail += "  actual:\n";
      for (const std::string& line : actual) detail += "    " + line + "\n";
      detail += "  in the statement";
      report(record, detail);
      ++stats.failed;
      continue;
    }
    ++stats.passed;
  }
  return stats;
}

}  // namespace solo::sql::slt
