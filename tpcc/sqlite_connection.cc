// SqliteConnection: statement cache, binding, the transaction loop.
#include "tpcc/sqlite_connection.h"

#include <fmt/format.h>
#include <sched.h>
#include <sqlite3.h>

#include <algorithm>
#include <thread>

#include "tpcc/sqlite_backend.h"

namespace tpcc {

// The Txn handed to a body: forwards to the connection. Valid only inside the body.
class SqliteTxn final : public Txn {
 public:
  SqliteTxn(SqliteConnection* connection, bool read_only)
      : connection_(connection), read_only_(read_only) {}
  int64_t exec(StmtId stmt, std::span<const Value> params, Rows* out) override {
    return connection_->exec(stmt, params, out, read_only_);
  }

 private:
  SqliteConnection* const connection_;
  const bool read_only_;
};

namespace {

bool is_retryable(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

// Resets and clears a statement when an exec ends, however it ends.
class StatementReset {
 public:
  explicit StatementReset(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~StatementReset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  StatementReset(const StatementReset&) = delete;
  StatementReset& operator=(const StatementReset&) = delete;

 private:
  sqlite3_stmt* const stmt_;
};

double pow10_double(int scale) {
  double factor = 1;
  for (int digit_idx = 0; digit_idx < scale; ++digit_idx) factor *= 10;  // exact up to 10^22
  return factor;
}

// Reads one column of the current row: INTEGER -> int64, REAL -> double,
// TEXT and BLOB -> std::string (the bytes as they are), NULL -> monostate.
Value column_value(sqlite3_stmt* stmt, int col) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_INTEGER:
      return Value(std::in_place_type<int64_t>, sqlite3_column_int64(stmt, col));
    case SQLITE_FLOAT:
      return Value(std::in_place_type<double>, sqlite3_column_double(stmt, col));
    case SQLITE_NULL:
      return Value();
    default: {
      const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, col));
      const auto size = static_cast<size_t>(sqlite3_column_bytes(stmt, col));
      return Value(std::in_place_type<std::string>, bytes != nullptr ? bytes : "", size);
    }
  }
}

}  // namespace

SqliteConnection::SqliteConnection(std::shared_ptr<SqliteShared> shared)
    : shared_(std::move(shared)) {
  const std::string& path = shared_->path;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw BackendError(fmt::format("sqlite: cannot open '{}': {}", path, reason));
  }
  try {
    const SqliteProfile& profile = shared_->profile;
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_handler(db_, &SqliteConnection::busy_handler, this);
    for (const std::string& pragma : sqlite_profile_pragmas(profile)) {
      if (pragma == "PRAGMA journal_mode=WAL") {
        // Answers the mode now in effect; anything but "wal" means the file
        // cannot do WAL (e.g. a file system without shared memory).
        const std::string mode = query_text(pragma);
        if (mode != "wal") {
          throw BackendError(
              fmt::format("sqlite: '{}' stays in journal_mode={} instead of wal", path, mode));
        }
      } else {
        query_text(pragma);  // some pragmas answer a row; ignore it
      }
    }
    if (profile.chunk_size > 0) {
      int chunk = static_cast<int>(profile.chunk_size);
      sqlite3_file_control(db_, "main", SQLITE_FCNTL_CHUNK_SIZE, &chunk);
    }
    if (profile.checkpoint != "auto") {
      // Replaces SQLite's automatic checkpoint (which runs inside COMMIT);
      // maybe_checkpoint() does it after the writer gate is released.
      sqlite3_wal_hook(db_, &SqliteConnection::wal_hook, this);
    }
    auto control = [this](const char* sql) {
      sqlite3_stmt* stmt = nullptr;
      const int prepare_rc =
          sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
      if (prepare_rc != SQLITE_OK) fail(prepare_rc, std::string("prepare ") + sql);
      return stmt;
    };
    begin_write_ = control("BEGIN IMMEDIATE");
    begin_read_ = control("BEGIN");
    commit_ = control("COMMIT");
    rollback_ = control("ROLLBACK");
  } catch (...) {
    for (sqlite3_stmt* stmt : {begin_write_, begin_read_, commit_, rollback_})
      sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
    throw;
  }
}

SqliteConnection::~SqliteConnection() {
  rollback_quietly();
  for (sqlite3_stmt* stmt : stmts_) sqlite3_finalize(stmt);
  for (sqlite3_stmt* stmt : {begin_write_, begin_read_, commit_, rollback_}) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

void SqliteConnection::fail(int rc, const std::string& what) {
  throw BackendError(fmt::format("sqlite: {}: {} (code {})", what, sqlite3_errmsg(db_), rc),
                     is_retryable(rc));
}

StmtId SqliteConnection::prepare(const std::string& sql) {
  if (auto found = ids_.find(sql); found != ids_.end()) return found->second;
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
  if (rc != SQLITE_OK) fail(rc, fmt::format("prepare '{}'", sql));
  const bool only_space = std::all_of(tail, sql.c_str() + sql.size(), [](char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ';';
  });
  if (stmt == nullptr || !only_space) {
    sqlite3_finalize(stmt);
    throw BackendError(fmt::format("sqlite: prepare '{}': expected exactly one statement", sql));
  }
  const StmtId id = static_cast<StmtId>(stmts_.size());
  stmts_.push_back(stmt);
  sql_.push_back(sql);
  ids_.emplace(sql, id);
  return id;
}

int64_t SqliteConnection::exec(StmtId id, std::span<const Value> params, Rows* out,
                               bool read_only) {
  if (id < 0 || static_cast<size_t>(id) >= stmts_.size()) {
    throw BackendError(
        fmt::format("sqlite: statement id {} was not prepared on this connection", id));
  }
  sqlite3_stmt* const stmt = stmts_[id];
  const std::string& sql = sql_[id];
  if (read_only && sqlite3_stmt_readonly(stmt) == 0) {
    throw BackendError(fmt::format("sqlite: '{}' writes, inside a read-only transaction", sql));
  }
  const int expected = sqlite3_bind_parameter_count(stmt);
  if (static_cast<size_t>(expected) != params.size()) {
    throw BackendError(
        fmt::format("sqlite: '{}' takes {} parameters, got {}", sql, expected, params.size()));
  }
  StatementReset reset(stmt);
  for (size_t param_idx = 0; param_idx < params.size(); ++param_idx) {
    const int slot = static_cast<int>(param_idx) + 1;
    const Value& value = params[param_idx];
    int rc = SQLITE_OK;
    switch (value.index()) {
      case 0:
        rc = sqlite3_bind_null(stmt, slot);
        break;
      case 1:
        rc = sqlite3_bind_int64(stmt, slot, std::get<int64_t>(value));
        break;
      case 2: {
        // No exact decimal in SQLite: the nearest double to units / 10^scale
        // (one correctly rounded division of two exact doubles).
        const Decimal& decimal = std::get<Decimal>(value);
        if (decimal.scale < 0 || decimal.scale > 18) {
          throw BackendError(fmt::format("sqlite: '{}': parameter {} has decimal scale {}", sql,
                                         slot, decimal.scale));
        }
        rc = sqlite3_bind_double(stmt, slot,
                                 static_cast<double>(decimal.units) / pow10_double(decimal.scale));
        break;
      }
      case 3:
        rc = sqlite3_bind_double(stmt, slot, std::get<double>(value));
        break;
      case 4: {
        const std::string& text = std::get<std::string>(value);
        // `params` outlives the step, so SQLite need not copy.
        rc = sqlite3_bind_text(stmt, slot, text.data(), static_cast<int>(text.size()),
                               SQLITE_STATIC);
        break;
      }
      case 5: {
        const std::string text = format_timestamp(std::get<Timestamp>(value).micros);
        rc = sqlite3_bind_text(stmt, slot, text.data(), static_cast<int>(text.size()),
                               SQLITE_TRANSIENT);
        break;
      }
    }
    if (rc != SQLITE_OK) fail(rc, fmt::format("bind parameter {} of '{}'", slot, sql));
  }

  if (out != nullptr) {
    out->clear();
    out->set_columns(static_cast<size_t>(sqlite3_column_count(stmt)));
  }
  int64_t rows = 0;
  for (;;) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return sqlite3_stmt_readonly(stmt) != 0 ? rows : sqlite3_changes(db_);
    if (rc != SQLITE_ROW) fail(rc, fmt::format("'{}'", sql));
    ++rows;
    if (out == nullptr) continue;
    const int columns = sqlite3_column_count(stmt);
    for (int col = 0; col < columns; ++col) out->push(column_value(stmt, col));
  }
}

void SqliteConnection::step_control(sqlite3_stmt* stmt, const char* what) {
  const int rc = sqlite3_step(stmt);
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt);
    return;
  }
  BackendError error(fmt::format("sqlite: {}: {} (code {})", what, sqlite3_errmsg(db_), rc),
                     is_retryable(rc));
  sqlite3_reset(stmt);
  throw error;
}

void SqliteConnection::rollback_quietly() {
  if (db_ == nullptr || sqlite3_get_autocommit(db_) != 0) return;  // no transaction open
  sqlite3_step(rollback_);
  sqlite3_reset(rollback_);
}

TxnResult SqliteConnection::run(const TxnBody& body, bool write) {
  SqliteTxn txn(this, /*read_only=*/!write);
  const bool gated = write && shared_->profile.writer_gate;
  for (uint32_t retries = 0;; ++retries) {
    std::unique_lock<std::mutex> gate(shared_->writer_gate, std::defer_lock);
    if (gated) gate.lock();
    try {
      step_control(write ? begin_write_ : begin_read_, write ? "BEGIN IMMEDIATE" : "BEGIN");
      const Outcome outcome = body(txn);
      if (outcome == Outcome::kCommit) {
        step_control(commit_, "COMMIT");
      } else {
        step_control(rollback_, "ROLLBACK");
      }
      if (gated) gate.unlock();
      if (write) maybe_checkpoint();
      return TxnResult{outcome, retries};
    } catch (const BackendError& error) {
      rollback_quietly();
      if (!error.retryable() || retries + 1 >= kMaxRetries) throw;
    } catch (...) {
      rollback_quietly();
      throw;
    }
    if (gated) gate.unlock();
    std::this_thread::yield();  // SQLITE_LOCKED has no busy handler in front of it
  }
}

TxnResult SqliteConnection::write(const TxnBody& body) {
  return run(body, /*write=*/true);
}

TxnResult SqliteConnection::read(const TxnBody& body) {
  return run(body, /*write=*/false);
}

void SqliteConnection::execute_script(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return;
  const std::string reason = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  throw BackendError(fmt::format("sqlite: script '{}': {} (code {})", sql, reason, rc),
                     is_retryable(rc));
}

std::string SqliteConnection::query_text(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) fail(rc, fmt::format("prepare '{}'", sql));
  std::string result;
  for (;;) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      if (result.empty() && sqlite3_column_count(stmt) > 0) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        if (text != nullptr) result = reinterpret_cast<const char*>(text);
      }
      continue;
    }
    break;
  }
  if (rc != SQLITE_DONE) {
    BackendError error(fmt::format("sqlite: '{}': {} (code {})", sql, sqlite3_errmsg(db_), rc),
                       is_retryable(rc));
    sqlite3_finalize(stmt);
    throw error;
  }
  sqlite3_finalize(stmt);
  return result;
}

void SqliteConnection::maybe_checkpoint() {
  const SqliteProfile& profile = shared_->profile;
  if (profile.checkpoint == "auto" || profile.wal_autocheckpoint <= 0 ||
      wal_frames_ < profile.wal_autocheckpoint) {
    return;
  }
  wal_frames_ = 0;
  // PASSIVE never waits and holds no lock that writers need: it copies what
  // it can (and syncs the database file) while writers go on. SQLITE_BUSY
  // only means another connection is checkpointing.
  sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (profile.checkpoint != "restart") return;
  // RESTART holds the writer lock for its whole run: it copies the frames
  // committed since the PASSIVE pass (few), syncs, and waits for readers of
  // old frames, so that the next writer rewrites the WAL from its start. Its
  // waits are bounded by checkpoint_wait_ms; giving up just leaves the reset
  // to a later commit.
  in_checkpoint_ = true;
  sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
  in_checkpoint_ = false;
}

int SqliteConnection::busy_handler(void* self, int count) {
  auto* connection = static_cast<SqliteConnection*>(self);
  const SqliteProfile& profile = connection->shared_->profile;
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) {
    connection->busy_since_ = now;
  } else if (now - connection->busy_since_ >=
             std::chrono::milliseconds(connection->in_checkpoint_ ? profile.checkpoint_wait_ms
                                                                  : profile.busy_give_up_ms)) {
    return 0;  // SQLITE_BUSY: the transaction loop rolls back and runs the body again
  }
  if (count < profile.busy_yields) {
    sched_yield();
    return 1;
  }
  const int doublings = std::min(count - profile.busy_yields, 20);
  const int64_t sleep_us =
      std::min<int64_t>(int64_t{profile.busy_sleep_us} << doublings, profile.busy_max_sleep_us);
  std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  return 1;
}

int SqliteConnection::wal_hook(void* self, sqlite3* /*db*/, const char* /*schema*/, int frames) {
  static_cast<SqliteConnection*>(self)->wal_frames_ = frames;
  return SQLITE_OK;
}

}  // namespace tpcc
