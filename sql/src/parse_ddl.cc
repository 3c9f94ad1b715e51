// CREATE TABLE, CREATE INDEX, DROP, and column types.

#include <fmt/format.h>

#include "parser_internal.h"

namespace solo::sql::internal {

StatementPtr Parser::ParseCreate() {
  SourcePos pos = Peek().pos;
  ExpectKeyword(Keyword::kCreate);
  if (AcceptKeyword(Keyword::kTable)) return ParseCreateTable(pos);
  bool unique = AcceptKeyword(Keyword::kUnique);
  if (AcceptKeyword(Keyword::kIndex)) return ParseCreateIndex(pos, unique);
  SyntaxError(Peek(), unique ? "INDEX" : "TABLE, INDEX or UNIQUE INDEX");
}

StatementPtr Parser::ParseCreateTable(SourcePos pos) {
  auto table = std::make_unique<CreateTableStmt>(pos);
  if (AcceptKeyword(Keyword::kIf)) {
    ExpectKeyword(Keyword::kNot);
    ExpectKeyword(Keyword::kExists);
    table->if_not_exists = true;
  }
  table->name = ExpectIdentifier("a table name");
  Expect(TokenKind::kLeftParen);
  bool has_primary_key = false;
  do {
    if (IsKeyword(Keyword::kPrimary)) {
      const Token& primary = Advance();
      ExpectKeyword(Keyword::kKey);
      if (has_primary_key) {
        Fail(
            SqlState::kInvalidTableDefinition,
            fmt::format("multiple primary keys for table \"{}\" are not allowed", table->name.name),
            primary.pos);
      }
      has_primary_key = true;
      Expect(TokenKind::kLeftParen);
      table->primary_key = ParseIdentifierList();
      Expect(TokenKind::kRightParen);
    } else {
      ParseColumnDef(*table, has_primary_key);
    }
  } while (Accept(TokenKind::kComma));
  Expect(TokenKind::kRightParen);
  if (table->columns.empty()) {
    Fail(SqlState::kInvalidTableDefinition, "a table needs at least one column", pos);
  }
  return table;
}

void Parser::ParseColumnDef(CreateTableStmt& table, bool& has_primary_key) {
  ColumnDef column;
  column.name = ExpectIdentifier("a column name or PRIMARY KEY");
  column.type = ParseTypeName();
  // NULL contradicts NOT NULL and PRIMARY KEY (whose columns are NOT NULL),
  // in either order, as in PostgreSQL.
  bool said_null = false;
  auto conflict = [&](SourcePos pos) {
    Fail(SqlState::kSyntaxError,
         fmt::format("conflicting NULL/NOT NULL declarations for column \"{}\" of table \"{}\"",
                     column.name.name, table.name.name),
         pos);
  };
  while (true) {
    const Token& token = Peek();
    if (AcceptKeyword(Keyword::kNot)) {
      ExpectKeyword(Keyword::kNull);
      if (said_null) conflict(token.pos);
      column.not_null = true;
    } else if (AcceptKeyword(Keyword::kNull)) {
      if (column.not_null || column.primary_key) conflict(token.pos);
      said_null = true;
    } else if (AcceptKeyword(Keyword::kDefault)) {
      if (column.default_value) {
        Fail(SqlState::kSyntaxError, "multiple default values specified", token.pos);
      }
      // A literal, a signed number or a parenthesized expression: what both
      // SQLite and PostgreSQL accept without parentheses.
      column.default_value = ParseUnary();
    } else if (AcceptKeyword(Keyword::kPrimary)) {
      ExpectKeyword(Keyword::kKey);
      if (said_null) conflict(token.pos);
      if (has_primary_key) {
        Fail(SqlState::kInvalidTableDefinition,
             fmt::format("multiple primary keys for table \"{}\" are not allowed", table.name.name),
             token.pos);
      }
      has_primary_key = true;
      column.primary_key = true;
    } else {
      break;
    }
  }
  table.columns.push_back(std::move(column));
}

StatementPtr Parser::ParseCreateIndex(SourcePos pos, bool unique) {
  auto index = std::make_unique<CreateIndexStmt>(pos);
  index->unique = unique;
  if (AcceptKeyword(Keyword::kIf)) {
    ExpectKeyword(Keyword::kNot);
    ExpectKeyword(Keyword::kExists);
    index->if_not_exists = true;
  }
  index->name = ExpectIdentifier("an index name");
  ExpectKeyword(Keyword::kOn);
  index->table = ExpectIdentifier("a table name");
  Expect(TokenKind::kLeftParen);
  do {
    IndexColumn column;
    column.name = ExpectIdentifier("a column name");
    if (AcceptKeyword(Keyword::kDesc)) {
      column.descending = true;
    } else {
      AcceptKeyword(Keyword::kAsc);
    }
    index->columns.push_back(std::move(column));
  } while (Accept(TokenKind::kComma));
  Expect(TokenKind::kRightParen);
  return index;
}

StatementPtr Parser::ParseDrop() {
  SourcePos pos = Peek().pos;
  ExpectKeyword(Keyword::kDrop);
  StatementKind kind;
  if (AcceptKeyword(Keyword::kTable)) {
    kind = StatementKind::kDropTable;
  } else if (AcceptKeyword(Keyword::kIndex)) {
    kind = StatementKind::kDropIndex;
  } else {
    SyntaxError(Peek(), "TABLE or INDEX");
  }
  auto drop = std::make_unique<DropStmt>(kind, pos);
  if (AcceptKeyword(Keyword::kIf)) {
    ExpectKeyword(Keyword::kExists);
    drop->if_exists = true;
  }
  drop->name =
      ExpectIdentifier(kind == StatementKind::kDropTable ? "a table name" : "an index name");
  return drop;
}

TypeName Parser::ParseTypeName() {
  const Token& token = Peek();
  TypeName type;
  type.pos = token.pos;
  if (token.kind != TokenKind::kKeyword) SyntaxError(token, "a type name");
  using Kind = TypeName::Kind;
  switch (token.keyword) {
    case Keyword::kSmallint:
      type.kind = Kind::kSmallInt;
      break;
    case Keyword::kInt:
    case Keyword::kInteger:
      type.kind = Kind::kInteger;
      break;
    case Keyword::kBigint:
      type.kind = Kind::kBigInt;
      break;
    case Keyword::kText:
      type.kind = Kind::kText;
      break;
    case Keyword::kTimestamp:
      type.kind = Kind::kTimestamp;
      break;
    case Keyword::kReal:
      type.kind = Kind::kReal;
      break;
    case Keyword::kBoolean:
    case Keyword::kBool:
      type.kind = Kind::kBoolean;
      break;
    case Keyword::kFloat:
      type.kind = Kind::kDouble;
      break;
    case Keyword::kDouble:
      Advance();
      AcceptKeyword(Keyword::kPrecision);
      type.kind = Kind::kDouble;
      return type;
    case Keyword::kDecimal:
    case Keyword::kNumeric: {
      Advance();
      type.kind = Kind::kDecimal;
      // Errors name the type as the user wrote it.
      std::string_view written = token.keyword == Keyword::kDecimal ? "DECIMAL" : "NUMERIC";
      if (Accept(TokenKind::kLeftParen)) {
        SourcePos precision_pos = Peek().pos;
        type.precision = ParseTypeModifier();
        if (type.precision < 1) {
          Fail(SqlState::kInvalidParameterValue,
               fmt::format("{} precision must be at least 1", written), precision_pos);
        }
        type.scale = 0;
        if (Accept(TokenKind::kComma)) {
          SourcePos scale_pos = Peek().pos;
          type.scale = ParseTypeModifier();
          if (type.scale > type.precision) {
            Fail(SqlState::kInvalidParameterValue,
                 fmt::format("{} scale {} must be between 0 and precision {}", written, type.scale,
                             type.precision),
                 scale_pos);
          }
        }
        Expect(TokenKind::kRightParen);
      }
      return type;
    }
    case Keyword::kChar:
    case Keyword::kCharacter:
    case Keyword::kVarchar: {
      Advance();
      type.kind = token.keyword == Keyword::kVarchar ? Kind::kVarchar : Kind::kChar;
      std::string written = token.keyword == Keyword::kVarchar ? "VARCHAR"
                            : token.keyword == Keyword::kChar  ? "CHAR"
                                                               : "CHARACTER";
      if (token.keyword != Keyword::kVarchar && AcceptKeyword(Keyword::kVarying)) {
        type.kind = Kind::kVarchar;
        written += " VARYING";
      }
      if (Accept(TokenKind::kLeftParen)) {
        SourcePos length_pos = Peek().pos;
        type.length = ParseTypeModifier();
        if (type.length < 1) {
          Fail(SqlState::kInvalidParameterValue,
               fmt::format("length for type {} must be at least 1", written), length_pos);
        }
        Expect(TokenKind::kRightParen);
      }
      return type;
    }
    default:
      SyntaxError(token, "a type name");
  }
  Advance();
  return type;
}

int32_t Parser::ParseTypeModifier() {
  const Token& token = Expect(TokenKind::kInteger);
  constexpr size_t kMaxDigits = 9;  // fits int32_t
  size_t first_nonzero = token.text.find_first_not_of('0');
  if (first_nonzero != std::string::npos && token.text.size() - first_nonzero > kMaxDigits) {
    Fail(SqlState::kInvalidParameterValue,
         fmt::format("type modifier {} is out of range", token.text), token.pos);
  }
  return static_cast<int32_t>(std::stol(token.text));
}

}  // namespace solo::sql::internal
