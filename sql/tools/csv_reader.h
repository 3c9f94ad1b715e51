// Reading CSV records for the shell's .import, strictly: what PostgreSQL's
// COPY ... CSV (and the shell's .mode csv) writes, and nothing else.
//
//   - fields are separated by ',' and a record ends at a line break ("\n",
//     or "\r\n");
//   - a field that starts with '"' is quoted: it runs to the next '"' not
//     doubled ("" stands for one quote), may hold ',' and line breaks, and
//     must be followed by ',' or the end of the record;
//   - an unquoted field holds no '"';
//   - empty lines between records are skipped.
//
// Anything else (an unterminated quoted field, a quote inside an unquoted
// field, text after a closing quote) is an error with the line it is on.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace solo::shell {

class CsvReader {
 public:
  struct Field {
    std::string text;
    bool quoted = false;  // an empty quoted field is an empty string, an empty unquoted one NULL
  };

  // Reads from input, which must outlive the reader.
  explicit CsvReader(std::istream& input) : input_(input) {}
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Skips one line as it is (a header), quotes and all. False at the end of
  // the input.
  bool SkipLine();

  // Reads the next record into *fields. True with a record; false at the end
  // of the input (error() empty) or at malformed input (error() says what,
  // error_line() where).
  bool Next(std::vector<Field>* fields);

  // The line (1-based) where the record Next returned last starts.
  uint64_t record_line() const { return record_line_; }
  const std::string& error() const { return error_; }
  uint64_t error_line() const { return error_line_; }

 private:
  bool Fail(uint64_t line, std::string message);

  std::istream& input_;
  uint64_t line_count_ = 0;  // lines read
  uint64_t record_line_ = 0;
  uint64_t error_line_ = 0;
  std::string error_;
};

}  // namespace solo::shell
