// Recovery: checkpoint load and log replay through WriteTxn, so that indexes,
// catalog versions and counters are rebuilt by the code that keeps them in
// step during normal operation. The checkpoint's rows, which come in key
// order, are bulk built (TableLoader, engine/README.md "Bulk build"); a
// reader thread reads and checks ahead of the owner, and an ArenaPrefaulter
// faults in memory the owner is about to fill.
#include "recovery.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "arena_prefaulter.h"
#include "checkpoint_format.h"
#include "checkpoint_reader.h"
#include "clock.h"
#include "database_id.h"
#include "database_marker.h"
#include "db_impl.h"
#include "durable_codec.h"
#include "log_format.h"
#include "log_reader.h"
#include "read_ahead.h"
#include "row_keys.h"
#include "row_patch.h"
#include "table_loader.h"

namespace solo::internal {

namespace {

std::string at(const std::string& file, uint64_t offset) {
  return file + " at offset " + std::to_string(offset);
}

Status check_id(Result<TreeId> made, TreeId expected, const std::string& where) {
  if (!made.ok()) return Status::Corruption("cannot redo DDL from " + where + ": " + made.status().ToString());
  if (*made != expected) {
    return Status::Corruption("DDL from " + where + " made tree " + std::to_string(*made) +
                              ", expected " + std::to_string(expected));
  }
  return Status::OK();
}

// A dropped table or index keeps its id: a placeholder table is made and dropped.
Status make_dropped(WriteTxn& txn, TreeId id, const std::string& where) {
  TableSchema placeholder;
  placeholder.name = "\x01solo_dropped_" + std::to_string(id);
  placeholder.columns = {ColumnDef::BigInt("k", true)};
  placeholder.primary_key = {0};
  Result<TableId> made = txn.create_table(placeholder);
  Status status = check_id(made, id, where);
  if (!status.ok()) return status;
  return txn.drop_table(id);
}

// Applies one round's entries (a frame payload). *saved_bytes grows by what
// its column patches saved against whole rows (as the log writer counted).
Status apply_round(WriteTxn& txn, std::string_view payload, const std::string& where,
                   uint64_t* saved_bytes) {
  ByteReader in{payload};
  Status status;
  std::string patched;
  std::vector<uint32_t> patched_columns;
  while (!in.at_end()) {
    uint8_t type;
    uint32_t tree;
    if (!in.get_u8(&type)) break;
    if (type == static_cast<uint8_t>(LogEntry::kPadding)) break;  // zeros up to a sector end
    if (!in.get_u32(&tree)) break;
    switch (static_cast<LogEntry>(type)) {
      case LogEntry::kPut: {
        std::string_view key, row;
        if (!in.get_bytes(&key) || !in.get_bytes(&row)) break;
        // A replaced row or a new one: one descent either way.
        status = txn.put_encoded(tree, key, row);
        break;
      }
      case LogEntry::kDelete: {
        std::string_view key;
        if (!in.get_bytes(&key)) break;
        status = txn.erase(tree, key);
        break;
      }
      case LogEntry::kPatch: {
        std::string_view key;
        if (!in.get_bytes(&key)) break;
        const TableInfo* table = txn.catalog().table(tree);
        if (table == nullptr) {
          status = Status::NotFound("a column patch of tree " + std::to_string(tree) +
                                    ", which is not a table");
          break;
        }
        std::string_view stored;
        status = txn.get_for_update(tree, key, &stored);
        if (!status.ok()) break;
        size_t used = 0;
        status = apply_column_patch(table->schema, stored, in.in.substr(in.pos), &patched,
                                    &patched_columns, &used);
        if (!status.ok()) break;
        in.pos += used;
        *saved_bytes += patched.size() + 1 - std::min<uint64_t>(used, patched.size() + 1);
        status = txn.update_columns(tree, key, patched, patched_columns);
        break;
      }
      case LogEntry::kCreateTable: {
        TableSchema schema;
        if (!get_table_schema(&in, &schema)) break;
        status = check_id(txn.create_table(schema), tree, where);
        break;
      }
      case LogEntry::kCreateIndex: {
        IndexSchema schema;
        if (!get_index_schema(&in, &schema)) break;
        status = check_id(txn.create_index(schema), tree, where);
        break;
      }
      case LogEntry::kDropIndex: status = txn.drop_index(tree); break;
      case LogEntry::kDropTable: status = txn.drop_table(tree); break;
      default: in.failed = true; break;
    }
    if (in.failed) return Status::Corruption("malformed log record in " + where);
    if (!status.ok()) {
      return Status::Corruption("log record in " + where + " does not apply: " + status.ToString());
    }
  }
  if (in.failed) return Status::Corruption("malformed log record in " + where);
  return Status::OK();
}

// Reading runs ahead of applying: a reader thread reads and checks (pread,
// CRC32C) the next blocks or rounds while the owner applies the previous
// ones; at most this many bytes wait between them. The log's is larger: the
// owner applies it slower than it is read, and what read_log checks after
// the last round (segments without a valid header, read whole) then
// overlaps with the owner's applying of the queued rounds.
constexpr size_t kCheckpointReadAheadBytes = 16u << 20;
constexpr size_t kLogReadAheadBytes = 64u << 20;
// Log rounds are applied a batch at a time (one write transaction each).
constexpr size_t kReplayBatchRounds = 256;
constexpr size_t kReplayBatchBytes = 4u << 20;

struct CheckpointItem {
  CheckpointBlock type;
  uint64_t offset;    // of the block in the file
  std::string block;  // its type byte, then its body
  std::string_view body() const { return std::string_view(block).substr(1); }
};

// The checkpoint reader's block buffers, handed back by the owner once it
// has applied a block: a new 256 KiB string per block was an allocation
// (mmap-sized), a zero-fill and, with the copy out of the read buffer,
// ~9% of a recovery's samples.
class BlockBuffers {
 public:
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return {};
    std::string buffer = std::move(free_.back());
    free_.pop_back();
    return buffer;
  }
  void give(std::string buffer) {
    if (buffer.capacity() == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(buffer));
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> free_;
};

struct LogItem {
  uint64_t lsn;
  std::string payload;
  std::string where;  // "file at offset N"
};

// Runs `produce` on a thread of its own, handing its Status to the queue's
// finish(); join() (or the destructor) stops the queue first, so that a
// producer blocked in push() returns.
template <typename Item>
class Reader {
 public:
  template <typename Fn>
  Reader(ReadAhead<Item>* ahead, Fn produce)
      : ahead_(ahead), thread_([ahead, produce] { ahead->finish(produce()); }) {}
  ~Reader() { join(); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  void join() {
    if (!thread_.joinable()) return;
    ahead_->stop();
    thread_.join();
  }

 private:
  ReadAhead<Item>* ahead_;
  std::thread thread_;
};

// The whole checkpoint in one write transaction: the catalog (its blocks
// come first), then each table's rows, bulk built (table_loader.h).
Status apply_checkpoint(WriteTxn& txn, DbImpl* db, ReadAhead<CheckpointItem>* ahead,
                        BlockBuffers* buffers, const std::string& path, const uint64_t* lsn) {
  std::unique_ptr<TableLoader> loader;
  std::vector<bool> loaded;  // by table id: its rows were loaded (one run per table)
  bool catalog_done = false;
  TreeId next_id = 0;
  CheckpointItem item;
  while (true) {
    buffers->give(std::move(item.block));
    if (!ahead->pop(&item)) break;
    ByteReader in{item.body()};
    if (item.type != CheckpointBlock::kRows) {
      std::string where = "checkpoint " + at(path, item.offset);
      if (catalog_done) return Status::Corruption("catalog block after rows in " + where);
      TreeId id;
      TableSchema table;
      IndexSchema index;
      bool ok = in.get_u32(&id);
      if (ok && item.type == CheckpointBlock::kTable) ok = get_table_schema(&in, &table);
      if (ok && item.type == CheckpointBlock::kIndex) ok = get_index_schema(&in, &index);
      if (!ok || id != next_id) return Status::Corruption("malformed catalog block in " + where);
      next_id++;
      Status status;
      if (item.type == CheckpointBlock::kTable) {
        status = check_id(txn.create_table(table), id, where);
      } else if (item.type == CheckpointBlock::kIndex) {
        status = check_id(txn.create_index(index), id, where);
      } else {
        status = make_dropped(txn, id, where);
      }
      if (!status.ok()) return status;
      continue;
    }
    catalog_done = true;
    auto malformed = [&] {
      return Status::Corruption("malformed rows block in checkpoint " + at(path, item.offset));
    };
    uint32_t table, count;
    if (!in.get_u32(&table) || !in.get_u32(&count)) return malformed();
    if (loader == nullptr || loader->table() != table) {
      if (loader != nullptr) {
        Status finished = loader->finish();
        if (!finished.ok()) return finished;
        loader.reset();
      }
      std::string where = "checkpoint " + at(path, item.offset);
      if (txn.catalog().table(table) == nullptr) {
        return Status::Corruption("rows block for tree " + std::to_string(table) +
                                  ", not a table, in " + where);
      }
      loaded.resize(txn.catalog().tree_count(), false);
      if (loaded[table]) {
        return Status::Corruption("rows of table " + std::to_string(table) +
                                  " not in one run of blocks, in " + where);
      }
      loaded[table] = true;
      loader = std::make_unique<TableLoader>(&txn, table, path);
    }
    const uint64_t body_offset = item.offset + kBlockHeaderBytes + 1;
    for (uint32_t row_idx = 0; row_idx < count; ++row_idx) {
      const uint64_t row_offset = body_offset + in.pos;
      std::string_view key, row;
      if (!in.get_bytes(&key) || !in.get_bytes(&row)) return malformed();
      Status added = loader->add(key, row, row_offset);
      if (!added.ok()) return added;
    }
    if (!in.at_end()) return malformed();
  }
  Status read = ahead->status();
  if (!read.ok()) return read;
  if (loader != nullptr) {
    Status finished = loader->finish();
    if (!finished.ok()) return finished;
  }
  // Set by the reader before it finished (the queue's lock orders it).
  db->note_replayed_lsn(*lsn);
  return Status::OK();
}

// The check that each row of a checkpoint gives the key stored with it (the
// table's order comes from the keys, its index entries from the rows), made
// by the reader thread on the blocks it has read, off the owner's critical
// path: deriving every row's key was ~11% of a recovery's samples on the
// owner. It learns the schemas from the catalog blocks; a block it cannot
// parse it leaves to the owner, which refuses it.
class RowKeyCheck {
 public:
  explicit RowKeyCheck(const std::string& path) : path_(path) {}

  Status check(CheckpointBlock type, std::string_view body, uint64_t offset) {
    ByteReader in{body};
    uint32_t id;
    if (type == CheckpointBlock::kTable) {
      TableSchema schema;
      if (in.get_u32(&id) && get_table_schema(&in, &schema)) {
        if (schemas_.size() <= id) schemas_.resize(id + 1);
        schemas_[id] = std::move(schema);
      }
      return Status::OK();
    }
    uint32_t count;
    if (type != CheckpointBlock::kRows || !in.get_u32(&id) || !in.get_u32(&count) ||
        id >= schemas_.size() || !schemas_[id].has_value()) {
      return Status::OK();
    }
    const TableSchema& schema = *schemas_[id];
    const uint64_t body_offset = offset + kBlockHeaderBytes + 1;
    for (uint32_t row_idx = 0; row_idx < count; ++row_idx) {
      const uint64_t row_offset = body_offset + in.pos;
      std::string_view key, row;
      if (!in.get_bytes(&key) || !in.get_bytes(&row)) return Status::OK();
      Status status = row_primary_key(schema, row, &derived_);
      if (!status.ok() || derived_ != key) {
        return checkpoint_damaged(path_, row_offset,
                                  "row of table " + schema.name + " does not match its key");
      }
    }
    return Status::OK();
  }

 private:
  const std::string& path_;
  std::vector<std::optional<TableSchema>> schemas_;  // by tree id
  std::string derived_;
};

// Calls Options::recovery_progress at most every recovery_progress_ms
// (and at a phase's end). One reader thread per phase calls it.
class ProgressTicker {
 public:
  explicit ProgressTicker(const Options& options)
      : report_(options.recovery_progress),
        interval_ns_(uint64_t{options.recovery_progress_ms} * 1'000'000) {}

  void tick(const RecoveryProgress& progress) {
    if (!report_) return;
    const uint64_t now = now_ns();
    if (!progress.finished && now - last_ns_ < interval_ns_) return;
    last_ns_ = now;
    report_(progress);
  }

 private:
  const std::function<void(const RecoveryProgress&)>& report_;
  const uint64_t interval_ns_;
  uint64_t last_ns_ = now_ns();
};

Status load_checkpoint(DbImpl* db, FileSystem* fs, const std::string& path, uint64_t file_bytes,
                       uint64_t* lsn) {
  BlockBuffers buffers;  // outlives the reader thread
  ReadAhead<CheckpointItem> ahead(kCheckpointReadAheadBytes);
  uint64_t read_lsn = 0;
  // The reader thread tells how far it has read; the end is told here, once
  // the owner has applied every block (the read-ahead holds up to
  // kCheckpointReadAheadBytes after the last one read).
  ProgressTicker ticker(db->options());
  RecoveryProgress progress;
  progress.phase = RecoveryProgress::Phase::kCheckpoint;
  progress.total_bytes = file_bytes;
  Reader<CheckpointItem> reader(&ahead, [&]() {
    RowKeyCheck key_check(path);
    return read_checkpoint(
        fs, path, &read_lsn, [&](CheckpointBlock type, std::string* block, uint64_t offset) {
          Status checked = key_check.check(type, std::string_view(*block).substr(1), offset);
          if (!checked.ok()) return checked;
          const size_t bytes = block->size();
          CheckpointItem item{type, offset, buffers.take()};
          item.block.swap(*block);
          if (!ahead.push(std::move(item), bytes)) {
            return Status::Aborted("checkpoint load stopped");
          }
          progress.done_bytes = std::min<uint64_t>(file_bytes, offset + kBlockHeaderBytes + bytes);
          ticker.tick(progress);
          return Status::OK();
        });
  });
  Status status = db->write(
      [&](WriteTxn& txn) { return apply_checkpoint(txn, db, &ahead, &buffers, path, &read_lsn); });
  reader.join();
  if (status.ok()) {
    progress.done_bytes = file_bytes;
    progress.finished = true;
    ticker.tick(progress);
  }
  *lsn = read_lsn;
  return status;
}

// Applies the rounds `ahead` delivers, a batch per write transaction.
Status replay_log(DbImpl* db, ReadAhead<LogItem>* ahead, uint64_t* saved_bytes) {
  bool ended = false;
  while (!ended) {
    Status status = db->write([&](WriteTxn& txn) {
      size_t rounds = 0;
      size_t bytes = 0;
      uint64_t last_lsn = 0;
      LogItem item;
      while (rounds < kReplayBatchRounds && bytes < kReplayBatchBytes) {
        if (!ahead->pop(&item)) {
          ended = true;
          break;
        }
        Status applied = apply_round(txn, item.payload, item.where, saved_bytes);
        if (!applied.ok()) return applied;
        rounds++;
        bytes += item.payload.size();
        last_lsn = item.lsn;
      }
      if (rounds > 0) db->note_replayed_lsn(last_lsn);
      return Status::OK();
    });
    if (!status.ok()) return status;
  }
  return ahead->status();
}

// A segment with a valid header was started: it holds or held rounds.
bool any_started(const std::vector<SegmentScan>& segments) {
  return std::any_of(segments.begin(), segments.end(),
                     [](const SegmentScan& scan) { return scan.valid; });
}

// A checkpoint proves that the database has a log: LogWriter::open makes
// the segment files (synced, directory synced) before any checkpoint can be
// written, and nothing removes one. A checkpoint of round N >= 1 was
// written after round N was synced into a started segment, and the
// writer's chain always begins with a started, synced segment that starts
// at or before N + 1 (one leaves the chain only when the next one starts
// at or before the checkpoint's round + 1); only segments outside the
// chain get a new header. So a checkpoint without any segment file, or one
// of a round >= 1 without any started segment, is a log that was removed
// or emptied, with any rounds after the checkpoint: refused before
// anything is loaded (engine/README.md invariant 8), where it used to open
// as the checkpoint alone. A checkpoint of round 0 (a new database
// checkpointed before its first round) may have no started segment.
Status check_log_kept(const std::string& dir, uint64_t checkpoint_lsn,
                      const std::vector<SegmentScan>& segments) {
  const bool started = any_started(segments);
  if (started || (checkpoint_lsn == 0 && !segments.empty())) return Status::OK();
  const std::string what =
      segments.empty() ? dir + " holds no log segment (wal-NNNNNN.log): the log was removed"
                       : "none of the " + std::to_string(segments.size()) + " log segments in " +
                             dir + " was started (no valid header): the log was emptied or damaged";
  return Status::Corruption("log segments missing: checkpoint " + dir + "/" +
                            checkpoint_name(checkpoint_lsn) + " ends at round " +
                            std::to_string(checkpoint_lsn) + ", but " + what +
                            ", and with it any round logged after the checkpoint");
}

// The marker (database_marker.h) proves that the database was made with its
// log: it is written only after LogWriter::open has made the segment files
// (synced, directory synced), and nothing removes a segment file. So a
// marker with no segment file and no checkpoint is a log that was removed,
// with every round the database logged: refused, where it used to open as a
// new, empty database (engine/README.md "Database marker"). Segment files
// that were never started are a database that logged nothing yet, unless
// the marker says it logged (kMarkerLogged, set once its first round was
// durable and before that round was acknowledged, and a segment, once
// started, stays started): then they were emptied, and are refused too.
Status check_log_made(const std::string& dir, const std::string& marker, uint64_t db_id,
                      uint32_t marker_flags, const std::vector<SegmentScan>& segments) {
  const std::string says =
      "database marker " + marker + " says " + dir + " holds database " + database_id_text(db_id);
  if (segments.empty()) {
    return Status::Corruption("log segments missing: " + says + ", made with its log, but " + dir +
                              " holds no log segment (wal-NNNNNN.log) and no checkpoint: the log "
                              "was removed, and with it every round the database logged");
  }
  const bool started = any_started(segments);
  if (started || (marker_flags & kMarkerLogged) == 0) return Status::OK();
  return Status::Corruption("log segments emptied: " + says + ", which has logged rounds, but " +
                            "none of the " + std::to_string(segments.size()) + " log segments in " +
                            dir + " was started (no valid header) and " + dir +
                            " holds no checkpoint: the log was emptied or damaged, and with it " +
                            "every round the database logged");
}

}  // namespace

Status recover(DbImpl* db, FileSystem* fs, const std::string& dir, LogState* state,
               bool* marker_found, uint32_t* marker_flags) {
  std::vector<std::string> names;
  Status status = fs->list(dir, &names);
  if (!status.ok()) return status;
  uint64_t newest = 0;
  bool found = false;
  *marker_found = false;
  *marker_flags = 0;
  for (const std::string& name : names) {
    uint64_t lsn;
    if (name == kMarkerName) {
      *marker_found = true;
    } else if (parse_checkpoint_name(name, &lsn)) {
      if (!found || lsn > newest) newest = lsn;
      found = true;
    } else if (is_checkpoint_temp_name(name)) {
      // An unfinished checkpoint (never renamed): nothing depends on it.
      status = fs->remove(dir + "/" + name);
      if (!status.ok()) return status;
    }
  }
  // The files that name their database: the marker (made when the database
  // was), every started segment, then the checkpoint recovery would load
  // (database_id.h). A damaged marker is refused, never ignored.
  std::vector<IdentifiedFile> identified;
  const std::string marker_path = dir + "/" + kMarkerName;
  if (*marker_found) {
    uint64_t marker_id = 0;
    status = read_database_marker(fs, marker_path, &marker_id, marker_flags);
    if (!status.ok()) return status;
    identified.push_back({"database marker", marker_path, kMarkDbIdOff, marker_id});
  }
  std::vector<SegmentScan> segments;
  status = read_segment_headers(fs, dir, &segments);
  if (!status.ok()) return status;
  for (const SegmentScan& scan : segments) {
    if (scan.valid) identified.push_back({"log segment", scan.path, kSegDbIdOff, scan.db_id});
  }
  uint64_t checkpoint_lsn = 0;
  uint64_t checkpoint_bytes = 0;
  if (found) {
    const std::string path = dir + "/" + checkpoint_name(newest);
    auto file = fs->open(path, OpenMode::kRead);
    if (!file.ok()) return file.status();
    // Its size sets the next checkpoint's trigger (LogWriter::checkpoint_trigger_bytes).
    auto size = (*file)->size();
    if (!size.ok()) return size.status();
    checkpoint_bytes = *size;
    CheckpointHeader header;
    status = read_checkpoint_header(file->get(), path, &header);
    if (!status.ok()) return status;
    identified.push_back({"checkpoint", path, kCkpDbIdOff, header.db_id});
  }
  // A checkpoint or segment of another database is refused here, before
  // anything of it is loaded or replayed.
  uint64_t db_id = 0;
  status = settle_database_id(identified, &db_id);
  if (!status.ok()) return status;
  if (found) {
    status = check_log_kept(dir, newest, segments);
  } else if (*marker_found) {
    status = check_log_made(dir, marker_path, db_id, *marker_flags, segments);
  }
  if (!status.ok()) return status;
  // The state takes ~1.5-1.8x its checkpoint's size in arenas (records,
  // nodes): have most of that faulted in by another thread meanwhile.
  ArenaPrefaulter prefaulter(&db->pool_, checkpoint_bytes * 3 / 2);
  const uint64_t load_start_ns = now_ns();
  if (found) {
    status = load_checkpoint(db, fs, dir + "/" + checkpoint_name(newest), checkpoint_bytes,
                             &checkpoint_lsn);
    if (!status.ok()) return status;
    if (checkpoint_lsn != newest) {
      return Status::Corruption("checkpoint " + dir + "/" + checkpoint_name(newest) +
                                " at offset 16 holds round " + std::to_string(checkpoint_lsn));
    }
  }
  const uint64_t checkpoint_load_ns = now_ns() - load_start_ns;
  uint64_t replayed_rounds = 0;
  uint64_t replayed_bytes = 0;
  ReadAhead<LogItem> ahead(kLogReadAheadBytes);
  LogState read_state;
  // As for the checkpoint: the end is told once every round is applied.
  ProgressTicker ticker(db->options());
  RecoveryProgress progress;
  progress.phase = RecoveryProgress::Phase::kLog;
  Reader<LogItem> reader(&ahead, [&]() {
    return read_log(
        fs, segments, checkpoint_lsn,
        [&](uint64_t lsn, std::string_view payload, const std::string& file, uint64_t offset) {
          replayed_rounds++;
          replayed_bytes += payload.size();
          if (!ahead.push(LogItem{lsn, std::string(payload), at(file, offset)}, payload.size())) {
            return Status::Aborted("log replay stopped");
          }
          progress.done_bytes = replayed_bytes;
          progress.rounds = replayed_rounds;
          ticker.tick(progress);
          return Status::OK();
        },
        &read_state);
  });
  uint64_t saved_bytes = 0;
  status = replay_log(db, &ahead, &saved_bytes);
  reader.join();
  if (!status.ok()) return status;
  if (replayed_rounds > 0) {
    progress.finished = true;
    ticker.tick(progress);
  }
  *state = std::move(read_state);
  state->db_id = db_id;
  state->logged = any_started(segments) || (found && newest > 0);
  state->checkpoint_bytes = checkpoint_bytes;
  state->replayed_rounds = replayed_rounds;
  state->replayed_bytes = replayed_bytes;
  state->replayed_saved_bytes = saved_bytes;
  state->checkpoint_load_ns = checkpoint_load_ns;
  return Status::OK();
}

}  // namespace solo::internal
