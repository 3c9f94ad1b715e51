// UTF-8 validation of text entering the SQL layer (statement text and text
// parameters), which PostgreSQL refuses with 22021 when it is not valid UTF-8
// or holds a NUL byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace solo::sql {

// Returns the byte offset of the first sequence of text that is not valid
// UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF) or is a NUL byte; npos if there is none. ASCII runs are checked
// eight bytes at a time. Any thread.
size_t FindInvalidUtf8(std::string_view text);

// PostgreSQL's message for the invalid sequence at `offset` of text (as
// found by FindInvalidUtf8): invalid byte sequence for encoding "UTF8": 0xc3 0x28
std::string InvalidUtf8Message(std::string_view text, size_t offset);

}  // namespace solo::sql
