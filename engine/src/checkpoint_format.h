// The checkpoint file format (byte tables in engine/README.md "Checkpoint").
//
//   checkpoint-<lsn, 20 digits>.ckpt, written as .tmp, synced, renamed, dir synced.
//   header (64 bytes), then blocks:
//   block:  crc32c u32 | length u32 | type u8 | body     (crc over bytes 4 .. 8 + length)
//   complete iff the last block is kEnd and every block's crc holds.
#pragma once

#include <cstdint>
#include <string>

namespace solo::internal {

inline constexpr char kCheckpointMagic[8] = {'S', 'O', 'L', 'O', 'C', 'K', 'P', '1'};
// 2: variable-length integer keys; 3: the database's id in the header.
// This build reads version 3 only (an older file carries no id).
inline constexpr uint32_t kCheckpointVersion = 3;
inline constexpr uint32_t kCheckpointHeaderBytes = 64;
inline constexpr uint32_t kBlockHeaderBytes = 8;
// Rows blocks are cut at about this size.
inline constexpr uint32_t kRowsBlockBytes = 256 * 1024;
inline constexpr uint32_t kMaxBlockBytes = 1u << 30;

// Header offsets.
inline constexpr uint32_t kCkpMagicOff = 0;        // 8 bytes "SOLOCKP1"
inline constexpr uint32_t kCkpVersionOff = 8;      // u32
inline constexpr uint32_t kCkpHeaderSizeOff = 12;  // u32 = 64
inline constexpr uint32_t kCkpLsnOff = 16;         // u64: last log round included
inline constexpr uint32_t kCkpGenOff = 24;         // u64: generation of the snapshot
inline constexpr uint32_t kCkpTreesOff = 32;       // u32: catalog entries (trees)
inline constexpr uint32_t kCkpDbIdOff = 40;        // u64: the database id (database_id.h)
inline constexpr uint32_t kCkpCrcOff = 60;         // u32: crc32c of bytes 0..60

enum class CheckpointBlock : uint8_t {
  kTable = 1,    // id u32 | table schema
  kIndex = 2,    // id u32 | index schema
  kDropped = 3,  // id u32 (a dropped table or index keeps its id)
  kRows = 4,     // table u32 | count u32 | count x (key bytes | row bytes)
  kEnd = 5,      // blocks u64 (before this one) | rows u64 | lsn u64
};

// "checkpoint-00000000000000000042.ckpt"
std::string checkpoint_name(uint64_t lsn);
std::string checkpoint_temp_name(uint64_t lsn);
// True and *lsn set if `name` is a complete checkpoint's name (not a .tmp).
bool parse_checkpoint_name(const std::string& name, uint64_t* lsn);
bool is_checkpoint_temp_name(const std::string& name);
// "checkpoint.spare": a superseded checkpoint kept for the next checkpoint
// to overwrite (Options::checkpoint_reuse_file). Its contents mean nothing:
// recovery ignores it.
extern const char kCheckpointSpareName[];

}  // namespace solo::internal
