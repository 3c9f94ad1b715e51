// Recovery (invariant 8): the newest complete checkpoint, then every intact
// log round after it, applied through ordinary write transactions on the
// owner while nothing is logged yet. Any thread but the owner, before the
// database logs anything; it runs two helper threads of its own meanwhile
// (a reader one step ahead of the owner, a prefaulter of pool arenas) and
// joins them before it returns.
#pragma once

#include <string>

#include "log_writer.h"
#include "solo/file_system.h"

namespace solo::internal {

class DbImpl;

// Removes left-over checkpoint .tmp files, settles the database's id
// (database_id.h; a new one for a new database), loads the newest
// checkpoint, replays the log. Returns OK, *state (where the log continues,
// the id, and whether the database has logged) and *marker_found (DIR
// holds the database's marker, database_marker.h; if not, the caller writes
// one once the segment files exist) with its *marker_flags; Corruption naming file and offset for
// damage not at the log's tail, for a file of another format version, for a damaged marker, for a
// marker, checkpoint or segment of another database and for a database
// without its log (a checkpoint with no segment file, or none started
// after a checkpoint of a round >= 1; a marker with no segment file and no
// checkpoint, or with none started and no checkpoint where the marker says
// the database logged; nothing is loaded then); IOError for a failed file
// operation.
Status recover(DbImpl* db, FileSystem* fs, const std::string& dir, LogState* state,
               bool* marker_found, uint32_t* marker_flags);

}  // namespace solo::internal
