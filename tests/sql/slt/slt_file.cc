#include "slt_file.h"

#include <algorithm>
#include <sstream>

namespace solo::sql::slt {
namespace {

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream stream{std::string(line)};
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; });
}

std::string_view StripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

bool Record::RunsOn(const std::vector<std::string_view>& backend_names) const {
  auto answers = [&](const std::string& name) {
    return std::find(backend_names.begin(), backend_names.end(), name) != backend_names.end();
  };
  if (std::any_of(skip_if.begin(), skip_if.end(), answers)) return false;
  return only_if.empty() || std::any_of(only_if.begin(), only_if.end(), answers);
}

bool ParseSltFile(std::string_view text, std::vector<Record>* records, std::string* error) {
  std::vector<std::string_view> lines;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(StripCr(text.substr(begin, end - begin)));
    begin = end + 1;
  }
  auto fail = [&](size_t line_idx, const std::string& what) {
    *error = "line " + std::to_string(line_idx + 1) + ": " + what;
    return false;
  };
  Record pending;  // collects conditions
  size_t line_idx = 0;
  // Reads SQL lines until a blank line or stop_at; returns them joined.
  auto read_sql = [&](std::string_view stop_at) {
    std::string sql;
    while (line_idx < lines.size() && !IsBlank(lines[line_idx]) && lines[line_idx] != stop_at) {
      if (!sql.empty()) sql += '\n';
      sql += lines[line_idx];
      ++line_idx;
    }
    return sql;
  };
  while (line_idx < lines.size()) {
    std::string_view line = lines[line_idx];
    if (IsBlank(line) || line.front() == '#') {
      ++line_idx;
      continue;
    }
    std::vector<std::string> words = SplitWords(line);
    const std::string& head = words[0];
    if (head == "skipif" || head == "onlyif") {
      if (words.size() != 2) return fail(line_idx, head + " needs one backend name");
      (head == "skipif" ? pending.skip_if : pending.only_if).push_back(words[1]);
      ++line_idx;
      continue;
    }
    if (head == "hash-threshold") {
      ++line_idx;
      continue;
    }
    Record record = std::move(pending);
    pending = Record{};
    record.line = static_cast<int>(line_idx + 1);
    if (head == "halt") {
      record.kind = Record::Kind::kHalt;
      ++line_idx;
    } else if (head == "statement") {
      record.kind = Record::Kind::kStatement;
      if (words.size() < 2 || (words[1] != "ok" && words[1] != "error") || words.size() > 3 ||
          (words[1] == "ok" && words.size() != 2)) {
        return fail(line_idx, "expected 'statement ok' or 'statement error [SQLSTATE]'");
      }
      record.expect_error = words[1] == "error";
      if (words.size() == 3) {
        if (words[2].size() != 5) return fail(line_idx, "a SQLSTATE has five characters");
        record.expected_code = words[2];
      }
      ++line_idx;
      record.sql = read_sql("");
    } else if (head == "query") {
      record.kind = Record::Kind::kQuery;
      if (words.size() < 2 || words.size() > 4) {
        return fail(line_idx, "expected 'query <types> [nosort|rowsort|valuesort] [label]'");
      }
      record.types = words[1];
      for (char type : record.types) {
        if (type != 'I' && type != 'T' && type != 'R') {
          return fail(line_idx, "column types are I, T or R");
        }
      }
      if (words.size() >= 3) {
        if (words[2] == "rowsort") {
          record.sort = SortMode::kRows;
        } else if (words[2] == "valuesort") {
          record.sort = SortMode::kValues;
        } else if (words[2] != "nosort") {
          return fail(line_idx, "unknown sort mode '" + words[2] + "'");
        }
      }
      ++line_idx;
      record.sql = read_sql("----");
      if (line_idx < lines.size() && lines[line_idx] == "----") {
        ++line_idx;
        while (line_idx < lines.size() && !IsBlank(lines[line_idx])) {
          record.expected_rows.emplace_back(lines[line_idx]);
          ++line_idx;
        }
      }
    } else {
      return fail(line_idx, "unknown record '" + head + "'");
    }
    if (record.kind != Record::Kind::kHalt && record.sql.empty()) {
      return fail(static_cast<size_t>(record.line - 1), "record without SQL");
    }
    records->push_back(std::move(record));
  }
  if (!pending.skip_if.empty() || !pending.only_if.empty()) {
    return fail(lines.size() - 1, "skipif/onlyif at the end of the file");
  }
  return true;
}

}  // namespace solo::sql::slt
