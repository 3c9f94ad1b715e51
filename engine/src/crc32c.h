// CRC32C (Castagnoli), as used by the log and checkpoint formats
// (engine/README.md "Durability"). SSE4.2 instruction when the CPU has it,
// else a table (slicing by 8). Any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace solo::internal {

// Extends `crc` (0 to start) over `data`. crc32c_extend(0, "123456789") == 0xE3069283.
uint32_t crc32c_extend(uint32_t crc, const char* data, size_t size);

// The table version only (tests compare it with the hardware one).
uint32_t crc32c_extend_portable(uint32_t crc, const char* data, size_t size);

inline uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data.data(), data.size()); }

}  // namespace solo::internal
