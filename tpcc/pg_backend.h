// The PostgreSQL backend (libpqxx).
//
// Server
//   BackendOptions::pg_url names an existing PostgreSQL-compatible server (a
//   libpq URI or key=value string); the backend then only connects. When it
//   is empty the backend runs a private cluster (pg_cluster.h, scripts/pg) in
//   BackendOptions::dir (default /dev/shm/solo-pg for ram, ./pg-data for
//   disk): started on first use unless it already runs, stopped when the
//   backend is destroyed if the backend started it. The tuned settings and
//   the reasons for them: results/postgres-config/README.md.
//
// Connections and transactions (see pg_connection.h)
//   One server connection per Connection (one per terminal). Statements are
//   prepared on the server once per connection ('?' rewritten to $n). Write
//   transactions run at REPEATABLE READ (PostgreSQL's snapshot isolation;
//   TPC-C's transactions keep the consistency conditions under it, since
//   every read-modify-write of a row is a write conflict that fails with
//   SQLSTATE 40001 rather than losing an update). Serialization failures and
//   deadlocks roll back and run the body again, counted in TxnResult::retries.
//   Read transactions run at REPEATABLE READ READ ONLY: one snapshot.
//
// Money: DECIMAL columns are PostgreSQL numeric, exact; parameters are sent as
// exact decimal text and results come back as exact text.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/pg_cluster.h"
#include "tpcc/pg_connection.h"

namespace tpcc {

class PgBackend final : public Backend {
 public:
  // Resolves where the server is; starts nothing. Write transactions run
  // under READ COMMITTED: the transaction code changes each row relative to
  // its current value before it reads it (tpcc/transactions.cc), which keeps
  // every consistency condition without the serialization failures that
  // REPEATABLE READ gives on the warehouse and district rows. Read-only
  // transactions run under REPEATABLE READ (one snapshot). `write_isolation`
  // is for tests and experiments.
  explicit PgBackend(const BackendOptions& options,
                     PgIsolation write_isolation = PgIsolation::kReadCommitted);
  // Stops the private cluster if this backend started it. Precondition: no
  // connection of this backend is open.
  ~PgBackend() override;
  PgBackend(const PgBackend&) = delete;
  PgBackend& operator=(const PgBackend&) = delete;

  std::string name() const override { return "postgres"; }
  // The socket directory of a private cluster, or the URL (password hidden).
  std::string location() const override { return shared_->where; }
  // True when the database has a table named `warehouse`. A private cluster
  // that was never initialized is not started for this: false.
  bool exists() override;
  // Drops every TPC-C table (missing ones are fine). A private cluster's
  // directory must be tpcc's first: claim_dir() in owned_dir.h (created and
  // marked when missing or empty, the default adopted), else BackendError
  // and nothing is dropped. Throws BackendError.
  void destroy() override;
  // Opens a connection, starting the private cluster first if needed. Any
  // thread. Throws BackendError (one line naming the reason).
  std::unique_ptr<Connection> connect() override;
  // Rows are generated while the server inserts, and the server can use a
  // second core; more connections only add contention on two cores.
  int load_parallelism() const override { return 3; }
  // VACUUM (ANALYZE): statistics for the planner and a visibility map for
  // index-only scans. Without it the plans depend on when autovacuum ran:
  // ram-s24's W=4 T=64 rounds 2 and 3 ran Stock-Level for up to 80 s.
  void finish_load(Connection& conn) override;
  // Server version, isolation, where, and the key settings as the server
  // reports them (SHOW), once a connection was opened.
  std::string describe_config() const override;
  // The postmaster and all its children (backends, WAL writer, checkpointer,
  // autovacuum): for a private cluster from its postmaster.pid; for a
  // --pg-url server on this machine from its data_directory when readable,
  // else the backends of pg_stat_activity that run here.
  std::vector<int> server_pids() override;

  // The private cluster; null with --pg-url.
  PgCluster* cluster() { return cluster_.get(); }

 private:
  std::unique_ptr<PgConnection> open();

  std::unique_ptr<PgCluster> cluster_;  // immutable after construction
  bool default_dir_ = false;            // the cluster is in pg_default_dir(): adopted by destroy()
  std::shared_ptr<PgShared> shared_;    // immutable after construction
  mutable std::mutex config_mutex_;
  std::string server_config_;           // guarded by config_mutex_: filled by the first connect()
};

// `url` with any password replaced by "***" (for messages and reports).
std::string pg_hide_password(const std::string& url);

}  // namespace tpcc
