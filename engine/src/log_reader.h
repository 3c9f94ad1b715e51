// Recovery's view of the log: reads every segment header, follows the chain
// of segments from the checkpoint's LSN, hands each intact round after it to
// `apply`, stops at the tail (zeros, a stale frame of an earlier lap, a torn
// or checksum-failing frame) and refuses damage that is not at the tail
// (invariant 8). Before the database starts logging; one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "log_writer.h"
#include "solo/file_system.h"

namespace solo::internal {

// Called for each round after the checkpoint, in LSN order. `file` and
// `offset` locate the frame (for messages).
using ApplyRound = std::function<Status(uint64_t lsn, std::string_view payload,
                                        const std::string& file, uint64_t offset)>;

// Returns OK and fills *state (segments, chain, next LSN and seq) if the log
// is intact up to its tail; Corruption naming the file and offset if not;
// IOError if a read fails; the first error `apply` returns.
Status read_log(FileSystem* fs, const std::string& dir, uint64_t checkpoint_lsn,
                const ApplyRound& apply, LogState* state);

}  // namespace solo::internal
