// Little-endian integers, LEB128 varints and schemas, as written into the log
// and checkpoint files (engine/README.md "Durability"). Pure functions; any
// thread. Readers never trust their input: every get_* checks bounds.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "solo/schema.h"
#include "solo/status.h"

namespace solo::internal {

inline void put_u32(std::string* out, uint32_t value) {
  char bytes[4];
  std::memcpy(bytes, &value, 4);  // x86-64: little-endian
  out->append(bytes, 4);
}
inline void put_u64(std::string* out, uint64_t value) {
  char bytes[8];
  std::memcpy(bytes, &value, 8);
  out->append(bytes, 8);
}
inline void store_u32(char* at, uint32_t value) { std::memcpy(at, &value, 4); }
inline void store_u64(char* at, uint64_t value) { std::memcpy(at, &value, 8); }
inline uint32_t load_u32(const char* at) {
  uint32_t value;
  std::memcpy(&value, at, 4);
  return value;
}
inline uint64_t load_u64(const char* at) {
  uint64_t value;
  std::memcpy(&value, at, 8);
  return value;
}

inline void put_varint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}
inline void put_bytes(std::string* out, std::string_view bytes) {
  put_varint(out, bytes.size());
  out->append(bytes);
}

// The same encodings written at a raw position (for records whose size is
// known first: one resize, then plain stores). Each returns the end.
inline size_t varint_size(uint64_t value) {
  size_t size = 1;
  for (; value >= 0x80; value >>= 7) size++;
  return size;
}
inline size_t bytes_size(std::string_view bytes) { return varint_size(bytes.size()) + bytes.size(); }
inline char* write_varint(char* dst, uint64_t value) {
  while (value >= 0x80) {
    *dst++ = static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  *dst++ = static_cast<char>(value);
  return dst;
}
inline char* write_u32(char* dst, uint32_t value) {
  std::memcpy(dst, &value, 4);  // x86-64: little-endian
  return dst + 4;
}
// Copies `size` bytes, sizeof(Word) <= size <= 2 * sizeof(Word), as the
// first and the last Word (which may overlap): two loads and two stores.
template <typename Word>
inline void copy_head_tail(char* dst, const char* src, size_t size) {
  Word head;
  Word tail;
  std::memcpy(&head, src, sizeof(Word));
  std::memcpy(&tail, src + size - sizeof(Word), sizeof(Word));
  std::memcpy(dst, &head, sizeof(Word));
  std::memcpy(dst + size - sizeof(Word), &tail, sizeof(Word));
}
// Copies `size` bytes to `dst` (not overlapping `src`). Up to 16 bytes
// (a key, a column's value) in two loads and two stores, which may overlap:
// a memcpy call of a size not known here costs more than such a copy.
inline char* write_raw(char* dst, const char* src, size_t size) {
  if (size >= 8 && size <= 16) {
    copy_head_tail<uint64_t>(dst, src, size);
  } else if (size >= 4 && size < 8) {
    copy_head_tail<uint32_t>(dst, src, size);
  } else if (size < 4) {
    for (size_t byte_idx = 0; byte_idx < size; ++byte_idx) dst[byte_idx] = src[byte_idx];
  } else {
    std::memcpy(dst, src, size);
  }
  return dst + size;
}
inline char* write_bytes(char* dst, std::string_view bytes) {
  dst = write_varint(dst, bytes.size());
  return write_raw(dst, bytes.data(), bytes.size());
}

// A cursor over untrusted bytes. Every get_* returns false (and sets failed)
// when the input is too short or malformed. Inline: recovery calls them
// for every field of every row it reads (out of line they were ~6% of a
// recovery's samples).
struct ByteReader {
  std::string_view in;
  size_t pos = 0;
  bool failed = false;

  bool at_end() const { return pos >= in.size(); }
  bool get_u8(uint8_t* value) {
    if (failed || in.size() - pos < 1) return !(failed = true);
    *value = static_cast<uint8_t>(in[pos++]);
    return true;
  }
  bool get_u32(uint32_t* value) {
    if (failed || in.size() - pos < 4) return !(failed = true);
    *value = load_u32(in.data() + pos);
    pos += 4;
    return true;
  }
  bool get_u64(uint64_t* value) {
    if (failed || in.size() - pos < 8) return !(failed = true);
    *value = load_u64(in.data() + pos);
    pos += 8;
    return true;
  }
  bool get_varint(uint64_t* value) {
    // One byte (a value below 128) is the common case.
    if (!failed && pos < in.size() && (static_cast<uint8_t>(in[pos]) & 0x80) == 0) {
      *value = static_cast<uint8_t>(in[pos++]);
      return true;
    }
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t byte;
      if (!get_u8(&byte)) return false;
      *value |= uint64_t{byte & 0x7Fu} << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return !(failed = true);
  }
  bool get_bytes(std::string_view* bytes) {
    uint64_t size;
    if (!get_varint(&size)) return false;
    if (in.size() - pos < size) return !(failed = true);
    *bytes = in.substr(pos, size);
    pos += size;
    return true;
  }
};

void put_table_schema(std::string* out, const TableSchema& schema);
void put_index_schema(std::string* out, const IndexSchema& schema);
bool get_table_schema(ByteReader* in, TableSchema* schema);
bool get_index_schema(ByteReader* in, IndexSchema* schema);

// Corruption refusing a sound header of a format version this build does
// not read: "FILE at offset N was written by an older (newer) format version
// V; this build reads version M" (or "versions A to B"). `file` is the
// file's kind and path ("log segment /db/wal-000000.log").
Status format_version_refused(const std::string& file, uint64_t offset, uint32_t found,
                              uint32_t oldest_read, uint32_t newest_read);

}  // namespace solo::internal
