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
// Long buffers go as three interleaved streams: the crc32 instruction takes
// 3 cycles and issues one per cycle, so one stream uses a third of it (a
// checkpoint spent ~17% of its time in CRC). Three consecutive stripes of
// kStripe bytes are summed at once and joined with the shift below.
constexpr size_t kStripe = 4096;

// The raw register after kStripe zero bytes, from any register value: a
// linear map, so four tables of its value for each byte of the register.
struct StripeShift {
  uint32_t t[4][256];
  StripeShift() {
    static const unsigned char zeros[kStripe] = {};
    for (int byte_idx = 0; byte_idx < 4; ++byte_idx) {
      for (uint32_t byte = 0; byte < 256; ++byte) {
        t[byte_idx][byte] = extend_table(byte << (8 * byte_idx), zeros, kStripe);
      }
    }
  }
  uint32_t operator()(uint32_t crc) const {
    return t[0][crc & 0xFF] ^ t[1][(crc >> 8) & 0xFF] ^ t[2][(crc >> 16) & 0xFF] ^ t[3][crc >> 24];
  }
};

const StripeShift& stripe_shift() {
  static const StripeShift instance;
  return instance;
}

__attribute__((target("sse4.2"))) uint32_t extend_sse42(uint32_t crc, const unsigned char* data,
                                                        size_t size) {
  uint64_t crc64 = crc;
  if (size >= 3 * kStripe) {
    const StripeShift& shift = stripe_shift();
    while (size >= 3 * kStripe) {
      uint64_t first = crc64, second = 0, third = 0;
      for (size_t off = 0; off < kStripe; off += 8) {
        uint64_t word1, word2, word3;
        std::memcpy(&word1, data + off, 8);
        std::memcpy(&word2, data + kStripe + off, 8);
        std::memcpy(&word3, data + 2 * kStripe + off, 8);
        first = _mm_crc32_u64(first, word1);
        second = _mm_crc32_u64(second, word2);
        third = _mm_crc32_u64(third, word3);
      }
      // crc(A B C) = shift(shift(crc(A)) ^ crc0(B)) ^ crc0(C), crc0 from a zero register.
      crc64 = shift(shift(static_cast<uint32_t>(first)) ^ static_cast<uint32_t>(second)) ^
              static_cast<uint32_t>(third);
      data += 3 * kStripe;
      size -= 3 * kStripe;
    }
  }
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
