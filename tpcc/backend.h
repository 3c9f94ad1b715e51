// The small interface the TPC-C harness runs against.
//
// A Backend names a database (engine + storage + location); it hands out
// Connections. A Connection prepares statements once and runs transactions:
// `write(body)` for a read-write transaction and `read(body)` for a read-only
// one. The body executes prepared statements through the Txn it is given.
//
// The transaction code of the harness is written once against this interface;
// the backend decides how a transaction is begun, retried and committed (for
// example BEGIN IMMEDIATE and a busy handler on SQLite, the owner thread on
// solo, REPEATABLE READ and serialization retries on PostgreSQL).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tpcc/value.h"

namespace tpcc {

// An error from an engine. `retryable` errors (busy, serialization failure)
// make the backend run the transaction body again; others end it.
class BackendError : public std::runtime_error {
 public:
  BackendError(const std::string& what, bool retryable = false)
      : std::runtime_error(what), retryable_(retryable) {}
  bool retryable() const { return retryable_; }

 private:
  bool retryable_;
};

// A result set: rows of values, column count fixed per statement.
class Rows {
 public:
  void clear() {
    count_ = 0;
    columns_ = 0;
  }
  void set_columns(size_t columns) { columns_ = columns; }
  void push(Value value) {
    if (count_ < values_.size()) {
      values_[count_] = std::move(value);
    } else {
      values_.push_back(std::move(value));
    }
    ++count_;
  }
  // Shapes the rows as rows x columns and returns the values to overwrite
  // in place: a text assigned into a slot that held text reuses its buffer,
  // so refilling a Rows kept across statements allocates nothing (the
  // values past the rows are kept too: a result with fewer rows than the
  // last one does not free texts that the next one fills again).
  Value* reshape(size_t rows, size_t columns) {
    columns_ = columns;
    count_ = rows * columns;
    if (values_.size() < count_) values_.resize(count_);
    return values_.data();
  }

  size_t columns() const { return columns_; }
  size_t size() const { return columns_ == 0 ? 0 : count_ / columns_; }
  bool empty() const { return size() == 0; }
  const Value& at(size_t row, size_t col) const { return values_[row * columns_ + col]; }

  // Typed accessors. They throw BackendError when the value has another type
  // (a NULL read as a number, say), naming the row and column.
  bool is_null(size_t row, size_t col) const;
  int64_t get_int(size_t row, size_t col) const;
  // The value as units at `scale`, whatever the engine returned (integer,
  // double or exact decimal text).
  int64_t get_decimal(size_t row, size_t col, int scale) const;
  double get_double(size_t row, size_t col) const;
  std::string get_text(size_t row, size_t col) const;
  // get_text into *out (its buffer reused).
  void copy_text(size_t row, size_t col, std::string* out) const;
  int64_t get_timestamp(size_t row, size_t col) const;

 private:
  std::vector<Value> values_;  // the rows are [0, count_); the rest are spare
  size_t count_ = 0;
  size_t columns_ = 0;
};

using StmtId = int;

// The handle a transaction body uses. Valid only inside the body.
class Txn {
 public:
  virtual ~Txn() = default;
  // Executes prepared statement `stmt` with `params` (bound in order to the
  // statement's `?` placeholders). Result rows, if any, replace `*out` when
  // `out` is not null. Returns the rows an INSERT, UPDATE or DELETE matched
  // (or a SELECT returned): under READ COMMITTED a DELETE that finds its row
  // already gone reports 0. Throws BackendError. `params` is only read
  // during the call.
  virtual int64_t exec(StmtId stmt, std::span<const Value> params, Rows* out = nullptr) = 0;
  // exec() with the parameters written in place (`{integer(w_id)}`), read
  // where they are instead of copied into a vector first.
  int64_t exec(StmtId stmt, std::initializer_list<Value> params, Rows* out = nullptr) {
    return exec(stmt, std::span<const Value>(params.begin(), params.size()), out);
  }
  // Executes `stmt` once per parameter set, in order, as exec() one after
  // another would: outs[k] gets the rows and matched[k] the count of the
  // k-th (the spans are as long as param_sets). Throws BackendError at the
  // first error. The default runs exec() in a loop; an engine with a batch
  // interface uses it (solo: PreparedStatement::ExecuteBatch, which looks
  // the rows of a point statement up together first).
  virtual void exec_batch(StmtId stmt, std::span<const std::vector<Value>> param_sets,
                          std::span<Rows> outs, std::span<int64_t> matched) {
    for (size_t set = 0; set < param_sets.size(); ++set) {
      matched[set] = exec(stmt, param_sets[set], &outs[set]);
    }
  }
};

// What a transaction body asks for at its end.
enum class Outcome { kCommit, kRollback };

// What happened to one transaction.
struct TxnResult {
  Outcome outcome = Outcome::kCommit;  // kRollback when the body asked for it
  uint32_t retries = 0;                // times the body was run again
  // When the engine answered it (steady_clock ns), where the engine tells
  // (solo's submitted writes); 0: unknown.
  uint64_t answered_ns = 0;
};

using TxnBody = std::function<Outcome(Txn&)>;

// One client connection. Used by one thread at a time.
class Connection {
 public:
  virtual ~Connection() = default;
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Prepares `sql` (portable text with `?` placeholders). The id stays valid
  // for the connection's life. Throws BackendError on a bad statement.
  virtual StmtId prepare(const std::string& sql) = 0;

  // Runs `body` as one read-write transaction. If the engine reports a
  // retryable conflict, the transaction is rolled back and `body` runs again
  // (the body must therefore only depend on its captured inputs). If the body
  // returns kRollback the transaction is rolled back. Throws BackendError for
  // non-retryable errors (after rolling back).
  virtual TxnResult write(const TxnBody& body) = 0;

  // Submitted writes, for engines that queue a transaction without a thread
  // waiting in it (solo): submit_write() queues `body` as write() would run
  // it and returns; finish_write() waits for the answer and returns (or
  // throws) what write() would have. One in flight per connection; `body`
  // must stay alive until finish_write() returns.
  virtual bool supports_submit() const { return false; }
  virtual void submit_write(const TxnBody& /*body*/) {
    throw BackendError("this engine does not take submitted writes");
  }
  virtual TxnResult finish_write() { throw BackendError("no write in flight"); }
  // Whether the write in flight has been answered (finish_write() would
  // return at once). Never waits.
  virtual bool write_answered() const { return false; }

  // Runs `body` as one read-only transaction that sees one consistent state.
  virtual TxnResult read(const TxnBody& body) = 0;

  // Runs a DDL or utility statement outside any transaction body.
  virtual void execute_script(const std::string& sql) = 0;
};

enum class Storage { kRam, kDisk };

// The result of an engine's own check of its files (Backend::check_storage).
struct StorageCheck {
  std::string name;  // what ran ("quick_check"); empty when the engine has no check
  bool ok = true;
  std::string detail;  // what the check answered, or the error that stopped it
};

// A database of one engine at one location.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Where the database lives (a path or a server address), for messages.
  virtual std::string location() const { return name(); }
  // True when the database exists (files present, schema created).
  virtual bool exists() = 0;
  // The engine's own check that its files are sound (SQLite: PRAGMA
  // quick_check), which the consistency conditions alone do not give: they
  // read only some tables. Precondition: exists(). Throws BackendError if no
  // connection can be opened. An empty name (no check) by default.
  virtual StorageCheck check_storage() { return {}; }
  // Removes any existing database so a fresh one can be loaded.
  virtual void destroy() = 0;
  // Closes the database once no connection is in use (solo: stops the
  // engine, which first writes its checkpoint at close). Throws
  // BackendError if that fails; the destructor closes too but cannot
  // report. Nothing by default (the other engines close with their
  // connections or servers).
  virtual void close() {}
  // Opens a new connection (creating the database file if needed).
  virtual std::unique_ptr<Connection> connect() = 0;
  // How many connections may usefully load in parallel.
  virtual int load_parallelism() const = 0;
  // Called on one connection after the rows are loaded, before tpcc_meta
  // marks the load complete: what the engine's own tuning guide does after
  // a bulk load (PostgreSQL: VACUUM ANALYZE). Nothing by default.
  virtual void finish_load(Connection& conn) { (void)conn; }
  // The text that creates one element of schema_ddl() on this engine: the
  // portable statement, or the same with the engine's storage options (SQLite:
  // WITHOUT ROWID). Only the storage may differ; the columns, keys and indexes
  // stay the portable schema's. The statement itself by default.
  virtual std::string schema_statement(const std::string& ddl) const { return ddl; }
  // Engine settings worth recording with results (pragmas, config).
  virtual std::string describe_config() const = 0;
  // Process ids whose CPU time should be counted with ours (servers); none
  // for embedded engines.
  virtual std::vector<int> server_pids() { return {}; }
  // Engine-specific measurements for the report, read after a run (e.g.
  // solo's owner_utilization, state_bytes, rss_over_state). Name -> value.
  virtual std::vector<std::pair<std::string, double>> metrics() { return {}; }
  // Called once when the measured window starts, so that metrics() can report
  // the window alone. Any thread.
  virtual void begin_measurement() {}
};

// BackendOptions::solo_checkpoint_mib: 1 MiB to 1 TiB. solo reads
// checkpoint_log_bytes 0 as "never checkpoint on its own", which is not the
// max(N MiB, K x size) the option promises, so 0 is refused rather than
// passed on (it turned checkpoints off). Above 2^44 MiB the bytes overflow
// 64 bits (to 0 or garbage), and the engine sizes its log ring at 1.5x the
// trigger; 1 TiB of log is already "only when the ratio says so" for any
// state that fits.
inline constexpr int64_t kMaxSoloCheckpointMib = int64_t{1} << 20;

struct BackendOptions {
  std::string engine = "sqlite";
  Storage storage = Storage::kRam;
  std::string dir;  // where the database lives; empty = storage default
  std::string sqlite_profile;  // named pragma set; empty = best for storage
  std::string pg_url;  // postgres: an existing server; empty = a private cluster
  int terminals = 0;   // postgres: sizes a private cluster's max_connections; 0 = its default
  // solo: the checkpoint trigger (solo::Options::checkpoint_log_bytes in MiB
  // and checkpoint_state_ratio); negative = the engine's default. The MiB are
  // 1..kMaxSoloCheckpointMib: the command line refuses 0 (the engine's
  // "never") and values whose bytes would overflow, and the solo backend
  // throws BackendError for them when it is made.
  int64_t solo_checkpoint_mib = -1;
  double solo_checkpoint_ratio = -1;
  // solo: solo::Options::checkpoint_reuse_file (0 or 1); -1 = the engine's default.
  int solo_checkpoint_reuse = -1;
  // solo: solo::Options::answer_wait, "auto", "nap" or "futex".
  std::string solo_answer_wait = "auto";
  // The command only reads an existing database (check, run --no-load), so
  // the backend must create nothing. solo, whose constructor opens the
  // database, throws BackendError(no_database_message(dir)) instead of
  // creating a directory or an empty database (160 MB of preallocated log)
  // when the directory holds none of its files; SQLite creates nothing
  // before connect() anyway.
  bool must_exist = false;
  // solo: a progress line on stderr while opening takes more than half a
  // second (recovery: the checkpoint's load, the log's replay).
  bool progress = false;
};

// "no TPC-C database at LOCATION; run `tpcc load` first": what every
// command that needs a loaded database says when there is none.
std::string no_database_message(const std::string& location);

// Creates the backend named by `options.engine`. Throws std::invalid_argument
// for an unknown engine.
std::unique_ptr<Backend> make_backend(const BackendOptions& options);

}  // namespace tpcc
