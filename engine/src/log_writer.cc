// The sync thread: frames -> segment ring -> fdatasync -> durable LSN.
//
// A batch is whatever the owner submitted since the last one (one or more
// rounds). Frames that do not fit into the current segment go to the next
// one; the current one is synced first, so a torn write can only be the last.
#include "log_writer.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "clock.h"
#include "crc32c.h"
#include "database_marker.h"
#include "durable_codec.h"
#include "invariant.h"
#include "log_format.h"
#include "writeback_pacer.h"

namespace solo::internal {

LogWriter::LogWriter(FileSystem* fs, std::string dir, const Options& options, FatalError* fatal,
                     std::function<void()> on_progress, std::function<void()> want_checkpoint,
                     std::function<bool()> checkpoint_running,
                     std::function<void()> want_provision)
    : fs_(fs),
      dir_(std::move(dir)),
      options_(options),
      fatal_(fatal),
      on_progress_(std::move(on_progress)),
      want_checkpoint_(std::move(want_checkpoint)),
      checkpoint_running_(std::move(checkpoint_running)),
      want_provision_(std::move(want_provision)) {}

LogWriter::~LogWriter() { stop(); }

std::string LogWriter::path_of(uint32_t slot) const { return dir_ + "/" + segment_name(slot); }

namespace {

// A segment's header (log_format.h).
void fill_segment_header(char* header, uint64_t seq, uint64_t first_lsn, uint64_t bytes,
                         uint64_t db_id) {
  std::memset(header, 0, kSegmentHeaderBytes);
  std::memcpy(header + kSegMagicOff, kSegmentMagic, 8);
  store_u32(header + kSegVersionOff, kLogVersion);
  store_u32(header + kSegHeaderSizeOff, kSegmentHeaderBytes);
  store_u64(header + kSegSeqOff, seq);
  store_u64(header + kSegFirstLsnOff, first_lsn);
  store_u64(header + kSegBytesOff, bytes);
  SOLO_ASSERT(db_id != 0);
  store_u64(header + kSegDbIdOff, db_id);
  store_u32(header + kSegCrcOff, crc32c_extend(0, header, kSegCrcOff));
}

}  // namespace

Status LogWriter::open(LogState state) {
  for (const LogSegment& info : state.segments) {
    auto file = fs_->open(path_of(info.slot), OpenMode::kReadWrite);
    if (!file.ok()) return file.status();
    segments_.push_back(Segment{info, std::move(*file)});
    // Recovery read the segment as the page cache holds it: a process that
    // died without a power loss (a refused write, a kill) can leave a
    // started segment, or rounds, that were never synced. The database now
    // depends on them (kMarkerLogged written at this open, a checkpoint of
    // a replayed round, rounds appended after the replayed ones), so they
    // are made durable first; a segment already durable has nothing to write.
    if (info.seq != 0) {
      Status status = segments_.back().file->sync();
      if (!status.ok()) return status;
    }
  }
  uint32_t next_slot = 0;
  uint64_t ring_bytes = 0;
  for (const Segment& segment : segments_) {
    next_slot = std::max(next_slot, segment.info.slot + 1);
    ring_bytes += segment.info.bytes;
  }
  next_slot_.store(next_slot);
  ring_bytes_.store(ring_bytes);
  checkpoint_bytes_.store(state.checkpoint_bytes);
  // The log recovery replayed counts toward the next checkpoint: a process
  // that is restarted before its own log reaches the trigger (a crash loop,
  // short runs) must not let the log after the last checkpoint, and with it
  // recovery time and the ring, grow without bound.
  // Counted as the log writer counts: patches as the whole rows they stand for.
  bytes_since_checkpoint_ = state.replayed_bytes + state.replayed_saved_bytes;
  for (uint32_t index : state.chain) chain_.push_back(index);
  if (!state.chain.empty()) {
    recovered_tail_ = state.chain.back();
    recovered_tail_offset_ = state.tail_offset;
  }
  next_seq_ = state.next_seq;
  db_id_ = state.db_id;
  durable_lsn_.store(state.next_lsn - 1);
  checkpoint_lsn_.store(state.checkpoint_lsn);
  while (segments_.size() < std::max<uint32_t>(options_.log_segments, 2)) {
    size_t index;
    Status status = create_segment(align_page(options_.log_segment_bytes), &index);
    if (!status.ok()) return status;
  }
  segment_count_.store(static_cast<uint32_t>(segments_.size()));
  return Status::OK();
}

uint64_t LogWriter::checkpoint_trigger_bytes() const {
  if (options_.checkpoint_log_bytes == 0) return 0;
  double proportional = options_.checkpoint_state_ratio *
                        static_cast<double>(checkpoint_bytes_.load(std::memory_order_relaxed));
  return std::max(options_.checkpoint_log_bytes, static_cast<uint64_t>(proportional));
}

uint64_t LogWriter::ring_target_bytes() const {
  const uint64_t segment_bytes = align_page(options_.log_segment_bytes);
  const uint64_t minimum = segment_bytes * std::max<uint32_t>(options_.log_segments, 2);
  const uint64_t trigger = checkpoint_trigger_bytes();
  return std::max(minimum, trigger + trigger / 2 + 2 * segment_bytes);
}

uint64_t LogWriter::provision_step_bytes() const {
  return std::max(options_.log_provision_step_bytes, align_page(options_.log_segment_bytes));
}

Status LogWriter::provision(const std::atomic<bool>* stop) {
  const uint64_t segment_bytes = align_page(options_.log_segment_bytes);
  // One step at a time, and at most half of the space free now: what is
  // not preallocated the sync thread adds a segment at a time where it
  // needs it (a full device then fails a log write: fatal, and reported).
  const uint64_t budget = std::min(provision_step_bytes(), fs_->free_bytes(dir_) / 2);
  for (uint64_t made = 0; made + segment_bytes <= budget &&
                          ring_bytes_.load(std::memory_order_relaxed) < ring_target_bytes() &&
                          !stop->load(std::memory_order_relaxed);
       made += segment_bytes) {
    Segment segment;
    Status status = make_segment_file(segment_bytes, &segment);
    if (!status.ok()) return status;
    std::lock_guard<std::mutex> lock(spare_mutex_);
    spares_.push_back(std::move(segment));
    segment_count_.fetch_add(1, std::memory_order_relaxed);
  }
  return Status::OK();
}

void LogWriter::adopt_spares() {
  std::lock_guard<std::mutex> lock(spare_mutex_);
  if (spares_.empty()) return;
  for (Segment& segment : spares_) segments_.push_back(std::move(segment));
  spares_.clear();  // counted in segment_count_ when made
}

Status LogWriter::create_segment(uint64_t bytes, size_t* index) {
  Segment segment;
  Status status = make_segment_file(bytes, &segment);
  if (!status.ok()) return status;
  segments_.push_back(std::move(segment));
  *index = segments_.size() - 1;
  segment_count_.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

Status LogWriter::make_segment_file(uint64_t bytes, Segment* segment) {
  const uint32_t slot = next_slot_.fetch_add(1, std::memory_order_relaxed);
  std::string path = path_of(slot);
  auto file = fs_->open(path, OpenMode::kCreate);
  if (!file.ok()) return file.status();
  // Written with zeros once and synced: later commits overwrite these blocks
  // (no file-size change, no metadata journal commit per fdatasync).
  // Paced like a checkpoint (a 32 MiB burst would hold up the log's syncs).
  WritebackPacer pacer(file->get(), options_.checkpoint_writeback_bytes);
  std::string zeros(std::min<uint64_t>(bytes, 1 << 20), '\0');
  for (uint64_t offset = 0; offset < bytes; offset += zeros.size()) {
    size_t size = static_cast<size_t>(std::min<uint64_t>(zeros.size(), bytes - offset));
    Status status = (*file)->write_at(offset, std::string_view(zeros).substr(0, size));
    if (status.ok()) status = pacer.wrote_up_to(offset + size);
    if (!status.ok()) return status;
  }
  Status status = (*file)->sync();
  if (status.ok()) status = fs_->sync_dir(dir_);
  if (!status.ok()) return status;
  segment->info = LogSegment{};
  segment->info.slot = slot;
  segment->info.bytes = bytes;
  segment->file = std::move(*file);
  ring_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  return Status::OK();
}

void LogWriter::start(bool on_owner) {
  on_owner_ = on_owner;
  if (!on_owner_) thread_ = std::thread([this] { thread_main(); });
}

void LogWriter::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LogWriter::submit(std::string* frames, uint64_t last_lsn, uint64_t saved_bytes) {
  if (on_owner_) {
    write_batch(frames, last_lsn, saved_bytes);
    frames->clear();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (handoff_.empty()) {
      handoff_.swap(*frames);
    } else {
      handoff_.append(*frames);  // the sync thread is behind: group the rounds
    }
    handoff_lsn_ = last_lsn;
    handoff_saved_ += saved_bytes;
  }
  frames->clear();
  cv_.notify_one();
}

void LogWriter::thread_main() {
  pthread_setname_np(pthread_self(), "solo-sync");
  while (true) {
    uint64_t last_lsn;
    uint64_t saved_bytes;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return !handoff_.empty() || stopping_; });
      if (handoff_.empty()) break;
      writing_.swap(handoff_);
      last_lsn = handoff_lsn_;
      saved_bytes = std::exchange(handoff_saved_, 0);
    }
    write_batch(&writing_, last_lsn, saved_bytes);
    writing_.clear();
    on_progress_();
  }
}

void LogWriter::write_batch(std::string* frames, uint64_t last_lsn, uint64_t saved_bytes) {
  if (!fatal_->failed()) {
    const uint64_t batch_start = now_ns();
    Status status = write_frames(frames);
    if (status.ok() && mark_logged_) {
      status = write_database_marker(fs_, dir_, db_id_, kMarkerLogged);
      if (status.ok()) mark_logged_ = false;
    }
    std::atomic<uint64_t>& bucket = batch_counts_[checkpoint_running_() ? 1 : 0]
                                                 [RoundTimes::bucket_of(now_ns() - batch_start)];
    bucket.store(bucket.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (status.ok()) {
      durable_lsn_.store(last_lsn, std::memory_order_seq_cst);
    } else {
      fatal_->set(status);
    }
  }
  bytes_since_checkpoint_ += saved_bytes;
  const uint64_t trigger = checkpoint_trigger_bytes();
  if (trigger > 0 && bytes_since_checkpoint_ >= trigger) {
    bytes_since_checkpoint_ = 0;
    want_checkpoint_();
  }
}

void LogWriter::batch_times(RoundTimes* quiet, RoundTimes* checkpoint) const {
  for (size_t bucket = 0; bucket < RoundTimes::kBuckets; ++bucket) {
    quiet->counts[bucket] = batch_counts_[0][bucket].load(std::memory_order_relaxed);
    checkpoint->counts[bucket] = batch_counts_[1][bucket].load(std::memory_order_relaxed);
  }
}

Status LogWriter::write_frames(std::string* frames) {
  size_t pos = 0;
  bool dirty = false;
  while (pos < frames->size()) {
    const char* frame = frames->data() + pos;
    uint64_t frame_bytes = align_frame(kFrameHeaderBytes + load_u32(frame + 4));
    // The last sector of a segment is kept for its continuation frame.
    if (current_ < 0 || write_offset_ + frame_bytes + kContinuationBytes >
                            segments_[static_cast<size_t>(current_)].info.bytes) {
      if (dirty) {
        // The end of this segment is durable before the next segment holds anything.
        Status status = segments_[static_cast<size_t>(current_)].file->sync();
        if (!status.ok()) return status;
        syncs_.fetch_add(1, std::memory_order_relaxed);
        dirty = false;
      }
      Status status = start_segment(load_u64(frame + 8),
                                    kSegmentHeaderBytes + frame_bytes + kContinuationBytes);
      if (!status.ok()) return status;
    }
    Segment& segment = segments_[static_cast<size_t>(current_)];
    // Every following frame that fits goes into the same write.
    size_t last_frame = pos;
    size_t run_end = pos + frame_bytes;
    while (run_end < frames->size()) {
      uint64_t next_bytes = align_frame(kFrameHeaderBytes + load_u32(frames->data() + run_end + 4));
      if (write_offset_ + (run_end - pos) + next_bytes + kContinuationBytes > segment.info.bytes) {
        break;
      }
      last_frame = run_end;
      run_end += next_bytes;
    }
    // The write ends on a sector boundary: the last frame's payload takes
    // zero padding (entry type 0). So no later write touches a sector that
    // holds an acknowledged round, and a torn or garbled later sector cannot
    // damage one.
    out_.assign(frames->data() + pos, run_end - pos);
    uint64_t end = write_offset_ + out_.size();
    uint64_t pad = align_sector(end) - end;
    if (pad != 0) {
      char* last = out_.data() + (last_frame - pos);
      store_u32(last + 4, static_cast<uint32_t>(run_end - last_frame - kFrameHeaderBytes + pad));
      out_.append(pad, '\0');
    }
    // The CRCs are computed here, off the owner thread.
    for (size_t frame_pos = 0; frame_pos < out_.size();) {
      char* at = out_.data() + frame_pos;
      uint32_t length = load_u32(at + 4);
      store_u32(at, crc32c_extend(0, at + 4, kFrameHeaderBytes - 4 + length));
      frame_pos += align_frame(kFrameHeaderBytes + length);
    }
    Status status = segment.file->write_at(write_offset_, out_);
    if (!status.ok()) return status;
    write_offset_ += out_.size();
    bytes_since_checkpoint_ += out_.size();
    bytes_written_.fetch_add(out_.size(), std::memory_order_relaxed);
    pos = run_end;
    dirty = true;
  }
  if (dirty) {
    Status status = segments_[static_cast<size_t>(current_)].file->sync();
    if (!status.ok()) return status;
    syncs_.fetch_add(1, std::memory_order_relaxed);
  }
  return write_continuations();
}

Status LogWriter::write_continuations() {
  // Every segment this batch started is synced now: the segments before
  // them may name them. Before the batch's rounds are durable, so that no
  // round in a segment is acknowledged while no other file names it.
  for (const Continuation& next : continuations_) {
    Segment& segment = segments_[next.index];
    if (next.stub) {
      char header[kSegmentHeaderBytes];
      fill_segment_header(header, next.own_seq, next.first_lsn, segment.info.bytes, db_id_);
      Status status = segment.file->write_at(0, std::string_view(header, kSegmentHeaderBytes));
      if (!status.ok()) return status;
    }
    char frame[kContinuationBytes] = {};
    store_u32(frame + 4, kContinuationBytes - kFrameHeaderBytes);
    store_u64(frame + 8, 0);
    char* payload = frame + kFrameHeaderBytes;
    payload[0] = static_cast<char>(LogEntry::kNext);
    store_u64(payload + kNextOwnSeqOff, next.own_seq);
    store_u32(payload + kNextSlotOff, next.slot);
    store_u64(payload + kNextSeqOff, next.seq);
    store_u64(payload + kNextFirstLsnOff, next.first_lsn);
    store_u32(frame, crc32c_extend(0, frame + 4, kContinuationBytes - 4));
    Status status =
        segment.file->write_at(next.offset, std::string_view(frame, kContinuationBytes));
    if (status.ok()) status = segment.file->sync();
    if (!status.ok()) return status;
    syncs_.fetch_add(1, std::memory_order_relaxed);
  }
  continuations_.clear();
  return Status::OK();
}

Status LogWriter::start_segment(uint64_t first_lsn, uint64_t min_bytes) {
  // Segments whose rounds are all in a checkpoint become free: segment i of
  // the chain ends where segment i+1 begins.
  adopt_spares();  // segments the checkpointer preallocated
  uint64_t checkpoint_lsn = checkpoint_lsn_.load(std::memory_order_acquire);
  std::vector<bool> in_chain(segments_.size(), false);
  size_t drop = 0;
  while (drop + 1 < chain_.size() && segments_[chain_[drop + 1]].info.first_lsn - 1 <= checkpoint_lsn) {
    drop++;
  }
  // The current segment stays in the chain even if covered: it is being replaced now.
  chain_.erase(chain_.begin(), chain_.begin() + static_cast<ptrdiff_t>(drop));
  for (size_t index : chain_) in_chain[index] = true;
  int64_t chosen = -1;
  for (size_t index = 0; index < segments_.size(); ++index) {
    if (!in_chain[index] && static_cast<int64_t>(index) != current_ &&
        segments_[index].info.bytes >= min_bytes) {
      chosen = static_cast<int64_t>(index);
      break;
    }
  }
  if (chosen < 0) {
    // The ring is full (checkpoints lag) or the round is larger than a segment: grow.
    size_t index;
    uint64_t bytes = align_page(std::max<uint64_t>(options_.log_segment_bytes, min_bytes));
    Status status = create_segment(bytes, &index);
    if (!status.ok()) return status;
    segments_grown_.fetch_add(1, std::memory_order_relaxed);
    chosen = static_cast<int64_t>(index);
  }
  // Which file will name the new segment (write_continuations): the
  // segment the log leaves, at the sector boundary where its frames end;
  // after recovery the chain's last segment, at the first sector boundary
  // after its last intact frame (a torn write's leftovers, never an intact
  // round). Where there is none (a new database, or its segments were
  // removed) or it has no room left (a segment of format version 4), a
  // stub: a free segment that gets a header with the seq before the new
  // one's and the same first LSN, no frames, and the continuation frame.
  int64_t from = current_;
  uint64_t at = write_offset_;
  if (from < 0 && recovered_tail_ >= 0) {
    from = recovered_tail_;
    at = align_sector(recovered_tail_offset_);
  }
  recovered_tail_ = -1;
  const bool named = from >= 0 && segments_[static_cast<size_t>(from)].info.seq != 0 &&
                     at + kContinuationBytes <= segments_[static_cast<size_t>(from)].info.bytes;
  int64_t stub = -1;
  if (!named) {
    for (size_t index = 0; index < in_chain.size() && stub < 0; ++index) {  // not one made above
      if (!in_chain[index] && static_cast<int64_t>(index) != current_ &&
          static_cast<int64_t>(index) != chosen &&
          segments_[index].info.bytes >= align_sector(kSegmentHeaderBytes) + kContinuationBytes) {
        stub = static_cast<int64_t>(index);
      }
    }
  }
  const uint64_t stub_seq = stub >= 0 ? next_seq_++ : 0;
  Segment& segment = segments_[chosen];
  char header[kSegmentHeaderBytes];
  fill_segment_header(header, next_seq_, first_lsn, segment.info.bytes, db_id_);
  // Synced together with the segment's first frames.
  Status status = segment.file->write_at(0, std::string_view(header, kSegmentHeaderBytes));
  if (!status.ok()) return status;
  segment.info.seq = next_seq_++;
  segment.info.first_lsn = first_lsn;
  if (named) {
    continuations_.push_back(Continuation{static_cast<size_t>(from), at,
                                          segments_[static_cast<size_t>(from)].info.seq, false,
                                          segment.info.slot, segment.info.seq, first_lsn});
  } else if (stub >= 0) {
    LogSegment& info = segments_[static_cast<size_t>(stub)].info;
    info.seq = stub_seq;  // free all the same: not in the chain
    info.first_lsn = first_lsn;
    continuations_.push_back(Continuation{static_cast<size_t>(stub),
                                          align_sector(kSegmentHeaderBytes), stub_seq, true,
                                          segment.info.slot, segment.info.seq, first_lsn});
  }
  chain_.push_back(static_cast<size_t>(chosen));
  current_ = chosen;
  write_offset_ = kSegmentHeaderBytes;
  // Fewer than half a step of free segments left and the ring short of its
  // target: the checkpointer preallocates the next step (when it is not
  // writing a checkpoint) before the sync thread has to grow the ring.
  uint64_t free_bytes = 0;
  for (size_t index = 0; index < in_chain.size(); ++index) {  // a segment made above is `chosen`
    if (!in_chain[index] && static_cast<int64_t>(index) != chosen) free_bytes += segments_[index].info.bytes;
  }
  if (free_bytes < provision_step_bytes() / 2 &&
      ring_bytes_.load(std::memory_order_relaxed) < ring_target_bytes()) {
    want_provision_();
  }
  return Status::OK();
}

}  // namespace solo::internal
