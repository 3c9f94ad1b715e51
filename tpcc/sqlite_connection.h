// One SQLite connection (sqlite3 handle) of the SQLite backend, with its
// statement cache and its transaction loop. See sqlite_backend.h for the
// overall design and the type mapping.
//
// Transaction loop (write and read):
//   1. [write, writer_gate] lock SqliteShared::writer_gate
//   2. BEGIN IMMEDIATE (write) or BEGIN (read)        -- may wait in the busy handler
//   3. body(txn)                                      -- statements via SqliteTxn::exec
//   4. COMMIT if the body returned kCommit, else ROLLBACK
//   5. [write, writer_gate] unlock; [checkpoint passive/restart] checkpoint
//      when the WAL has reached wal_autocheckpoint pages
//   A retryable BackendError (SQLITE_BUSY/SQLITE_LOCKED) anywhere in 2-4 rolls
//   back, releases the gate and goes to 1 again; any other exception rolls
//   back and propagates.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tpcc/backend.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tpcc {

struct SqliteShared;

class SqliteConnection final : public Connection {
 public:
  // Opens `shared->path` (creating the file) and applies the profile.
  // Precondition: the caller holds shared->open_mutex and the directory
  // exists. Throws BackendError naming the path.
  explicit SqliteConnection(std::shared_ptr<SqliteShared> shared);
  ~SqliteConnection() override;

  // Returns the same id for the same text. Throws BackendError with SQLite's
  // message for a statement that does not compile.
  StmtId prepare(const std::string& sql) override;
  TxnResult write(const TxnBody& body) override;
  TxnResult read(const TxnBody& body) override;
  // Runs one or more statements with sqlite3_exec (no parameters). Throws
  // BackendError.
  void execute_script(const std::string& sql) override;

  // The first column of the first row of `sql` as text ("" when no row);
  // for PRAGMA queries. Outside transactions only. Throws BackendError.
  std::string query_text(const std::string& sql);

  // Upper bound on body runs of one transaction; then the retryable error
  // is rethrown to the caller.
  static constexpr uint32_t kMaxRetries = 10'000;

 private:
  friend class SqliteTxn;

  // Binds, steps to the end, collects rows into *out (if not null), then
  // resets and clears bindings whatever happens.
  int64_t exec(StmtId stmt, std::span<const Value> params, Rows* out, bool read_only);
  void step_control(sqlite3_stmt* stmt, const char* what);
  void rollback_quietly();
  TxnResult run(const TxnBody& body, bool write);
  void maybe_checkpoint();
  [[noreturn]] void fail(int rc, const std::string& what);

  static int busy_handler(void* self, int count);
  static int wal_hook(void* self, sqlite3* db, const char* schema, int frames);

  // Immutable after construction.
  std::shared_ptr<SqliteShared> shared_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* begin_write_ = nullptr;
  sqlite3_stmt* begin_read_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3_stmt* rollback_ = nullptr;

  // Owner thread only.
  std::vector<sqlite3_stmt*> stmts_;  // index = StmtId
  std::vector<std::string> sql_;      // text of each statement, for messages
  std::unordered_map<std::string, StmtId> ids_;
  std::chrono::steady_clock::time_point busy_since_;
  int wal_frames_ = 0;          // WAL size after the last commit (wal hook)
  bool in_checkpoint_ = false;  // a RESTART checkpoint runs: shorter busy budget
};

}  // namespace tpcc
