// Writing a checkpoint: the whole state of one held snapshot into
// checkpoint-<lsn>.tmp, fdatasync, rename to .ckpt, directory sync
// (engine/README.md "Checkpoint"). Runs on the checkpointer thread; reads
// only immutable nodes of the snapshot, so the owner never stops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "root_set.h"
#include "solo/file_system.h"

namespace solo::internal {

struct CheckpointInfo {
  uint64_t lsn = 0;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  uint64_t sync_ns = 0;            // time spent in fdatasync of the file
  uint64_t writeback_wait_ns = 0;  // time spent waiting for chunks (WritebackPacer)
};

// Writes the checkpoint of `roots` (held by the caller for the whole call),
// its header naming the database `db_id` (never 0), and makes it durable.
// writeback_bytes: the file is written back in chunks of this size as it is
// written (WritebackPacer; 0: all by the final sync).
// The tables' rows go out smallest table first. done_with_tree (if set) is
// called for each tree that the writer will not read again: every index
// (indexes are rebuilt on load) and dropped tree at the start, each table
// once its rows are written; the caller may then let the owner reuse what
// only its snapshot of that tree holds (SnapshotRegistry::release_tree).
// reuse_spare: if dir holds a spare (kCheckpointSpareName), it is renamed to
// the .tmp name and overwritten from its start (and cut to the new length)
// instead of a new file being created.
// Returns IOError (naming the file) on a failed write, write_back, sync,
// rename or directory sync. A failure before the rename removes the .tmp
// file (if that removal fails too, the next recovery removes it).
Status write_checkpoint(FileSystem* fs, const std::string& dir, const RootSet& roots,
                        uint64_t db_id, uint64_t writeback_bytes, CheckpointInfo* info,
                        const std::function<void(TreeId)>& done_with_tree = {},
                        bool reuse_spare = false);

}  // namespace solo::internal
