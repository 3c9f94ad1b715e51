// A table row as stored in a leaf: one immutable allocation holding the
// encoded row. Header: the generation it was made in (40 bits) and the row's
// size (24 bits), so that retiring it needs no other lookup.
#pragma once

#include <cstdint>
#include <string_view>

namespace solo::internal {

struct Record {
  uint64_t header_;

  static constexpr uint64_t kGenMask = (uint64_t{1} << 40) - 1;
  static constexpr uint32_t kMaxSize = (1u << 24) - 1;
  static constexpr uint32_t alloc_bytes(uint32_t size) { return 8 + size; }

  uint32_t size() const { return static_cast<uint32_t>(header_ & kMaxSize); }
  uint64_t gen() const { return header_ >> 24; }
  bool made_in(uint64_t gen) const { return (header_ >> 24) == (gen & kGenMask); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  char* data() { return reinterpret_cast<char*>(this + 1); }
  std::string_view view() const { return {data(), size()}; }
  void set_header(uint64_t gen, uint32_t size) { header_ = ((gen & kGenMask) << 24) | size; }
};
static_assert(sizeof(Record) == 8);

}  // namespace solo::internal
