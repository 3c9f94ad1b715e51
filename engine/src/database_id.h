// The database's identity (engine/README.md "Database id"): a random 64-bit
// id, never 0, made when a database is first created and written into the
// header of every log segment and checkpoint it writes, so that recovery
// refuses a file copied in from another database instead of loading or
// replaying it. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solo/status.h"

namespace solo::internal {

// A new id: 64 random bits (std::random_device), never 0.
uint64_t new_database_id();

// "0x" and 16 hex digits, as messages show an id.
std::string database_id_text(uint64_t id);

// A file of the directory whose header names a database.
struct IdentifiedFile {
  std::string kind;  // "checkpoint", "log segment"
  std::string path;
  uint32_t offset = 0;  // of the id in its header
  uint64_t db_id = 0;
};

// The id of the database whose files `files` are (its marker, every log
// segment with a valid header and recovery's newest checkpoint), into
// *db_id: the id most of them carry, on a tie the first one's of the tied
// (the caller lists the marker first, made when the database was, then
// segments in slot order, so that the first segment the database made
// decides among them); a new id when `files` is empty (a new database, or
// one of a build before the marker whose segments were never started). Returns Corruption naming
// the first file whose id differs, with its id and the expected one: a file of another database is
// never loaded or replayed.
Status settle_database_id(const std::vector<IdentifiedFile>& files, uint64_t* db_id);

}  // namespace solo::internal
