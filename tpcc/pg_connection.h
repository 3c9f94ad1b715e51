// One PostgreSQL connection (libpqxx) of the PostgreSQL backend: prepared
// statements, value binding and reading, and the transaction loop. See
// pg_backend.h for the overall design.
//
// Transaction loop (write and read):
//   1. BEGIN + SET TRANSACTION ISOLATION LEVEL <level> [READ ONLY]   (one round trip)
//   2. body(txn)                          -- statements via PgTxn::exec (extended protocol)
//   3. COMMIT if the body returned kCommit, else ROLLBACK
//   A serialization failure (SQLSTATE 40001) or a deadlock (40P01) anywhere in
//   1-3 rolls back and goes to 1 again, counted in TxnResult::retries; any
//   other error rolls back and propagates as a BackendError carrying the
//   server's message and SQLSTATE.
//
// Type mapping (Value <-> PostgreSQL), parameters are sent as text and typed
// by the server from their context:
//   bind: Int -> decimal digits, Decimal -> exact text (format_decimal),
//         Double -> shortest round-trip text, Text -> as is (no NUL bytes),
//         Timestamp -> "YYYY-MM-DD HH:MM:SS.ffffff" (UTC), Null -> SQL NULL.
//   read: int2/int4/int8/oid -> int64; numeric -> std::string exact text
//         (Rows::get_decimal parses it exactly); float4/float8 -> double;
//         timestamp -> Timestamp (micros, UTC); bool -> int64 0/1;
//         NULL -> monostate; anything else -> std::string as the server prints it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

// Isolation of write transactions. Read transactions are always REPEATABLE
// READ READ ONLY (one snapshot).
enum class PgIsolation { kReadCommitted, kRepeatableRead, kSerializable };

// "READ COMMITTED", "REPEATABLE READ" or "SERIALIZABLE".
const char* pg_isolation_name(PgIsolation isolation);

// Settings shared by a backend's connections. Immutable after construction.
struct PgShared {
  std::string conninfo;  // libpq connection string or URI
  std::string where;     // for messages: the socket directory or the URL without password
  PgIsolation write_isolation = PgIsolation::kReadCommitted;
};

// Rewrites `?` placeholders to $1, $2, ... in order, leaving those inside
// 'string literals', "quoted identifiers", -- and /* */ comments alone. Sets
// *count (when not null) to the number of placeholders.
std::string pg_placeholders(const std::string& sql, size_t* count = nullptr);

class PgConnection final : public Connection {
 public:
  // Connects to `shared->conninfo`. Throws BackendError naming shared->where
  // and the server's reason.
  explicit PgConnection(std::shared_ptr<const PgShared> shared);
  ~PgConnection() override;

  // Returns the same id for the same text. The statement is prepared on the
  // server at once, so a bad statement throws BackendError here.
  StmtId prepare(const std::string& sql) override;
  TxnResult write(const TxnBody& body) override;
  TxnResult read(const TxnBody& body) override;
  // Runs `sql` (one or more statements, no parameters) in autocommit mode.
  // Throws BackendError.
  void execute_script(const std::string& sql) override;

  // Runs `sql` (no parameters) in autocommit mode and returns its rows
  // converted as described above. Throws BackendError.
  Rows query(const std::string& sql);

  // The server process serving this connection.
  int backend_pid() const;

  // Upper bound on body runs of one transaction; then the retryable error is
  // rethrown to the caller.
  static constexpr uint32_t kMaxRetries = 10'000;

 private:
  friend class PgTxn;
  struct Impl;  // the libpqxx connection and the transaction in progress

  int64_t exec(StmtId stmt, std::span<const Value> params, Rows* out);
  TxnResult run(const TxnBody& body, bool write);

  // Immutable after construction.
  std::shared_ptr<const PgShared> shared_;
  std::unique_ptr<Impl> impl_;

  // Used by one thread at a time (the Connection contract).
  std::vector<std::string> names_;  // index = StmtId: server-side statement name
  std::vector<std::string> sql_;    // the portable text, for messages
  std::unordered_map<std::string, StmtId> ids_;
  std::vector<std::string> param_text_;      // reused binding buffers
  std::vector<const char*> param_pointers_;
};

}  // namespace tpcc
