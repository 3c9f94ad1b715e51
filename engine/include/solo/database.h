// The database: one owner thread that runs write transactions in rounds, and
// snapshots that any thread may read. See engine/README.md for the invariants.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "solo/file_system.h"
#include "solo/function_ref.h"
#include "solo/status.h"
#include "solo/txn.h"

namespace solo {

namespace internal {
struct RootSet;
class DbImpl;
struct AsyncWrite;
}  // namespace internal

// How far open()'s recovery has got (Options::recovery_progress): first the
// newest checkpoint is loaded, then the log after it replayed.
struct RecoveryProgress {
  enum class Phase : uint8_t { kCheckpoint, kLog };
  Phase phase = Phase::kCheckpoint;
  uint64_t done_bytes = 0;   // of the checkpoint file read; of the log's rounds read
  uint64_t total_bytes = 0;  // the checkpoint file's size; the log: 0 (not known ahead)
  uint64_t rounds = 0;       // kLog: rounds read so far
  bool finished = false;     // the phase's last call: all of it read and applied
};

// "checkpoint 1.2 of 2.6 GB (46%)", "log 310 MB, 12345 rounds": the figures
// of `progress` for a progress line.
std::string recovery_progress_text(const RecoveryProgress& progress);

// An Options::recovery_progress that shows it on stderr as "solo: recovering
// DIR: <text>" and at the end "solo: recovered DIR: <text>": on a terminal one
// line rewritten in place, elsewhere a line per call; nothing for an open
// whose phases all end before their first interval (tpcc, the shell).
std::function<void(const RecoveryProgress&)> recovery_progress_on_stderr(std::string dir);

struct Options {
  // Reclaim at least this many retired nodes per round (more if the round
  // retired more), so that a round never pays for a long backlog at once.
  size_t reclaim_batch = 1024;
  // Run a full structural check of every tree after each round (O(size);
  // aborts on a broken invariant). For tests.
  bool check_invariants = false;
  // Test switches. false: retired nodes are never reused (kept until close).
  bool reuse_retired = true;
  // true: reclaim as if no snapshot were held. Unsafe; only to show that the
  // tests notice.
  bool unsafe_ignore_held_snapshots = false;

  // Durability (engine/README.md "Durability"). Empty: the database lives in
  // memory only and does no logging work at all. Otherwise the directory
  // (created if missing) that holds the log and the checkpoints: open()
  // recovers what it holds, and a write is answered only once its round's
  // log record is durable.
  std::string dir;
  // The file system used for `dir`; nullptr: posix_file_system(). Must
  // outlive the Database (tests pass a fault-injecting one).
  FileSystem* fs = nullptr;
  // Size of each preallocated log segment, and how many to preallocate at
  // least. The checkpointer preallocates more as the state grows (enough
  // for 1.5 checkpoint intervals of log, see engine/README.md
  // "Checkpoint trigger"); the ring also grows by a segment when
  // checkpoints lag behind.
  uint64_t log_segment_bytes = uint64_t{32} << 20;
  uint32_t log_segments = 4;
  // The checkpointer preallocates at most this much of the ring at a time
  // (more when the sync thread has used most of it), and never more than
  // half of the file system's free space at a time: a large checkpoint
  // interval does not write its whole ring of zeros at open, nor fill the
  // disk. Where the ring runs short, the sync thread grows it by a segment.
  uint64_t log_provision_step_bytes = uint64_t{1} << 30;
  // Start a checkpoint once the log written since the last one reaches
  // max(checkpoint_log_bytes, checkpoint_state_ratio x the size of the last
  // checkpoint file): the log to replay stays proportional to the state, so
  // recovery reads at most ~(1 + ratio) x the state, and checkpoints write
  // 1 / ratio bytes per byte of log. checkpoint_log_bytes = 0: only
  // Database::checkpoint(); ratio 0: a fixed interval of checkpoint_log_bytes.
  uint64_t checkpoint_log_bytes = uint64_t{64} << 20;
  double checkpoint_state_ratio = 1.0;
  // close() first writes a checkpoint when at least this much log was
  // written since the newest one (as PostgreSQL's shutdown checkpoint), so
  // the next open loads one file instead of replaying that log (replay is
  // ~7x slower per byte than loading: engine/README.md "Checkpoint at
  // close"). It runs on the closing thread at its priority. 0: never.
  uint64_t checkpoint_at_close_bytes = uint64_t{32} << 20;
  // Nice value of the checkpointer thread (0: the process's). Encoding a
  // snapshot is CPU-bound for seconds; on a machine with few cores a
  // checkpointer at the owner's priority takes the owner's core and its
  // rounds take longer. Raising the nice value needs no privilege.
  int checkpoint_nice = 10;
  // Whether the checkpointer thread runs in Linux's SCHED_IDLE class (where
  // the class cannot be set, checkpoint_nice applies). An idle-class thread
  // gets a core only when no other thread wants it, and a waking thread of
  // the normal class takes the core from it at once; at nice 10 the owner
  // and the threads it waits for (the log writer, the terminals' driver)
  // still lost up to a scheduler slice (~3 ms) to it now and then. Idle
  // threads still get a sliver of a saturated machine, so a checkpoint ends
  // there too, later (and the log grows past its trigger meanwhile).
  bool checkpoint_sched_idle = true;
  // Arenas (2 MiB each) that a helper thread keeps allocated and touched
  // ahead of the owner's need, so that the owner does not wait for the
  // kernel to zero fresh pages (~10 us per 4 KiB page here) in the middle
  // of a round. 0: no helper thread; the owner touches its own fresh memory.
  // Two keep the owner fed: at TPC-C W=1 it takes a fresh arena every
  // ~30-70 ms (most objects are recycled ones) and the helper makes one in
  // ~1-5 ms; each ready arena is 2 MiB of resident memory holding no state.
  int prefault_arenas = 2;
  // Whether that helper runs in Linux's SCHED_IDLE class (else at nice 10),
  // as the checkpointer does (checkpoint_sched_idle). At the normal class
  // each of its wake-ups could take a core from the owner for the 1-5 ms
  // an arena takes: at TPC-C W=1 T=64 on 2 cores the owner waited for a
  // core 94-127 ms of every 8 s, 36-56 ms with the helper idle, and the
  // New-Order p99 fell from 4.5-4.7 to 2.8-3.6 ms (session 17). Where the
  // cores are saturated the owner makes its own arenas (Stats).
  bool prefault_sched_idle = true;
  // The checkpointer's large files (checkpoints, preallocated log segments)
  // are written back to the device in chunks of this many bytes as they are
  // written, at most two chunks in flight (sync_file_range), instead of in
  // one burst at their fdatasync: a burst of a whole checkpoint queues the
  // log's fdatasync, and so every commit, behind it. 0: one burst. The
  // checkpoint writer and the log's segment preallocation write 1 MiB at a
  // time, so a smaller chunk acts as 1 MiB. 1 MiB rather than 4 (session
  // 15, results/ab-s15): log syncs during a checkpoint p99 ~7 ms instead of
  // 11-15 ms.
  uint64_t checkpoint_writeback_bytes = uint64_t{1} << 20;
  // A checkpoint overwrites the file of the one before the last
  // (checkpoint.spare, cut to its new length) instead of creating a new
  // file while the old one is deleted: the file system neither allocates
  // nor frees ~S bytes per checkpoint (on tmpfs ~80% of the checkpointer's
  // CPU time was the kernel allocating and freeing pages; on a disk it is
  // block allocation, and a discard of the freed blocks where mounted with
  // it). Costs one checkpoint's size of disk space between checkpoints.
  bool checkpoint_reuse_file = true;
  // Who writes the log: the owner itself, at the end of each round, or the
  // log writer thread, while the owner runs the next round. kAuto: the
  // owner where syncs cost nothing (FileSystem::syncs_are_free: tmpfs),
  // where handing a round to another thread (a futex wake-up, ~5% of the
  // owner's time here) costs more than writing it; the thread elsewhere,
  // where an fdatasync takes hundreds of microseconds.
  enum class LogOnOwner : uint8_t { kAuto, kAlways, kNever };
  LogOnOwner log_on_owner = LogOnOwner::kAuto;
  // How a thread that waits for its write's answer (write(), finish())
  // waits while it has a spare core to itself: kNap sleeps in nanosleep
  // until shortly before the owner's estimate of when its round is answered
  // (then in 20 us naps), so that the owner needs no futex wake-up for it
  // (~20 us of the owner's time per round on this VM); kFutex spins
  // briefly and then sleeps until the owner wakes it. kAuto: naps where the
  // owner answers a round as soon as it has run it (in memory, or the log
  // written by the owner), the futex where answers wait for an fdatasync.
  // A napping thread's timer slack is set to 1 ns (PR_SET_TIMERSLACK).
  // engine/README.md "Rounds".
  enum class AnswerWait : uint8_t { kAuto, kNap, kFutex };
  AnswerWait answer_wait = AnswerWait::kAuto;
  // Told how open()'s recovery goes, for a progress line on a database
  // that takes seconds to open (~1 s per GB of checkpoint here): about every
  // recovery_progress_ms while a phase runs (0: after every block read),
  // and once when it ends (finished), for a phase with something to read.
  // Called on the thread that reads the files, not the one in open(); it
  // must not block long or call into the Database. Empty: not told.
  std::function<void(const RecoveryProgress&)> recovery_progress;
  uint32_t recovery_progress_ms = 500;
};

// How long the owner's rounds took, from taking the batch to sealing it
// (running the transactions, handing the frame to the log writer, reclaim;
// not the wait for the fdatasync): a log-linear histogram with 8 buckets per
// power of two, so a quantile is within ~6% of the true value. Stats also
// uses it for the log writer's batch durations.
struct RoundTimes {
  static constexpr size_t kBuckets = 496;  // covers every uint64_t
  std::array<uint64_t, kBuckets> counts{};

  // The bucket that holds `ns`, and the smallest value it holds.
  static size_t bucket_of(uint64_t ns);
  static uint64_t bucket_low(size_t bucket);
  uint64_t count() const;
  // The q-quantile (0 < q <= 1) in ns: the middle of the bucket that holds
  // the ceil(q x count)-th smallest duration; 0 if there are none.
  uint64_t quantile_ns(double q) const;
  // These counts minus `earlier`'s (the rounds of a measured window).
  RoundTimes since(const RoundTimes& earlier) const;
};

// Counters, read with relaxed atomics: each is exact, the set is not one instant.
struct Stats {
  uint64_t generation = 0;         // of the newest published snapshot
  uint64_t rounds = 0;             // rounds run by the owner
  uint64_t commits = 0;            // committed write transactions
  uint64_t rollbacks = 0;          // undone write transactions
  uint64_t state_bytes = 0;        // encoded keys + rows, newest snapshot
  uint64_t node_bytes = 0;         // tree nodes in use by the newest state
  uint64_t record_bytes = 0;       // row records (with headers) in use
  uint64_t arena_bytes = 0;        // memory taken from the system for nodes/records
  uint64_t retired_pending = 0;    // retired objects not yet reclaimed
  uint64_t reused_objects = 0;     // allocations served from spare arrays
  uint64_t fresh_objects = 0;      // allocations served from fresh memory
  uint64_t arenas_prefaulted = 0;  // arenas the prefaulting thread had ready (Options::prefault_arenas)
  uint64_t arenas_made_by_owner = 0;  // arenas the owner had to make and touch itself
  uint64_t owner_busy_ns = 0;      // owner time spent running rounds
  uint64_t owner_idle_ns = 0;      // owner time spent waiting for requests
  // Durability (0 in memory).
  uint64_t log_syncs = 0;          // fdatasync calls on log segments
  bool log_on_owner = false;       // the owner writes the log (Options::log_on_owner)
  uint64_t log_bytes = 0;          // bytes written to log segments
  uint64_t durable_lsn = 0;        // newest durable log round
  uint64_t checkpoints = 0;        // checkpoints completed since open
  uint64_t checkpoint_lsn = 0;     // newest checkpoint's last round
  uint32_t log_segments = 0;       // segment files in the ring
  uint32_t log_segments_grown = 0; // of those, made by the sync thread while commits waited
  uint64_t checkpoint_trigger_bytes = 0;  // log after which the next checkpoint starts
  // Wall time of the completed checkpoints (snapshot taken to directory
  // synced), summed, and the longest; of the sum, the time spent waiting in
  // fdatasync of the checkpoint file and, before it, for chunks to be
  // written back (Options::checkpoint_writeback_bytes).
  uint64_t checkpoint_ns = 0;
  uint64_t checkpoint_max_ns = 0;
  uint64_t checkpoint_sync_ns = 0;
  uint64_t checkpoint_writeback_wait_ns = 0;
  // Recovery done by open(): its wall time, the checkpoint it loaded and
  // the log it replayed after it.
  uint64_t recovery_ns = 0;
  uint64_t recovery_checkpoint_ns = 0;  // of recovery_ns: loading the checkpoint (the rest: the log)
  uint64_t recovered_checkpoint_bytes = 0;
  uint64_t replayed_rounds = 0;
  uint64_t replayed_log_bytes = 0;   // frame payloads
  // Round durations (owner thread), split by whether a checkpoint was being
  // written when the round began or ended. In memory all go to the first.
  RoundTimes round_times;
  RoundTimes round_times_checkpoint;
  // The sync thread's batches (its writes and fdatasync of one batch of
  // rounds), split the same way: what a commit waits for on the device.
  RoundTimes log_batch_times;
  RoundTimes log_batch_times_checkpoint;
  // Futex system calls of the round protocol (engine/README.md "Rounds"):
  uint64_t round_wakes = 0;        // owner FUTEX_WAKE calls answering rounds (one thread each)
  uint64_t caller_wakes = 0;       // FUTEX_WAKE calls of callers waking the rest of a round
  uint64_t caller_sleeps = 0;      // write() callers that slept for their answer
  uint64_t caller_naps = 0;        // their nanosleeps (Options::answer_wait)
  uint64_t owner_sleeps = 0;       // times the idle owner slept (after spinning)
  // CPU time of the owner thread (user + system, without the time other
  // threads held its core: owner_busy_ns is wall time and counts that).
  uint64_t owner_cpu_ns = 0;
  uint64_t live_snapshots = 0;     // Snapshot handles taken and not yet released (any thread)
  // busy / (busy + idle), 0 if nothing was measured.
  double owner_utilization() const;
};

// A handle on one published snapshot: it keeps every node it can reach from
// being reused. Any thread may take, read (through ReadTxn), move and release
// it; it must be released before its Database is destroyed.
class Snapshot {
 public:
  Snapshot() = default;
  Snapshot(Snapshot&& other) noexcept;
  Snapshot& operator=(Snapshot&& other) noexcept;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  ~Snapshot() { release(); }

  bool valid() const { return roots_ != nullptr; }
  uint64_t generation() const;
  // Lets the owner reuse what only this snapshot could reach. Idempotent.
  void release();

 private:
  friend class Database;
  friend class ReadTxn;
  internal::DbImpl* db_ = nullptr;
  const internal::RootSet* roots_ = nullptr;
  uint32_t slot_ = 0;
};

// A write queued by Database::submit(), for a thread that keeps many writes
// in flight (a driver of many terminals) instead of one thread blocked in
// write() per write. Reusable once finished; not movable. Destroying one in
// flight waits for its answer first (so its Database must still be open or
// closed, not destroyed).
class PendingWrite {
 public:
  PendingWrite();
  ~PendingWrite();
  PendingWrite(const PendingWrite&) = delete;
  PendingWrite& operator=(const PendingWrite&) = delete;

  // Submitted and not yet collected by Database::finish().
  bool in_flight() const { return in_flight_; }
  // Answered: finish() returns at once. Any thread.
  bool done() const;
  // After finish(): when the owner answered the write, in nanoseconds of
  // std::chrono::steady_clock (0 if never answered). A caller that collects
  // answers later than they come (one thread driving many writes) can tell
  // the engine's response time from its own delay.
  uint64_t answered_ns() const;

 private:
  friend class Database;
  std::unique_ptr<internal::AsyncWrite> write_;  // made by the first submit
  internal::DbImpl* db_ = nullptr;               // of the last submit
  bool in_flight_ = false;
};

class Database {
 public:
  // Opens a database and starts its owner thread. Without options.dir: an
  // empty in-memory database. With it: recovers the newest complete
  // checkpoint and the intact log after it; a directory without the
  // database's marker (solo.db: a new database, or one of a build before
  // it) gets one. Corruption (naming the file and offset) if a checkpoint,
  // the log or the marker is damaged anywhere but at the log's tail, if a
  // file is another database's, and if the log segments are gone (a
  // checkpoint or the marker without them; nothing is written then);
  // IOError if a file operation fails. Any thread.
  static Result<std::unique_ptr<Database>> open(const Options& options);

  // Closes (see close()), ignoring its Status: call close() first to learn
  // whether the checkpoint at close was written. All snapshots must have
  // been released.
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs fn(WriteTxn&) -> Status on the owner thread, serially with every
  // other write, and returns once the round that contains it is published
  // (its effects are then visible to every later read).
  // Returns fn's Status if it failed (the transaction is undone), Aborted if
  // fn called rollback() or threw, Shutdown after close(), InvalidArgument if
  // called from the owner thread itself. With a directory, OK means durable;
  // after a failed log or checkpoint write every write returns that IOError
  // (invariant 7: reopen to recover). Any thread but the owner.
  template <class F>
  Status write(F&& fn) {
    return write_ref(FunctionRef<Status(WriteTxn&)>(fn));
  }

  // Queues fn like write() and returns at once: fn runs on the owner in a
  // later round, with the same guarantees. The caller keeps `pending` and
  // the callable `fn` refers to alive until finish(pending) has returned.
  // Writes are answered in the order they were submitted (a later submit
  // never runs in an earlier round). InvalidArgument if `pending` is in
  // flight or on the owner thread, Shutdown after close() (nothing is
  // queued then). Any thread.
  Status submit(PendingWrite& pending, FunctionRef<Status(WriteTxn&)> fn);
  // Waits until `pending` is answered (as write() waits) and returns what
  // write() would have returned; `pending` may then be submitted again.
  // InvalidArgument if it is not in flight. Any thread but the owner.
  Status finish(PendingWrite& pending);

  // Runs fn(ReadTxn&) -> Status on the calling thread against the newest
  // published snapshot and returns its Status (Aborted if it threw).
  // Any thread; never waits for the owner.
  template <class F>
  Status read(F&& fn) const {
    return read_ref(FunctionRef<Status(ReadTxn&)>(fn));
  }

  // The newest published snapshot. Any thread.
  Snapshot snapshot() const;

  Stats stats() const;
  const Options& options() const;

  // Writes a checkpoint of the newest published state and returns once it is
  // durable (older log segments become reusable). InvalidArgument in memory;
  // IOError (fatal) if writing it fails. Any thread but the owner.
  Status checkpoint();

  // Lets the queued writes finish, stops the owner and refuses later writes
  // with Shutdown; with a directory, first writes the checkpoint at close
  // (Options::checkpoint_at_close_bytes). Returns OK, or IOError (naming
  // the file and the error, e.g. ENOSPC or "File too large") if that
  // checkpoint failed: its partly written .tmp file is removed, nothing
  // committed is lost (the next open replays the log instead) and the
  // database is closed all the same. After an earlier fatal failure (a log
  // or checkpoint write, which the writes then returned), IOError "closed
  // after an earlier failure: ..." with that failure's message. Idempotent:
  // a later call returns the first one's Status. Any thread but the owner.
  Status close();

  // What a file name in a database directory is to the engine. It writes
  // only these names there; any other file (even "wal-e.conf" or
  // "checkpoint-notes.txt") is the user's and left alone.
  enum class FileKind {
    kOther,     // not the engine's
    kContents,  // a log segment or a complete checkpoint: what recovery reads
    kScratch,   // a checkpoint or marker being written (.tmp), or the spare: recovery ignores it
    kLock,      // "LOCK", held while the database is open
    kMarker,    // "solo.db": says the directory holds a database, and which (written when
                // it is created, and again once its first round is durable, to say it has
                // logged; engine/README.md "Database marker"). A tool that
                // removes a database removes it last: a directory that holds it and
                // lacks the log is refused at open, never taken for a new database.
  };
  static FileKind file_kind(std::string_view name);

  // For tests in tests/engine: the implementation.
  internal::DbImpl* impl() const { return impl_.get(); }

 private:
  explicit Database(std::unique_ptr<internal::DbImpl> impl);
  Status write_ref(FunctionRef<Status(WriteTxn&)> fn);
  Status read_ref(FunctionRef<Status(ReadTxn&)> fn) const;

  std::unique_ptr<internal::DbImpl> impl_;
};

}  // namespace solo
