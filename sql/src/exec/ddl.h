// CREATE TABLE, CREATE INDEX, DROP: run on the owner from the statement's AST.
#pragma once

#include <atomic>

#include "solo/sql/ast.h"
#include "solo/sql/system_tables.h"
#include "solo/txn.h"

namespace solo::sql {

// Throws 42501 (PostgreSQL's insufficient_privilege for a system catalog) at
// `pos` if `table` is a system table.
void RefuseSystemTableChange(std::string_view table, SourcePos pos);

// Executes a DDL statement in `txn`. Throws ExecFailure (42P07, 42P01, 42703,
// 42701, 42704, 0A000, 42501, 23505 for a unique index over duplicates;
// 57014 when `cancel`, which may be null, stops CREATE INDEX or DROP in
// the engine's loop over the rows: the engine has undone the call).
void ExecuteDdl(const Statement& statement, WriteTxn* txn, const std::atomic<bool>* cancel);

}  // namespace solo::sql
