// The checkpointer thread: on request (the log grew by
// LogWriter::checkpoint_trigger_bytes(), or Database::checkpoint()) it holds
// the newest published snapshot, writes it with write_checkpoint(), tells
// the log writer which rounds it covers (their segments become reusable)
// and removes older checkpoints; then it preallocates log segments for the
// next interval (LogWriter::provision). A failure is fatal (invariant 7).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "fatal_error.h"
#include "solo/file_system.h"

namespace solo::internal {

class DbImpl;
class LogWriter;

class Checkpointer {
 public:
  // sched_idle, nice: the thread's scheduling class and nice value
  // (Options::checkpoint_sched_idle, checkpoint_nice);
  // writeback_bytes: Options::checkpoint_writeback_bytes.
  // replayed_log_bytes: the log recovery replayed (not in the newest
  // checkpoint). db_id: the database's id, written into each checkpoint.
  Checkpointer(DbImpl* db, FileSystem* fs, std::string dir, FatalError* fatal, LogWriter* log,
               uint64_t db_id, uint64_t last_checkpoint_lsn, uint64_t replayed_log_bytes,
               bool sched_idle, int nice, uint64_t writeback_bytes, bool reuse_file);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  void start();
  // Any thread: asks for a checkpoint soon; returns at once.
  void request();
  // Preallocate the log's next step when not writing a checkpoint
  // (LogWriter::provision). Any thread.
  void request_provision();
  // Any thread: runs a checkpoint of the newest published state (or waits
  // for one that started after this call) and returns its Status.
  Status run_now();
  // Finishes a running checkpoint and stops the thread. Idempotent.
  void stop();
  // After stop() (the owner stopped too): writes a checkpoint of the last
  // published state on the calling thread, at its priority (close()).
  Status run_here();
  // Log bytes written since the snapshot of the newest checkpoint (the
  // replayed log counts until a checkpoint covers it). Any thread.
  uint64_t log_bytes_since_checkpoint() const;

  uint64_t completed() const { return completed_count_.load(std::memory_order_relaxed); }
  uint64_t last_lsn() const { return last_lsn_.load(std::memory_order_relaxed); }
  // A checkpoint is being written now. Any thread (the owner reads it once
  // per round to file the round's duration).
  bool running() const { return running_.load(std::memory_order_relaxed); }
  // Wall time of the completed checkpoints (summed, and the longest), and
  // the part of the sum spent in fdatasync of checkpoint files, and waiting
  // for chunks to be written back before it (WritebackPacer). Any thread.
  uint64_t total_ns() const { return total_ns_.load(std::memory_order_relaxed); }
  uint64_t max_ns() const { return max_ns_.load(std::memory_order_relaxed); }
  uint64_t sync_ns() const { return sync_ns_.load(std::memory_order_relaxed); }
  uint64_t writeback_wait_ns() const { return writeback_wait_ns_.load(std::memory_order_relaxed); }

 private:
  void thread_main();
  Status checkpoint_once();
  void provision_log();

  // Immutable after construction.
  DbImpl* const db_;
  FileSystem* const fs_;
  const std::string dir_;
  FatalError* const fatal_;
  LogWriter* const log_;
  const uint64_t db_id_;
  const bool sched_idle_;
  const int nice_;
  const uint64_t writeback_bytes_;
  const bool reuse_file_;  // Options::checkpoint_reuse_file

  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t requested_ = 0;   // guarded: tickets handed out
  uint64_t started_ = 0;     // guarded: tickets taken by a checkpoint (running or done)
  uint64_t finished_ = 0;    // guarded: tickets served
  Status last_status_;       // guarded
  bool stopping_ = false;    // guarded
  bool provision_wanted_ = false;  // guarded
  std::thread thread_;
  std::atomic<uint64_t> last_lsn_{0};
  // Positions in the log's bytes: replayed_log_bytes + LogWriter::bytes_written().
  const uint64_t replayed_log_bytes_;
  std::atomic<uint64_t> covered_log_bytes_{0};  // up to the newest checkpoint's snapshot
  std::atomic<uint64_t> completed_count_{0};
  std::atomic<bool> running_{false};
  std::atomic<uint64_t> total_ns_{0};  // written by the checkpointer thread only
  std::atomic<uint64_t> max_ns_{0};
  std::atomic<uint64_t> sync_ns_{0};
  std::atomic<uint64_t> writeback_wait_ns_{0};
  std::atomic<bool> stop_provisioning_{false};  // stop(): close need not wait for preallocation
};

}  // namespace solo::internal
