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

// Sets *lsn to the last round the checkpoint holds.
Status read_checkpoint(FileSystem* fs, const std::string& path, uint64_t* lsn,
                       const ApplyBlock& apply);

}  // namespace solo::internal
