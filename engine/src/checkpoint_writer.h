// Writing a checkpoint: the whole state of one held snapshot into
// checkpoint-<lsn>.tmp, fdatasync, rename to .ckpt, directory sync
// (engine/README.md "Checkpoint"). Runs on the checkpointer thread; reads
// only immutable nodes of the snapshot, so the owner never stops.
#pragma once

#include <cstdint>
#include <string>

#include "root_set.h"
#include "solo/file_system.h"

namespace solo::internal {

struct CheckpointInfo {
  uint64_t lsn = 0;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  uint64_t sync_ns = 0;  // time spent in fdatasync of the file
};

// Writes the checkpoint of `roots` (held by the caller for the whole call)
// and makes it durable. Returns IOError (naming the file) on a failed write,
// sync, rename or directory sync; the .tmp file may remain (recovery removes it).
Status write_checkpoint(FileSystem* fs, const std::string& dir, const RootSet& roots,
                        CheckpointInfo* info);

}  // namespace solo::internal
