#include "solo/sql/ast.h"

namespace solo::sql {

// Out of line: these own a SelectStmt, complete only here.
InSubqueryExpr::~InSubqueryExpr() = default;
ExistsExpr::~ExistsExpr() = default;
SubqueryExpr::~SubqueryExpr() = default;
SubqueryTableRef::~SubqueryTableRef() = default;

std::string_view StatementKindName(StatementKind kind) {
  switch (kind) {
    case StatementKind::kSelect:
      return "SELECT";
    case StatementKind::kInsert:
      return "INSERT";
    case StatementKind::kUpdate:
      return "UPDATE";
    case StatementKind::kDelete:
      return "DELETE";
    case StatementKind::kCreateTable:
      return "CREATE TABLE";
    case StatementKind::kCreateIndex:
      return "CREATE INDEX";
    case StatementKind::kDropTable:
      return "DROP TABLE";
    case StatementKind::kDropIndex:
      return "DROP INDEX";
    case StatementKind::kBegin:
      return "BEGIN";
    case StatementKind::kCommit:
      return "COMMIT";
    case StatementKind::kRollback:
      return "ROLLBACK";
    case StatementKind::kExplain:
      return "EXPLAIN";
  }
  return "statement";
}

}  // namespace solo::sql
