// The database's marker file `solo.db` (engine/README.md "Database
// marker"): written when a database is created (or when a directory of an
// older build is first opened by this one), and rewritten once, when the
// database's first round is durable, to say that it has logged. It says that
// the directory holds a database, and which one (its id, database_id.h), so
// that a database whose log segments were all removed, or (once it has
// logged) all emptied, is refused at open instead of opening as a new, empty
// one. The commit path touches it only at that first round. Pure functions
// of the file system; any thread.
//
//   offset size field
//        0    8 magic "SOLODBID"
//        8    4 format version (1)
//       12    4 file size (32)
//       16    8 database id (never 0)
//       24    4 flags: kMarkerLogged (0 in the markers of builds before
//               session 46, which neither wrote nor read the field)
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
inline constexpr uint32_t kMarkFlagsOff = 24;   // u32: flags
inline constexpr uint32_t kMarkCrcOff = 28;     // u32: crc32c of bytes 0..27

// The database has made a round durable: its log holds rounds, or held
// them until a checkpoint took them. Set before that round is acknowledged.
inline constexpr uint32_t kMarkerLogged = 1;
inline constexpr uint32_t kMarkerKnownFlags = kMarkerLogged;

// Reads the marker at `path` (DIR/solo.db, which exists) into *db_id and
// *flags. Returns Corruption naming it if it is damaged (not exactly 32
// bytes, bad magic, bad CRC, an id of 0, a flag this build does not know)
// or of another format version: a marker is never ignored. IOError if a
// read fails.
Status read_database_marker(FileSystem* fs, const std::string& path, uint64_t* db_id,
                            uint32_t* flags);

// Makes DIR/solo.db for `db_id` with `flags` durable: DIR/solo.db.tmp
// written and synced, renamed over any marker there, and the directory
// synced; a crash leaves the old marker or the new one. IOError naming the
// file if a step fails (the database must not be used then: nothing says it
// exists, or that it logged).
Status write_database_marker(FileSystem* fs, const std::string& dir, uint64_t db_id,
                             uint32_t flags);

}  // namespace solo::internal
