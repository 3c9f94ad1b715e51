// The database's marker file `solo.db` (engine/README.md "Database
// marker"): written once, when a database is created (or when a directory
// of an older build is first opened by this one), and never rewritten. It
// says that the directory holds a database, and which one (its id,
// database_id.h), so that a database whose log segments were all removed is
// refused at open instead of opening as a new, empty one. Nothing on the
// commit path touches it. Pure functions of the file system; any thread.
//
//   offset size field
//        0    8 magic "SOLODBID"
//        8    4 format version (1)
//       12    4 file size (32)
//       16    8 database id (never 0)
//       24    4 zero
//       28    4 CRC32C of bytes 0..27
#pragma once

#include <cstdint>
#include <string>

#include "solo/file_system.h"
#include "solo/status.h"

namespace solo::internal {

inline constexpr char kMarkerName[] = "solo.db";
// Written, synced, then renamed to kMarkerName: a crash leaves no marker or
// a whole one, never a torn one (which would be refused).
inline constexpr char kMarkerTempName[] = "solo.db.tmp";
inline constexpr char kMarkerMagic[8] = {'S', 'O', 'L', 'O', 'D', 'B', 'I', 'D'};
inline constexpr uint32_t kMarkerVersion = 1;
inline constexpr uint32_t kMarkerBytes = 32;

inline constexpr uint32_t kMarkMagicOff = 0;    // 8 bytes "SOLODBID"
inline constexpr uint32_t kMarkVersionOff = 8;  // u32
inline constexpr uint32_t kMarkSizeOff = 12;    // u32 = 32
inline constexpr uint32_t kMarkDbIdOff = 16;    // u64: the database id
inline constexpr uint32_t kMarkCrcOff = 28;     // u32: crc32c of bytes 0..27

// Reads the marker at `path` (DIR/solo.db, which exists) into *db_id.
// Returns Corruption naming it if it is damaged (not exactly 32 bytes, bad
// magic, bad CRC, an id of 0) or of another format version: a marker is
// never ignored. IOError if a read fails.
Status read_database_marker(FileSystem* fs, const std::string& path, uint64_t* db_id);

// Makes DIR/solo.db for `db_id` durable: DIR/solo.db.tmp written and
// synced, renamed, and the directory synced. IOError naming the file if a
// step fails (the database must not be used then: nothing says it exists).
Status write_database_marker(FileSystem* fs, const std::string& dir, uint64_t db_id);

}  // namespace solo::internal
