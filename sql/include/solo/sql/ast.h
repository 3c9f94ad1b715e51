// The abstract syntax tree produced by the parser (parser.h) and printed back
// to canonical SQL by ast_printer.h. See sql/README.md, "The AST".
//
// Ownership: every node owns its children through std::unique_ptr; a tree is
// immutable once the parser has returned it. Nodes are plain structs; kind
// tells the concrete type and As<T>() casts to it (asserting the kind).
// Names are folded: an unquoted identifier is lower-cased by the lexer, a
// quoted one keeps its case. Positions point at the node's first token, or for
// an operator at the operator.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "solo/sql/error.h"

namespace solo::sql {

struct SelectStmt;

// A name as written (after folding), with where it was written.
struct Identifier {
  std::string name;
  SourcePos pos;
};

// A column type. Lengths, precision and scale are -1 when not written.
struct TypeName {
  enum class Kind : uint8_t {
    kSmallInt,   // SMALLINT
    kInteger,    // INT, INTEGER
    kBigInt,     // BIGINT
    kDecimal,    // DECIMAL, NUMERIC [(precision [, scale])]
    kChar,       // CHAR, CHARACTER [(length)]
    kVarchar,    // VARCHAR, CHARACTER VARYING [(length)]
    kText,       // TEXT
    kTimestamp,  // TIMESTAMP
    kDouble,     // DOUBLE [PRECISION], FLOAT
    kReal,       // REAL
    kBoolean,    // BOOLEAN, BOOL
  };
  Kind kind = Kind::kInteger;
  int32_t precision = -1;  // kDecimal
  int32_t scale = -1;      // kDecimal
  int32_t length = -1;     // kChar, kVarchar
  SourcePos pos;
};

// ---------------------------------------------------------------------------
// Expressions

enum class ExprKind : uint8_t {
  kLiteral,
  kParameter,
  kColumnRef,
  kUnary,
  kBinary,
  kIsNull,
  kBetween,
  kInList,
  kInSubquery,
  kExists,
  kSubquery,
  kLike,
  kCase,
  kCast,
  kFunction,
};

struct Expr {
  Expr(ExprKind expr_kind, SourcePos source_pos) : kind(expr_kind), pos(source_pos) {}
  virtual ~Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  template <typename T>
  const T& As() const {
    assert(kind == T::kKind);
    return static_cast<const T&>(*this);
  }

  const ExprKind kind;
  SourcePos pos;
};
using ExprPtr = std::unique_ptr<Expr>;

struct LiteralExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kLiteral;
  enum class Type : uint8_t { kNull, kTrue, kFalse, kInteger, kDecimal, kFloat, kString };
  LiteralExpr(SourcePos source_pos, Type literal_type, std::string literal_text)
      : Expr(kKind, source_pos), type(literal_type), text(std::move(literal_text)) {}
  Type type;
  // kInteger, kDecimal, kFloat: the digits as written (unsigned; a minus sign
  // is a UnaryExpr). kString: the contents. Otherwise empty.
  std::string text;
};

// ? or $n. Positional ? are numbered 1, 2, ... by their place in the statement.
struct ParameterExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kParameter;
  ParameterExpr(SourcePos source_pos, uint32_t parameter_number)
      : Expr(kKind, source_pos), number(parameter_number) {}
  uint32_t number;  // 1-based
};

// column or table.column.
struct ColumnRefExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kColumnRef;
  explicit ColumnRefExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  std::string table;  // empty when not qualified
  std::string column;
};

enum class UnaryOp : uint8_t { kNegate, kPlus, kNot };

struct UnaryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kUnary;
  UnaryExpr(SourcePos source_pos, UnaryOp unary_op, ExprPtr operand_expr)
      : Expr(kKind, source_pos), op(unary_op), operand(std::move(operand_expr)) {}
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp : uint8_t {
  kOr,
  kAnd,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kConcat,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
};

struct BinaryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kBinary;
  BinaryExpr(SourcePos source_pos, BinaryOp binary_op, ExprPtr lhs, ExprPtr rhs)
      : Expr(kKind, source_pos), op(binary_op), left(std::move(lhs)), right(std::move(rhs)) {}
  BinaryOp op;
  ExprPtr left;
  ExprPtr right;
};

// operand IS [NOT] NULL
struct IsNullExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kIsNull;
  explicit IsNullExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ExprPtr operand;
  bool negated = false;
};

// operand [NOT] BETWEEN low AND high
struct BetweenExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kBetween;
  explicit BetweenExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ExprPtr operand;
  ExprPtr low;
  ExprPtr high;
  bool negated = false;
};

// operand [NOT] IN (list...)
struct InListExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kInList;
  explicit InListExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ExprPtr operand;
  std::vector<ExprPtr> list;  // never empty
  bool negated = false;
};

// operand [NOT] IN (SELECT ...)
struct InSubqueryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kInSubquery;
  explicit InSubqueryExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ~InSubqueryExpr() override;
  ExprPtr operand;
  std::unique_ptr<SelectStmt> subquery;
  bool negated = false;
};

// EXISTS (SELECT ...); NOT EXISTS is a UnaryExpr kNot over it.
struct ExistsExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kExists;
  explicit ExistsExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ~ExistsExpr() override;
  std::unique_ptr<SelectStmt> subquery;
};

// (SELECT ...) used as a value.
struct SubqueryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kSubquery;
  explicit SubqueryExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ~SubqueryExpr() override;
  std::unique_ptr<SelectStmt> subquery;
};

// operand [NOT] LIKE pattern [ESCAPE escape]
struct LikeExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kLike;
  explicit LikeExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ExprPtr operand;
  ExprPtr pattern;
  ExprPtr escape;  // null when not written
  bool negated = false;
};

// CASE [operand] WHEN ... THEN ... [ELSE ...] END
struct CaseExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kCase;
  explicit CaseExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  struct When {
    ExprPtr condition;  // compared with operand when there is one
    ExprPtr result;
  };
  ExprPtr operand;          // null for a searched CASE
  std::vector<When> whens;  // never empty
  ExprPtr else_result;      // null when not written
};

// CAST(operand AS type)
struct CastExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kCast;
  explicit CastExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  ExprPtr operand;
  TypeName type;
};

// name(args), name(DISTINCT args), name(*). The parser knows no function
// names: aggregates (COUNT, SUM, ...) and scalar functions (COALESCE, SUBSTR,
// ...) are all FunctionExpr, resolved by the binder.
struct FunctionExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::kFunction;
  explicit FunctionExpr(SourcePos source_pos) : Expr(kKind, source_pos) {}
  std::string name;  // folded like an identifier
  std::vector<ExprPtr> args;
  bool distinct = false;
  bool star = false;  // name(*); args is empty
};

// ---------------------------------------------------------------------------
// FROM clause

enum class TableRefKind : uint8_t { kTable, kSubquery, kJoin };

struct TableRef {
  TableRef(TableRefKind ref_kind, SourcePos source_pos) : kind(ref_kind), pos(source_pos) {}
  virtual ~TableRef() = default;
  TableRef(const TableRef&) = delete;
  TableRef& operator=(const TableRef&) = delete;

  template <typename T>
  const T& As() const {
    assert(kind == T::kKind);
    return static_cast<const T&>(*this);
  }

  const TableRefKind kind;
  SourcePos pos;
};
using TableRefPtr = std::unique_ptr<TableRef>;

// table [[AS] alias]
struct BaseTableRef : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kTable;
  explicit BaseTableRef(SourcePos source_pos) : TableRef(kKind, source_pos) {}
  Identifier name;
  Identifier alias;  // name empty when not written
};

// (SELECT ...) [AS] alias
struct SubqueryTableRef : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kSubquery;
  explicit SubqueryTableRef(SourcePos source_pos) : TableRef(kKind, source_pos) {}
  ~SubqueryTableRef() override;
  std::unique_ptr<SelectStmt> subquery;
  Identifier alias;  // required by PostgreSQL, so by us
};

enum class JoinType : uint8_t { kInner, kLeft, kRight, kFull, kCross };

// left [INNER] JOIN right ON condition | left {LEFT | RIGHT | FULL} [OUTER]
// JOIN right ON condition | left CROSS JOIN right. Comma joins are not JoinTableRefs: they
// are the separate items of SelectStmt::from.
struct JoinTableRef : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kJoin;
  explicit JoinTableRef(SourcePos source_pos) : TableRef(kKind, source_pos) {}
  JoinType type = JoinType::kInner;
  TableRefPtr left;
  TableRefPtr right;
  ExprPtr condition;  // null for kCross
};

// ---------------------------------------------------------------------------
// Statements

enum class StatementKind : uint8_t {
  kSelect,
  kInsert,
  kUpdate,
  kDelete,
  kCreateTable,
  kCreateIndex,
  kDropTable,
  kDropIndex,
  kBegin,
  kCommit,
  kRollback,
  kExplain,
};

struct Statement {
  Statement(StatementKind statement_kind, SourcePos source_pos)
      : kind(statement_kind), pos(source_pos) {}
  virtual ~Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // T is a statement type whose kKind is kind, or one whose static
  // Accepts(kind) is true (DropStmt, TransactionStmt).
  template <typename T>
  const T& As() const {
    if constexpr (requires { T::kKind; }) {
      assert(kind == T::kKind);
    } else {
      assert(T::Accepts(kind));
    }
    return static_cast<const T&>(*this);
  }

  const StatementKind kind;
  SourcePos pos;
};
using StatementPtr = std::unique_ptr<Statement>;

struct SelectItem {
  ExprPtr expr;            // null for * and table.*
  std::string star_table;  // table.*: the table; *: empty
  Identifier alias;        // name empty when not written
  SourcePos pos;
  bool is_star() const { return expr == nullptr; }
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  // NULLS FIRST (true) or NULLS LAST (false) as written; not written: NULLs
  // come last ascending and first descending (PostgreSQL).
  std::optional<bool> nulls_first;
};

struct SelectStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kSelect;
  explicit SelectStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  bool distinct = false;
  std::vector<SelectItem> items;  // never empty, unless body is set
  std::vector<TableRefPtr> from;  // comma-separated items; empty without FROM
  ExprPtr where;                  // null when not written
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  ExprPtr limit;
  ExprPtr offset;
  // `(query)` written where this statement's SELECT would be (a statement
  // that begins with a parenthesis, or a parenthesized operand followed by
  // INTERSECT): distinct, items, from, where, group_by and having are then
  // empty, and the query is the first operand of set_arms. Else null.
  std::unique_ptr<SelectStmt> body;
  // `... UNION | INTERSECT | EXCEPT [ALL] arm ...`: the arms after this
  // statement's own SELECT (or body), which is the first, combined left to
  // right. INTERSECT binds tighter than UNION and EXCEPT, so the parser
  // makes `a UNION b INTERSECT c` an arm `UNION (b INTERSECT c)`; a list
  // never holds an INTERSECT arm after a UNION or EXCEPT one. With arms,
  // order_by, limit and offset apply to the whole combination, not to the
  // first arm. An arm written in parentheses may have its own ORDER BY,
  // LIMIT and arms.
  enum class SetOp : uint8_t { kUnion, kIntersect, kExcept };
  struct SetArm {
    SetOp op = SetOp::kUnion;
    bool all = false;  // ALL: keep duplicates (INTERSECT ALL, EXCEPT ALL: count them)
    std::unique_ptr<SelectStmt> select;
  };
  std::vector<SetArm> set_arms;
  // WITH name [(column, ...)] AS (SELECT ...), ...: visible to the whole
  // statement (every arm and subquery), each to the ones after it.
  struct CommonTable {
    Identifier name;
    std::vector<Identifier> columns;  // empty: the query's own names
    std::unique_ptr<SelectStmt> select;
  };
  std::vector<CommonTable> with;
};

// "UNION", "INTERSECT" or "EXCEPT": the printer's and the binder's messages.
inline std::string_view SetOpKeyword(SelectStmt::SetOp op) {
  return op == SelectStmt::SetOp::kUnion       ? "UNION"
         : op == SelectStmt::SetOp::kIntersect ? "INTERSECT"
                                               : "EXCEPT";
}

// INSERT INTO table [(columns)] VALUES (...), ... | INSERT INTO table
// [(columns)] SELECT ...
struct InsertStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kInsert;
  explicit InsertStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  Identifier table;
  std::vector<Identifier> columns;         // empty: all columns in order
  std::vector<std::vector<ExprPtr>> rows;  // VALUES; empty with select
  std::unique_ptr<SelectStmt> select;      // INSERT ... SELECT; else null
  std::vector<SelectStmt::CommonTable> with;  // WITH ... INSERT: visible to select and rows
};

struct Assignment {
  Identifier column;
  ExprPtr value;
};

struct UpdateStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kUpdate;
  explicit UpdateStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  Identifier table;
  std::vector<Assignment> assignments;  // never empty
  ExprPtr where;
  std::vector<SelectItem> returning;  // RETURNING list; empty when not written
  std::vector<SelectStmt::CommonTable> with;  // WITH ... UPDATE: visible to its subqueries
};

struct DeleteStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kDelete;
  explicit DeleteStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  Identifier table;
  ExprPtr where;
  std::vector<SelectItem> returning;  // RETURNING list; empty when not written
  std::vector<SelectStmt::CommonTable> with;  // WITH ... DELETE: visible to its subqueries
};

struct ColumnDef {
  Identifier name;
  TypeName type;
  bool not_null = false;     // NOT NULL (a PRIMARY KEY column is not null too)
  bool primary_key = false;  // column constraint PRIMARY KEY
  ExprPtr default_value;     // DEFAULT ...; null when not written
};

struct CreateTableStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kCreateTable;
  explicit CreateTableStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  bool if_not_exists = false;
  Identifier name;
  std::vector<ColumnDef> columns;  // never empty
  // Table constraint PRIMARY KEY (a, b). The parser allows one primary key
  // per table: either this or one column's primary_key.
  std::vector<Identifier> primary_key;
};

struct IndexColumn {
  Identifier name;
  bool descending = false;
};

struct CreateIndexStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kCreateIndex;
  explicit CreateIndexStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  bool unique = false;
  bool if_not_exists = false;
  Identifier name;
  Identifier table;
  std::vector<IndexColumn> columns;  // never empty
};

struct DropStmt : Statement {
  // kind is kDropTable or kDropIndex.
  DropStmt(StatementKind statement_kind, SourcePos source_pos)
      : Statement(statement_kind, source_pos) {}
  static bool Accepts(StatementKind k) {
    return k == StatementKind::kDropTable || k == StatementKind::kDropIndex;
  }
  bool if_exists = false;
  Identifier name;
};

// BEGIN, COMMIT and ROLLBACK (kind tells which).
struct TransactionStmt : Statement {
  TransactionStmt(StatementKind statement_kind, SourcePos source_pos)
      : Statement(statement_kind, source_pos) {}
  static bool Accepts(StatementKind k) {
    return k == StatementKind::kBegin || k == StatementKind::kCommit ||
           k == StatementKind::kRollback;
  }
};

struct ExplainStmt : Statement {
  static constexpr StatementKind kKind = StatementKind::kExplain;
  explicit ExplainStmt(SourcePos source_pos) : Statement(kKind, source_pos) {}
  StatementPtr statement;  // never an ExplainStmt
};

// Returns "SELECT", "CREATE TABLE", ... for messages and EXPLAIN.
std::string_view StatementKindName(StatementKind kind);

}  // namespace solo::sql
