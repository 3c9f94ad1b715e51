#include <algorithm>
#include <array>
#include <cctype>

#include "solo/sql/token.h"

namespace solo::sql {
namespace {

struct KeywordEntry {
  std::string_view name;  // upper case
  Keyword keyword;
  bool reserved;
};

// Sorted by name at first use, for binary search.
constexpr KeywordEntry kKeywordEntries[] = {
#define SOLO_SQL_KEYWORD_ENTRY(name, reserved) {#name, Keyword::k##name, reserved},
    SOLO_SQL_KEYWORDS(SOLO_SQL_KEYWORD_ENTRY)
#undef SOLO_SQL_KEYWORD_ENTRY
};
constexpr size_t kKeywordCount = std::size(kKeywordEntries);

// kKeywordEntries with names in upper case, sorted by name.
struct KeywordTable {
  std::array<std::string, kKeywordCount> upper_names;
  std::array<size_t, kKeywordCount> sorted;          // indexes into kKeywordEntries
  std::array<size_t, kKeywordCount + 1> by_keyword;  // Keyword -> index

  KeywordTable() {
    for (size_t idx = 0; idx < kKeywordCount; ++idx) {
      std::string upper(kKeywordEntries[idx].name);
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      upper_names[idx] = std::move(upper);
      sorted[idx] = idx;
      by_keyword[static_cast<size_t>(kKeywordEntries[idx].keyword)] = idx;
    }
    std::sort(sorted.begin(), sorted.end(),
              [this](size_t lhs, size_t rhs) { return upper_names[lhs] < upper_names[rhs]; });
  }
};

const KeywordTable& Table() {
  static const KeywordTable table;
  return table;
}

}  // namespace

Keyword LookupKeyword(std::string_view word) {
  constexpr size_t kLongestKeyword = 16;
  if (word.empty() || word.size() > kLongestKeyword) return Keyword::kNone;
  char upper[kLongestKeyword];
  for (size_t idx = 0; idx < word.size(); ++idx) {
    upper[idx] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[idx])));
  }
  std::string_view key(upper, word.size());
  const KeywordTable& table = Table();
  auto it = std::lower_bound(
      table.sorted.begin(), table.sorted.end(), key,
      [&table](size_t idx, std::string_view value) { return table.upper_names[idx] < value; });
  if (it == table.sorted.end() || table.upper_names[*it] != key) return Keyword::kNone;
  return kKeywordEntries[*it].keyword;
}

std::string_view KeywordName(Keyword keyword) {
  if (keyword == Keyword::kNone) return "";
  return Table().upper_names[Table().by_keyword[static_cast<size_t>(keyword)]];
}

bool IsReservedKeyword(Keyword keyword) {
  if (keyword == Keyword::kNone) return false;
  return kKeywordEntries[Table().by_keyword[static_cast<size_t>(keyword)]].reserved;
}

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kIdentifier:
      return "identifier";
    case TokenKind::kQuotedIdentifier:
      return "quoted identifier";
    case TokenKind::kKeyword:
      return "keyword";
    case TokenKind::kString:
      return "string";
    case TokenKind::kInteger:
      return "integer";
    case TokenKind::kDecimal:
      return "decimal";
    case TokenKind::kFloat:
      return "number";
    case TokenKind::kParameter:
      return "parameter";
    case TokenKind::kLeftParen:
      return "'('";
    case TokenKind::kRightParen:
      return "')'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kPercent:
      return "'%'";
    case TokenKind::kConcat:
      return "'||'";
    case TokenKind::kEq:
      return "'='";
    case TokenKind::kNe:
      return "'<>'";
    case TokenKind::kLt:
      return "'<'";
    case TokenKind::kLe:
      return "'<='";
    case TokenKind::kGt:
      return "'>'";
    case TokenKind::kGe:
      return "'>='";
  }
  return "token";
}

}  // namespace solo::sql
