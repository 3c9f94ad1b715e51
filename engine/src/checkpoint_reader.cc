#include "checkpoint_reader.h"

#include <cstring>

#include "crc32c.h"
#include "durable_codec.h"

namespace solo::internal {

Status checkpoint_damaged(const std::string& path, uint64_t offset, const std::string& what) {
  return Status::Corruption("damaged checkpoint " + path + " at offset " + std::to_string(offset) +
                            ": " + what);
}

Status read_checkpoint_header(File* file, const std::string& path, CheckpointHeader* header) {
  char bytes[kCheckpointHeaderBytes];
  size_t read = 0;
  Status status = file->read_at(0, kCheckpointHeaderBytes, bytes, &read);
  if (!status.ok()) return status;
  if (read != kCheckpointHeaderBytes ||
      std::memcmp(bytes + kCkpMagicOff, kCheckpointMagic, 8) != 0 ||
      load_u32(bytes + kCkpCrcOff) != crc32c_extend(0, bytes, kCkpCrcOff)) {
    return checkpoint_damaged(path, 0, "bad header");
  }
  // An older version holds no database id (and version 1 other keys).
  const uint32_t version = load_u32(bytes + kCkpVersionOff);
  if (version != kCheckpointVersion) {
    return format_version_refused("checkpoint " + path, kCkpVersionOff, version, kCheckpointVersion,
                                  kCheckpointVersion);
  }
  header->lsn = load_u64(bytes + kCkpLsnOff);
  header->db_id = load_u64(bytes + kCkpDbIdOff);
  return Status::OK();
}

Status read_checkpoint(FileSystem* fs, const std::string& path, uint64_t* lsn,
                       const ApplyBlock& apply) {
  auto opened = fs->open(path, OpenMode::kRead);
  if (!opened.ok()) return opened.status();
  File* file = opened->get();
  auto size = file->size();
  if (!size.ok()) return size.status();
  const uint64_t file_bytes = *size;

  CheckpointHeader header;
  Status status = read_checkpoint_header(file, path, &header);
  if (!status.ok()) return status;
  *lsn = header.lsn;
  size_t read = 0;

  std::string block;
  uint64_t offset = kCheckpointHeaderBytes;
  uint64_t blocks = 0;
  while (true) {
    if (file_bytes - offset < kBlockHeaderBytes) return checkpoint_damaged(path, offset, "no end block");
    char block_header[kBlockHeaderBytes];
    status = file->read_at(offset, kBlockHeaderBytes, block_header, &read);
    if (!status.ok()) return status;
    uint32_t length = load_u32(block_header + 4);
    if (length == 0 || length > kMaxBlockBytes || length > file_bytes - offset - kBlockHeaderBytes) {
      return checkpoint_damaged(path, offset, "bad block length " + std::to_string(length));
    }
    block.resize(length);  // no fill when the string was as long already
    status = file->read_at(offset + kBlockHeaderBytes, length, block.data(), &read);
    if (!status.ok()) return status;
    uint32_t crc = crc32c_extend(0, block_header + 4, 4);
    crc = crc32c_extend(crc, block.data(), length);
    if (read != length || crc != load_u32(block_header)) return checkpoint_damaged(path, offset, "bad checksum");
    auto type = static_cast<CheckpointBlock>(block[0]);
    std::string_view body = std::string_view(block).substr(1);
    if (type == CheckpointBlock::kEnd) {
      ByteReader in{body};
      uint64_t end_blocks, rows, end_lsn;
      if (!in.get_u64(&end_blocks) || !in.get_u64(&rows) || !in.get_u64(&end_lsn) ||
          end_blocks != blocks || end_lsn != *lsn) {
        return checkpoint_damaged(path, offset, "end block does not match the file");
      }
      // A checkpoint file is exactly its blocks (a reused file is cut to
      // them before its sync): anything after the end block is damage.
      const uint64_t end = offset + kBlockHeaderBytes + length;
      if (end != file_bytes) {
        return checkpoint_damaged(path, end,
                                  std::to_string(file_bytes - end) + " bytes after the end block");
      }
      return Status::OK();
    }
    if (type < CheckpointBlock::kTable || type > CheckpointBlock::kRows) {
      return checkpoint_damaged(path, offset, "unknown block type");
    }
    status = apply(type, &block, offset);
    if (!status.ok()) return status;
    blocks++;
    offset += kBlockHeaderBytes + length;
  }
}

}  // namespace solo::internal
