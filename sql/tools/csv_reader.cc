#include "csv_reader.h"

#include <fmt/format.h>

#include <utility>

namespace solo::shell {

bool CsvReader::SkipLine() {
  std::string line;
  if (!std::getline(input_, line)) return false;
  ++line_count_;
  return true;
}

bool CsvReader::Fail(uint64_t line, std::string message) {
  error_line_ = line;
  error_ = std::move(message);
  return false;
}

bool CsvReader::Next(std::vector<Field>* fields) {
  fields->clear();
  error_.clear();
  std::string line;
  do {
    if (!std::getline(input_, line)) return false;
    ++line_count_;
  } while (line.empty() || line == "\r");
  record_line_ = line_count_;

  enum class State { kFieldStart, kUnquoted, kQuoted, kAfterQuote };
  State state = State::kFieldStart;
  Field field;
  uint64_t quote_line = 0;  // where the open quoted field started
  size_t pos = 0;
  for (;;) {
    if (pos == line.size()) {
      if (state != State::kQuoted) break;
      // The quoted field holds a line break and goes on on the next line.
      if (!std::getline(input_, line)) {
        return Fail(quote_line, fmt::format("unterminated quoted field (field {}: its quote is "
                                            "not closed by the end of the file)",
                                            fields->size() + 1));
      }
      ++line_count_;
      field.text += '\n';
      pos = 0;
      continue;
    }
    char ch = line[pos++];
    // A '\r' that ends the line outside quotes is the "\r\n" line break's.
    bool line_end_cr = ch == '\r' && pos == line.size() && state != State::kQuoted;
    if (line_end_cr) continue;
    switch (state) {
      case State::kFieldStart:
      case State::kUnquoted:
        if (ch == ',') {
          fields->push_back(std::exchange(field, Field{}));
          state = State::kFieldStart;
        } else if (ch == '"' && state == State::kFieldStart) {
          field.quoted = true;
          quote_line = line_count_;
          state = State::kQuoted;
        } else if (ch == '"') {
          return Fail(line_count_,
                      fmt::format("a quote inside unquoted field {} (a field holding a quote is "
                                  "quoted whole, its quotes doubled: \"a\"\"b\")",
                                  fields->size() + 1));
        } else {
          field.text += ch;
          state = State::kUnquoted;
        }
        break;
      case State::kQuoted:
        if (ch == '"' && pos < line.size() && line[pos] == '"') {
          field.text += '"';  // a doubled quote stands for one
          ++pos;
        } else if (ch == '"') {
          state = State::kAfterQuote;
        } else {
          field.text += ch;
        }
        break;
      case State::kAfterQuote:
        if (ch != ',') {
          return Fail(line_count_,
                      fmt::format("text after the closing quote of field {}", fields->size() + 1));
        }
        fields->push_back(std::exchange(field, Field{}));
        state = State::kFieldStart;
        break;
    }
  }
  fields->push_back(std::move(field));
  return true;
}

}  // namespace solo::shell
