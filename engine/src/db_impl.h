// The database's implementation: the owner thread, its rounds, the working
// trees, publication and reclamation. See engine/README.md for the
// invariants referred to as (n).
#pragma once

#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fatal_error.h"
#include "log_format.h"
#include "object_pool.h"
#include "root_set.h"
#include "round_signal.h"
#include "row_patch.h"
#include "snapshot_registry.h"
#include "solo/database.h"
#include "tree.h"
#include "undo_log.h"

namespace solo::internal {

// The lock file in a database directory, held while it is open.
inline constexpr char kLockFileName[] = "LOCK";

// One db.write() call, on the caller's stack until `done` is set.
struct WriteRequest {
  FunctionRef<Status(WriteTxn&)>* fn = nullptr;  // nullptr: the stop request of close()
  bool log_notice = false;  // not a caller: the log writer or checkpointer woke the owner
  Status result;
  WriteRequest* next = nullptr;
  std::atomic<uint32_t> round{0};  // the round that runs it, stamped by the owner
  std::atomic<uint32_t> done{0};
  // When the owner answered it (steady_clock ns), written before `done`.
  uint64_t answered_ns = 0;
};

// A write of Database::submit(): the request and the function it runs,
// kept by the caller's PendingWrite across submissions.
struct AsyncWrite {
  explicit AsyncWrite(FunctionRef<Status(WriteTxn&)> first) : fn(first) {}
  WriteRequest request;
  FunctionRef<Status(WriteTxn&)> fn;
};

class LogWriter;
class Checkpointer;

class DbImpl {
 public:
  explicit DbImpl(const Options& options);
  ~DbImpl();
  DbImpl(const DbImpl&) = delete;
  DbImpl& operator=(const DbImpl&) = delete;

  // --- any thread ---------------------------------------------------------
  void start();
  // After start(), with options.dir set: recovers the directory (checkpoint +
  // log replay through write()), then starts the log writer and the
  // checkpointer and switches the owner to logging. Any thread but the owner.
  Status open_durable();
  Status write(FunctionRef<Status(WriteTxn&)> fn);
  // Database::submit and finish: write() in two halves.
  Status submit(AsyncWrite* write);
  Status finish(AsyncWrite* write);
  // Database::close: stops the owner and the helpers; the failure of the
  // checkpoint at close, if any (the first call's, for every call).
  Status close();
  // Writes a checkpoint of the newest published state now (NotSupported-like
  // InvalidArgument in memory). Any thread.
  Status checkpoint();
  // Wakes the owner to look at the log's progress (log writer, checkpointer).
  void wake_owner();
  const RootSet* acquire(uint32_t* slot) { return registry_.acquire(published_, slot); }
  void release(uint32_t slot) { registry_.release(slot); }
  // The holder of `slot` will not read `tree` again (SnapshotRegistry::release_tree).
  void release_tree(uint32_t slot, TreeId tree) { registry_.release_tree(slot, tree); }
  Stats stats() const;
  const Options& options() const { return options_; }
  bool on_owner_thread() const { return std::this_thread::get_id() == owner_id_; }
  uint32_t snapshots_held() const { return registry_.held(); }

  // --- owner thread only (used by WriteTxn) -------------------------------
  // Tree changes that are logged for undo and bump changes_.
  // `not_found`: the path a btree_descend() of the tree for `key` left when
  // it did not find it (nothing changed the tree since), so that the insert
  // does not descend again; nullptr: descend (and refuse a present key).
  bool tree_insert(TreeId tree, std::string_view key, void* value,
                   TreePath* not_found = nullptr);
  void* tree_replace(TreeId tree, std::string_view key, void* value);
  void* tree_remove(TreeId tree, std::string_view key);
  // The same for an entry found by btree_descend(*path) (no change since).
  void* tree_replace_at(TreeId tree, std::string_view key, TreePath* path, void* value);
  // The same for a row of table `schema` that keeps its key: logged as a
  // column patch (kPatch) of the columns `changed` if given (the caller's
  // promise that no other column differs), else of those that differ from
  // the row it replaces; as the whole row where that is not shorter.
  // `spans` (patch_row_spans): where the changed columns are in the new
  // row, so that the patch is written without a pass over the row.
  void* tree_patch_at(TreeId tree, std::string_view key, TreePath* path, void* value,
                      const TableSchema& schema, std::span<const uint32_t> changed = {},
                      std::span<const PatchedColumn> spans = {});
  void* tree_remove_at(TreeId tree, std::string_view key, TreePath* path);
  // Sets tree `tree`, which must be empty, to `built` (a BulkBuilder's tree
  // made in this generation); undone by emptying it again (its records are
  // freed as created_). Not logged: for recovery only, before logging starts.
  void tree_load(TreeId tree, const TreeState& built);
  // A new record holding `row`, made in the current generation.
  Record* make_record(std::string_view row);
  // A new record of `size` bytes (<= kMaxRowBytes), made in the current
  // generation, whose bytes the caller writes before it goes into a tree
  // (which must be in this transaction: like make_record's, it is freed by
  // a rollback and kept by a commit).
  Record* new_record(uint32_t size);
  // `record` left the tree in this transaction; it is released at commit.
  void displace(Record* record, TreeId tree) { displaced_.push_back({record, tree}); }
  // The node writer, labelled with the tree about to be changed.
  TreeWriter* writer_for(TreeId tree) {
    writer_.set_tree(tree);
    return &writer_;
  }
  void set_catalog(std::unique_ptr<Catalog> catalog);
  void add_tree(const TreeState& tree);
  void undo_transaction();
  // How far the running transaction has come: undo_to(mark) undoes the
  // changes made since mark() (a cancelled DDL call's) and keeps the
  // earlier ones, in the trees, the records and the log alike.
  struct TxnMark {
    size_t undo_entries = 0;
    size_t created = 0;
    size_t displaced = 0;
    size_t log_bytes = 0;
    uint64_t log_saved_bytes = 0;
  };
  TxnMark mark() const {
    return TxnMark{undo_.size(), created_.size(), displaced_.size(), log_buffer_.size(),
                   log_saved_bytes_};
  }
  void undo_to(const TxnMark& mark);
  // Redo records of the running transaction (engine/README.md "Log"): only
  // when logging (a directory is open); a rollback truncates them away.
  bool logging() const { return logging_; }
  void log_ddl(LogEntry type, TreeId id, const TableSchema* table, const IndexSchema* index);
  // Recovery: the state being built includes rounds up to `lsn`.
  void note_replayed_lsn(uint64_t lsn) { last_lsn_ = lsn; }

  // Owner-thread state. Trees of the newest, unpublished state.
  std::vector<TreeState> trees_;
  const Catalog* catalog_ = nullptr;
  uint64_t cur_gen_ = 1;  // the generation being built (never published yet)
  uint64_t changes_ = 0;  // bumped on every tree change (cursor re-seek)
  // WriteTxn::get_for_update's descent, reused by the update_columns() or
  // erase() of the same row while nothing changed in between: the same
  // transaction (txn_serial_) and no tree change since (changes_).
  struct Finger {
    uint64_t txn = 0;  // 0: none
    uint64_t changes = 0;
    TreeId tree = 0;
    std::string key;
    TreePath path;
  };
  Finger finger_;
  // The path of the row changed last in place (patch_columns,
  // update_columns): the next change of a row in the same leaf, in the same
  // transaction with no tree change in between (a scan UPDATE's rows, one
  // after another), finds it in that leaf without a descent.
  struct LeafFinger {
    uint64_t txn = 0;  // 0: none
    uint64_t changes = 0;
    TreeId tree = 0;
    TreePath path;
  };
  LeafFinger leaf_finger_;
  void set_leaf_finger(TreeId tree, const TreePath& path) {
    leaf_finger_.txn = txn_serial_;
    leaf_finger_.changes = changes_;
    leaf_finger_.tree = tree;
    if (&path == &leaf_finger_.path) return;
    leaf_finger_.path.depth = path.depth;
    for (int level = 0; level < path.depth; ++level) {
      leaf_finger_.path.node[level] = path.node[level];
      leaf_finger_.path.idx[level] = path.idx[level];
    }
  }
  uint64_t txn_serial_ = 0;  // bumped by each run_transaction
  ObjectPool pool_;
  TreeWriter writer_;
  // Scratch buffers reused by WriteTxn (no allocation per statement).
  std::string row_buffer_;
  std::vector<PatchedColumn> patch_spans_;
  std::string key_buffer_;
  std::vector<std::string> old_index_keys_;
  std::vector<std::string> new_index_keys_;
  std::vector<uint32_t> index_part_sizes_;
  std::vector<uint8_t> index_has_null_;

  // For tests, on the owner thread: called at each look of a DDL call's
  // loop at its cancel flag, just before the flag is read (a test sets the
  // flag here to cancel the call at a known point).
  std::function<void()> ddl_cancel_check_for_test;
  // For tests: the published RootSet (only stable while nothing is written).
  const RootSet* published_for_test() const { return published_.load(); }
  // For tests, on the owner thread (inside a write): the requests queued
  // for the next round (only the owner takes them off the queue).
  size_t queued_for_test() const {
    size_t count = 0;
    for (const WriteRequest* request = queue_head_.load(std::memory_order_seq_cst);
         request != nullptr; request = request->next) {
      count++;
    }
    return count;
  }

 private:
  void owner_main();
  void run_round(WriteRequest* batch, uint32_t requests, uint64_t start_ns);
  Status run_transaction(FunctionRef<Status(WriteTxn&)>& fn);
  void commit_transaction();
  void publish();
  RootSet* seal();
  void publish_roots(RootSet* roots);
  void answer(WriteRequest* batch);
  void finish_round_durable(WriteRequest* batch);
  void drain_pending();
  void log_put(TreeId tree, std::string_view key, const void* record);
  void log_patch(TreeId tree, std::string_view key, const void* old_record, const void* record,
                 const TableSchema& schema, std::span<const uint32_t> changed,
                 std::span<const PatchedColumn> spans);
  void log_delete(TreeId tree, std::string_view key);
  void reclaim();
  void push(WriteRequest* request);
  void wait(WriteRequest* request);
  void store_stats();
  void note_round_time(uint64_t ns, bool checkpoint_running);

  // Immutable after construction.
  const Options options_;
  std::thread owner_;
  std::thread::id owner_id_;
  clockid_t owner_clock_{};  // the owner thread's CPU clock (for stats())

  // Owner thread only.
  std::vector<std::unique_ptr<Catalog>> catalogs_;  // every version, kept until close
  UndoLog undo_;
  std::vector<Record*> created_;    // records made by the running transaction
  std::vector<std::pair<Record*, TreeId>> displaced_;  // records it took out of the tree
  bool round_dirty_ = false;        // a committed change awaits publication
  bool stop_seen_ = false;
  uint64_t published_gen_ = 0;
  size_t pending_after_reclaim_ = 0;
  std::vector<Pin> pinned_;  // scratch for reclaim()
  uint64_t rounds_ = 0;
  uint64_t commits_ = 0;
  uint64_t rollbacks_ = 0;
  uint64_t record_bytes_ = 0;
  uint64_t busy_ns_ = 0;
  uint64_t idle_ns_ = 0;
  // Durability, owner thread only. The round's frame is built in log_buffer_
  // (header reserved at its start, capacity reused round after round).
  bool logging_ = false;
  std::string log_buffer_;
  size_t txn_log_mark_ = 0;  // log_buffer_ size when the running transaction began
  // Bytes the round's patches saved against whole rows (kPut): the log
  // writer counts them towards the checkpoint trigger, so that a checkpoint
  // still comes after as much replay work as with whole rows.
  uint64_t log_saved_bytes_ = 0;
  uint64_t txn_log_saved_mark_ = 0;
  uint64_t last_lsn_ = 0;    // LSN of the newest sealed round
  // Sealed rounds waiting for their LSN to be durable, oldest first.
  struct PendingRound {
    uint64_t lsn;          // answered once durable_lsn >= lsn
    RootSet* roots;        // published then; nullptr: nothing to publish
    WriteRequest* batch;   // the callers to answer
    uint32_t round;        // its RoundSignal number (the bit its callers sleep on)
  };
  std::deque<PendingRound> pending_;

  // Durability objects: made by open_durable(), stopped by close().
  FileSystem* fs_ = nullptr;
  std::unique_ptr<FileLock> dir_lock_;  // DIR/LOCK: one process per directory
  FatalError fatal_;
  std::unique_ptr<LogWriter> log_;
  std::unique_ptr<Checkpointer> checkpointer_;
  WriteRequest notice_;
  std::atomic<bool> notice_queued_{false};

  // Shared.
  std::atomic<const RootSet*> published_{nullptr};
  SnapshotRegistry registry_;
  std::atomic<WriteRequest*> queue_head_{nullptr};
  RoundSignal signal_;
  std::atomic<bool> stopping_{false};
  // owner_clock_ is set (for stats(); after the owner exits, reading its
  // clock fails and stats() reports 0).
  std::atomic<bool> owner_running_{false};
  std::atomic<int64_t> active_writers_{0};
  std::mutex close_mutex_;
  bool closed_ = false;  // guarded by close_mutex_
  Status close_status_;  // guarded by close_mutex_: what close() returns
  struct SharedStats {
    std::atomic<uint64_t> generation{0}, rounds{0}, commits{0}, rollbacks{0}, state_bytes{0},
        node_bytes{0}, record_bytes{0}, arena_bytes{0}, retired_pending{0}, reused{0}, fresh{0},
        arenas_prefaulted{0}, arenas_made{0}, busy_ns{0}, idle_ns{0}, owner_sleeps{0};
  };
  SharedStats shared_stats_;
  // Round durations ([0]: no checkpoint running, [1]: one was), written by
  // the owner only (a relaxed load and store: no locked instruction),
  // read by stats().
  std::array<std::array<std::atomic<uint64_t>, RoundTimes::kBuckets>, 2> round_counts_{};
  // Set by open_durable() before any reader can see the Database.
  uint64_t recovery_ns_ = 0;
  uint64_t recovered_checkpoint_bytes_ = 0;
  uint64_t recovery_checkpoint_ns_ = 0;
  uint64_t replayed_rounds_ = 0;
  uint64_t replayed_log_bytes_ = 0;
};

}  // namespace solo::internal
