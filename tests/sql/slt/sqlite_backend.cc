#include "sqlite_backend.h"

#include <sqlite3.h>

#include <cstdlib>
#include <stdexcept>

namespace solo::sql::slt {

SqliteBackend::SqliteBackend() {
  Reset();
}

SqliteBackend::~SqliteBackend() {
  Close();
}

void SqliteBackend::Close() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

void SqliteBackend::Reset() {
  Close();
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) {
    throw std::runtime_error("cannot open an in-memory SQLite database");
  }
}

std::string SqlStateForSqliteError(int extended_code, std::string_view message) {
  switch (extended_code) {
    case SQLITE_CONSTRAINT_PRIMARYKEY:
    case SQLITE_CONSTRAINT_UNIQUE:
      return "23505";
    case SQLITE_CONSTRAINT_NOTNULL:
      return "23502";
    default:
      break;
  }
  struct Pattern {
    std::string_view text;
    std::string_view code;
  };
  static constexpr Pattern kPatterns[] = {
      {"syntax error", "42601"},
      {"unrecognized token", "42601"},
      {"incomplete input", "42601"},
      {"no such table", "42P01"},
      {"no such column", "42703"},
      {"has no column named", "42703"},
      {"no such index", "42704"},
      {"no such function", "42883"},
      {"wrong number of arguments to function", "42883"},
      {"already exists", "42P07"},
      {"duplicate column name", "42701"},
      {"ambiguous column name", "42702"},
      {"misuse of aggregate", "42803"},
      {"GROUP BY clause is required", "42803"},
      {"has more than one primary key", "42P16"},
      {"values were supplied", "42601"},
      {"values for", "42601"},
      {"all VALUES must have the same number of terms", "42601"},
      {"sub-select returns", "42601"},
      {"integer overflow", "22003"},
      {"within a transaction", "25001"},
      {"no transaction is active", "25P01"},
  };
  for (const Pattern& pattern : kPatterns) {
    if (message.find(pattern.text) != std::string_view::npos) return std::string(pattern.code);
  }
  return "";
}

ExecResult SqliteBackend::Execute(std::string_view sql) {
  ExecResult result;
  const char* next = sql.data();
  const char* end = sql.data() + sql.size();
  while (next < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db_, next, static_cast<int>(end - next), &stmt, &tail);
    if (rc == SQLITE_OK && stmt != nullptr) {
      int columns = sqlite3_column_count(stmt);
      while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        result.column_count = static_cast<size_t>(columns);
        std::vector<Value> row(static_cast<size_t>(columns));
        for (int col = 0; col < columns; ++col) {
          Value& value = row[static_cast<size_t>(col)];
          switch (sqlite3_column_type(stmt, col)) {
            case SQLITE_NULL:
              value.type = Value::Type::kNull;
              break;
            case SQLITE_INTEGER:
              value.type = Value::Type::kInteger;
              value.integer = sqlite3_column_int64(stmt, col);
              break;
            case SQLITE_FLOAT:
              value.type = Value::Type::kReal;
              value.real = sqlite3_column_double(stmt, col);
              break;
            default:
              value.type = Value::Type::kText;
              value.text.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, col)),
                                static_cast<size_t>(sqlite3_column_bytes(stmt, col)));
              break;
          }
        }
        result.rows.push_back(std::move(row));
      }
      if (columns > 0) result.column_count = static_cast<size_t>(columns);
      if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK) {
      result.ok = false;
      result.error_message = sqlite3_errmsg(db_);
      result.error_code =
          SqlStateForSqliteError(sqlite3_extended_errcode(db_), result.error_message);
      sqlite3_finalize(stmt);
      return result;
    }
    sqlite3_finalize(stmt);
    if (tail == nullptr || tail == next) break;
    next = tail;
  }
  return result;
}

}  // namespace solo::sql::slt
