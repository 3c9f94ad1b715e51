// The lexer: SQL text to tokens. See sql/README.md, "Lexical structure".
#pragma once

#include <string_view>
#include <vector>

#include "solo/sql/result.h"
#include "solo/sql/token.h"

namespace solo::sql {

// Splits sql into tokens; the last token is always TokenKind::kEnd, placed at
// the end of the text. Whitespace and comments (-- to end of line, and
// /* */, which nest) are dropped.
//
// On failure returns a SqlError with SqlState::kSyntaxError at the offending
// character: an unterminated string, quoted identifier or comment; an empty
// quoted identifier; a character that starts no token; a number followed
// directly by a letter; a '$' without digits. A parameter $0 gives
// kUndefinedParameter and $n above 65535 kProgramLimitExceeded. Text that is
// not valid UTF-8 or holds a NUL byte (anywhere, comments too) gives
// kCharacterNotInRepertoire (22021) at its first bad byte.
//
// Token::source views point into sql, which must outlive the tokens.
// Any thread; no shared state.
Result<std::vector<Token>> Tokenize(std::string_view sql);

// The highest parameter number the lexer accepts in $n.
inline constexpr uint32_t kMaxParameterNumber = 65535;

}  // namespace solo::sql
