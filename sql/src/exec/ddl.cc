#include "exec/ddl.h"

#include <fmt/format.h>

#include "exec/eval.h"
#include "exec/plan.h"
#include "exec/value_ops.h"
#include "solo/codec.h"
#include "solo/sql/ast_printer.h"
#include "solo/sql/statement.h"

namespace solo::sql {
namespace {

// PostgreSQL's limit (MaxHeapAttributeNumber); the engine's is higher
// (kMaxTableColumns), with room for the row id column.
constexpr size_t kMaxSqlTableColumns = 1600;
static_assert(kMaxSqlTableColumns + 1 <= kMaxTableColumns);

void CreateTable(const CreateTableStmt& create, WriteTxn* txn) {
  const Catalog& catalog = txn->catalog();
  if (catalog.find_table(create.name.name) != nullptr || catalog.find_index(create.name.name) != nullptr) {
    if (create.if_not_exists) return;
    ThrowSql(SqlState::kDuplicateTable,
             fmt::format("relation \"{}\" already exists", create.name.name), create.name.pos);
  }
  if (create.name.name.starts_with(kSystemTablePrefix)) {
    ThrowSql(SqlState::kInvalidTableDefinition, "names starting with __solo_ are reserved",
             create.name.pos);
  }
  if (create.columns.size() > kMaxSqlTableColumns) {
    ThrowSql(SqlState::kTooManyColumns,
             fmt::format("tables can have at most {} columns", kMaxSqlTableColumns),
             create.columns[kMaxSqlTableColumns].name.pos);
  }
  TableSchema schema;
  schema.name = create.name.name;
  for (const sql::ColumnDef& column_ast : create.columns) {
    for (const solo::ColumnDef& existing : schema.columns) {
      if (existing.name == column_ast.name.name) {
        ThrowSql(SqlState::kDuplicateColumn,
                 fmt::format("column \"{}\" specified more than once", column_ast.name.name),
                 column_ast.name.pos);
      }
    }
    solo::ColumnDef column = ColumnForType(column_ast.type);
    column.name = column_ast.name.name;
    column.not_null = column_ast.not_null || column_ast.primary_key;
    if (column_ast.primary_key) schema.primary_key.push_back(static_cast<uint32_t>(schema.columns.size()));
    schema.columns.push_back(column);
  }
  for (const Identifier& key : create.primary_key) {
    int found = -1;
    for (size_t col = 0; col < schema.columns.size(); ++col) {
      if (schema.columns[col].name == key.name) found = static_cast<int>(col);
    }
    if (found < 0) {
      ThrowSql(SqlState::kUndefinedColumn,
               fmt::format("column \"{}\" named in key does not exist", key.name), key.pos);
    }
    schema.columns[found].not_null = true;
    schema.primary_key.push_back(static_cast<uint32_t>(found));
  }
  if (schema.primary_key.empty()) {
    solo::ColumnDef rowid = solo::ColumnDef::BigInt(std::string(kRowIdColumn), true);
    schema.primary_key.push_back(static_cast<uint32_t>(schema.columns.size()));
    schema.columns.push_back(rowid);
  }
  // Defaults must be constant expressions; check them by evaluating once.
  std::vector<std::pair<uint32_t, std::string>> defaults;
  for (size_t col = 0; col < create.columns.size(); ++col) {
    if (!create.columns[col].default_value) continue;
    CheckDefault(*txn, *create.columns[col].default_value, schema.columns[col]);
    defaults.emplace_back(static_cast<uint32_t>(col), ToSql(*create.columns[col].default_value));
  }
  solo::Result<TableId> created = txn->create_table(schema);
  if (!created.ok()) {
    ThrowSql(SqlState::kInvalidTableDefinition, created.status().message(), create.name.pos);
  }
  if (defaults.empty()) return;
  const TableInfo* defaults_table = txn->catalog().find_table(kDefaultsTable);
  if (defaults_table == nullptr) {
    TableSchema meta;
    meta.name = std::string(kDefaultsTable);
    meta.columns = {solo::ColumnDef::Text("tbl", true), solo::ColumnDef::Integer("col", true),
                    solo::ColumnDef::Text("expr", true)};
    meta.primary_key = {0, 1};
    solo::Result<TableId> made = txn->create_table(meta);
    if (!made.ok()) ThrowSql(SqlState::kInternalError, made.status().ToString());
    defaults_table = txn->catalog().find_table(kDefaultsTable);
  }
  TableId defaults_id = defaults_table->id;
  for (const auto& [col, text] : defaults) {
    Status status = txn->insert(defaults_id, {solo::Value::String(schema.name),
                                              solo::Value::Int(col), solo::Value::String(text)});
    if (!status.ok()) ThrowSql(SqlState::kInternalError, status.ToString());
  }
}

void CreateIndex(const CreateIndexStmt& create, WriteTxn* txn, const std::atomic<bool>* cancel) {
  const Catalog& catalog = txn->catalog();
  const TableInfo* table = catalog.find_table(create.table.name);
  if (table == nullptr) {
    ThrowSql(SqlState::kUndefinedTable, fmt::format("relation \"{}\" does not exist", create.table.name),
             create.table.pos);
  }
  RefuseSystemTableChange(create.table.name, create.table.pos);
  if (catalog.find_index(create.name.name) != nullptr || catalog.find_table(create.name.name) != nullptr) {
    if (create.if_not_exists) return;
    ThrowSql(SqlState::kDuplicateTable, fmt::format("relation \"{}\" already exists", create.name.name),
             create.name.pos);
  }
  IndexSchema schema;
  schema.name = create.name.name;
  schema.table = create.table.name;
  schema.unique = create.unique;
  for (const IndexColumn& column : create.columns) {
    int found = -1;
    for (size_t col = 0; col < table->schema.columns.size(); ++col) {
      if (table->schema.columns[col].name == column.name.name &&
          !IsHiddenColumn(table->schema.columns[col])) {
        found = static_cast<int>(col);
      }
    }
    if (found < 0) {
      ThrowSql(SqlState::kUndefinedColumn, fmt::format("column \"{}\" does not exist", column.name.name),
               column.name.pos);
    }
    schema.columns.push_back(static_cast<uint32_t>(found));
  }
  solo::Result<IndexId> created = txn->create_index(schema, cancel);
  if (!created.ok()) {
    if (created.status().IsCancelled()) ThrowCanceled();  // nothing of the index is left
    if (created.status().IsAlreadyExists()) {
      ThrowSql(SqlState::kUniqueViolation,
               fmt::format("could not create unique index \"{}\": the table has duplicate keys",
                           schema.name));
    }
    ThrowSql(SqlState::kInvalidTableDefinition, created.status().message(), create.name.pos);
  }
}

void Drop(const DropStmt& drop, WriteTxn* txn, const std::atomic<bool>* cancel) {
  const Catalog& catalog = txn->catalog();
  bool is_table = drop.kind == StatementKind::kDropTable;
  bool exists = is_table ? catalog.find_table(drop.name.name) != nullptr
                         : catalog.find_index(drop.name.name) != nullptr;
  if (!exists) {
    if (drop.if_exists) return;
    if (is_table) {
      ThrowSql(SqlState::kUndefinedTable, fmt::format("table \"{}\" does not exist", drop.name.name),
               drop.name.pos);
    }
    ThrowSql(SqlState::kUndefinedObject, fmt::format("index \"{}\" does not exist", drop.name.name),
             drop.name.pos);
  }
  Status status;
  if (is_table) {
    const TableInfo* table = catalog.find_table(drop.name.name);
    RefuseSystemTableChange(drop.name.name, drop.name.pos);
    status = txn->drop_table(table->id, cancel);
    // Its DEFAULT expressions go with it.
    const TableInfo* defaults = txn->catalog().find_table(kDefaultsTable);
    if (status.ok() && defaults != nullptr) {
      std::string prefix;
      std::vector<solo::Value> key = {solo::Value::String(drop.name.name)};
      std::vector<uint32_t> key_columns = {0};
      std::vector<std::string> keys;
      if (append_key(defaults->schema, key_columns, key, &prefix).ok()) {
        solo::Result<Cursor> cursor = txn->scan(defaults->id, KeyRange::Prefix(prefix));
        for (; cursor.ok() && cursor->valid(); cursor->next()) keys.emplace_back(cursor->key());
      }
      for (const std::string& row_key : keys) {
        if (status.ok()) status = txn->erase(defaults->id, row_key);
      }
    }
  } else {
    status = txn->drop_index(catalog.find_index(drop.name.name)->id, cancel);
  }
  if (status.IsCancelled()) ThrowCanceled();  // the engine undid what the drop did
  if (!status.ok()) ThrowSql(SqlState::kInternalError, status.ToString(), drop.pos);
}

}  // namespace

void RefuseSystemTableChange(std::string_view table, SourcePos pos) {
  if (!table.starts_with(kSystemTablePrefix)) return;
  ThrowSql(SqlState::kInsufficientPrivilege,
           fmt::format("permission denied: \"{}\" is a system table", table), pos);
}

void ExecuteDdl(const Statement& statement, WriteTxn* txn, const std::atomic<bool>* cancel) {
  switch (statement.kind) {
    case StatementKind::kCreateTable: CreateTable(statement.As<CreateTableStmt>(), txn); break;
    case StatementKind::kCreateIndex:
      CreateIndex(statement.As<CreateIndexStmt>(), txn, cancel);
      break;
    case StatementKind::kDropTable:
    case StatementKind::kDropIndex:
      Drop(statement.As<DropStmt>(), txn, cancel);
      break;
    default: ThrowSql(SqlState::kInternalError, "not a DDL statement", statement.pos);
  }
}

}  // namespace solo::sql
