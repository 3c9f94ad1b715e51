// The owner thread: rounds, undo, publication, reclamation.
//
// Round (engine/README.md "Rounds"):
//   take every waiting request (one exchange of the queue head)
//   run each transaction; undo the ones that fail (5)
//   seal: if anything committed, publish a RootSet by one atomic store (3)
//         and start the next generation (2)
//   reclaim a bounded number of retired objects no snapshot can reach (6)
//   mark every request done, then wake the round's sleeping callers with one
//   futex call, or none if none sleeps (round_signal.h)
// With a log, sealing hands the round's frame to the log writer and keeps the
// round in pending_; drain_pending() publishes and answers the rounds whose
// sync has returned: after each round, on the log writer's notice, and
// between the transactions of a round (4).
#include "db_impl.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <exception>

#include "checkpointer.h"
#include "clock.h"
#include "database_marker.h"
#include "durable_codec.h"
#include "invariant.h"
#include "log_writer.h"
#include "recovery.h"
#include "row_patch.h"

namespace solo::internal {

DbImpl::DbImpl(const Options& options)
    : pool_(options.reuse_retired, options.prefault_arenas, options.prefault_sched_idle),
      writer_(&pool_),
      options_(options) {
  catalogs_.push_back(std::make_unique<Catalog>());
  catalog_ = catalogs_.back().get();
  // Generation 0: the empty database.
  RootSet* roots = static_cast<RootSet*>(pool_.allocate(RootSet::bytes_for(0)));
  *roots = RootSet{0, catalog_, 0, 0, 0, RootSet::bytes_for(0)};
  published_.store(roots, std::memory_order_seq_cst);
  published_gen_ = 0;
  cur_gen_ = 1;
  writer_.set_gen(cur_gen_);
  // In memory the owner answers each round as it ends; open_durable() decides again.
  signal_.set_naps(options.answer_wait == Options::AnswerWait::kNap ||
                   (options.answer_wait == Options::AnswerWait::kAuto && options.dir.empty()));
}

DbImpl::~DbImpl() {
  (void)close();
  SOLO_ASSERT(registry_.held() == 0);  // every Snapshot released before the Database
  // The pool's arenas hold every node, record and root set: freeing them frees all.
}

void DbImpl::start() {
  owner_ = std::thread([this] { owner_main(); });
  owner_id_ = owner_.get_id();
  if (pthread_getcpuclockid(owner_.native_handle(), &owner_clock_) == 0) {
    owner_running_.store(true, std::memory_order_release);
  }
}

// --- requests ---------------------------------------------------------------

void DbImpl::push(WriteRequest* request) {
  WriteRequest* head = queue_head_.load(std::memory_order_relaxed);
  do {
    request->next = head;
  } while (!queue_head_.compare_exchange_weak(head, request, std::memory_order_seq_cst,
                                              std::memory_order_relaxed));
  // Only an empty queue can have a sleeping owner.
  signal_.pushed(head == nullptr);
}

void DbImpl::wait(WriteRequest* request) {
  signal_.wait_answer(request->done, request->round,
                      active_writers_.load(std::memory_order_relaxed));
}

Status DbImpl::write(FunctionRef<Status(WriteTxn&)> fn) {
  if (on_owner_thread()) return Status::InvalidArgument("db.write() called on the owner thread");
  active_writers_.fetch_add(1, std::memory_order_seq_cst);
  if (stopping_.load(std::memory_order_seq_cst)) {
    active_writers_.fetch_sub(1, std::memory_order_seq_cst);
    return Status::Shutdown("database is closed");
  }
  WriteRequest request;
  request.fn = &fn;
  push(&request);
  wait(&request);
  Status result = std::move(request.result);
  active_writers_.fetch_sub(1, std::memory_order_seq_cst);
  return result;
}

Status DbImpl::submit(AsyncWrite* write) {
  if (on_owner_thread()) return Status::InvalidArgument("db.submit() called on the owner thread");
  // Counted while pushing, so that a closing owner waits for the push
  // (owner_main re-reads the queue after it sees no writers).
  active_writers_.fetch_add(1, std::memory_order_seq_cst);
  if (stopping_.load(std::memory_order_seq_cst)) {
    active_writers_.fetch_sub(1, std::memory_order_seq_cst);
    return Status::Shutdown("database is closed");
  }
  WriteRequest& request = write->request;
  request.fn = &write->fn;
  request.result = Status::OK();
  request.round.store(0, std::memory_order_relaxed);
  request.answered_ns = 0;
  request.done.store(0, std::memory_order_relaxed);
  push(&request);
  active_writers_.fetch_sub(1, std::memory_order_seq_cst);
  return Status::OK();
}

Status DbImpl::finish(AsyncWrite* write) {
  if (on_owner_thread()) return Status::InvalidArgument("db.finish() called on the owner thread");
  WriteRequest& request = write->request;
  if (request.done.load(std::memory_order_acquire) == 0) {
    // A waiting thread, like a caller inside write() (the spin policy).
    active_writers_.fetch_add(1, std::memory_order_seq_cst);
    wait(&request);
    active_writers_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return std::move(request.result);
}

Status DbImpl::close() {
  std::lock_guard<std::mutex> lock(close_mutex_);
  if (closed_) return close_status_;
  closed_ = true;
  if (!owner_.joinable()) return close_status_;
  stopping_.store(true, std::memory_order_seq_cst);
  WriteRequest stop;
  stop.fn = nullptr;
  push(&stop);
  wait(&stop);
  owner_running_.store(false, std::memory_order_release);
  owner_.join();
  // The owner answered every round (durable, or failed): stop the helpers.
  if (checkpointer_) {
    checkpointer_->stop();
    // A shutdown checkpoint, so that the next open need not replay the log
    // (Options::checkpoint_at_close_bytes). A failure is fatal like any
    // checkpoint's and loses nothing (the log still holds every round), but
    // the caller is told: the next open replays the log instead.
    const uint64_t at_close = options_.checkpoint_at_close_bytes;
    if (at_close > 0 && !fatal_.failed() && checkpointer_->log_bytes_since_checkpoint() >= at_close) {
      Status status = checkpointer_->run_here();
      if (status.IsIOError()) {
        close_status_ = Status::IOError("checkpoint at close: " + status.message());
      } else {
        close_status_ = std::move(status);
      }
    }
  }
  if (log_) log_->stop();
  // A database that failed earlier (invariant 7) closes all the same, but
  // not cleanly: there is no checkpoint at close, and the writes since the
  // failure were refused. close() says so as well, for a caller that looks
  // only at it (the shell's exit status); the next open recovers.
  if (close_status_.ok() && fatal_.failed()) {
    close_status_ = Status::IOError("closed after an earlier failure: " + fatal_.get().message());
  }
  return close_status_;
}

Status DbImpl::checkpoint() {
  if (checkpointer_ == nullptr) return Status::InvalidArgument("an in-memory database has no checkpoints");
  return checkpointer_->run_now();
}

void DbImpl::wake_owner() {
  if (!notice_queued_.exchange(true, std::memory_order_seq_cst)) push(&notice_);
}

Status DbImpl::open_durable() {
  fs_ = options_.fs != nullptr ? options_.fs : posix_file_system();
  const std::string& dir = options_.dir;
  Status status = fs_->create_dir(dir);
  if (!status.ok()) return status;
  auto lock = fs_->lock_file(dir + "/" + kLockFileName);
  if (!lock.ok()) return lock.status();
  dir_lock_ = std::move(*lock);
  LogState state;
  bool marker_found = false;
  uint32_t marker_flags = 0;
  const uint64_t recovery_start = now_ns();
  status = recover(this, fs_, dir, &state, &marker_found, &marker_flags);
  if (!status.ok()) return status;
  recovery_ns_ = now_ns() - recovery_start;
  recovered_checkpoint_bytes_ = state.checkpoint_bytes;
  recovery_checkpoint_ns_ = state.checkpoint_load_ns;
  replayed_rounds_ = state.replayed_rounds;
  replayed_log_bytes_ = state.replayed_bytes;
  log_ = std::make_unique<LogWriter>(
      fs_, dir, options_, &fatal_, [this] { wake_owner(); }, [this] { checkpointer_->request(); },
      [this] { return checkpointer_->running(); }, [this] { checkpointer_->request_provision(); });
  checkpointer_ = std::make_unique<Checkpointer>(
      this, fs_, dir, &fatal_, log_.get(), state.db_id, state.checkpoint_lsn, state.replayed_bytes,
      options_.checkpoint_sched_idle, options_.checkpoint_nice, options_.checkpoint_writeback_bytes,
      options_.checkpoint_reuse_file);
  const uint64_t last_lsn = state.next_lsn - 1;
  const uint64_t db_id = state.db_id;
  const bool logged = state.logged;
  status = log_->open(std::move(state));
  if (!status.ok()) return status;
  // A new database (or a directory of a build before the marker) gets its
  // marker now: after its segment files are made and synced, before any
  // round is logged (engine/README.md "Database marker"). One that has
  // logged gets kMarkerLogged now if its marker lacks it (made by a build
  // before the flag); otherwise the log writer sets it when the first round
  // is durable, before that round is acknowledged.
  if (!marker_found || (logged && (marker_flags & kMarkerLogged) == 0)) {
    marker_flags = logged ? kMarkerLogged : 0;
    status = write_database_marker(fs_, dir, db_id, marker_flags);
    if (!status.ok()) return status;
  }
  if ((marker_flags & kMarkerLogged) == 0) log_->mark_logged_at_first_round();
  notice_.log_notice = true;
  // A checkpoint right after recovery when the replayed log alone reaches
  // the trigger: a process that is opened, killed and opened again (or only
  // opened to be read, as `tpcc check` does) would otherwise never write the
  // log it replays into a checkpoint, and each recovery would replay more.
  const bool checkpoint_now = log_->take_due_checkpoint();
  const bool log_on_owner =
      options_.log_on_owner == Options::LogOnOwner::kAlways ||
      (options_.log_on_owner == Options::LogOnOwner::kAuto && fs_->syncs_are_free(dir));
  log_->start(log_on_owner);
  signal_.set_naps(options_.answer_wait == Options::AnswerWait::kNap ||
                   (options_.answer_wait == Options::AnswerWait::kAuto && log_on_owner));
  checkpointer_->start();
  // Switch the owner to logging between two rounds (this runs on the owner).
  status = write([&](WriteTxn&) {
    logging_ = true;
    log_buffer_.assign(kFrameHeaderBytes, '\0');
    last_lsn_ = last_lsn;
    // The published state must name the round it ends with (checkpoints use it).
    if (published_.load(std::memory_order_relaxed)->lsn != last_lsn_) round_dirty_ = true;
    return Status::OK();
  });
  // After that round, so that the checkpoint's state names its last round.
  if (status.ok() && checkpoint_now) checkpointer_->request();
  return status;
}

// --- the owner --------------------------------------------------------------

void DbImpl::owner_main() {
  // Named so that profilers (tpcc run --profile, perf, top -H) can find it.
  pthread_setname_np(pthread_self(), "solo-owner");
  uint64_t busy_since = now_ns();
  while (true) {
    WriteRequest* batch = queue_head_.exchange(nullptr, std::memory_order_seq_cst);
    if (batch == nullptr) {
      if (stop_seen_ && pending_.empty()) {
        // Late writers that passed the stopping_ check are answered Shutdown.
        // A submit() pushes before it stops counting: with no writers left,
        // a second look at the queue sees its request.
        if (active_writers_.load(std::memory_order_seq_cst) == 0 &&
            queue_head_.load(std::memory_order_seq_cst) == nullptr) {
          break;
        }
        std::this_thread::yield();
        continue;
      }
      uint64_t idle_since = now_ns();
      busy_ns_ += idle_since - busy_since;
      signal_.owner_wait(queue_head_, active_writers_.load(std::memory_order_relaxed));
      busy_since = now_ns();
      idle_ns_ += busy_since - idle_since;
      continue;
    }
    // The queue is a stack: reverse it into arrival order, stamping each
    // request with its round (the futex bit its caller sleeps on). A log
    // notice is not a caller: it only says that durable_lsn moved (or a
    // failure).
    uint32_t round = signal_.next_round();
    WriteRequest* ordered = nullptr;
    bool noticed = false;
    uint32_t requests = 0;
    while (batch != nullptr) {
      WriteRequest* next = batch->next;
      if (batch->log_notice) {
        noticed = true;
      } else {
        batch->next = ordered;
        batch->round.store(round, std::memory_order_relaxed);
        ordered = batch;
        requests++;
      }
      batch = next;
    }
    // Cleared before durable_lsn is read, so a later report queues a new notice.
    if (noticed) notice_queued_.store(false, std::memory_order_seq_cst);
    if (ordered != nullptr) {
      const uint64_t round_start = now_ns();
      signal_.round_started(round, requests, round_start);
      // Two vDSO clock reads per round (no system call), filed by whether a
      // checkpoint was being written at either end (issue 6's target: p99
      // with one within 2x of p99 without).
      const bool checkpoint_at_start = logging_ && checkpointer_->running();
      run_round(ordered, requests, round_start);
      const uint64_t round_ns = now_ns() - round_start;
      note_round_time(round_ns, checkpoint_at_start || (logging_ && checkpointer_->running()));
    }
    if (logging_) drain_pending();
  }
  busy_ns_ += now_ns() - busy_since;
  store_stats();
}

void DbImpl::run_round(WriteRequest* batch, uint32_t requests, uint64_t start_ns) {
  // Invariant 7: after a fatal log or checkpoint error nothing runs any more.
  const bool failed = logging_ && fatal_.failed();
  for (WriteRequest* request = batch; request != nullptr; request = request->next) {
    if (request->fn == nullptr) {
      stop_seen_ = true;
    } else if (stop_seen_) {
      request->result = Status::Shutdown("database is closing");
    } else if (failed) {
      request->result = fatal_.get();
    } else {
      request->result = run_transaction(*request->fn);
      // Rounds whose sync returned while this one runs are published and
      // answered between its transactions, not after its last one.
      if (!pending_.empty() && log_->durable_lsn() >= pending_.front().lsn) drain_pending();
    }
  }
  signal_.round_ran(signal_.round_running(), requests, start_ns, now_ns());
  if (logging_) {
    finish_round_durable(batch);
    return;
  }
  // In memory: invariant 4 holds trivially (nothing to make durable).
  if (round_dirty_) publish();
  reclaim();
  rounds_++;
  store_stats();
  answer(batch);
  signal_.round_answered(signal_.round_running());
}

// Seals the round: its frame goes to the log writer, its RootSet waits in
// pending_ until the frame is durable (invariant 4); the owner goes on with
// the next round meanwhile (the nodes of the sealed generation are immutable).
void DbImpl::finish_round_durable(WriteRequest* batch) {
  uint64_t answer_at = 0;  // 0: once the round's own LSN is durable
  if (log_buffer_.size() - kFrameHeaderBytes > kMaxFramePayload) {
    // Cannot be framed: fatal like a failed write; never published or answered OK.
    fatal_.set(Status::IOError("a round's log record exceeds 1 GiB"));
    log_buffer_.resize(kFrameHeaderBytes);
    answer_at = UINT64_MAX;
  }
  if (log_buffer_.size() > kFrameHeaderBytes) {
    last_lsn_++;
    store_u32(log_buffer_.data() + 4, static_cast<uint32_t>(log_buffer_.size() - kFrameHeaderBytes));
    store_u64(log_buffer_.data() + 8, last_lsn_);
    log_buffer_.resize(align_frame(log_buffer_.size()), '\0');
    log_->submit(&log_buffer_, last_lsn_, log_saved_bytes_);
    log_saved_bytes_ = 0;
    log_buffer_.append(kFrameHeaderBytes, '\0');
  }
  // A round that changed nothing still waits for the rounds before it: its
  // callers may have read their unpublished effects.
  RootSet* roots = round_dirty_ ? seal() : nullptr;
  pending_.push_back(
      PendingRound{answer_at != 0 ? answer_at : last_lsn_, roots, batch, signal_.round_running()});
  reclaim();
  rounds_++;
  store_stats();
  drain_pending();
}

// Publishes and answers every pending round whose LSN is durable; after a
// fatal error answers the others with it (their effects are never published).
void DbImpl::drain_pending() {
  if (pending_.empty()) return;
  const uint64_t durable = log_->durable_lsn();
  const bool failed = fatal_.failed();
  bool answered = false;
  while (!pending_.empty()) {
    PendingRound& round = pending_.front();
    if (round.lsn <= durable) {
      if (round.roots != nullptr) publish_roots(round.roots);
    } else if (failed) {
      Status error = fatal_.get();
      for (WriteRequest* request = round.batch; request != nullptr; request = request->next) {
        if (request->fn != nullptr) request->result = error;
      }
    } else {
      break;
    }
    answer(round.batch);
    signal_.round_answered(round.round);
    answered = true;
    pending_.pop_front();
  }
  if (answered) store_stats();
}

void DbImpl::answer(WriteRequest* batch) {
  // After done is set the caller may return and free its request.
  const uint64_t answered_ns = now_ns();
  while (batch != nullptr) {
    WriteRequest* next = batch->next;
    batch->answered_ns = answered_ns;
    batch->done.store(1, std::memory_order_release);
    batch = next;
  }
}

Status DbImpl::run_transaction(FunctionRef<Status(WriteTxn&)>& fn) {
  SOLO_ASSERT(undo_.empty() && created_.empty() && displaced_.empty());
  txn_log_mark_ = log_buffer_.size();
  txn_log_saved_mark_ = log_saved_bytes_;
  txn_serial_++;  // a finger of an earlier transaction is no longer used
  WriteTxn txn(this);
  Status status;
  try {
    status = fn(txn);
  } catch (const std::exception& error) {
    status = Status::Aborted(std::string("exception: ") + error.what());
  } catch (...) {
    status = Status::Aborted("exception");
  }
  if (txn.rolled_back()) {
    rollbacks_++;
    return status.ok() ? Status::Aborted("transaction rolled back") : status;
  }
  if (!status.ok()) {
    undo_transaction();
    rollbacks_++;
    return status;
  }
  commit_transaction();
  commits_++;
  return status;
}

void DbImpl::commit_transaction() {
  if (!undo_.empty()) round_dirty_ = true;
  for (auto [record, tree] : displaced_) {
    uint32_t bytes = Record::alloc_bytes(record->size());
    record_bytes_ -= bytes;
    if (record->made_in(cur_gen_)) {
      pool_.free_now(record, bytes);  // no snapshot has seen it
    } else {
      pool_.retire(record, bytes, ObjectKind::kRecord, record->gen(), cur_gen_, tree);
    }
  }
  created_.clear();
  displaced_.clear();
  undo_.clear();
}

void DbImpl::undo_transaction() {
  undo_to(TxnMark{0, 0, 0, txn_log_mark_, txn_log_saved_mark_});
}

void DbImpl::undo_to(const TxnMark& mark) {
  SOLO_ASSERT(on_owner_thread());  // invariant 1
  SOLO_ASSERT(mark.undo_entries <= undo_.size() && mark.created <= created_.size() &&
              mark.displaced <= displaced_.size());
  const std::vector<UndoEntry>& entries = undo_.entries();
  for (auto entry = entries.rbegin(); entry != entries.rend() - mark.undo_entries; ++entry) {
    KeyRef key = make_key(undo_.key(*entry));
    void* value = nullptr;
    bool done = true;
    switch (entry->op) {
      case UndoEntry::Op::kInserted:
        done = btree_remove(&trees_[entry->tree], writer_for(entry->tree), key, &value);
        break;
      case UndoEntry::Op::kReplaced:
        done = btree_put(&trees_[entry->tree], writer_for(entry->tree), key,
                         const_cast<void*>(entry->old), PutMode::kReplace, &value);
        break;
      case UndoEntry::Op::kRemoved:
        done = btree_put(&trees_[entry->tree], writer_for(entry->tree), key,
                         const_cast<void*>(entry->old), PutMode::kInsert, &value);
        break;
      case UndoEntry::Op::kCreatedTree:
        SOLO_ASSERT(entry->tree + 1 == trees_.size());
        btree_drop(&trees_.back(), writer_for(entry->tree));
        trees_.pop_back();
        break;
      case UndoEntry::Op::kCatalog:
        catalog_ = static_cast<const Catalog*>(entry->old);
        break;
      case UndoEntry::Op::kLoaded:
        btree_drop(&trees_[entry->tree], writer_for(entry->tree));
        break;
    }
    SOLO_ASSERT(done);
    (void)done;
  }
  // Every record made since the mark is out of the tree again; every record
  // displaced since is back in it (a record made earlier stays, in the tree
  // or displaced, as the earlier changes left it).
  for (size_t record_idx = mark.created; record_idx < created_.size(); ++record_idx) {
    Record* record = created_[record_idx];
    uint32_t bytes = Record::alloc_bytes(record->size());
    record_bytes_ -= bytes;
    pool_.free_now(record, bytes);
  }
  created_.resize(mark.created);
  displaced_.resize(mark.displaced);
  undo_.truncate(mark.undo_entries);
  changes_++;
  if (logging_) {
    log_buffer_.resize(mark.log_bytes);  // invariant 5: not in the log either
    log_saved_bytes_ = mark.log_saved_bytes;
  }
}

// --- logged tree changes ------------------------------------------------------

// Each logs the change before making it: `key` may point into a node that the
// change frees (a caller's cursor key), while the log keeps its own copy.
bool DbImpl::tree_insert(TreeId tree, std::string_view key, void* value, TreePath* not_found) {
  SOLO_ASSERT(on_owner_thread());  // invariant 1
  undo_.add(UndoEntry::Op::kInserted, tree, key, nullptr);
  const KeyRef stored_key = make_key(undo_.key(undo_.entries().back()));
  void* old;
  if (not_found != nullptr) {
    btree_insert_new(&trees_[tree], writer_for(tree), not_found, stored_key, value);
  } else if (!btree_put(&trees_[tree], writer_for(tree), stored_key, value, PutMode::kInsert,
                        &old)) {
    undo_.drop_last();
    return false;
  }
  changes_++;
  if (logging_ && trees_[tree].has_records) log_put(tree, undo_.key(undo_.entries().back()), value);
  return true;
}

void* DbImpl::tree_replace(TreeId tree, std::string_view key, void* value) {
  SOLO_ASSERT(on_owner_thread());
  undo_.add(UndoEntry::Op::kReplaced, tree, key, nullptr);
  void* old = nullptr;
  bool replaced =
      btree_put(&trees_[tree], writer_for(tree), make_key(undo_.key(undo_.entries().back())), value,
                PutMode::kReplace, &old);
  SOLO_ASSERT(replaced);
  (void)replaced;
  undo_.set_last_old(old);
  changes_++;
  if (logging_ && trees_[tree].has_records) log_put(tree, undo_.key(undo_.entries().back()), value);
  return old;
}

void* DbImpl::tree_remove(TreeId tree, std::string_view key) {
  SOLO_ASSERT(on_owner_thread());
  undo_.add(UndoEntry::Op::kRemoved, tree, key, nullptr);
  void* old = nullptr;
  bool removed = btree_remove(&trees_[tree], writer_for(tree),
                              make_key(undo_.key(undo_.entries().back())), &old);
  SOLO_ASSERT(removed);
  (void)removed;
  undo_.set_last_old(old);
  changes_++;
  if (logging_ && trees_[tree].has_records) log_delete(tree, undo_.key(undo_.entries().back()));
  return old;
}

void* DbImpl::tree_replace_at(TreeId tree, std::string_view key, TreePath* path, void* value) {
  SOLO_ASSERT(on_owner_thread());
  undo_.add(UndoEntry::Op::kReplaced, tree, key, nullptr);
  void* old = btree_replace_at(&trees_[tree], writer_for(tree), path, value);
  undo_.set_last_old(old);
  changes_++;
  if (logging_ && trees_[tree].has_records) log_put(tree, undo_.key(undo_.entries().back()), value);
  return old;
}

void* DbImpl::tree_patch_at(TreeId tree, std::string_view key, TreePath* path, void* value,
                            const TableSchema& schema, std::span<const uint32_t> changed,
                            std::span<const PatchedColumn> spans) {
  SOLO_ASSERT(on_owner_thread());
  undo_.add(UndoEntry::Op::kReplaced, tree, key, nullptr);
  void* old = btree_replace_at(&trees_[tree], writer_for(tree), path, value);
  undo_.set_last_old(old);
  changes_++;
  if (logging_ && trees_[tree].has_records) {
    log_patch(tree, undo_.key(undo_.entries().back()), old, value, schema, changed, spans);
  }
  return old;
}

void* DbImpl::tree_remove_at(TreeId tree, std::string_view key, TreePath* path) {
  SOLO_ASSERT(on_owner_thread());
  undo_.add(UndoEntry::Op::kRemoved, tree, key, nullptr);
  void* old = btree_remove_at(&trees_[tree], writer_for(tree), path);
  undo_.set_last_old(old);
  changes_++;
  if (logging_ && trees_[tree].has_records) log_delete(tree, undo_.key(undo_.entries().back()));
  return old;
}

void DbImpl::tree_load(TreeId tree, const TreeState& built) {
  SOLO_ASSERT(on_owner_thread());  // invariant 1
  SOLO_ASSERT(!logging_);          // recovery only: nothing of it is logged
  SOLO_ASSERT(trees_[tree].root == nullptr && trees_[tree].has_records == built.has_records);
  undo_.add(UndoEntry::Op::kLoaded, tree, {}, nullptr);
  trees_[tree] = built;
  changes_++;
}

Record* DbImpl::make_record(std::string_view row) {
  Record* record = new_record(static_cast<uint32_t>(row.size()));
  std::memcpy(record->data(), row.data(), row.size());
  return record;
}

Record* DbImpl::new_record(uint32_t size) {
  SOLO_ASSERT(size <= Record::kMaxSize);
  uint32_t bytes = Record::alloc_bytes(size);
  Record* record = static_cast<Record*>(pool_.allocate(bytes));
  record->set_header(cur_gen_, size);
  created_.push_back(record);
  record_bytes_ += bytes;
  return record;
}

void DbImpl::set_catalog(std::unique_ptr<Catalog> catalog) {
  undo_.add(UndoEntry::Op::kCatalog, kInvalidTree, {}, catalog_);
  catalog_ = catalog.get();
  catalogs_.push_back(std::move(catalog));
}

void DbImpl::add_tree(const TreeState& tree) {
  trees_.push_back(tree);
  undo_.add(UndoEntry::Op::kCreatedTree, static_cast<TreeId>(trees_.size() - 1), {}, nullptr);
  changes_++;
}

// --- redo records ------------------------------------------------------------

void DbImpl::log_put(TreeId tree, std::string_view key, const void* record) {
  // Measured, then written in place: one resize instead of an append per field.
  const std::string_view row = static_cast<const Record*>(record)->view();
  const size_t at = log_buffer_.size();
  log_buffer_.resize(at + 1 + 4 + bytes_size(key) + bytes_size(row));
  char* dst = log_buffer_.data() + at;
  *dst++ = static_cast<char>(LogEntry::kPut);
  dst = write_u32(dst, tree);
  dst = write_bytes(dst, key);
  write_bytes(dst, row);
}

void DbImpl::log_patch(TreeId tree, std::string_view key, const void* old_record,
                       const void* record, const TableSchema& schema,
                       std::span<const uint32_t> changed, std::span<const PatchedColumn> spans) {
  const std::string_view row = static_cast<const Record*>(record)->view();
  if (!spans.empty()) {
    // From the spans (no pass over the row): measured, then written in
    // place; the whole row instead where the patch would not be shorter.
    const size_t patch_bytes = spans_column_patch_size(spans);
    if (patch_bytes >= row.size()) {
      log_put(tree, key, record);
      return;
    }
    const size_t at = log_buffer_.size();
    log_buffer_.resize(at + 1 + 4 + bytes_size(key) + patch_bytes);
    char* dst = log_buffer_.data() + at;
    *dst++ = static_cast<char>(LogEntry::kPatch);
    dst = write_u32(dst, tree);
    dst = write_bytes(dst, key);
    dst = write_spans_column_patch(dst, row, spans);
    SOLO_ASSERT(dst == log_buffer_.data() + log_buffer_.size());
    log_saved_bytes_ += row.size() + 1 - patch_bytes;
    return;
  }
  const size_t mark = log_buffer_.size();
  log_buffer_.push_back(static_cast<char>(LogEntry::kPatch));
  put_u32(&log_buffer_, tree);
  put_bytes(&log_buffer_, key);
  const size_t patch_start = log_buffer_.size();
  // A whole row is logged instead where the patch would not be shorter.
  const bool made =
      changed.empty() ? append_column_patch(schema, static_cast<const Record*>(old_record)->view(),
                                            row, &log_buffer_)
                      : append_listed_column_patch(schema, row, changed, &log_buffer_);
  if (!made ||
      log_buffer_.size() - patch_start >= row.size()) {
    log_buffer_.resize(mark);
    log_put(tree, key, record);
    return;
  }
  log_saved_bytes_ += row.size() + 1 - (log_buffer_.size() - patch_start);
}

void DbImpl::log_delete(TreeId tree, std::string_view key) {
  log_buffer_.push_back(static_cast<char>(LogEntry::kDelete));
  put_u32(&log_buffer_, tree);
  put_bytes(&log_buffer_, key);
}

void DbImpl::log_ddl(LogEntry type, TreeId id, const TableSchema* table, const IndexSchema* index) {
  if (!logging_) return;
  log_buffer_.push_back(static_cast<char>(type));
  put_u32(&log_buffer_, id);
  if (table != nullptr) put_table_schema(&log_buffer_, *table);
  if (index != nullptr) put_index_schema(&log_buffer_, *index);
}

// --- sealing a round ----------------------------------------------------------

void DbImpl::publish() { publish_roots(seal()); }

// The RootSet of the generation being built; starts the next generation.
RootSet* DbImpl::seal() {
  uint32_t tree_count = static_cast<uint32_t>(trees_.size());
  uint32_t bytes = RootSet::bytes_for(tree_count);
  RootSet* roots = static_cast<RootSet*>(pool_.allocate(bytes));
  uint64_t state_bytes = 0;
  for (uint32_t tree_idx = 0; tree_idx < tree_count; ++tree_idx) {
    roots->trees()[tree_idx] = trees_[tree_idx];
    state_bytes += trees_[tree_idx].bytes;
  }
  roots->gen = cur_gen_;
  roots->catalog = catalog_;
  roots->state_bytes = state_bytes;
  roots->lsn = last_lsn_;
  roots->tree_count = tree_count;
  roots->alloc_bytes = bytes;
  if (options_.check_invariants) {
    for (const TreeState& tree : trees_) {
      std::string problem = btree_check(tree, cur_gen_);
      if (!problem.empty()) {
        std::fprintf(stderr, "solo: tree invariant broken: %s\n", problem.c_str());
        std::abort();
      }
    }
  }
  cur_gen_++;
  writer_.set_gen(cur_gen_);
  round_dirty_ = false;
  return roots;
}

void DbImpl::publish_roots(RootSet* roots) {
  const RootSet* old = published_.load(std::memory_order_relaxed);
  // Invariant 3: one atomic store makes the whole new state visible.
  published_.store(roots, std::memory_order_seq_cst);
  published_gen_ = roots->gen;
  // Retired objects are queued in generation order: while later rounds are
  // sealed but unpublished, the old RootSet waits for the newest of them.
  uint64_t retire_gen = logging_ ? cur_gen_ : roots->gen;
  pool_.retire(const_cast<RootSet*>(old), old->alloc_bytes, ObjectKind::kRootSet, old->gen,
               retire_gen, kNoTree);
}

void DbImpl::reclaim() {
  size_t pending = pool_.retired_pending();
  // Nothing retired after the newest publication can be reclaimed yet.
  if (pending == 0 ||
      (pool_.oldest_retire_gen() > published_gen_ && pool_.held_back() == 0)) {
    pending_after_reclaim_ = pending;
    return;
  }
  pinned_.clear();
  if (!options_.unsafe_ignore_held_snapshots && !registry_.pinned(&pinned_)) return;
  // Bounded (6): a fixed batch, or twice what the round retired when more.
  size_t budget = options_.reclaim_batch;
  if (pending > pending_after_reclaim_) {
    budget = std::max(budget, 2 * (pending - pending_after_reclaim_));
  }
  pool_.reclaim(published_gen_, pinned_, budget);
  pending_after_reclaim_ = pool_.retired_pending();
}

void DbImpl::note_round_time(uint64_t ns, bool checkpoint_running) {
  std::atomic<uint64_t>& bucket = round_counts_[checkpoint_running ? 1 : 0][RoundTimes::bucket_of(ns)];
  bucket.store(bucket.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void DbImpl::store_stats() {
  const RootSet* roots = published_.load(std::memory_order_relaxed);
  auto relaxed = std::memory_order_relaxed;
  shared_stats_.generation.store(roots->gen, relaxed);
  shared_stats_.rounds.store(rounds_, relaxed);
  shared_stats_.commits.store(commits_, relaxed);
  shared_stats_.rollbacks.store(rollbacks_, relaxed);
  shared_stats_.state_bytes.store(roots->state_bytes, relaxed);
  shared_stats_.node_bytes.store(writer_.live_node_bytes(), relaxed);
  shared_stats_.record_bytes.store(record_bytes_, relaxed);
  shared_stats_.arena_bytes.store(pool_.arena_bytes(), relaxed);
  shared_stats_.retired_pending.store(pool_.retired_pending(), relaxed);
  shared_stats_.reused.store(pool_.reused(), relaxed);
  shared_stats_.fresh.store(pool_.fresh(), relaxed);
  shared_stats_.arenas_prefaulted.store(pool_.prefaulted_taken(), relaxed);
  shared_stats_.arenas_made.store(pool_.arenas_made(), relaxed);
  shared_stats_.busy_ns.store(busy_ns_, relaxed);
  shared_stats_.idle_ns.store(idle_ns_, relaxed);
  shared_stats_.owner_sleeps.store(signal_.owner_sleeps(), relaxed);
}

Stats DbImpl::stats() const {
  auto relaxed = std::memory_order_relaxed;
  Stats stats;
  stats.generation = shared_stats_.generation.load(relaxed);
  stats.rounds = shared_stats_.rounds.load(relaxed);
  stats.commits = shared_stats_.commits.load(relaxed);
  stats.rollbacks = shared_stats_.rollbacks.load(relaxed);
  stats.state_bytes = shared_stats_.state_bytes.load(relaxed);
  stats.node_bytes = shared_stats_.node_bytes.load(relaxed);
  stats.record_bytes = shared_stats_.record_bytes.load(relaxed);
  stats.arena_bytes = shared_stats_.arena_bytes.load(relaxed);
  stats.retired_pending = shared_stats_.retired_pending.load(relaxed);
  stats.reused_objects = shared_stats_.reused.load(relaxed);
  stats.fresh_objects = shared_stats_.fresh.load(relaxed);
  stats.arenas_prefaulted = shared_stats_.arenas_prefaulted.load(relaxed);
  stats.arenas_made_by_owner = shared_stats_.arenas_made.load(relaxed);
  stats.owner_busy_ns = shared_stats_.busy_ns.load(relaxed);
  stats.owner_idle_ns = shared_stats_.idle_ns.load(relaxed);
  if (log_ != nullptr) {
    stats.log_syncs = log_->syncs();
    stats.log_on_owner = log_->on_owner();
    stats.log_bytes = log_->bytes_written();
    stats.durable_lsn = log_->durable_lsn();
    stats.log_segments = log_->segment_count();
    stats.log_segments_grown = log_->segments_grown();
    stats.checkpoint_trigger_bytes = log_->checkpoint_trigger_bytes();
    log_->batch_times(&stats.log_batch_times, &stats.log_batch_times_checkpoint);
  }
  stats.recovery_ns = recovery_ns_;
  stats.recovered_checkpoint_bytes = recovered_checkpoint_bytes_;
  stats.recovery_checkpoint_ns = recovery_checkpoint_ns_;
  stats.replayed_rounds = replayed_rounds_;
  stats.replayed_log_bytes = replayed_log_bytes_;
  for (size_t bucket = 0; bucket < RoundTimes::kBuckets; ++bucket) {
    stats.round_times.counts[bucket] = round_counts_[0][bucket].load(relaxed);
    stats.round_times_checkpoint.counts[bucket] = round_counts_[1][bucket].load(relaxed);
  }
  if (checkpointer_ != nullptr) {
    stats.checkpoints = checkpointer_->completed();
    stats.checkpoint_lsn = checkpointer_->last_lsn();
    stats.checkpoint_ns = checkpointer_->total_ns();
    stats.checkpoint_max_ns = checkpointer_->max_ns();
    stats.checkpoint_sync_ns = checkpointer_->sync_ns();
    stats.checkpoint_writeback_wait_ns = checkpointer_->writeback_wait_ns();
  }
  stats.owner_sleeps = shared_stats_.owner_sleeps.load(relaxed);
  stats.round_wakes = signal_.round_wakes();
  stats.caller_wakes = signal_.caller_wakes();
  stats.caller_sleeps = signal_.caller_sleeps();
  stats.caller_naps = signal_.caller_naps();
  timespec owner_cpu;
  if (owner_running_.load(std::memory_order_acquire) &&
      clock_gettime(owner_clock_, &owner_cpu) == 0) {
    stats.owner_cpu_ns = static_cast<uint64_t>(owner_cpu.tv_sec) * 1000000000 +
                         static_cast<uint64_t>(owner_cpu.tv_nsec);
  }
  stats.live_snapshots = registry_.held();
  return stats;
}

}  // namespace solo::internal
