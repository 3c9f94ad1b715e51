// Recovery's view of the log: reads every segment header, follows the chain
// of segments from the checkpoint's LSN, hands each intact round after it to
// `apply`, stops at the tail (zeros, a stale frame of an earlier lap, a torn
// or checksum-failing frame) and refuses damage that is not at the tail, and
// a tail in a segment whose continuation frame names a segment that is not
// there as it was started (invariant 8). Before the database starts logging;
// one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "log_writer.h"
#include "solo/file_system.h"

namespace solo::internal {

// A segment file as recovery found it (read_segment_headers).
struct SegmentScan {
  LogSegment info;  // slot and size; seq and first_lsn if the header is valid
  std::string path;
  bool valid = false;  // header intact: a segment that was started
  uint64_t db_id = 0;  // the database it belongs to (a valid header's)
};

// Reads the header of every segment file in `dir` into *scans, in slot
// order. An invalid header (zeros: never started; a torn start) is no
// error. Returns Corruption for a sound header of a format version this
// build does not read (format_version_refused), IOError if a read fails.
Status read_segment_headers(FileSystem* fs, const std::string& dir,
                            std::vector<SegmentScan>* scans);

// Called for each round after the checkpoint, in LSN order. `file` and
// `offset` locate the frame (for messages).
using ApplyRound = std::function<Status(uint64_t lsn, std::string_view payload,
                                        const std::string& file, uint64_t offset)>;

// Follows the log of `scans` (read_segment_headers; the caller has checked
// that they are this database's) from `checkpoint_lsn`. Returns OK and
// fills *state (segments, chain, where its last segment's frames end, next
// LSN and seq) if the log is intact up to its tail; Corruption naming the
// file and offset if not; IOError if a read fails; the first error `apply`
// returns.
Status read_log(FileSystem* fs, const std::vector<SegmentScan>& scans, uint64_t checkpoint_lsn,
                const ApplyRound& apply, LogState* state);

}  // namespace solo::internal
