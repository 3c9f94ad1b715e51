// The redo log's on-disk format (byte tables in engine/README.md "Log").
//
// The log is a ring of preallocated segment files `wal-NNNNNN.log`. Each
// segment starts with a 64-byte header; frames follow, each one round's
// records, 8-byte aligned:
//
//   frame:  crc32c u32 | payload length u32 | lsn u64 | payload | zero pad to 8
//   (the last frame of each write is padded with zero entries to a 512 B boundary)
//           (crc over bytes 4 .. 16 + length: length, lsn and payload)
//   payload: entries, each  type u8 | body  (LogEntry below)
//
// LSNs count logged rounds: 1, 2, 3, ... without gaps across segments.
//
// When the writer has started a segment and its first write is synced, the
// segment that held the log before it gets a continuation frame (LSN 0, one
// sector, entry kNext) at the first sector boundary after its last frame:
// the new segment's slot, seq and first LSN. So the segment that holds the
// newest rounds is named by another file, and recovery refuses its loss
// (engine/README.md invariant 8).
#pragma once

#include <cstdint>
#include <string>

namespace solo::internal {

inline constexpr char kSegmentMagic[8] = {'S', 'O', 'L', 'O', 'W', 'A', 'L', '1'};
// 2: variable-length integer keys; 3: column patches (kPatch); 4: the
// database's id in the header; 5: continuation frames (kNext). This build
// writes version 5 and reads 4 and 5: a version 4 segment is a version 5
// one without continuation frames (nothing else changed), so a database
// written before them opens, with the old segments' successors unchecked.
// An older segment carries no id, so nothing could tell whether it belongs
// to this database (refused with its version, never misread).
inline constexpr uint32_t kLogVersion = 5;
inline constexpr uint32_t kOldestReadableLogVersion = 4;
inline constexpr uint32_t kSegmentHeaderBytes = 64;
inline constexpr uint32_t kFrameHeaderBytes = 16;
inline constexpr uint32_t kFrameAlign = 8;
// A frame's payload is at most this long (a round larger than this fails).
inline constexpr uint32_t kMaxFramePayload = 1u << 30;

// Segment header offsets.
inline constexpr uint32_t kSegMagicOff = 0;      // 8 bytes "SOLOWAL1"
inline constexpr uint32_t kSegVersionOff = 8;    // u32
inline constexpr uint32_t kSegHeaderSizeOff = 12;  // u32 = 64
inline constexpr uint32_t kSegSeqOff = 16;       // u64: incarnation number, +1 per (re)start
inline constexpr uint32_t kSegFirstLsnOff = 24;  // u64: LSN of the first frame
inline constexpr uint32_t kSegBytesOff = 32;     // u64: the file's preallocated size
inline constexpr uint32_t kSegDbIdOff = 40;      // u64: the database id (database_id.h)
inline constexpr uint32_t kSegCrcOff = 60;       // u32: crc32c of bytes 0..60

enum class LogEntry : uint8_t {
  kPadding = 0,      // the rest of the payload is zeros (the write ends on a sector boundary)
  kPut = 1,          // table u32 | key bytes | row bytes      (insert or replace)
  kDelete = 2,       // table u32 | key bytes
  kCreateTable = 3,  // id u32 | table schema
  kCreateIndex = 4,  // id u32 | index schema
  kDropIndex = 5,    // id u32
  kDropTable = 6,    // id u32
  kPatch = 7,  // table u32 | key bytes | column patch (row_patch.h): an update of some columns
  kNext = 8,   // only in a continuation frame (LSN 0): see kNext* below
};
// The last entry type of a round's frame (kNext is none).
inline constexpr uint8_t kLastLogEntry = static_cast<uint8_t>(LogEntry::kPatch);

// A continuation frame: an ordinary frame header with LSN 0 (no round has
// it), payload kContinuationBytes - kFrameHeaderBytes: type kNext, then
// these fields (offsets in the payload), then zeros.
inline constexpr uint32_t kContinuationBytes = 512;  // one sector
inline constexpr uint32_t kNextOwnSeqOff = 1;        // u64: seq of the segment it is in
inline constexpr uint32_t kNextSlotOff = 9;          // u32: the next segment's slot
inline constexpr uint32_t kNextSeqOff = 13;          // u64: its seq
inline constexpr uint32_t kNextFirstLsnOff = 21;     // u64: its first LSN

// Each write of the log ends on a sector boundary (the last frame is padded).
inline constexpr uint32_t kSectorBytes = 512;

inline uint64_t align_frame(uint64_t bytes) { return (bytes + kFrameAlign - 1) & ~uint64_t{kFrameAlign - 1}; }
inline uint64_t align_sector(uint64_t bytes) { return (bytes + kSectorBytes - 1) & ~uint64_t{kSectorBytes - 1}; }
inline uint64_t align_page(uint64_t bytes) { return (bytes + 4095) & ~uint64_t{4095}; }

// "wal-000003.log"
std::string segment_name(uint32_t slot);
// True and *slot set if `name` is a segment's name.
bool parse_segment_name(const std::string& name, uint32_t* slot);

}  // namespace solo::internal
