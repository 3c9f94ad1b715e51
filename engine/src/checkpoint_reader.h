// Reading a checkpoint file: header, then every block with its CRC checked,
// handed to `apply` in file order; the file must end with an intact kEnd
// block. Any damage is Corruption naming the file and offset (a checkpoint
// is renamed into place only once synced, so damage is never a torn tail).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "checkpoint_format.h"
#include "solo/file_system.h"

namespace solo::internal {

// *block: the block as read, its type byte and then its body; `apply` may
// take the bytes (swap in another string: its capacity, and its size, serve
// the next block without a new allocation or zero-fill). offset: the
// block's offset in the file.
using ApplyBlock = std::function<Status(CheckpointBlock type, std::string* block, uint64_t offset)>;

// Corruption "damaged checkpoint PATH at offset N: WHAT", the form every
// checkpoint refusal takes (the reader, the row key check, the loader).
Status checkpoint_damaged(const std::string& path, uint64_t offset, const std::string& what);

// What a checkpoint's header says.
struct CheckpointHeader {
  uint64_t lsn = 0;    // the last round it holds
  uint64_t db_id = 0;  // the database it belongs to (database_id.h)
};

// Reads and checks the header of the checkpoint at `path` (magic, CRC,
// format version) into *header. Corruption naming the file if it is
// damaged or of a format version this build does not read.
Status read_checkpoint_header(File* file, const std::string& path, CheckpointHeader* header);

// Sets *lsn to the last round the checkpoint holds. Checks the header as
// read_checkpoint_header does; the caller checks its database id before.
Status read_checkpoint(FileSystem* fs, const std::string& path, uint64_t* lsn,
                       const ApplyBlock& apply);

}  // namespace solo::internal
