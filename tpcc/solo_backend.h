// The solo backend: the engine embedded in this process, driven through its
// SQL layer with the same statement text as the other engines.
//
// Write transactions run on solo's owner thread inside db.write(): the body
// (the harness's transaction code) executes there, statement by statement, and
// the caller blocks until the round containing it is published. Read-only
// transactions run on the calling terminal's thread inside db.read(), against
// the newest published snapshot. solo never conflicts, so nothing is retried.
//
// Storage: the database lives in memory and is made durable by solo's redo log
// and checkpoints in a directory: --dir D, else /dev/shm/solo-tpcc/solo for
// --storage ram and ./tpcc-data/solo for --storage disk (the same places as
// the other engines' files). A write is answered once its round is synced.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solo/database.h"
#include "solo/sql/statement.h"
#include "tpcc/backend.h"

namespace tpcc {

// What every connection of one SoloBackend shares.
//  - Plans: a PreparedStatement is immutable and may run on any number of
//    threads at once, so each SQL text is prepared once and its plan shared.
//    With one copy per terminal, the owner would touch 64 cold copies of
//    each plan at T=64; with one, the plans stay in its caches.
//  - The owner's buffers: write bodies run one at a time on the owner
//    thread, so they use one parameter vector and one ResultSet (warm)
//    instead of their terminal's.
struct SoloShared {
  std::mutex mutex;  // guards plans (prepare runs on terminal threads)
  std::unordered_map<std::string, solo::sql::PreparedStatement> plans;
  // Owner thread only.
  std::vector<solo::sql::Value> owner_params;
  solo::sql::ResultSet owner_result;
};

class SoloBackend final : public Backend {
 public:
  // Opens (recovers) the database in its directory, creating the directory
  // (marked as tpcc's, owned_dir.h) and an empty database if needed; throws BackendError if that
  // fails (the message names the damaged file and offset, or ENOSPC). With options.must_exist, a
  // directory that holds no log segment or checkpoint is refused (BackendError,
  // no_database_message) and nothing is created. Without it, a non-empty directory that is not
  // tpcc's is refused before anything is created in it (claim_dir(), owned_dir.h): every command
  // that opens without must_exist goes on to destroy().
  explicit SoloBackend(const BackendOptions& options);
  ~SoloBackend() override;

  std::string name() const override { return "solo"; }
  std::string location() const override { return dir_; }
  // True when the in-memory database holds a tpcc_meta table.
  bool exists() override;
  // Replaces the database with an empty one: removes the engine's own files
  // (by their exact names; other files in the directory stay). Refuses
  // (BackendError, the database left open) unless the directory is tpcc's:
  // claim_dir() in owned_dir.h; the default directory is adopted.
  // Precondition: no connection is in use.
  void destroy() override;
  // solo::Database::close(): throws BackendError (naming the file and the
  // error) if the checkpoint at close failed; nothing committed is lost
  // then (the next open replays the log). Later calls throw it again.
  void close() override;
  std::unique_ptr<Connection> connect() override;
  // Rows are generated on the loading threads while the owner inserts.
  int load_parallelism() const override { return 2; }
  std::string describe_config() const override;
  // owner_utilization (busy share of the owner thread in the measured
  // window), state_bytes (encoded rows and keys), rss_over_state (resident
  // bytes the engine added since it was opened, over state bytes), the log
  // and checkpoint counters, and the owner's round durations in the window
  // with and without a checkpoint being written (round_p50_us_*,
  // round_p99_us_*, rounds_*; suffix _ckpt / _no_ckpt), the log writer's
  // batch (write + fdatasync) durations split the same way
  // (log_batch_p50_us_*, log_batch_p99_us_*), and how long the window's
  // checkpoints took (checkpoint_s_mean; of it checkpoint_sync_s_mean in
  // fdatasync and checkpoint_writeback_wait_s_mean waiting for chunks;
  // checkpoint_s_max: the longest since open).
  std::vector<std::pair<std::string, double>> metrics() override;
  void begin_measurement() override;

 private:
  void open();

  std::unique_ptr<solo::Database> db_;
  // Plans are dropped with the schema they were bound to (destroy(), DDL).
  std::shared_ptr<SoloShared> shared_ = std::make_shared<SoloShared>();
  std::string dir_;  // the log and checkpoints
  bool default_dir_ = false;       // dir_ is the storage default (adopted by destroy())
  int64_t checkpoint_mib_ = -1;    // the trigger's floor; -1: the engine's default
  double checkpoint_ratio_ = -1;   // its ratio; -1: the engine's default
  int checkpoint_reuse_ = -1;      // checkpoint_reuse_file 0/1; -1: the engine's default
  std::string answer_wait_ = "auto";  // solo::Options::answer_wait
  bool progress_ = false;          // BackendOptions::progress
  int64_t rss_before_open_ = 0;
  uint64_t busy_ns_at_start_ = 0;
  uint64_t idle_ns_at_start_ = 0;
  uint64_t owner_cpu_ns_at_start_ = 0;
  uint64_t writes_at_start_ = 0;
  uint64_t rounds_at_start_ = 0;
  uint64_t owner_sleeps_at_start_ = 0;
  uint64_t caller_sleeps_at_start_ = 0;
  uint64_t caller_naps_at_start_ = 0;
  uint64_t checkpoints_at_start_ = 0;
  uint64_t checkpoint_ns_at_start_ = 0;
  uint64_t checkpoint_sync_ns_at_start_ = 0;
  uint64_t checkpoint_writeback_wait_ns_at_start_ = 0;
  solo::RoundTimes round_times_at_start_;
  solo::RoundTimes round_times_checkpoint_at_start_;
  solo::RoundTimes log_batch_times_at_start_;
  solo::RoundTimes log_batch_times_checkpoint_at_start_;
};

}  // namespace tpcc
