#include "tpcc/solo_backend.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>

#include "solo/database.h"
#include "solo/file_system.h"
#include "solo/sql/statement.h"
#include "tpcc/owned_dir.h"
#include "tpcc/sysinfo.h"

namespace tpcc {
namespace {

using solo::sql::PreparedStatement;
using SqlValue = solo::sql::Value;

// A file that says there is a database: a log segment, a complete
// checkpoint or the database's marker (the engine's names; any other file
// in the directory is the user's). A directory holding only the marker is
// a database whose log was removed: opening it is refused, naming it.
bool is_database_file(std::string_view name) {
  const solo::Database::FileKind kind = solo::Database::file_kind(name);
  return kind == solo::Database::FileKind::kContents || kind == solo::Database::FileKind::kMarker;
}

// Every file the engine writes apart from LOCK (held by the open database)
// and the marker (removed last by destroy()).
bool is_engine_file(std::string_view name) {
  const solo::Database::FileKind kind = solo::Database::file_kind(name);
  return kind == solo::Database::FileKind::kContents || kind == solo::Database::FileKind::kScratch;
}

// True when `dir` holds a log segment, a checkpoint or the marker; false
// when it holds none or cannot be read (does not exist).
bool holds_database(const std::string& dir) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (is_database_file(entry.path().filename().string())) return true;
  }
  return false;
}

void to_sql(const Value& value, SqlValue* out) {
  // Most parameters are integers: no visit for them.
  if (const auto* integer = std::get_if<int64_t>(&value)) {
    out->SetInt(*integer);
    return;
  }
  std::visit(
      [out](const auto& held) {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out->SetNull();
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out->SetInt(held);
        } else if constexpr (std::is_same_v<T, Decimal>) {
          out->SetDecimal(held.units, held.scale);
        } else if constexpr (std::is_same_v<T, double>) {
          out->SetDouble(held);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out->SetText(held);
        } else {
          out->SetTimestamp(held.micros);
        }
      },
      value);
}

// Sets *out to `value`; a text into a slot that holds text keeps its buffer.
void from_sql(const SqlValue& value, Value* out) {
  switch (value.kind()) {
    case solo::sql::ValueKind::kNull: *out = std::monostate{}; return;
    case solo::sql::ValueKind::kBool:
      set_in_place(out, int64_t{value.as_bool() ? 1 : 0});
      return;
    case solo::sql::ValueKind::kInt:
      set_in_place(out, value.as_int());
      return;
    case solo::sql::ValueKind::kDecimal:
      set_in_place(out, Decimal{value.units(), value.scale()});
      return;
    case solo::sql::ValueKind::kDouble: *out = value.as_double(); return;
    case solo::sql::ValueKind::kText:
      if (auto* text = std::get_if<std::string>(out)) {
        text->assign(value.as_text());
      } else {
        out->emplace<std::string>(value.as_text());
      }
      return;
    case solo::sql::ValueKind::kTimestamp:
      set_in_place(out, Timestamp{value.as_timestamp()});
      return;
  }
  *out = std::monostate{};
}

// The statements of one connection (plans shared through SoloShared) and
// the buffers its read-only executions reuse.
struct ConnectionState {
  std::vector<PreparedStatement> statements;
  std::vector<SqlValue> params;
  solo::sql::ResultSet result;

  const PreparedStatement& statement(StmtId stmt) const {
    if (stmt < 0 || static_cast<size_t>(stmt) >= statements.size()) {
      throw BackendError(fmt::format("solo: unknown statement id {}", stmt));
    }
    return statements[stmt];
  }
};

// The parameters, in *params' first values.size() slots. *params only grows,
// so its texts keep their buffers from one statement to the next.
std::span<const SqlValue> bind(std::span<const Value> values, std::vector<SqlValue>* params) {
  if (params->size() < values.size()) params->resize(values.size());
  SqlValue* dest = params->data();
  for (const Value& value : values) to_sql(value, dest++);
  return std::span<const SqlValue>(params->data(), values.size());
}

void copy_out(const solo::sql::ResultSet& result, Rows* out) {
  const size_t columns = result.column_count();
  const size_t rows = result.row_count();
  Value* dest = out->reshape(rows, columns);
  if (rows == 0) return;
  // The rows are contiguous in the result (row-major, as in Rows): one walk.
  const SqlValue* source = &result.at(0, 0);
  for (const SqlValue* end = source + rows * columns; source != end; ++source) {
    from_sql(*source, dest++);
  }
}

[[noreturn]] void throw_sql(const PreparedStatement& stmt, const solo::sql::SqlError& error) {
  throw BackendError(fmt::format("solo: {} in: {}", error.ToString(), stmt.sql()));
}

// A body's view of a write transaction, on the owner thread.
class SoloWriteTxn final : public Txn {
 public:
  SoloWriteTxn(solo::WriteTxn& txn, const ConnectionState& state, SoloShared& shared)
      : txn_(txn), state_(state), shared_(shared) {}
  int64_t exec(StmtId stmt_id, std::span<const Value> params, Rows* out) override {
    const PreparedStatement& stmt = state_.statement(stmt_id);
    std::span<const SqlValue> bound = bind(params, &shared_.owner_params);
    solo::sql::ResultSet& result = shared_.owner_result;
    solo::sql::SqlStatus status =
        stmt.read_only() ? stmt.Execute(static_cast<const solo::TxnView&>(txn_), bound, &result)
                         : stmt.Execute(txn_, bound, &result);
    if (!status.ok()) throw_sql(stmt, status.error());
    if (out != nullptr) copy_out(result, out);
    return static_cast<int64_t>(result.affected_rows());
  }

  void exec_batch(StmtId stmt_id, std::span<const std::vector<Value>> param_sets,
                  std::span<Rows> outs, std::span<int64_t> matched) override {
    const PreparedStatement& stmt = state_.statement(stmt_id);
    if (stmt.read_only() || param_sets.size() > kMaxBatch) {
      Txn::exec_batch(stmt_id, param_sets, outs, matched);
      return;
    }
    // Each set bound into its own slice of owner_params.
    std::vector<SqlValue>& params = shared_.owner_params;
    size_t total = 0;
    for (const std::vector<Value>& set : param_sets) total += set.size();
    if (params.size() < total) params.resize(total);
    std::span<const SqlValue> bound[kMaxBatch];
    size_t used = 0;
    for (size_t set = 0; set < param_sets.size(); ++set) {
      bound[set] = std::span<const SqlValue>(params.data() + used, param_sets[set].size());
      for (const Value& value : param_sets[set]) to_sql(value, &params[used++]);
    }
    solo::sql::SqlStatus status =
        stmt.ExecuteBatch(txn_, std::span(bound, param_sets.size()), &shared_.owner_result,
                          [&](size_t set, const solo::sql::ResultSet& result) {
                            copy_out(result, &outs[set]);
                            matched[set] = static_cast<int64_t>(result.affected_rows());
                          });
    if (!status.ok()) throw_sql(stmt, status.error());
  }

 private:
  static constexpr size_t kMaxBatch = 16;  // New-Order's lines, at most 15
  solo::WriteTxn& txn_;
  const ConnectionState& state_;
  SoloShared& shared_;
};

// A body's view of a read-only transaction, on the caller's thread.
class SoloReadTxn final : public Txn {
 public:
  SoloReadTxn(const solo::ReadTxn& txn, ConnectionState& state) : txn_(txn), state_(state) {}
  int64_t exec(StmtId stmt_id, std::span<const Value> params, Rows* out) override {
    const PreparedStatement& stmt = state_.statement(stmt_id);
    if (!stmt.read_only()) {
      throw BackendError("solo: a read-only transaction cannot run: " + stmt.sql());
    }
    solo::sql::SqlStatus status = stmt.Execute(txn_, bind(params, &state_.params), &state_.result);
    if (!status.ok()) throw_sql(stmt, status.error());
    if (out != nullptr) copy_out(state_.result, out);
    return static_cast<int64_t>(state_.result.affected_rows());
  }

 private:
  const solo::ReadTxn& txn_;
  ConnectionState& state_;
};

class SoloConnection final : public Connection {
 public:
  SoloConnection(solo::Database& db, std::shared_ptr<SoloShared> shared)
      : db_(db), shared_(std::move(shared)) {}

  StmtId prepare(const std::string& sql) override {
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      auto found = shared_->plans.find(sql);
      if (found != shared_->plans.end()) {
        state_.statements.push_back(found->second);
        return static_cast<StmtId>(state_.statements.size() - 1);
      }
    }
    std::optional<solo::sql::SqlError> error;
    solo::Status status = db_.read([&](solo::ReadTxn& txn) {
      auto prepared = PreparedStatement::Prepare(txn, sql);
      if (!prepared.ok()) {
        error = prepared.error();
      } else {
        state_.statements.push_back(std::move(prepared).value());
      }
      return solo::Status::OK();
    });
    if (error) throw BackendError(fmt::format("solo: {} in: {}", error->ToString(), sql));
    if (!status.ok()) throw BackendError("solo: " + status.ToString());
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->plans.emplace(sql, state_.statements.back());
    return static_cast<StmtId>(state_.statements.size() - 1);
  }

  TxnResult write(const TxnBody& body) override {
    TxnResult result;
    std::string error;
    solo::Status status =
        db_.write([&](solo::WriteTxn& txn) { return run_body(txn, body, &result, &error); });
    return conclude(status, result, error);
  }

  bool supports_submit() const override { return true; }

  void submit_write(const TxnBody& body) override {
    submitted_body_ = &body;
    submitted_result_ = TxnResult{};
    submitted_error_.clear();
    solo::Status status = db_.submit(pending_, submitted_call_);
    if (!status.ok()) throw BackendError("solo: " + status.ToString());
  }

  bool write_answered() const override { return pending_.done(); }

  TxnResult finish_write() override {
    solo::Status status = db_.finish(pending_);
    TxnResult result = conclude(status, submitted_result_, submitted_error_);
    result.answered_ns = pending_.answered_ns();
    return result;
  }

  TxnResult read(const TxnBody& body) override {
    TxnResult result;
    std::string error;
    solo::Status status = db_.read([&](solo::ReadTxn& txn) {
      SoloReadTxn view(txn, state_);
      try {
        result.outcome = body(view);
      } catch (const std::exception& failure) {
        error = failure.what();
      }
      return solo::Status::OK();
    });
    if (!error.empty()) throw BackendError(error);
    if (!status.ok()) throw BackendError("solo: " + status.ToString());
    return result;
  }

  void execute_script(const std::string& sql) override {
    {
      // DDL: plans bound to the old catalog are not reused by later prepares.
      std::lock_guard<std::mutex> lock(shared_->mutex);
      shared_->plans.clear();
    }
    std::string error;
    solo::Status status = db_.write([&](solo::WriteTxn& txn) {
      auto prepared = PreparedStatement::Prepare(txn, sql);
      if (!prepared.ok()) {
        error = prepared.error().ToString();
        return solo::Status::InvalidArgument(error);
      }
      solo::sql::SqlStatus executed = prepared.value().Execute(txn, {}, nullptr);
      if (!executed.ok()) {
        error = executed.error().ToString();
        return solo::Status::InvalidArgument(error);
      }
      return solo::Status::OK();
    });
    if (!error.empty()) throw BackendError(fmt::format("solo: {} in: {}", error, sql));
    if (!status.ok()) throw BackendError("solo: " + status.ToString());
  }

 private:
  // Runs a body on the owner thread as one write transaction.
  solo::Status run_body(solo::WriteTxn& txn, const TxnBody& body, TxnResult* result,
                        std::string* error) {
    SoloWriteTxn view(txn, state_, *shared_);
    try {
      result->outcome = body(view);
    } catch (const std::exception& failure) {
      *error = failure.what();
      txn.rollback();
      return solo::Status::Aborted(*error);
    }
    if (result->outcome == Outcome::kRollback) txn.rollback();
    return solo::Status::OK();
  }

  static TxnResult conclude(const solo::Status& status, const TxnResult& result,
                            const std::string& error) {
    if (!error.empty()) throw BackendError(error);
    if (!status.ok() && result.outcome != Outcome::kRollback) {
      throw BackendError("solo: " + status.ToString());
    }
    return result;
  }

  // The write in flight (submit_write): what the owner runs, and its answer.
  struct SubmittedCall {
    SoloConnection* conn;
    solo::Status operator()(solo::WriteTxn& txn) const {
      return conn->run_body(txn, *conn->submitted_body_, &conn->submitted_result_,
                            &conn->submitted_error_);
    }
  };

  solo::Database& db_;
  std::shared_ptr<SoloShared> shared_;
  ConnectionState state_;
  const TxnBody* submitted_body_ = nullptr;
  TxnResult submitted_result_;
  std::string submitted_error_;
  SubmittedCall submitted_call_{this};
  solo::PendingWrite pending_;  // last: destroyed first (waits if in flight)
};

// The share of solo's arenas (the memory it advises for huge pages) that
// the kernel backs with huge pages; 0 when it has none.
double huge_page_share() {
  const HugePageAdvised advised = huge_page_advised_memory();
  return advised.resident_bytes > 0
             ? static_cast<double>(advised.huge_bytes) / static_cast<double>(advised.resident_bytes)
             : 0.0;
}

}  // namespace

SoloBackend::SoloBackend(const BackendOptions& options)
    : checkpoint_mib_(options.solo_checkpoint_mib),
      checkpoint_ratio_(options.solo_checkpoint_ratio),
      checkpoint_reuse_(options.solo_checkpoint_reuse),
      answer_wait_(options.solo_answer_wait),
      progress_(options.progress) {
  // What the command line refuses, refused for options built in code too: 0
  // would silently turn automatic checkpoints off, and more overflows.
  if (checkpoint_mib_ == 0 || checkpoint_mib_ > kMaxSoloCheckpointMib) {
    throw BackendError(fmt::format(
        "solo: checkpoint trigger of {} MiB: must be 1 to {} (negative: the engine's default)",
        checkpoint_mib_, kMaxSoloCheckpointMib));
  }
  default_dir_ = options.dir.empty();
  if (!default_dir_) {
    dir_ = options.dir;
  } else {
    dir_ = options.storage == Storage::kRam ? "/dev/shm/solo-tpcc/solo" : "./tpcc-data/solo";
  }
  // Opening an empty directory creates a database (and preallocates its log):
  // not for a command that only reads one.
  if (options.must_exist && !holds_database(dir_)) throw BackendError(no_database_message(dir_));
  // Every command that opens without must_exist loads a fresh database
  // (destroy()), so the directory must be tpcc's before the open creates a
  // log there (owned_dir.h).
  if (!options.must_exist) claim_dir(dir_, default_dir_, "solo");
  open();
}

SoloBackend::~SoloBackend() {
  // A destructor cannot report; main() calls close() first.
  if (db_) (void)db_->close();
}

void SoloBackend::close() {
  if (!db_) return;
  solo::Status status = db_->close();
  if (!status.ok()) throw BackendError("solo: closing " + dir_ + ": " + status.ToString());
}

void SoloBackend::open() {
  rss_before_open_ = resident_bytes();
  solo::Options options;
  options.dir = dir_;
  if (checkpoint_mib_ >= 0) options.checkpoint_log_bytes = static_cast<uint64_t>(checkpoint_mib_) << 20;
  if (checkpoint_ratio_ >= 0) options.checkpoint_state_ratio = checkpoint_ratio_;
  if (checkpoint_reuse_ >= 0) options.checkpoint_reuse_file = checkpoint_reuse_ != 0;
  if (answer_wait_ == "nap") {
    options.answer_wait = solo::Options::AnswerWait::kNap;
  } else if (answer_wait_ == "futex") {
    options.answer_wait = solo::Options::AnswerWait::kFutex;
  } else if (answer_wait_ != "auto") {
    throw BackendError("solo: answer wait '" + answer_wait_ + "': must be auto, nap or futex");
  }
  // A large database's recovery (~1 s per GB of checkpoint) shows its
  // progress; an open that takes less than half a second shows nothing.
  if (progress_) {
    // Tests ask for a line per block (0) instead of a large database.
    if (const char* every_ms = std::getenv("SOLO_TPCC_TEST_RECOVERY_PROGRESS_MS")) {
      options.recovery_progress_ms = static_cast<uint32_t>(std::strtoul(every_ms, nullptr, 10));
    }
    options.recovery_progress = solo::recovery_progress_on_stderr(dir_);
  }
  auto opened = solo::Database::open(options);
  if (!opened.ok()) throw BackendError("solo: cannot open " + dir_ + ": " + opened.status().ToString());
  db_ = std::move(opened.value());
}

bool SoloBackend::exists() {
  bool found = false;
  db_->read([&](solo::ReadTxn& txn) {
    found = txn.catalog().find_table("tpcc_meta") != nullptr;
    return solo::Status::OK();
  });
  return found;
}

void SoloBackend::destroy() {
  claim_dir(dir_, default_dir_, "solo");
  // The files go next, so a failed checkpoint at close loses nothing.
  (void)db_->close();
  db_.reset();
  shared_ = std::make_shared<SoloShared>();
  // The engine's files only (log segments and checkpoints), by their exact
  // names: the directory may hold the user's files too. The marker goes
  // last, once the removals before it are durable: whatever a destroy cut
  // short leaves keeps it, so that the engine refuses those remains ("log
  // segments missing") instead of taking them for a database of a build
  // before the marker, or the empty directory for a new database.
  auto remove = [&](const std::filesystem::path& path) {
    std::error_code error;
    std::filesystem::remove(path, error);
    if (error) {
      throw BackendError(
          fmt::format("solo: cannot remove '{}': {}", path.string(), error.message()));
    }
  };
  std::optional<std::filesystem::path> marker;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (is_engine_file(name)) remove(entry.path());
    if (solo::Database::file_kind(name) == solo::Database::FileKind::kMarker) marker = entry.path();
  }
  if (marker.has_value()) {
    solo::Status synced = solo::posix_file_system()->sync_dir(dir_);
    if (!synced.ok()) throw BackendError("solo: " + synced.ToString());
    remove(*marker);
  }
  open();
}

std::unique_ptr<Connection> SoloBackend::connect() {
  return std::make_unique<SoloConnection>(*db_, shared_);
}

std::string SoloBackend::describe_config() const {
  const solo::Options& options = db_->options();
  return fmt::format(
      "in-memory state; owner thread; redo log + checkpoints in {} (segments {} x {} KiB, "
      "checkpoint after max({} KiB, {} x checkpoint size) of log, {}); reclaim_batch={}; "
      "reuse_retired={}",
      options.dir, options.log_segments, options.log_segment_bytes / 1024,
      options.checkpoint_log_bytes / 1024, options.checkpoint_state_ratio,
      options.checkpoint_reuse_file ? "overwriting the file before the last" : "each a new file",
      options.reclaim_batch, options.reuse_retired);
}

void SoloBackend::begin_measurement() {
  solo::Stats stats = db_->stats();
  busy_ns_at_start_ = stats.owner_busy_ns;
  idle_ns_at_start_ = stats.owner_idle_ns;
  owner_cpu_ns_at_start_ = stats.owner_cpu_ns;
  writes_at_start_ = stats.commits + stats.rollbacks;
  rounds_at_start_ = stats.rounds;
  owner_sleeps_at_start_ = stats.owner_sleeps;
  caller_sleeps_at_start_ = stats.caller_sleeps;
  caller_naps_at_start_ = stats.caller_naps;
  checkpoints_at_start_ = stats.checkpoints;
  checkpoint_ns_at_start_ = stats.checkpoint_ns;
  checkpoint_sync_ns_at_start_ = stats.checkpoint_sync_ns;
  checkpoint_writeback_wait_ns_at_start_ = stats.checkpoint_writeback_wait_ns;
  round_times_at_start_ = stats.round_times;
  log_batch_times_at_start_ = stats.log_batch_times;
  log_batch_times_checkpoint_at_start_ = stats.log_batch_times_checkpoint;
  round_times_checkpoint_at_start_ = stats.round_times_checkpoint;
}

std::vector<std::pair<std::string, double>> SoloBackend::metrics() {
  solo::Stats stats = db_->stats();
  double busy = static_cast<double>(stats.owner_busy_ns - busy_ns_at_start_);
  double idle = static_cast<double>(stats.owner_idle_ns - idle_ns_at_start_);
  double state = static_cast<double>(stats.state_bytes);
  double added = static_cast<double>(resident_bytes() - rss_before_open_);
  double owner_cpu = static_cast<double>(stats.owner_cpu_ns - owner_cpu_ns_at_start_);
  double writes = static_cast<double>(stats.commits + stats.rollbacks - writes_at_start_);
  // Rounds of the measured window, by whether a checkpoint was being written.
  solo::RoundTimes quiet = stats.round_times.since(round_times_at_start_);
  solo::RoundTimes busy_ckpt = stats.round_times_checkpoint.since(round_times_checkpoint_at_start_);
  solo::RoundTimes batches_quiet = stats.log_batch_times.since(log_batch_times_at_start_);
  solo::RoundTimes batches_ckpt =
      stats.log_batch_times_checkpoint.since(log_batch_times_checkpoint_at_start_);
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
  const double rounds = static_cast<double>(stats.rounds - rounds_at_start_);
  auto per_round = [&](uint64_t count) { return rounds > 0 ? static_cast<double>(count) / rounds : 0.0; };
  const double checkpoints = static_cast<double>(stats.checkpoints - checkpoints_at_start_);
  auto mean_s = [&](uint64_t ns) {
    return checkpoints > 0 ? static_cast<double>(ns) / 1e9 / checkpoints : 0.0;
  };
  return {
      {"owner_utilization", busy + idle > 0 ? busy / (busy + idle) : 0.0},
      // The share of the window the owner was on a core (busy counts the
      // time other threads held its core as well).
      {"owner_cpu_share", busy + idle > 0 ? owner_cpu / (busy + idle) : 0.0},
      // Owner CPU per write transaction (committed or rolled back), in µs: a
      // measure of the owner's work that other threads' load does not move.
      {"owner_us_per_write", writes > 0 ? owner_cpu / 1000.0 / writes : 0.0},
      {"state_bytes", state},
      {"rss_over_state", state > 0 ? added / state : 0.0},
      // Where the resident bytes go: tree nodes, row records (with headers),
      // and the arenas both come from (in use, spare or retired).
      {"node_bytes", static_cast<double>(stats.node_bytes)},
      {"record_bytes", static_cast<double>(stats.record_bytes)},
      {"arena_bytes", static_cast<double>(stats.arena_bytes)},
      // How much of the arenas the kernel backs with 2 MiB pages (THP): a
      // random lookup in 4 KiB pages adds page-walk misses to each DRAM miss.
      // Both parts come from the arenas' own mappings (the memory solo
      // advises for huge pages), read at one instant. Until session 36 it was
      // the process's AnonHugePages over stats.arena_bytes, which leaves out
      // the prefaulter's ready arenas (touched ahead, not yet taken) and any
      // arena made after the stats were stored: 1.006-1.041.
      {"huge_page_share", huge_page_share()},
      {"arenas_prefaulted", static_cast<double>(stats.arenas_prefaulted)},
      {"arenas_made_by_owner", static_cast<double>(stats.arenas_made_by_owner)},
      {"log_syncs", static_cast<double>(stats.log_syncs)},
      {"log_on_owner", stats.log_on_owner ? 1.0 : 0.0},
      {"log_bytes", static_cast<double>(stats.log_bytes)},
      {"checkpoints", static_cast<double>(stats.checkpoints)},
      {"checkpoints_in_window", static_cast<double>(stats.checkpoints - checkpoints_at_start_)},
      {"checkpoint_trigger_bytes", static_cast<double>(stats.checkpoint_trigger_bytes)},
      {"log_segments", static_cast<double>(stats.log_segments)},
      {"recovery_s", static_cast<double>(stats.recovery_ns) / 1e9},
      {"rounds_no_ckpt", static_cast<double>(quiet.count())},
      {"rounds_ckpt", static_cast<double>(busy_ckpt.count())},
      // How often a round began with the owner asleep (woken by a push) and
      // ended with a waiting caller asleep (woken by the owner): each such
      // wake-up takes ~25-45 us on this VM (results/ab-s29).
      {"owner_sleeps_per_round", per_round(stats.owner_sleeps - owner_sleeps_at_start_)},
      {"caller_sleeps_per_round", per_round(stats.caller_sleeps - caller_sleeps_at_start_)},
      // Their naps instead (solo::Options::answer_wait), which need no wake-up.
      {"caller_naps_per_round", per_round(stats.caller_naps - caller_naps_at_start_)},
      {"round_p50_us_no_ckpt", us(quiet.quantile_ns(0.50))},
      {"round_p99_us_no_ckpt", us(quiet.quantile_ns(0.99))},
      {"round_p50_us_ckpt", us(busy_ckpt.quantile_ns(0.50))},
      {"round_p99_us_ckpt", us(busy_ckpt.quantile_ns(0.99))},
      {"log_batch_p50_us_no_ckpt", us(batches_quiet.quantile_ns(0.50))},
      {"log_batch_p99_us_no_ckpt", us(batches_quiet.quantile_ns(0.99))},
      {"log_batch_p50_us_ckpt", us(batches_ckpt.quantile_ns(0.50))},
      {"log_batch_p99_us_ckpt", us(batches_ckpt.quantile_ns(0.99))},
      {"checkpoint_s_mean", mean_s(stats.checkpoint_ns - checkpoint_ns_at_start_)},
      {"checkpoint_sync_s_mean", mean_s(stats.checkpoint_sync_ns - checkpoint_sync_ns_at_start_)},
      {"checkpoint_writeback_wait_s_mean",
       mean_s(stats.checkpoint_writeback_wait_ns - checkpoint_writeback_wait_ns_at_start_)},
      {"checkpoint_s_max", static_cast<double>(stats.checkpoint_max_ns) / 1e9},
  };
}

}  // namespace tpcc
