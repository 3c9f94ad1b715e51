// CRC32C: hardware (SSE4.2 crc32 instruction) with a table fallback.
#include "crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace solo::internal {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // reflected Castagnoli

struct Tables {
  uint32_t t[8][256];
  Tables() {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      uint32_t crc = byte;
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1)));
      t[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; ++byte) {
      for (int slice = 1; slice < 8; ++slice) {
        t[slice][byte] = (t[slice - 1][byte] >> 8) ^ t[0][t[slice - 1][byte] & 0xFF];
      }
    }
  }
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

uint32_t extend_table(uint32_t crc, const unsigned char* data, size_t size) {
  const Tables& tab = tables();
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);  // little-endian
    word ^= crc;
    crc = tab.t[7][word & 0xFF] ^ tab.t[6][(word >> 8) & 0xFF] ^ tab.t[5][(word >> 16) & 0xFF] ^
          tab.t[4][(word >> 24) & 0xFF] ^ tab.t[3][(word >> 32) & 0xFF] ^
          tab.t[2][(word >> 40) & 0xFF] ^ tab.t[1][(word >> 48) & 0xFF] ^ tab.t[0][word >> 56];
    data += 8;
    size -= 8;
  }
  while (size-- > 0) crc = (crc >> 8) ^ tab.t[0][(crc ^ *data++) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t extend_sse42(uint32_t crc, const unsigned char* data,
                                                        size_t size) {
  uint64_t crc64 = crc;
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    crc64 = _mm_crc32_u64(crc64, word);
    data += 8;
    size -= 8;
  }
  uint32_t crc32 = static_cast<uint32_t>(crc64);
  while (size-- > 0) crc32 = _mm_crc32_u8(crc32, *data++);
  return crc32;
}

bool has_sse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t crc32c_extend(uint32_t crc, const char* data, size_t size) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (has_sse42()) return ~extend_sse42(crc, bytes, size);
#endif
  return ~extend_table(crc, bytes, size);
}

uint32_t crc32c_extend_portable(uint32_t crc, const char* data, size_t size) {
  return ~extend_table(~crc, reinterpret_cast<const unsigned char*>(data), size);
}

}  // namespace solo::internal
