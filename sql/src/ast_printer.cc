#include "solo/sql/ast_printer.h"

#include <fmt/format.h>

#include "precedence.h"
#include "solo/sql/token.h"

namespace solo::sql {
namespace {

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string Take() { return std::move(out_); }

  void Statement(const sql::Statement& statement) {
    switch (statement.kind) {
      case StatementKind::kSelect:
        return Select(statement.As<SelectStmt>());
      case StatementKind::kInsert:
        return Insert(statement.As<InsertStmt>());
      case StatementKind::kUpdate:
        return Update(statement.As<UpdateStmt>());
      case StatementKind::kDelete:
        return Delete(statement.As<DeleteStmt>());
      case StatementKind::kCreateTable:
        return CreateTable(statement.As<CreateTableStmt>());
      case StatementKind::kCreateIndex:
        return CreateIndex(statement.As<CreateIndexStmt>());
      case StatementKind::kDropTable:
      case StatementKind::kDropIndex:
        return Drop(statement.As<DropStmt>());
      case StatementKind::kBegin:
      case StatementKind::kCommit:
      case StatementKind::kRollback:
        out_ += StatementKindName(statement.kind);
        return;
      case StatementKind::kExplain:
        out_ += "EXPLAIN ";
        Statement(*statement.As<ExplainStmt>().statement);
        return;
    }
  }

  // Prints expr, in parentheses if its operator binds looser than required.
  void Expr(const sql::Expr& expr, Precedence required = kPrecOr) {
    Precedence prec = PrecedenceOf(expr);
    bool parens = prec < required || (options_.parenthesize_all && nested_ && prec < kPrecPrimary);
    if (parens) out_ += '(';
    bool was_nested = nested_;
    nested_ = true;
    ExprBody(expr, prec);
    nested_ = was_nested;
    if (parens) out_ += ')';
  }

  void Type(const TypeName& type) {
    using Kind = TypeName::Kind;
    switch (type.kind) {
      case Kind::kSmallInt:
        out_ += "SMALLINT";
        return;
      case Kind::kInteger:
        out_ += "INTEGER";
        return;
      case Kind::kBigInt:
        out_ += "BIGINT";
        return;
      case Kind::kDecimal:
        out_ += "DECIMAL";
        if (type.precision >= 0) out_ += fmt::format("({}, {})", type.precision, type.scale);
        return;
      case Kind::kChar:
      case Kind::kVarchar:
        out_ += type.kind == Kind::kChar ? "CHAR" : "VARCHAR";
        if (type.length >= 0) out_ += fmt::format("({})", type.length);
        return;
      case Kind::kText:
        out_ += "TEXT";
        return;
      case Kind::kTimestamp:
        out_ += "TIMESTAMP";
        return;
      case Kind::kDouble:
        out_ += "DOUBLE PRECISION";
        return;
      case Kind::kReal:
        out_ += "REAL";
        return;
      case Kind::kBoolean:
        out_ += "BOOLEAN";
        return;
    }
  }

 private:
  void Name(std::string_view name) { out_ += QuoteIdentifier(name); }

  template <typename List, typename Fn>
  void Join(const List& list, Fn&& print_one) {
    bool first = true;
    for (const auto& element : list) {
      if (!first) out_ += ", ";
      first = false;
      print_one(element);
    }
  }

  void ExprList(const std::vector<ExprPtr>& list) {
    Join(list, [this](const ExprPtr& element) { Expr(*element); });
  }

  void ExprBody(const sql::Expr& expr, Precedence prec) {
    // Operands of the predicates bind tighter than the predicate itself.
    constexpr Precedence kOperand = kPrecConcat;
    switch (expr.kind) {
      case ExprKind::kLiteral:
        return Literal(expr.As<LiteralExpr>());
      case ExprKind::kParameter:
        out_ += fmt::format("${}", expr.As<ParameterExpr>().number);
        return;
      case ExprKind::kColumnRef: {
        const auto& column = expr.As<ColumnRefExpr>();
        if (!column.table.empty()) {
          Name(column.table);
          out_ += '.';
        }
        Name(column.column);
        return;
      }
      case ExprKind::kUnary: {
        const auto& unary = expr.As<UnaryExpr>();
        if (unary.op == UnaryOp::kNot) {
          out_ += "NOT ";
          Expr(*unary.operand, kPrecNot);
          return;
        }
        out_ += unary.op == UnaryOp::kNegate ? '-' : '+';
        size_t operand_at = out_.size();
        Expr(*unary.operand, kPrecUnary);
        // "- -1", never "--1", which would read as a comment.
        if (operand_at < out_.size() && (out_[operand_at] == '-' || out_[operand_at] == '+')) {
          out_.insert(operand_at, 1, ' ');
        }
        return;
      }
      case ExprKind::kBinary: {
        const auto& binary = expr.As<BinaryExpr>();
        Expr(*binary.left, IsNonAssociative(prec) ? static_cast<Precedence>(prec + 1) : prec);
        out_ += fmt::format(" {} ", BinaryOpText(binary.op));
        Expr(*binary.right, static_cast<Precedence>(prec + 1));
        return;
      }
      case ExprKind::kIsNull: {
        const auto& is_null = expr.As<IsNullExpr>();
        Expr(*is_null.operand, kPrecIs);
        out_ += is_null.negated ? " IS NOT NULL" : " IS NULL";
        return;
      }
      case ExprKind::kBetween: {
        const auto& between = expr.As<BetweenExpr>();
        Expr(*between.operand, kOperand);
        out_ += between.negated ? " NOT BETWEEN " : " BETWEEN ";
        Expr(*between.low, kOperand);
        out_ += " AND ";
        Expr(*between.high, kOperand);
        return;
      }
      case ExprKind::kInList: {
        const auto& in_list = expr.As<InListExpr>();
        Expr(*in_list.operand, kOperand);
        out_ += in_list.negated ? " NOT IN (" : " IN (";
        ExprList(in_list.list);
        out_ += ')';
        return;
      }
      case ExprKind::kInSubquery: {
        const auto& in_subquery = expr.As<InSubqueryExpr>();
        Expr(*in_subquery.operand, kOperand);
        out_ += in_subquery.negated ? " NOT IN (" : " IN (";
        Subquery(*in_subquery.subquery);
        out_ += ')';
        return;
      }
      case ExprKind::kExists:
        out_ += "EXISTS (";
        Subquery(*expr.As<ExistsExpr>().subquery);
        out_ += ')';
        return;
      case ExprKind::kSubquery:
        out_ += '(';
        Subquery(*expr.As<SubqueryExpr>().subquery);
        out_ += ')';
        return;
      case ExprKind::kLike: {
        const auto& like = expr.As<LikeExpr>();
        Expr(*like.operand, kOperand);
        out_ += like.negated ? " NOT LIKE " : " LIKE ";
        Expr(*like.pattern, kOperand);
        if (like.escape) {
          out_ += " ESCAPE ";
          Expr(*like.escape, kOperand);
        }
        return;
      }
      case ExprKind::kCase:
        return Case(expr.As<CaseExpr>());
      case ExprKind::kCast: {
        const auto& cast = expr.As<CastExpr>();
        out_ += "CAST(";
        TopLevel(*cast.operand);
        out_ += " AS ";
        Type(cast.type);
        out_ += ')';
        return;
      }
      case ExprKind::kFunction: {
        const auto& call = expr.As<FunctionExpr>();
        Name(call.name);
        out_ += '(';
        if (call.star) out_ += '*';
        if (call.distinct) out_ += "DISTINCT ";
        bool was_nested = nested_;
        nested_ = false;
        ExprList(call.args);
        nested_ = was_nested;
        out_ += ')';
        return;
      }
    }
  }

  // An expression that stands alone (inside its own delimiters): printed
  // without outer parentheses even with parenthesize_all.
  void TopLevel(const sql::Expr& expr) {
    bool was_nested = nested_;
    nested_ = false;
    Expr(expr);
    nested_ = was_nested;
  }

  void Literal(const LiteralExpr& literal) {
    switch (literal.type) {
      case LiteralExpr::Type::kNull:
        out_ += "NULL";
        return;
      case LiteralExpr::Type::kTrue:
        out_ += "TRUE";
        return;
      case LiteralExpr::Type::kFalse:
        out_ += "FALSE";
        return;
      case LiteralExpr::Type::kString:
        out_ += QuoteString(literal.text);
        return;
      default:
        out_ += literal.text;
        return;
    }
  }

  void Case(const CaseExpr& case_expr) {
    out_ += "CASE";
    if (case_expr.operand) {
      out_ += ' ';
      TopLevel(*case_expr.operand);
    }
    for (const CaseExpr::When& when : case_expr.whens) {
      out_ += " WHEN ";
      TopLevel(*when.condition);
      out_ += " THEN ";
      TopLevel(*when.result);
    }
    if (case_expr.else_result) {
      out_ += " ELSE ";
      TopLevel(*case_expr.else_result);
    }
    out_ += " END";
  }

  void Subquery(const SelectStmt& select) {
    bool was_nested = nested_;
    nested_ = false;
    Select(select);
    nested_ = was_nested;
  }

  // WITH ..., and a space, before a query, INSERT, UPDATE or DELETE.
  void With(const std::vector<SelectStmt::CommonTable>& with) {
    if (with.empty()) return;
    out_ += "WITH ";
    Join(with, [this](const SelectStmt::CommonTable& table) {
      Name(table.name.name);
      if (!table.columns.empty()) {
        out_ += " (";
        Join(table.columns, [this](const Identifier& column) { Name(column.name); });
        out_ += ")";
      }
      out_ += " AS (";
      Subquery(*table.select);
      out_ += ")";
    });
    out_ += " ";
  }

  void Select(const SelectStmt& select) {
    With(select.with);
    if (select.body) {
      out_ += "(";
      Subquery(*select.body);
      out_ += ")";
    } else {
      out_ += select.distinct ? "SELECT DISTINCT " : "SELECT ";
      SelectItems(select.items);
      if (!select.from.empty()) {
        out_ += " FROM ";
        Join(select.from, [this](const TableRefPtr& ref) { TableRef(*ref); });
      }
      if (select.where) {
        out_ += " WHERE ";
        TopLevel(*select.where);
      }
      if (!select.group_by.empty()) {
        out_ += " GROUP BY ";
        Join(select.group_by, [this](const ExprPtr& expr) { TopLevel(*expr); });
      }
      if (select.having) {
        out_ += " HAVING ";
        TopLevel(*select.having);
      }
    }
    for (const SelectStmt::SetArm& arm : select.set_arms) {
      out_ += " ";
      out_ += SetOpKeyword(arm.op);
      out_ += arm.all ? " ALL " : " ";
      const SelectStmt& other = *arm.select;
      const bool parenthesized = !other.set_arms.empty() || !other.order_by.empty() ||
                                 other.limit != nullptr || other.offset != nullptr ||
                                 !other.with.empty() || other.body != nullptr;
      if (parenthesized) out_ += "(";
      Select(other);
      if (parenthesized) out_ += ")";
    }
    if (!select.order_by.empty()) {
      out_ += " ORDER BY ";
      Join(select.order_by, [this](const OrderItem& item) {
        TopLevel(*item.expr);
        if (item.descending) out_ += " DESC";
        if (item.nulls_first) out_ += *item.nulls_first ? " NULLS FIRST" : " NULLS LAST";
      });
    }
    if (select.limit) {
      out_ += " LIMIT ";
      TopLevel(*select.limit);
    }
    if (select.offset) {
      out_ += " OFFSET ";
      TopLevel(*select.offset);
    }
  }

  void Alias(const Identifier& alias) {
    if (alias.name.empty()) return;
    out_ += " AS ";
    Name(alias.name);
  }

  void TableRef(const sql::TableRef& ref) {
    switch (ref.kind) {
      case TableRefKind::kTable: {
        const auto& table = ref.As<BaseTableRef>();
        Name(table.name.name);
        Alias(table.alias);
        return;
      }
      case TableRefKind::kSubquery: {
        const auto& derived = ref.As<SubqueryTableRef>();
        out_ += '(';
        Subquery(*derived.subquery);
        out_ += ')';
        Alias(derived.alias);
        return;
      }
      case TableRefKind::kJoin: {
        const auto& join = ref.As<JoinTableRef>();
        TableRef(*join.left);
        switch (join.type) {
          case JoinType::kInner:
            out_ += " JOIN ";
            break;
          case JoinType::kLeft:
            out_ += " LEFT JOIN ";
            break;
          case JoinType::kRight:
            out_ += " RIGHT JOIN ";
            break;
          case JoinType::kFull:
            out_ += " FULL JOIN ";
            break;
          case JoinType::kCross:
            out_ += " CROSS JOIN ";
            break;
        }
        // Joins are left-deep; a join on the right was in parentheses.
        bool parens = join.right->kind == TableRefKind::kJoin;
        if (parens) out_ += '(';
        TableRef(*join.right);
        if (parens) out_ += ')';
        if (join.condition) {
          out_ += " ON ";
          TopLevel(*join.condition);
        }
        return;
      }
    }
  }

  void Insert(const InsertStmt& insert) {
    With(insert.with);
    out_ += "INSERT INTO ";
    Name(insert.table.name);
    if (!insert.columns.empty()) {
      out_ += " (";
      Join(insert.columns, [this](const Identifier& column) { Name(column.name); });
      out_ += ')';
    }
    if (insert.select) {
      out_ += ' ';
      Select(*insert.select);
      return;
    }
    out_ += " VALUES ";
    Join(insert.rows, [this](const std::vector<ExprPtr>& row) {
      out_ += '(';
      ExprList(row);
      out_ += ')';
    });
  }

  void SelectItems(const std::vector<SelectItem>& items) {
    Join(items, [this](const SelectItem& item) {
      if (item.is_star()) {
        if (!item.star_table.empty()) {
          Name(item.star_table);
          out_ += '.';
        }
        out_ += '*';
        return;
      }
      TopLevel(*item.expr);
      Alias(item.alias);
    });
  }

  void Returning(const std::vector<SelectItem>& items) {
    if (items.empty()) return;
    out_ += " RETURNING ";
    SelectItems(items);
  }

  void Update(const UpdateStmt& update) {
    With(update.with);
    out_ += "UPDATE ";
    Name(update.table.name);
    out_ += " SET ";
    Join(update.assignments, [this](const Assignment& assignment) {
      Name(assignment.column.name);
      out_ += " = ";
      TopLevel(*assignment.value);
    });
    if (update.where) {
      out_ += " WHERE ";
      TopLevel(*update.where);
    }
    Returning(update.returning);
  }

  void Delete(const DeleteStmt& del) {
    With(del.with);
    out_ += "DELETE FROM ";
    Name(del.table.name);
    if (del.where) {
      out_ += " WHERE ";
      TopLevel(*del.where);
    }
    Returning(del.returning);
  }

  void CreateTable(const CreateTableStmt& table) {
    out_ += table.if_not_exists ? "CREATE TABLE IF NOT EXISTS " : "CREATE TABLE ";
    Name(table.name.name);
    out_ += " (";
    Join(table.columns, [this](const ColumnDef& column) {
      Name(column.name.name);
      out_ += ' ';
      Type(column.type);
      if (column.not_null) out_ += " NOT NULL";
      if (column.default_value) {
        // The grammar takes a signed primary after DEFAULT.
        out_ += " DEFAULT ";
        bool was_nested = nested_;
        nested_ = false;
        Expr(*column.default_value, kPrecUnary);
        nested_ = was_nested;
      }
      if (column.primary_key) out_ += " PRIMARY KEY";
    });
    if (!table.primary_key.empty()) {
      out_ += ", PRIMARY KEY (";
      Join(table.primary_key, [this](const Identifier& column) { Name(column.name); });
      out_ += ')';
    }
    out_ += ')';
  }

  void CreateIndex(const CreateIndexStmt& index) {
    out_ += index.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ";
    if (index.if_not_exists) out_ += "IF NOT EXISTS ";
    Name(index.name.name);
    out_ += " ON ";
    Name(index.table.name);
    out_ += " (";
    Join(index.columns, [this](const IndexColumn& column) {
      Name(column.name.name);
      if (column.descending) out_ += " DESC";
    });
    out_ += ')';
  }

  void Drop(const DropStmt& drop) {
    out_ += drop.kind == StatementKind::kDropTable ? "DROP TABLE " : "DROP INDEX ";
    if (drop.if_exists) out_ += "IF EXISTS ";
    Name(drop.name.name);
  }

  const PrintOptions& options_;
  std::string out_;
  bool nested_ = false;  // inside an operator expression (for parenthesize_all)
};

}  // namespace

std::string_view BinaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return "OR";
    case BinaryOp::kAnd:
      return "AND";
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kNe:
      return "<>";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kConcat:
      return "||";
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
  }
  return "?";
}

std::string ToSql(const Statement& statement, const PrintOptions& options) {
  Printer printer(options);
  printer.Statement(statement);
  return printer.Take();
}

std::string ToSql(const Expr& expr, const PrintOptions& options) {
  Printer printer(options);
  printer.Expr(expr);
  return printer.Take();
}

std::string ToSql(const TypeName& type) {
  PrintOptions options;
  Printer printer(options);
  printer.Type(type);
  return printer.Take();
}

std::string QuoteIdentifier(std::string_view name) {
  bool plain =
      !name.empty() && !(name[0] >= '0' && name[0] <= '9') && LookupKeyword(name) == Keyword::kNone;
  for (char ch : name) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) plain = false;
  }
  if (plain) return std::string(name);
  std::string quoted = "\"";
  for (char ch : name) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  quoted += '"';
  return quoted;
}

std::string QuoteString(std::string_view text) {
  std::string quoted = "'";
  for (char ch : text) {
    if (ch == '\'') quoted += '\'';
    quoted += ch;
  }
  quoted += '\'';
  return quoted;
}

}  // namespace solo::sql
