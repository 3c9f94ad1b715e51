#include "utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace solo::sql {
namespace {

// The length of the sequence a lead byte announces (1 for an ASCII byte, 0
// for a byte no sequence starts with).
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;  // a continuation byte, or C0/C1 (overlong)
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF5) return 4;
  return 0;  // above U+10FFFF
}

// True if the `length` bytes at text[at] are one valid UTF-8 character.
bool ValidSequence(std::string_view text, size_t at, size_t length) {
  if (length == 0 || at + length > text.size()) return false;
  auto byte = [&](size_t idx) { return static_cast<unsigned char>(text[at + idx]); };
  if (length == 1) return byte(0) != 0;
  for (size_t idx = 1; idx < length; ++idx) {
    if ((byte(idx) & 0xC0) != 0x80) return false;
  }
  // The second byte's range where the lead alone does not rule out overlong
  // forms, surrogates or code points above U+10FFFF.
  switch (byte(0)) {
    case 0xE0:
      return byte(1) >= 0xA0;
    case 0xED:
      return byte(1) < 0xA0;
    case 0xF0:
      return byte(1) >= 0x90;
    case 0xF4:
      return byte(1) < 0x90;
    default:
      return true;
  }
}

}  // namespace

size_t FindInvalidUtf8(std::string_view text) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  size_t at = 0;
  while (at < text.size()) {
    if (at + 8 <= text.size()) {
      uint64_t word;
      std::memcpy(&word, text.data() + at, sizeof word);
      // No byte with the high bit set and no zero byte: eight ASCII characters.
      if (((word | ((word - kOnes) & ~word)) & kHighBits) == 0) {
        at += 8;
        continue;
      }
    }
    size_t length = SequenceLength(static_cast<unsigned char>(text[at]));
    if (!ValidSequence(text, at, length)) return at;
    at += length;
  }
  return std::string_view::npos;
}

std::string InvalidUtf8Message(std::string_view text, size_t offset) {
  size_t length = SequenceLength(static_cast<unsigned char>(text[offset]));
  length = std::max<size_t>(length, 1);
  length = std::min(length, text.size() - offset);
  std::string bytes;
  for (size_t idx = 0; idx < length; ++idx) {
    if (idx > 0) bytes += ' ';
    bytes += fmt::format("0x{:02x}", static_cast<unsigned char>(text[offset + idx]));
  }
  return fmt::format("invalid byte sequence for encoding \"UTF8\": {}", bytes);
}

}  // namespace solo::sql
