// The tuned SQLite backend.
//
// Layout and life cycle
//   The database is one file, <dir>/tpcc.sqlite, with its -wal and -shm
//   companions. --storage ram puts <dir> on tmpfs (/dev/shm/solo-tpcc unless
//   BackendOptions::dir is given); --storage disk puts it on the real disk
//   (./tpcc-data unless given). Processes that run at the same time need
//   different dirs. The directory is created by the first connect() or
//   destroy(), with the `tpcc-owned` marker (owned_dir.h); a directory that
//   cannot be created or written is a BackendError naming the path and the
//   reason.
//
// Connections and transactions (see sqlite_connection.h)
//   One sqlite3 handle per Connection (one per terminal), opened NOMUTEX since
//   a Connection is used by one thread at a time. WAL; writers BEGIN IMMEDIATE
//   (they take the write lock up front, so they never fail half-way with
//   SQLITE_BUSY_SNAPSHOT), readers plain BEGIN (a WAL snapshot at their first
//   read). Lock waits go to a busy handler that yields/sleeps with back-off;
//   SQLITE_BUSY or SQLITE_LOCKED from any statement rolls back and runs the
//   body again, counted in TxnResult::retries.
//
// Type mapping (Value <-> SQLite storage class)
//   bind: Int -> INTEGER, Decimal -> REAL (units / 10^scale), Double -> REAL,
//         Text -> TEXT, Timestamp -> TEXT "YYYY-MM-DD HH:MM:SS.ffffff", Null -> NULL.
//   read: INTEGER -> int64, REAL -> double, TEXT and BLOB -> std::string,
//         NULL -> monostate.
//   SQLite has no exact decimal: money is stored as a double (or as an
//   integer when whole, by NUMERIC affinity) and Rows::get_decimal rounds it
//   back at the column's scale. Sums of many amounts carry binary rounding
//   error far below a cent; this is SQLite's documented limitation.
//
// Settings come from a named profile (sqlite_profile.h).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tpcc/backend.h"
#include "tpcc/sqlite_profile.h"

namespace tpcc {

// State shared by a backend and its connections. Immutable after
// construction except where noted.
struct SqliteShared {
  SqliteProfile profile;
  Storage storage = Storage::kRam;
  std::string dir;
  bool default_dir = false;  // dir is the storage default (adopted by destroy(): owned_dir.h)
  std::string path;

  // Serializes connect() (directory check, file creation, journal mode).
  std::mutex open_mutex;
  std::string opened_settings;  // guarded by open_mutex: what the first connection found
  // Writers of this process queue here when profile.writer_gate is set.
  std::mutex writer_gate;
};

class SqliteBackend final : public Backend {
 public:
  // Resolves the directory and the profile; touches no file. Throws
  // std::invalid_argument for an unknown or (for disk) non-durable profile.
  explicit SqliteBackend(const BackendOptions& options);
  // Same, with an explicit profile (tests and experiments).
  SqliteBackend(const BackendOptions& options, const SqliteProfile& profile);
  SqliteBackend(const SqliteBackend&) = delete;
  SqliteBackend& operator=(const SqliteBackend&) = delete;

  std::string name() const override { return "sqlite"; }
  // The database file's path.
  std::string location() const override { return shared_->path; }
  // True when the file exists and has a table named `warehouse`; false when
  // there is no file or no such table. Throws BackendError (with SQLite's
  // message) when the file is there but cannot be read, e.g. is damaged.
  bool exists() override;
  // PRAGMA quick_check on a new connection: ok when it answers "ok", else its
  // first line (or the error that stopped it) in the detail.
  StorageCheck check_storage() override;
  // Removes the database, -wal and -shm files (missing ones are fine); the
  // directory and its other files stay. Refuses (BackendError, nothing
  // removed) unless the directory is tpcc's: claim_dir() in owned_dir.h,
  // which creates and marks a missing or empty one and adopts the default.
  // Precondition: no connection of this backend is open. Throws BackendError
  // when a file exists but cannot be removed.
  void destroy() override;
  // Opens a connection, creating the directory and the file if needed and
  // applying the profile. Any thread. Throws BackendError.
  std::unique_ptr<Connection> connect() override;
  // Generation of rows overlaps with insertion; SQLite itself takes one
  // writer at a time.
  int load_parallelism() const override { return 2; }
  // CREATE TABLE with a PRIMARY KEY gets WITHOUT ROWID when the profile says
  // so: the rows are stored in their primary key's B-tree, and a look-up by
  // key is one descent instead of two (the key's index, then the rowid table).
  std::string schema_statement(const std::string& ddl) const override;
  // ANALYZE: the planner's statistics (sqlite_stat1). Without them a WITHOUT
  // ROWID orders table makes Order-Status walk the district's orders by
  // primary key instead of using orders_by_customer.
  void finish_load(Connection& conn) override;
  // The profile's pragmas and other knobs, the path, the SQLite version and,
  // once a connection was opened, the page size and journal mode the file has.
  std::string describe_config() const override;

  const std::string& path() const { return shared_->path; }
  const SqliteProfile& profile() const { return shared_->profile; }

 private:
  std::shared_ptr<SqliteShared> shared_;
};

// The directory --storage `storage` uses when BackendOptions::dir is empty.
std::string sqlite_default_dir(Storage storage);

}  // namespace tpcc
