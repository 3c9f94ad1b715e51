// The log writer: a sync thread that writes the owner's sealed rounds into the
// segment ring, one write and one fdatasync per batch of rounds, and reports
// the durable LSN (engine/README.md "Durability", invariants 4 and 7).
//
// Threads: submit() is called by the owner; checkpointed() and provision()
// by the checkpointer; durable_lsn() and the counters by anyone; everything
// else before start() or after stop().
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fatal_error.h"
#include "solo/database.h"
#include "solo/file_system.h"

namespace solo::internal {

// One segment file of the ring.
struct LogSegment {
  uint32_t slot = 0;        // wal-<slot>.log
  uint64_t bytes = 0;       // preallocated size
  uint64_t seq = 0;         // incarnation (0: header not valid: free)
  uint64_t first_lsn = 0;   // LSN of its first frame
};

// Where recovery left the log.
struct LogState {
  uint64_t db_id = 0;                // the database's id (database_id.h), in each segment's header
  std::vector<LogSegment> segments;  // every segment file
  std::vector<uint32_t> chain;       // indexes into segments: those holding records past the
                                     // checkpoint, in log order (the last one was written last)
  uint64_t tail_offset = 0;          // where the frames of the chain's last segment end
  uint64_t next_lsn = 1;             // LSN of the next round to log
  uint64_t next_seq = 1;             // seq of the next segment to start
  uint64_t checkpoint_lsn = 0;       // rounds up to this are in a complete checkpoint
  uint64_t checkpoint_bytes = 0;     // size of that checkpoint's file (0: none)
  // What recovery replayed from the log (for Stats).
  uint64_t replayed_rounds = 0;
  uint64_t replayed_bytes = 0;       // frame payload bytes
  uint64_t replayed_saved_bytes = 0;  // what their column patches saved against whole rows
  uint64_t checkpoint_load_ns = 0;    // wall time of loading the checkpoint (the rest: the log)
  // A segment was started or a checkpoint is there: the database has logged
  // rounds (its marker should say so, kMarkerLogged).
  bool logged = false;
};

class LogWriter {
 public:
  // on_progress: called on the sync thread after each batch (durable or failed).
  // want_checkpoint: called on the sync thread when the log has grown by
  // checkpoint_trigger_bytes() since the last request. checkpoint_running:
  // called on the sync thread after each batch, to file its duration.
  LogWriter(FileSystem* fs, std::string dir, const Options& options, FatalError* fatal,
            std::function<void()> on_progress, std::function<void()> want_checkpoint,
            std::function<bool()> checkpoint_running, std::function<void()> want_provision);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Takes over the ring recovery found and preallocates segments up to
  // options.log_segments (zeros, fdatasync, directory sync). Before start().
  Status open(LogState state);
  // Starts the sync thread, unless `on_owner`: then submit() writes and
  // syncs each round itself, on the owner thread, before it returns
  // (Options::log_on_owner), and the members the sync thread would own
  // are the owner's.
  void start(bool on_owner = false);
  bool on_owner() const { return on_owner_; }
  // Owner thread. Hands over `*frames` (whole frames, CRC fields not yet
  // filled) ending with round `last_lsn`; *frames is left empty (its buffer
  // is swapped with a spare one, so no allocation in the steady state).
  // saved_bytes: what the frames' column patches saved against whole rows;
  // counted towards the checkpoint trigger as if written.
  void submit(std::string* frames, uint64_t last_lsn, uint64_t saved_bytes = 0);
  // Before start(), for a database whose marker does not yet say it logged:
  // the first batch made durable rewrites the marker with kMarkerLogged
  // (database_marker.h) before its rounds count as durable, so that no
  // round is acknowledged while the marker would let an emptied log open
  // as an empty database. A failure is fatal, as a failed sync is.
  void mark_logged_at_first_round() { mark_logged_ = true; }
  // Every round <= this LSN is durable. Any thread.
  uint64_t durable_lsn() const { return durable_lsn_.load(std::memory_order_seq_cst); }
  // Checkpointer: rounds <= lsn are in a complete, durable checkpoint of
  // `bytes` bytes, so segments holding only such rounds may be reused, and
  // the next checkpoint is due after checkpoint_trigger_bytes() of log.
  void checkpointed(uint64_t lsn, uint64_t bytes) {
    checkpoint_bytes_.store(bytes, std::memory_order_relaxed);
    checkpoint_lsn_.store(lsn, std::memory_order_release);
  }
  // The log since the last checkpoint request after which the next one is
  // requested: max(checkpoint_log_bytes, checkpoint_state_ratio x the last
  // checkpoint's size); 0: never (checkpoint_log_bytes = 0). Any thread.
  uint64_t checkpoint_trigger_bytes() const;
  // Before start(): true (and the count restarts) when the log recovery
  // replayed already reaches the trigger, so a checkpoint is due at once.
  bool take_due_checkpoint() {
    const uint64_t trigger = checkpoint_trigger_bytes();
    if (trigger == 0 || bytes_since_checkpoint_ < trigger) return false;
    bytes_since_checkpoint_ = 0;
    return true;
  }
  // The ring size that holds the log between two checkpoints without
  // growing: the trigger, half of it again for the log written while a
  // checkpoint is being written, and two segments for the partly covered
  // ones at both ends; at least options.log_segments segments. Any thread.
  uint64_t ring_target_bytes() const;
  // Checkpointer thread, after start(): preallocates segment files (zeros,
  // fdatasync, directory sync) until the ring holds ring_target_bytes(), so
  // that the sync thread does not have to grow it (a zero-filled segment
  // costs the sync thread a stall of ~32 MiB of writes). They join the ring
  // the next time the sync thread starts a segment. Returns early (OK) once
  // *stop is true; IOError if a file operation fails.
  // At most provision_step_bytes() and half the file system's free space
  // per call; the sync thread calls want_provision when the ring's free
  // segments fall below half a step and the ring is short of its target.
  Status provision(const std::atomic<bool>* stop);
  uint64_t provision_step_bytes() const;
  // Writes what was submitted, then stops the thread. Idempotent.
  void stop();

  uint64_t syncs() const { return syncs_.load(std::memory_order_relaxed); }
  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }
  // Segment files in the ring, and those provisioned but not yet taken in.
  uint32_t segment_count() const { return segment_count_.load(std::memory_order_relaxed); }
  // Of those, the segments the sync thread had to make itself, while
  // commits waited: the ring was full (checkpoints lagged) or a round was
  // larger than a segment.
  uint32_t segments_grown() const { return segments_grown_.load(std::memory_order_relaxed); }
  // Their bytes.
  uint64_t ring_bytes() const { return ring_bytes_.load(std::memory_order_relaxed); }
  // Durations of the batches so far (writes + fdatasync), split by whether
  // a checkpoint was being written when the batch ended. Any thread.
  void batch_times(RoundTimes* quiet, RoundTimes* checkpoint) const;

 private:
  struct Segment {
    LogSegment info;
    std::unique_ptr<File> file;
  };
  void thread_main();
  // One batch: write_frames, then the durable LSN (or the fatal error), the
  // batch time, the checkpoint trigger. Sync thread (or the owner, on_owner_).
  void write_batch(std::string* frames, uint64_t last_lsn, uint64_t saved_bytes);
  Status write_frames(std::string* frames);
  Status start_segment(uint64_t first_lsn, uint64_t min_bytes);
  Status create_segment(uint64_t bytes, size_t* index);
  // Any thread: a new zero-filled, synced segment file in the next free slot.
  Status make_segment_file(uint64_t bytes, Segment* segment);
  void adopt_spares();
  std::string path_of(uint32_t slot) const;
  // Writes and syncs the continuation frames (and stub headers) of the
  // segments started by this batch, once their successors' first writes
  // are synced (log_format.h).
  Status write_continuations();

  // Immutable after construction.
  FileSystem* const fs_;
  const std::string dir_;
  const Options options_;
  FatalError* const fatal_;
  const std::function<void()> on_progress_;
  const std::function<void()> want_checkpoint_;
  const std::function<bool()> checkpoint_running_;
  const std::function<void()> want_provision_;
  bool on_owner_ = false;  // set by start()

  // Sync thread only (or before start()).
  std::vector<Segment> segments_;
  std::vector<size_t> chain_;   // indexes of segments_ in log order
  int64_t current_ = -1;        // index of the segment being written; -1: start one first
  uint64_t write_offset_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t db_id_ = 0;  // LogState::db_id
  bool mark_logged_ = false;  // mark_logged_at_first_round, until it is done
  uint64_t bytes_since_checkpoint_ = 0;
  // After recovery: the chain's last segment (index; -1: none) and where
  // its frames end. The first segment started names itself there.
  int64_t recovered_tail_ = -1;
  uint64_t recovered_tail_offset_ = 0;
  // A continuation frame to write once the segment it names is synced.
  struct Continuation {
    size_t index;      // the segment that gets it
    uint64_t offset;   // where (a sector boundary)
    uint64_t own_seq;  // that segment's seq
    bool stub;         // a stub: its header (own_seq, first_lsn) is written too
    uint32_t slot;     // the segment it names
    uint64_t seq;
    uint64_t first_lsn;
  };
  std::vector<Continuation> continuations_;
  std::string writing_;
  std::string out_;  // one write's bytes (frames, CRCs, sector padding)

  // Shared.
  std::mutex spare_mutex_;
  std::vector<Segment> spares_;            // guarded by spare_mutex_: provisioned, not in segments_
  std::atomic<uint32_t> next_slot_{0};     // slot number of the next segment file
  std::atomic<uint64_t> ring_bytes_{0};    // bytes of all segment files (ring + spares)
  std::atomic<uint64_t> checkpoint_bytes_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string handoff_;          // guarded by mutex_
  uint64_t handoff_lsn_ = 0;     // guarded by mutex_
  uint64_t handoff_saved_ = 0;   // guarded by mutex_: submit()'s saved_bytes since the last take
  bool stopping_ = false;        // guarded by mutex_
  std::thread thread_;
  std::atomic<uint64_t> durable_lsn_{0};
  std::atomic<uint64_t> checkpoint_lsn_{0};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<uint64_t> bytes_written_{0};
  std::atomic<uint32_t> segment_count_{0};
  std::atomic<uint32_t> segments_grown_{0};
  // Written by the sync thread only (a relaxed load and store per batch).
  std::array<std::array<std::atomic<uint64_t>, RoundTimes::kBuckets>, 2> batch_counts_{};
};

}  // namespace solo::internal
