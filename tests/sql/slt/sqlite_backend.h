// Runs .test files against SQLite (in memory), to confirm their expected
// results on a second engine.
#pragma once

#include <memory>

#include "slt_backend.h"

struct sqlite3;

namespace solo::sql::slt {

class SqliteBackend : public Backend {
 public:
  SqliteBackend();
  ~SqliteBackend() override;
  SqliteBackend(const SqliteBackend&) = delete;
  SqliteBackend& operator=(const SqliteBackend&) = delete;

  std::string_view name() const override { return "sqlite"; }
  void Reset() override;
  ExecResult Execute(std::string_view sql) override;

 private:
  void Close();
  sqlite3* db_ = nullptr;
};

// Maps a SQLite error (extended result code and message) to the SQLSTATE
// PostgreSQL would report for the same mistake, or "" when there is no
// clear equivalent.
std::string SqlStateForSqliteError(int extended_code, std::string_view message);

}  // namespace solo::sql::slt
