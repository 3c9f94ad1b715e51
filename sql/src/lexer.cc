#include "solo/sql/lexer.h"

#include <fmt/format.h>

#include "utf8.h"

namespace solo::sql {
namespace {

bool IsIdentifierStart(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch >= 0x80;
}

bool IsIdentifierPart(unsigned char ch) {
  return IsIdentifierStart(ch) || (ch >= '0' && ch <= '9');
}

bool IsDigit(unsigned char ch) {
  return ch >= '0' && ch <= '9';
}

char ToLowerAscii(char ch) {
  return (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
}

// Internal error carrier; Tokenize() turns it into a Result.
struct LexError {
  SqlError error;
};

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) { pos_ = SourcePos{1, 1, 0}; }

  // The position of byte `offset` (counted as Bump counts).
  SourcePos PositionAt(size_t offset) {
    while (pos_.offset < offset) Bump();
    return pos_;
  }

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpaceAndComments();
      if (AtEnd()) break;
      tokens.push_back(Next());
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.source = sql_.substr(sql_.size());
    end.pos = pos_;
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  bool AtEnd() const { return pos_.offset >= sql_.size(); }
  unsigned char Peek(size_t ahead = 0) const {
    size_t at = pos_.offset + ahead;
    return at < sql_.size() ? static_cast<unsigned char>(sql_[at]) : 0;
  }

  // Moves one byte forward, keeping line and column.
  void Bump() {
    unsigned char ch = Peek();
    ++pos_.offset;
    if (ch == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else if ((ch & 0xC0) != 0x80) {
      ++pos_.column;  // a UTF-8 continuation byte belongs to the character already counted
    }
  }

  [[noreturn]] void Fail(SourcePos at, std::string message,
                         SqlState state = SqlState::kSyntaxError) {
    throw LexError{SqlError(state, std::move(message), at)};
  }

  void SkipSpaceAndComments() {
    while (!AtEnd()) {
      unsigned char ch = Peek();
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
        Bump();
      } else if (ch == '-' && Peek(1) == '-') {
        while (!AtEnd() && Peek() != '\n') Bump();
      } else if (ch == '/' && Peek(1) == '*') {
        SkipBlockComment();
      } else {
        return;
      }
    }
  }

  // Block comments nest, as in PostgreSQL and the SQL standard.
  void SkipBlockComment() {
    SourcePos start = pos_;
    int depth = 0;
    do {
      if (AtEnd()) Fail(start, "unterminated /* comment");
      if (Peek() == '/' && Peek(1) == '*') {
        ++depth;
        Bump();
        Bump();
      } else if (Peek() == '*' && Peek(1) == '/') {
        --depth;
        Bump();
        Bump();
      } else {
        Bump();
      }
    } while (depth > 0);
  }

  Token Next() {
    Token token;
    token.pos = pos_;
    unsigned char ch = Peek();
    if (IsIdentifierStart(ch)) {
      LexWord(token);
    } else if (IsDigit(ch) || (ch == '.' && IsDigit(Peek(1)))) {
      LexNumber(token);
    } else if (ch == '\'') {
      token.kind = TokenKind::kString;
      token.text = LexQuoted('\'', "unterminated quoted string");
    } else if (ch == '"') {
      token.kind = TokenKind::kQuotedIdentifier;
      token.text = LexQuoted('"', "unterminated quoted identifier");
      if (token.text.empty()) Fail(token.pos, "zero-length delimited identifier");
    } else if (ch == '?') {
      token.kind = TokenKind::kParameter;
      Bump();
    } else if (ch == '$') {
      LexDollarParameter(token);
    } else {
      LexOperator(token);
    }
    token.source = sql_.substr(token.pos.offset, pos_.offset - token.pos.offset);
    return token;
  }

  void LexWord(Token& token) {
    size_t begin = pos_.offset;
    while (!AtEnd() && IsIdentifierPart(Peek())) Bump();
    std::string_view word = sql_.substr(begin, pos_.offset - begin);
    token.text.reserve(word.size());
    for (char ch : word) token.text += ToLowerAscii(ch);
    token.keyword = LookupKeyword(word);
    token.kind = token.keyword == Keyword::kNone ? TokenKind::kIdentifier : TokenKind::kKeyword;
  }

  void LexNumber(Token& token) {
    size_t begin = pos_.offset;
    token.kind = TokenKind::kInteger;
    while (IsDigit(Peek())) Bump();
    if (Peek() == '.') {
      token.kind = TokenKind::kDecimal;
      Bump();
      while (IsDigit(Peek())) Bump();
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      token.kind = TokenKind::kFloat;
      Bump();
      if (Peek() == '+' || Peek() == '-') Bump();
      while (IsDigit(Peek())) Bump();
    }
    if (IsIdentifierPart(Peek()) || Peek() == '.') {
      Fail(token.pos, fmt::format("trailing junk after numeric literal at or near \"{}\"",
                                  QuotedTokenText(sql_.substr(begin, pos_.offset - begin + 1))));
    }
    token.text = std::string(sql_.substr(begin, pos_.offset - begin));
  }

  // Reads a 'string' or "identifier" whose quote character is doubled inside.
  std::string LexQuoted(char quote, std::string_view unterminated_message) {
    SourcePos start = pos_;
    Bump();
    std::string text;
    while (true) {
      if (AtEnd()) Fail(start, std::string(unterminated_message));
      char ch = static_cast<char>(Peek());
      if (ch == quote) {
        if (Peek(1) != static_cast<unsigned char>(quote)) {
          Bump();
          return text;
        }
        Bump();
      }
      text += ch;
      Bump();
    }
  }

  void LexDollarParameter(Token& token) {
    token.kind = TokenKind::kParameter;
    Bump();
    if (!IsDigit(Peek())) Fail(token.pos, "syntax error at or near \"$\"");
    uint64_t number = 0;
    while (IsDigit(Peek())) {
      if (number <= kMaxParameterNumber) number = number * 10 + (Peek() - '0');
      Bump();
    }
    if (IsIdentifierStart(Peek())) Fail(token.pos, "trailing junk after parameter");
    if (number == 0) Fail(token.pos, "there is no parameter $0", SqlState::kUndefinedParameter);
    if (number > kMaxParameterNumber) {
      Fail(token.pos, fmt::format("parameter number too large (at most {})", kMaxParameterNumber),
           SqlState::kProgramLimitExceeded);
    }
    token.parameter_number = static_cast<uint32_t>(number);
  }

  void LexOperator(Token& token) {
    unsigned char ch = Peek();
    unsigned char next = Peek(1);
    auto one = [&](TokenKind kind) {
      token.kind = kind;
      Bump();
    };
    auto two = [&](TokenKind kind) {
      token.kind = kind;
      Bump();
      Bump();
    };
    switch (ch) {
      case '(':
        return one(TokenKind::kLeftParen);
      case ')':
        return one(TokenKind::kRightParen);
      case ',':
        return one(TokenKind::kComma);
      case ';':
        return one(TokenKind::kSemicolon);
      case '.':
        return one(TokenKind::kDot);
      case '+':
        return one(TokenKind::kPlus);
      case '-':
        return one(TokenKind::kMinus);
      case '*':
        return one(TokenKind::kStar);
      case '/':
        return one(TokenKind::kSlash);
      case '%':
        return one(TokenKind::kPercent);
      case '=':
        return one(TokenKind::kEq);
      case '<':
        if (next == '=') return two(TokenKind::kLe);
        if (next == '>') return two(TokenKind::kNe);
        return one(TokenKind::kLt);
      case '>':
        return next == '=' ? two(TokenKind::kGe) : one(TokenKind::kGt);
      case '!':
        if (next == '=') return two(TokenKind::kNe);
        break;
      case '|':
        if (next == '|') return two(TokenKind::kConcat);
        break;
      default:
        break;
    }
    if (ch >= 0x20 && ch < 0x7F) {
      Fail(pos_, fmt::format("syntax error at or near \"{}\"", static_cast<char>(ch)));
    }
    Fail(pos_, fmt::format("unexpected character 0x{:02x}", ch));
  }

  std::string_view sql_;
  SourcePos pos_;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view sql) {
  if (sql.size() >= UINT32_MAX) {
    return SqlError(SqlState::kProgramLimitExceeded, "statement text longer than 4 GiB");
  }
  if (size_t bad = FindInvalidUtf8(sql); bad != std::string_view::npos) {
    return SqlError(SqlState::kCharacterNotInRepertoire, InvalidUtf8Message(sql, bad),
                    Lexer(sql).PositionAt(bad));
  }
  try {
    return Lexer(sql).Run();
  } catch (LexError& failure) {
    return std::move(failure.error);
  }
}

}  // namespace solo::sql
