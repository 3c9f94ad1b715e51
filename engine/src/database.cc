// Database and Snapshot: thin handles over DbImpl.
#include "solo/database.h"

#include <unistd.h>

#include <cstdio>
#include <exception>

#include "checkpoint_format.h"
#include "database_marker.h"
#include "db_impl.h"
#include "log_format.h"

namespace solo {

double Stats::owner_utilization() const {
  uint64_t total = owner_busy_ns + owner_idle_ns;
  return total == 0 ? 0.0 : static_cast<double>(owner_busy_ns) / static_cast<double>(total);
}

// --- Snapshot -------------------------------------------------------------------

Snapshot::Snapshot(Snapshot&& other) noexcept
    : db_(other.db_), roots_(other.roots_), slot_(other.slot_) {
  other.db_ = nullptr;
  other.roots_ = nullptr;
}

Snapshot& Snapshot::operator=(Snapshot&& other) noexcept {
  if (this != &other) {
    release();
    db_ = other.db_;
    roots_ = other.roots_;
    slot_ = other.slot_;
    other.db_ = nullptr;
    other.roots_ = nullptr;
  }
  return *this;
}

uint64_t Snapshot::generation() const { return roots_ == nullptr ? 0 : roots_->gen; }

void Snapshot::release() {
  if (roots_ == nullptr) return;
  db_->release(slot_);
  db_ = nullptr;
  roots_ = nullptr;
}

// --- PendingWrite ---------------------------------------------------------------

PendingWrite::PendingWrite() = default;

PendingWrite::~PendingWrite() {
  // The owner would write its answer into freed memory otherwise.
  if (in_flight_) db_->finish(write_.get());
}

uint64_t PendingWrite::answered_ns() const {
  return write_ != nullptr && !in_flight_ ? write_->request.answered_ns : 0;
}

bool PendingWrite::done() const {
  return write_ != nullptr && write_->request.done.load(std::memory_order_acquire) != 0;
}

// --- Database -------------------------------------------------------------------

Database::Database(std::unique_ptr<internal::DbImpl> impl) : impl_(std::move(impl)) {}

Database::~Database() {
  (void)close();
}

std::string recovery_progress_text(const RecoveryProgress& progress) {
  auto size = [](uint64_t bytes) {
    char text[32];
    if (bytes >= (uint64_t{1} << 30)) {
      std::snprintf(text, sizeof(text), "%.1f GB", static_cast<double>(bytes) / 1e9);
    } else {
      std::snprintf(text, sizeof(text), "%.0f MB", static_cast<double>(bytes) / 1e6);
    }
    return std::string(text);
  };
  if (progress.phase == RecoveryProgress::Phase::kLog) {
    return "log " + size(progress.done_bytes) + ", " + std::to_string(progress.rounds) +
           (progress.rounds == 1 ? " round" : " rounds");
  }
  const double percent = progress.total_bytes == 0
                             ? 100.0
                             : 100.0 * static_cast<double>(progress.done_bytes) /
                                   static_cast<double>(progress.total_bytes);
  char share[16];
  std::snprintf(share, sizeof(share), " (%.0f%%)", percent);
  return "checkpoint " + size(progress.done_bytes) + " of " + size(progress.total_bytes) + share;
}

std::function<void(const RecoveryProgress&)> recovery_progress_on_stderr(std::string dir) {
  // The engine keeps its copy of the options: the callback owns its state.
  return [dir = std::move(dir),
          told = std::make_shared<bool>(false)](const RecoveryProgress& progress) {
    if (progress.finished && !*told) return;
    *told = true;
    const bool tty = isatty(STDERR_FILENO) != 0;
    std::fprintf(stderr, "%ssolo: %s %s: %s%s", tty ? "\r\x1b[K" : "",
                 progress.finished ? "recovered" : "recovering", dir.c_str(),
                 recovery_progress_text(progress).c_str(), tty && !progress.finished ? "" : "\n");
    std::fflush(stderr);
  };
}

Result<std::unique_ptr<Database>> Database::open(const Options& options) {
  auto impl = std::make_unique<internal::DbImpl>(options);
  impl->start();
  if (!options.dir.empty()) {
    Status status = impl->open_durable();
    if (!status.ok()) {
      (void)impl->close();
      return status;
    }
  }
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Status Database::write_ref(FunctionRef<Status(WriteTxn&)> fn) { return impl_->write(fn); }

Status Database::submit(PendingWrite& pending, FunctionRef<Status(WriteTxn&)> fn) {
  if (pending.in_flight_) return Status::InvalidArgument("submit: this PendingWrite is still in flight");
  if (pending.write_ == nullptr) pending.write_ = std::make_unique<internal::AsyncWrite>(fn);
  pending.write_->fn = fn;
  pending.db_ = impl_.get();
  Status status = impl_->submit(pending.write_.get());
  pending.in_flight_ = status.ok();
  return status;
}

Status Database::finish(PendingWrite& pending) {
  if (!pending.in_flight_) return Status::InvalidArgument("finish: this PendingWrite is not in flight");
  Status status = impl_->finish(pending.write_.get());
  pending.in_flight_ = false;
  return status;
}

Status Database::read_ref(FunctionRef<Status(ReadTxn&)> fn) const {
  Snapshot snapshot = this->snapshot();
  ReadTxn txn(snapshot);
  try {
    return fn(txn);
  } catch (const std::exception& error) {
    return Status::Aborted(std::string("exception: ") + error.what());
  } catch (...) {
    return Status::Aborted("exception");
  }
}

Snapshot Database::snapshot() const {
  Snapshot snapshot;
  snapshot.db_ = impl_.get();
  snapshot.roots_ = impl_->acquire(&snapshot.slot_);
  return snapshot;
}

Stats Database::stats() const { return impl_->stats(); }

Database::FileKind Database::file_kind(std::string_view name) {
  const std::string file(name);
  uint32_t slot;
  uint64_t lsn;
  if (internal::parse_segment_name(file, &slot) || internal::parse_checkpoint_name(file, &lsn)) {
    return FileKind::kContents;
  }
  if (file == internal::kMarkerName) return FileKind::kMarker;
  if (internal::is_checkpoint_temp_name(file) || file == internal::kCheckpointSpareName ||
      file == internal::kMarkerTempName) {
    return FileKind::kScratch;
  }
  return file == internal::kLockFileName ? FileKind::kLock : FileKind::kOther;
}

const Options& Database::options() const { return impl_->options(); }

Status Database::close() {
  return impl_->close();
}

Status Database::checkpoint() { return impl_->checkpoint(); }

}  // namespace solo
