// What the sqllogictest runner needs from a database: run one record's SQL
// and hand back rows or an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace solo::sql::slt {

struct Value {
  enum class Type { kNull, kInteger, kReal, kText };
  Type type = Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string text;  // kText; an exact decimal may come as its text
};

struct ExecResult {
  bool ok = true;
  // On failure: the SQLSTATE if the backend knows it (empty if not) and the
  // message.
  std::string error_code;
  std::string error_message;
  size_t column_count = 0;
  std::vector<std::vector<Value>> rows;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The backend's name ("sqlite", "solo").
  virtual std::string_view name() const = 0;

  // The names that skipif/onlyif lines select this backend by.
  virtual std::vector<std::string_view> condition_names() const { return {name()}; }

  // True if the backend only checks that statements are accepted by the
  // parser (no rows, and only syntax errors are found).
  virtual bool syntax_only() const { return false; }

  // Starts over with an empty database (before each file).
  virtual void Reset() = 0;

  // Runs sql (one statement, possibly several separated by ';').
  virtual ExecResult Execute(std::string_view sql) = 0;
};

}  // namespace solo::sql::slt
