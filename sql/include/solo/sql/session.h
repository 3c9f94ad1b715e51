// Sessions: SQL text in, results out, with autocommit and explicit
// transactions. See sql/README.md "Sessions".
//
//   autocommit   SELECT/EXPLAIN run on the caller's thread against the newest
//                snapshot (db.read); everything else runs on the owner as its
//                own transaction (db.write), undone on error.
//   BEGIN        starts a transaction that runs on the owner: the session's
//                statements run there one by one, inside one db.write, until
//                COMMIT or ROLLBACK. Other writers wait meanwhile; readers do
//                not. After an error every statement fails with 25P02 until
//                ROLLBACK (COMMIT then rolls back). A transaction idle for
//                longer than Options::idle_timeout is rolled back; the next
//                statement gets 25P03.
//
// Threads: a Session is used by one thread at a time (any thread but the
// owner). Many sessions may share one Database.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "solo/database.h"
#include "solo/sql/statement.h"
#include "solo/sql/value.h"

namespace solo::sql {

class Session {
 public:
  struct Options {
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
  };

  // `db` must outlive the session.
  explicit Session(Database& db);
  Session(Database& db, Options options);
  // Rolls back an open transaction.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Executes one statement (`sql` holds exactly one, optionally ending in
  // ';') with `params` for its parameters. On success *out (if not null)
  // holds its rows, names, affected count and tag; on failure returns the
  // error, whose position is within `sql`.
  SqlStatus Exec(std::string_view sql, std::span<const Value> params, ResultSet* out);
  SqlStatus Exec(std::string_view sql, ResultSet* out = nullptr) { return Exec(sql, {}, out); }

  // Every statement Exec runs from now on looks at *flag (null: none) as
  // PreparedStatement::Execute's `cancel` does: setting it, from any thread
  // or a signal handler, makes the running statement fail with 57014, as
  // any error does (autocommit: undone; inside BEGIN: the transaction is
  // then failed, 25P02 until ROLLBACK). BEGIN, COMMIT and ROLLBACK are never
  // cancelled. The session only reads the flag: the caller clears it (a
  // flag left set cancels each later statement when it starts). *flag must
  // outlive the session or the next call. Not while Exec runs.
  void set_cancel_flag(const std::atomic<bool>* flag) { cancel_ = flag; }

  bool in_transaction() const;
  Database& database() const { return db_; }

 private:
  struct Txn;
  SqlStatus ExecAutocommit(std::string_view sql, std::span<const Value> params, ResultSet* out);
  SqlStatus Begin();
  SqlStatus Finish(bool commit, ResultSet* out);
  // A prepared statement for `sql` from the cache, or prepared against view.
  Result<PreparedStatement> Get(const TxnView& view, std::string_view sql);

  Database& db_;
  Options options_;
  const std::atomic<bool>* cancel_ = nullptr;  // set_cancel_flag's
  std::unique_ptr<Txn> txn_;
  bool timed_out_ = false;
  std::unordered_map<std::string, PreparedStatement> cache_;
};

}  // namespace solo::sql
