#include "solo/sql/lexer.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "utf8.h"

namespace solo::sql {
namespace {

std::vector<Token> Lex(std::string_view sql) {
  Result<std::vector<Token>> tokens = Tokenize(sql);
  INFO(sql);
  REQUIRE(tokens.ok());
  return std::move(tokens).value();
}

std::vector<TokenKind> Kinds(std::string_view sql) {
  std::vector<TokenKind> kinds;
  for (const Token& token : Lex(sql)) kinds.push_back(token.kind);
  return kinds;
}

SqlError LexError(std::string_view sql) {
  Result<std::vector<Token>> tokens = Tokenize(sql);
  INFO(sql);
  REQUIRE_FALSE(tokens.ok());
  return tokens.error();
}

using K = TokenKind;

TEST_CASE("lexer: empty input and comments give only kEnd", "[lexer]") {
  CHECK(Kinds("") == std::vector{K::kEnd});
  CHECK(Kinds("  -- comment\n\t /* block\n comment */ ") == std::vector{K::kEnd});
  CHECK(Kinds("/* outer /* nested */ still comment */ 1") == std::vector{K::kInteger, K::kEnd});
  CHECK(Kinds("1 -- to end of line\n2") == std::vector{K::kInteger, K::kInteger, K::kEnd});
}

TEST_CASE("lexer: identifiers fold to lower case, quoted ones keep case", "[lexer]") {
  auto tokens = Lex("Foo_1 \"Mixed Case\" \"with \"\"quote\"\"\" _x");
  REQUIRE(tokens.size() == 5);
  CHECK(tokens[0].kind == K::kIdentifier);
  CHECK(tokens[0].text == "foo_1");
  CHECK(tokens[0].source == "Foo_1");
  CHECK(tokens[1].kind == K::kQuotedIdentifier);
  CHECK(tokens[1].text == "Mixed Case");
  CHECK(tokens[2].text == "with \"quote\"");
  CHECK(tokens[3].text == "_x");
}

TEST_CASE("lexer: keywords in any case, reserved or not", "[lexer]") {
  auto tokens = Lex("select FROM Where text");
  CHECK(tokens[0].keyword == Keyword::kSelect);
  CHECK(tokens[1].keyword == Keyword::kFrom);
  CHECK(tokens[2].keyword == Keyword::kWhere);
  CHECK(tokens[3].keyword == Keyword::kText);
  CHECK(IsReservedKeyword(Keyword::kSelect));
  CHECK_FALSE(IsReservedKeyword(Keyword::kText));
  CHECK(KeywordName(Keyword::kSmallint) == "SMALLINT");
  CHECK(LookupKeyword("vArChAr") == Keyword::kVarchar);
  CHECK(LookupKeyword("selec") == Keyword::kNone);
  CHECK(LookupKeyword("averyveryverylongwordindeed") == Keyword::kNone);
}

TEST_CASE("lexer: numbers keep their text and exactness", "[lexer]") {
  auto tokens = Lex("42 3.14 .5 7. 1e10 2.5E-3 0012");
  CHECK(tokens[0].kind == K::kInteger);
  CHECK(tokens[0].text == "42");
  CHECK(tokens[1].kind == K::kDecimal);
  CHECK(tokens[1].text == "3.14");
  CHECK(tokens[2].kind == K::kDecimal);
  CHECK(tokens[2].text == ".5");
  CHECK(tokens[3].kind == K::kDecimal);
  CHECK(tokens[3].text == "7.");
  CHECK(tokens[4].kind == K::kFloat);
  CHECK(tokens[5].kind == K::kFloat);
  CHECK(tokens[5].text == "2.5E-3");
  CHECK(tokens[6].text == "0012");
  // A huge integer is still an integer token: range is the binder's business.
  CHECK(Lex("99999999999999999999999")[0].kind == K::kInteger);
}

TEST_CASE("lexer: strings undouble quotes and may span lines", "[lexer]") {
  auto tokens = Lex("'it''s' '' 'a\nb'");
  CHECK(tokens[0].kind == K::kString);
  CHECK(tokens[0].text == "it's");
  CHECK(tokens[1].text.empty());
  CHECK(tokens[2].text == "a\nb");
  CHECK(tokens[2].source == "'a\nb'");
}

TEST_CASE("lexer: parameters", "[lexer]") {
  auto tokens = Lex("? $1 $42");
  CHECK(tokens[0].kind == K::kParameter);
  CHECK(tokens[0].parameter_number == 0);
  CHECK(tokens[1].parameter_number == 1);
  CHECK(tokens[2].parameter_number == 42);
}

TEST_CASE("lexer: operators", "[lexer]") {
  CHECK(Kinds("( ) , ; . + - * / % || = <> != < <= > >=") ==
        std::vector{K::kLeftParen, K::kRightParen, K::kComma, K::kSemicolon, K::kDot, K::kPlus,
                    K::kMinus, K::kStar, K::kSlash, K::kPercent, K::kConcat, K::kEq, K::kNe, K::kNe,
                    K::kLt, K::kLe, K::kGt, K::kGe, K::kEnd});
  // No spaces needed.
  CHECK(Kinds("a||'x'") == std::vector{K::kIdentifier, K::kConcat, K::kString, K::kEnd});
  CHECK(Kinds("1-2") == std::vector{K::kInteger, K::kMinus, K::kInteger, K::kEnd});
  CHECK(Kinds("t.c") == std::vector{K::kIdentifier, K::kDot, K::kIdentifier, K::kEnd});
}

TEST_CASE("lexer: positions are line and column of the first character", "[lexer]") {
  auto tokens = Lex("SELECT a,\n  \"é\" + b\n\t;");
  CHECK(tokens[0].pos == SourcePos{1, 1, 0});
  CHECK(tokens[1].pos == SourcePos{1, 8, 7});
  CHECK(tokens[3].pos == SourcePos{2, 3, 12});
  // "é" is two bytes but one column.
  CHECK(tokens[4].pos.line == 2);
  CHECK(tokens[4].pos.column == 7);
  CHECK(tokens[6].pos.line == 3);
  CHECK(tokens[6].pos.column == 2);
  CHECK(tokens.back().kind == K::kEnd);
  CHECK(tokens.back().pos.offset == 23);
}

TEST_CASE("lexer: errors carry a code and the position of the culprit", "[lexer]") {
  struct Case {
    const char* sql;
    SqlState state;
    uint32_t line;
    uint32_t column;
  };
  const Case cases[] = {
      {"SELECT 'abc", SqlState::kSyntaxError, 1, 8},
      {"SELECT \"abc", SqlState::kSyntaxError, 1, 8},
      {"SELECT \"\"", SqlState::kSyntaxError, 1, 8},
      {"SELECT 1 /* never closed", SqlState::kSyntaxError, 1, 10},
      {"SELECT /* /* */ 1", SqlState::kSyntaxError, 1, 8},
      {"SELECT 1\n  # 2", SqlState::kSyntaxError, 2, 3},
      {"SELECT 12abc", SqlState::kSyntaxError, 1, 8},
      {"SELECT 1.2.3", SqlState::kSyntaxError, 1, 8},
      {"SELECT $", SqlState::kSyntaxError, 1, 8},
      {"SELECT $x", SqlState::kSyntaxError, 1, 8},
      {"SELECT $0", SqlState::kUndefinedParameter, 1, 8},
      {"SELECT $99999999999999999999", SqlState::kProgramLimitExceeded, 1, 8},
      {"SELECT a | b", SqlState::kSyntaxError, 1, 10},
      {"SELECT a ! b", SqlState::kSyntaxError, 1, 10},
      {"SELECT \x01", SqlState::kSyntaxError, 1, 8},
  };
  for (const Case& c : cases) {
    SqlError error = LexError(c.sql);
    INFO(c.sql << " -> " << error.ToString());
    CHECK(error.state() == c.state);
    CHECK(error.pos().line == c.line);
    CHECK(error.pos().column == c.column);
  }
}

TEST_CASE("lexer: text that is not UTF-8 or holds a NUL byte is 22021", "[lexer]") {
  using namespace std::string_view_literals;
  struct Case {
    std::string_view sql;
    uint32_t line;
    uint32_t column;
    const char* bytes;  // the end of the message
  };
  const Case cases[] = {
      {"SELECT 'a\xc3\x28'"sv, 1, 10, ": 0xc3 0x28"},
      {"SELECT 'a\0b'"sv, 1, 10, ": 0x00"},
      {"SELECT 1 -- \xff in a comment"sv, 1, 13, ": 0xff"},
      {"SELECT 'overlong \xc0\xaf'"sv, 1, 18, ": 0xc0"},
      {"SELECT 'surrogate \xed\xa0\x80'"sv, 1, 19, ": 0xed 0xa0 0x80"},
      {"SELECT 'above U+10FFFF \xf4\x90\x80\x80'"sv, 1, 24, ": 0xf4 0x90 0x80 0x80"},
      {"SELECT 'cut short \xe2\x82"sv, 1, 19, ": 0xe2 0x82"},
      {"SELECT 'a long ASCII run before it: \x80'"sv, 1, 37, ": 0x80"},
      {"SELECT '\xc3\xa9',\n '\xff'"sv, 2, 3, ": 0xff"},
  };
  for (const Case& c : cases) {
    SqlError error = LexError(c.sql);
    INFO(error.ToString());
    CHECK(error.code() == "22021");
    CHECK(error.pos().line == c.line);
    CHECK(error.pos().column == c.column);
    CHECK(error.message().starts_with("invalid byte sequence for encoding \"UTF8\""));
    CHECK(error.message().ends_with(c.bytes));
  }
  // Valid sequences of every length pass, and so does a long ASCII text.
  CHECK(Kinds("SELECT 'a \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf'") ==
        std::vector{K::kKeyword, K::kString, K::kEnd});
  CHECK(Kinds("SELECT 'abcdefghijklmnopqrstuvwxyz0123456789'") ==
        std::vector{K::kKeyword, K::kString, K::kEnd});
}

TEST_CASE("Utf8Characters counts the bytes that are not continuation bytes, eight at a time") {
  // Against the byte-by-byte count, on texts of every length up to 40 with a
  // continuation byte (or a byte with bit 6 set, or bit 7 clear) at each
  // position, so every lane of the eight-byte words and the tail are seen.
  auto reference = [](std::string_view text) {
    size_t characters = 0;
    for (char byte : text) characters += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
    return characters;
  };
  const unsigned char kinds[] = {'a', 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0x7F, 0x40, 0x00};
  for (size_t length = 0; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      for (unsigned char kind : kinds) {
        std::string text(length, 'x');
        text[at] = static_cast<char>(kind);
        INFO("length " << length << " byte " << at << " = " << int{kind});
        CHECK(Utf8Characters(text) == reference(text));
      }
    }
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng() % 64, '\0');
    for (char& byte : text) byte = static_cast<char>(rng() & 0xFF);
    CHECK(Utf8Characters(text) == reference(text));
  }
  CHECK(Utf8Characters("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC\xF0\x9F\x98\x80 abcdefgh") == 15);
}

}  // namespace
}  // namespace solo::sql
