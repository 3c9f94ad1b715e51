// UTF-8 validation of text entering the SQL layer (statement text and text
// parameters), which PostgreSQL refuses with 22021 when it is not valid UTF-8
// or holds a NUL byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace solo::sql {

// Returns the byte offset of the first sequence of text that is not valid
// UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF) or is a NUL byte; npos if there is none. ASCII runs are checked
// eight bytes at a time. Any thread.
size_t FindInvalidUtf8(std::string_view text);

// Bytes of the UTF-8 character whose first byte is `lead`, for text already
// checked by FindInvalidUtf8 (1 for ASCII, and for a byte that starts no
// sequence). Any thread.
inline size_t Utf8CharLength(char lead) {
  const auto byte = static_cast<unsigned char>(lead);
  if (byte < 0xC0) return 1;
  if (byte < 0xE0) return 2;
  if (byte < 0xF0) return 3;
  return 4;
}

// The UTF-8 characters of `text`: its bytes that are not continuation bytes
// (10xxxxxx), as length() and CHAR(n)'s padding count them. Any thread.
// Eight bytes at a time: a byte's bit 7 set and bit 6 clear marks it, and
// the marks are summed by one multiply (CHAR(n) results are counted for
// their padding on every read; TPC-C's S_DIST_xx is 24 bytes).
inline size_t Utf8Characters(std::string_view text) {
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  size_t continuations = 0;
  size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + at, 8);
    const uint64_t marks = (word & ~(word << 1) & kHighBits) >> 7;  // one bit per byte
    continuations += (marks * 0x0101010101010101ull) >> 56;
  }
  for (; at < text.size(); ++at)
    continuations += (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  return text.size() - continuations;
}

// The bytes of the first `characters` UTF-8 characters of `text` (all of it
// if it has fewer), counting characters as Utf8CharLength does. Any thread.
inline size_t Utf8PrefixBytes(std::string_view text, size_t characters) {
  size_t at = 0;
  for (; characters > 0 && at < text.size(); --characters) at += Utf8CharLength(text[at]);
  return at < text.size() ? at : text.size();
}

// The most characters of a token that an error message quotes ("syntax
// error at or near ..."): a 10 MB literal is not repeated whole.
inline constexpr size_t kMaxQuotedToken = 60;

// `text` for an error message: all of it if it has at most kMaxQuotedToken
// characters, else its first kMaxQuotedToken and "...". Any thread.
inline std::string QuotedTokenText(std::string_view text) {
  size_t bytes = Utf8PrefixBytes(text, kMaxQuotedToken);
  if (bytes == text.size()) return std::string(text);
  return std::string(text.substr(0, bytes)) + "...";
}

// PostgreSQL's message for the invalid sequence at `offset` of text (as
// found by FindInvalidUtf8): invalid byte sequence for encoding "UTF8": 0xc3 0x28
std::string InvalidUtf8Message(std::string_view text, size_t offset);

}  // namespace solo::sql
