#include "checkpointer.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_format.h"
#include "checkpoint_writer.h"
#include "clock.h"
#include "db_impl.h"
#include "log_writer.h"
#include "thread_priority.h"

namespace solo::internal {

Checkpointer::Checkpointer(DbImpl* db, FileSystem* fs, std::string dir, FatalError* fatal,
                           LogWriter* log, uint64_t db_id, uint64_t last_checkpoint_lsn,
                           uint64_t replayed_log_bytes, bool sched_idle, int nice,
                           uint64_t writeback_bytes, bool reuse_file)
    : db_(db),
      fs_(fs),
      dir_(std::move(dir)),
      fatal_(fatal),
      log_(log),
      db_id_(db_id),
      sched_idle_(sched_idle),
      nice_(nice),
      writeback_bytes_(writeback_bytes),
      reuse_file_(reuse_file),
      replayed_log_bytes_(replayed_log_bytes) {
  last_lsn_.store(last_checkpoint_lsn);
}

Checkpointer::~Checkpointer() { stop(); }

void Checkpointer::start() { thread_ = std::thread([this] { thread_main(); }); }

void Checkpointer::request() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // One not yet started covers this request. One that is running does
    // not: its snapshot is older than the log that asks for this one (and
    // the log since that snapshot would grow by a whole interval more).
    if (requested_ > started_) return;
    requested_++;
  }
  cv_.notify_one();
}

void Checkpointer::request_provision() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (provision_wanted_) return;
    provision_wanted_ = true;
  }
  cv_.notify_all();  // run_now() may wait on cv_ too
}

Status Checkpointer::run_now() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return Status::Shutdown("database is closed");
  // A checkpoint that is already running may hold an older snapshot: wait for the next one.
  uint64_t ticket = std::max(requested_, finished_ + 1) + 1;
  requested_ = ticket;
  cv_.notify_one();
  cv_.wait(lock, [&] { return finished_ >= ticket || stopping_; });
  if (finished_ < ticket) return Status::Shutdown("database is closed");
  return last_status_;
}

void Checkpointer::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_provisioning_.store(true, std::memory_order_relaxed);
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status Checkpointer::run_here() {
  if (thread_.joinable()) return Status::Internal("Checkpointer::run_here before stop()");
  return checkpoint_once();
}

uint64_t Checkpointer::log_bytes_since_checkpoint() const {
  const uint64_t position = replayed_log_bytes_ + log_->bytes_written();
  const uint64_t covered = covered_log_bytes_.load(std::memory_order_relaxed);
  return position > covered ? position - covered : 0;
}

void Checkpointer::thread_main() {
  pthread_setname_np(pthread_self(), "solo-ckpt");
  // Below the owner: in the idle class (Options::checkpoint_sched_idle),
  // else at a higher nice value (Options::checkpoint_nice).
  lower_this_thread(sched_idle_, nice_);
  // The ring for the recovered checkpoint's size (a no-op once it exists).
  provision_log();
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [this] { return requested_ > finished_ || stopping_ || provision_wanted_; });
    if (stopping_) break;
    if (requested_ <= finished_) {
      provision_wanted_ = false;
      lock.unlock();
      provision_log();
      lock.lock();
      continue;
    }
    uint64_t serving = requested_;
    started_ = serving;
    lock.unlock();
    running_.store(true, std::memory_order_relaxed);
    Status status = checkpoint_once();
    running_.store(false, std::memory_order_relaxed);
    lock.lock();
    finished_ = serving;
    last_status_ = status;
    cv_.notify_all();
    if (status.ok() && !stopping_) {
      // The next interval may be longer: make room for it before it is needed.
      provision_wanted_ = false;
      lock.unlock();
      provision_log();
      lock.lock();
    }
  }
}

void Checkpointer::provision_log() {
  if (fatal_->failed()) return;
  Status status = log_->provision(&stop_provisioning_);
  if (!status.ok()) {
    // A failed write to the log's files is fatal like any other (invariant 7).
    fatal_->set(status);
    db_->wake_owner();
  }
}

Status Checkpointer::checkpoint_once() {
  if (fatal_->failed()) return fatal_->get();
  // Read before the snapshot is taken: every byte written before it is of a
  // round in the snapshot or of one or two rounds still being synced.
  const uint64_t covered = replayed_log_bytes_ + log_->bytes_written();
  uint32_t slot;
  const RootSet* roots = db_->acquire(&slot);
  if (roots->lsn == last_lsn_.load(std::memory_order_relaxed) && roots->lsn != 0) {
    db_->release(slot);
    return Status::OK();  // nothing new since the last checkpoint
  }
  const uint64_t start_ns = now_ns();
  CheckpointInfo info;
  // What transactions replace in a table already written is reused at once.
  Status status = write_checkpoint(
      fs_, dir_, *roots, db_id_, writeback_bytes_, &info,
      [&](TreeId tree) { db_->release_tree(slot, tree); }, reuse_file_);
  db_->release(slot);
  if (!status.ok()) {
    fatal_->set(status);
    db_->wake_owner();
    return status;
  }
  const uint64_t took_ns = now_ns() - start_ns;
  total_ns_.store(total_ns_.load(std::memory_order_relaxed) + took_ns, std::memory_order_relaxed);
  max_ns_.store(std::max(max_ns_.load(std::memory_order_relaxed), took_ns),
                std::memory_order_relaxed);
  sync_ns_.store(sync_ns_.load(std::memory_order_relaxed) + info.sync_ns,
                 std::memory_order_relaxed);
  writeback_wait_ns_.store(
      writeback_wait_ns_.load(std::memory_order_relaxed) + info.writeback_wait_ns,
      std::memory_order_relaxed);
  last_lsn_.store(info.lsn, std::memory_order_relaxed);
  completed_count_.fetch_add(1, std::memory_order_relaxed);
  covered_log_bytes_.store(covered, std::memory_order_relaxed);
  log_->checkpointed(info.lsn, info.bytes);
  // Older checkpoints are no longer needed (the new one is durable, renamed
  // and its directory entry synced). With reuse_file_ the newest of them
  // becomes the spare that the next checkpoint overwrites; the rename is
  // synced before that overwrite can start, so no file named as a complete
  // checkpoint is ever written again. A failure to remove or rename one is
  // harmless (the next checkpoint creates a file).
  std::vector<std::string> names;
  if (fs_->list(dir_, &names).ok()) {
    const bool have_spare =
        std::find(names.begin(), names.end(), kCheckpointSpareName) != names.end();
    // The older checkpoints, the newest last.
    std::vector<std::pair<uint64_t, std::string>> older;
    for (std::string& name : names) {
      uint64_t lsn;
      if (parse_checkpoint_name(name, &lsn) && lsn < info.lsn) older.emplace_back(lsn, std::move(name));
    }
    std::sort(older.begin(), older.end());
    if (reuse_file_ && !have_spare && !older.empty() &&
        fs_->rename(dir_ + "/" + older.back().second, dir_ + "/" + kCheckpointSpareName).ok()) {
      // Unsynced, the old name might come back over overwritten bytes.
      if (!fs_->sync_dir(dir_).ok()) (void)fs_->remove(dir_ + "/" + kCheckpointSpareName);
      older.pop_back();
    }
    for (const auto& old : older) (void)fs_->remove(dir_ + "/" + old.second);
  }
  return Status::OK();
}

}  // namespace solo::internal
