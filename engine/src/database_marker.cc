#include "database_marker.h"

#include <algorithm>
#include <cstring>

#include "crc32c.h"
#include "durable_codec.h"

namespace solo::internal {

namespace {

Status marker_damaged(const std::string& path, uint64_t offset, const std::string& what) {
  return Status::Corruption("damaged database marker " + path + " at offset " +
                            std::to_string(offset) + ": " + what);
}

}  // namespace

Status read_database_marker(FileSystem* fs, const std::string& path, uint64_t* db_id,
                            uint32_t* flags) {
  auto file = fs->open(path, OpenMode::kRead);
  if (!file.ok()) return file.status();
  auto size = (*file)->size();
  if (!size.ok()) return size.status();
  if (*size != kMarkerBytes) {
    return marker_damaged(
        path, std::min<uint64_t>(*size, kMarkerBytes),
        std::to_string(*size) + " bytes, expected " + std::to_string(kMarkerBytes));
  }
  char bytes[kMarkerBytes];
  size_t read = 0;
  Status status = (*file)->read_at(0, kMarkerBytes, bytes, &read);
  if (!status.ok()) return status;
  if (read != kMarkerBytes) return marker_damaged(path, read, "cut short while read");
  if (std::memcmp(bytes + kMarkMagicOff, kMarkerMagic, 8) != 0) {
    return marker_damaged(path, kMarkMagicOff, "bad magic");
  }
  if (load_u32(bytes + kMarkCrcOff) != crc32c_extend(0, bytes, kMarkCrcOff)) {
    return marker_damaged(path, kMarkCrcOff, "bad checksum");
  }
  const uint32_t version = load_u32(bytes + kMarkVersionOff);
  if (version != kMarkerVersion) {
    return format_version_refused("database marker " + path, kMarkVersionOff, version,
                                  kMarkerVersion, kMarkerVersion);
  }
  if (load_u32(bytes + kMarkSizeOff) != kMarkerBytes) {
    return marker_damaged(path, kMarkSizeOff, "bad size field");
  }
  *db_id = load_u64(bytes + kMarkDbIdOff);
  if (*db_id == 0) return marker_damaged(path, kMarkDbIdOff, "database id 0");
  *flags = load_u32(bytes + kMarkFlagsOff);
  if ((*flags & ~kMarkerKnownFlags) != 0) {
    return marker_damaged(path, kMarkFlagsOff,
                          "flags " + std::to_string(*flags) + ", of which this build knows only " +
                              std::to_string(kMarkerKnownFlags));
  }
  return Status::OK();
}

Status write_database_marker(FileSystem* fs, const std::string& dir, uint64_t db_id,
                             uint32_t flags) {
  char bytes[kMarkerBytes];
  std::memset(bytes, 0, kMarkerBytes);
  std::memcpy(bytes + kMarkMagicOff, kMarkerMagic, 8);
  store_u32(bytes + kMarkVersionOff, kMarkerVersion);
  store_u32(bytes + kMarkSizeOff, kMarkerBytes);
  store_u64(bytes + kMarkDbIdOff, db_id);
  store_u32(bytes + kMarkFlagsOff, flags);
  store_u32(bytes + kMarkCrcOff, crc32c_extend(0, bytes, kMarkCrcOff));
  const std::string temp = dir + "/" + kMarkerTempName;
  auto file = fs->open(temp, OpenMode::kCreate);
  if (!file.ok()) return file.status();
  Status status = (*file)->write_at(0, std::string_view(bytes, kMarkerBytes));
  if (status.ok()) status = (*file)->sync();
  file->reset();
  if (status.ok()) status = fs->rename(temp, dir + "/" + kMarkerName);
  if (status.ok()) status = fs->sync_dir(dir);
  return status;
}

}  // namespace solo::internal
