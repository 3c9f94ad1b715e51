// Tokens produced by the lexer (lexer.h) and consumed by the parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "solo/sql/error.h"

namespace solo::sql {

// Every keyword of the dialect: X(Name, reserved). A reserved keyword can never
// be an identifier (unless quoted); an unreserved one (type names, BEGIN, KEY,
// ...) is a keyword only where the grammar expects it and an identifier
// elsewhere, so a column may be called "text" or "key".
// clang-format off
#define SOLO_SQL_KEYWORDS(X) \
  X(All, true) \
  X(And, true) \
  X(As, true) \
  X(Asc, true) \
  X(Begin, false) \
  X(Between, true) \
  X(Bigint, false) \
  X(Bool, false) \
  X(Boolean, false) \
  X(By, true) \
  X(Case, true) \
  X(Cast, true) \
  X(Char, false) \
  X(Character, false) \
  X(Commit, false) \
  X(Create, true) \
  X(Cross, true) \
  X(Decimal, false) \
  X(Default, true) \
  X(Delete, true) \
  X(Desc, true) \
  X(Distinct, true) \
  X(Double, false) \
  X(Drop, true) \
  X(Else, true) \
  X(End, true) \
  X(Escape, false) \
  X(Except, true) \
  X(Exists, true) \
  X(Explain, false) \
  X(False, true) \
  X(First, false) \
  X(Float, false) \
  X(From, true) \
  X(Full, true) \
  X(Group, true) \
  X(Having, true) \
  X(If, false) \
  X(In, true) \
  X(Index, false) \
  X(Inner, true) \
  X(Insert, true) \
  X(Intersect, true) \
  X(Int, false) \
  X(Integer, false) \
  X(Into, true) \
  X(Is, true) \
  X(Join, true) \
  X(Key, false) \
  X(Last, false) \
  X(Left, true) \
  X(Like, true) \
  X(Limit, true) \
  X(Not, true) \
  X(Null, true) \
  X(Nulls, false) \
  X(Numeric, false) \
  X(Offset, true) \
  X(On, true) \
  X(Or, true) \
  X(Order, true) \
  X(Outer, true) \
  X(Precision, false) \
  X(Primary, true) \
  X(Real, false) \
  X(Recursive, false) \
  X(Returning, true) \
  X(Right, true) \
  X(Rollback, false) \
  X(Select, true) \
  X(Set, true) \
  X(Smallint, false) \
  X(Table, true) \
  X(Text, false) \
  X(Then, true) \
  X(Timestamp, false) \
  X(Transaction, false) \
  X(True, true) \
  X(Union, true) \
  X(Unique, true) \
  X(Update, true) \
  X(Using, true) \
  X(Values, true) \
  X(Varchar, false) \
  X(Varying, false) \
  X(When, true) \
  X(Where, true) \
  X(With, true)
// clang-format on

enum class Keyword : uint8_t {
  kNone,
#define SOLO_SQL_KEYWORD_ENUM(name, reserved) k##name,
  SOLO_SQL_KEYWORDS(SOLO_SQL_KEYWORD_ENUM)
#undef SOLO_SQL_KEYWORD_ENUM
};

// Returns the keyword spelled word (any letter case), or Keyword::kNone.
Keyword LookupKeyword(std::string_view word);

// Returns the keyword's spelling in upper case ("" for kNone).
std::string_view KeywordName(Keyword keyword);

// Returns true if keyword can never be an unquoted identifier.
bool IsReservedKeyword(Keyword keyword);

enum class TokenKind : uint8_t {
  kEnd,               // end of input; always the last token
  kIdentifier,        // unquoted name, not a keyword; text folded to lower case
  kQuotedIdentifier,  // "name"; text is the name with "" undoubled, case kept
  kKeyword,           // keyword is set; text is the keyword in lower case
  kString,            // 'text'; text is the contents with '' undoubled
  kInteger,           // 123; text as written
  kDecimal,           // 1.5, .5, 1. (exact); text as written
  kFloat,             // 1e3, 1.5E-2 (approximate); text as written
  kParameter,         // ? (parameter_number 0) or $n (parameter_number n)
  kLeftParen,
  kRightParen,
  kComma,
  kSemicolon,
  kDot,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kConcat,  // ||
  kEq,      // =
  kNe,      // <> or !=
  kLt,
  kLe,
  kGt,
  kGe,
};

// Returns a short description for messages: "identifier", "string", "'('".
std::string_view TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEnd;
  Keyword keyword = Keyword::kNone;  // set when kind == kKeyword
  std::string text;                  // see TokenKind
  std::string_view source;           // the token's bytes in the statement text
  uint32_t parameter_number = 0;     // $n: n; ?: 0
  SourcePos pos;                     // where the token starts
};

}  // namespace solo::sql
