// Expression evaluation and the execution of SELECT plans. Per-call state
// only (ExecEnv, Frame, SelectRun): plans are never written.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exec/plan.h"
#include "solo/codec.h"
#include "solo/cursor.h"
#include "solo/txn.h"

namespace solo::sql {

// Buffers of one execution that its caller may keep for the next one (a
// ResultSet does): with them, running a point SELECT again allocates nothing.
struct ExecScratch {
  std::vector<Value> slots;
  std::vector<solo::Value> row_values;  // point UPDATE: the assigned values
  std::vector<solo::Value> key_values;
  std::string key;
  std::vector<solo::ColumnView> columns;
};

// How many rows a statement's loops run between two looks at its cancel
// flag: a relaxed load every 1024 rows costs nothing measurable, and a scan
// reads that many in well under a millisecond.
inline constexpr uint32_t kCancelCheckRows = 1024;

// What one statement execution reads: the transaction view, the writer (on
// the owner, else null), the parameters and the caller's cancel flag.
struct ExecEnv {
  const TxnView* view = nullptr;
  WriteTxn* write = nullptr;
  std::span<const Value> params;
  // Set by another thread (or a signal handler) to end the statement with
  // 57014; null: the statement cannot be cancelled, and no loop looks.
  const std::atomic<bool>* cancel = nullptr;
  uint32_t rows_to_cancel_check = kCancelCheckRows;  // CountRowForCancel's countdown
};

// Throws 57014, "canceling statement due to user request" (PostgreSQL's words).
[[noreturn]] void ThrowCanceled();

// Counts one row of a loop a long statement spends its time in (a scan's
// rows, a derived table's rows, an UPDATE's or DELETE's changes, an
// INSERT's rows, a GROUP BY's groups, a sort's comparisons and the sorted
// rows passed on); every kCancelCheckRows rows looks at env->cancel and
// throws 57014 when it is set. Without a flag, one predictable branch.
inline void CountRowForCancel(ExecEnv* env) {
  if (env->cancel == nullptr) return;
  if (--env->rows_to_cancel_check != 0) return;
  env->rows_to_cancel_check = kCancelCheckRows;
  if (env->cancel->load(std::memory_order_relaxed)) ThrowCanceled();
}

// The row being evaluated: its slots and the enclosing query's frame (for
// correlated subqueries).
struct Frame {
  Value* slots = nullptr;
  const Frame* outer = nullptr;
  ExecEnv* env = nullptr;
};

// Evaluates expr. Returns a reference to a slot, parameter or constant when
// it is one, else evaluates into *scratch and returns it. Throws ExecFailure.
const Value& Eval(const BExpr& expr, const Frame& frame, Value* scratch);
// True only when expr is TRUE (not FALSE, not NULL).
bool EvalPredicate(const BExpr& expr, const Frame& frame);
// Eval with the commonest cases inline: a column of this query's row, a
// parameter, a constant (what TPC-C's statements mostly evaluate; Eval's
// frame and dispatch cost more than the value).
inline const Value& EvalInline(const BExpr& expr, const Frame& frame, Value* scratch) {
  switch (expr.kind) {
    case BKind::kColumn:
      if (expr.depth == 0) return frame.slots[expr.index];
      break;
    case BKind::kParam:
      if (expr.index < frame.env->params.size()) return frame.env->params[expr.index];
      break;  // Eval says which parameter is missing
    case BKind::kConst:
      return expr.constant;
    default:
      break;
  }
  return Eval(expr, frame, scratch);
}

// Receives the rows of a SELECT; returns false to stop early.
class RowTarget {
 public:
  virtual ~RowTarget() = default;
  virtual bool Emit(std::span<const Value> row) = 0;
  // A target that keeps every row may hand out the place of the next one:
  // the caller evaluates the row there, which then counts as emitted (and
  // not stopping), instead of building it elsewhere for Emit to copy. Null:
  // use Emit.
  virtual Value* NextRow() { return nullptr; }
};

// Runs a SelectPlan: the nested-loop scan, aggregation, DISTINCT, sort and
// LIMIT, sending each output row to the target.
void RunSelect(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target);

// Receives each input row of a scan (after filters): UPDATE and DELETE.
class ScanTarget {
 public:
  virtual ~ScanTarget() = default;
  // `primary_key` is the row's encoded primary key, `decoded` the row as
  // stored with every column's view (single-level scans; valid until the
  // next row).
  virtual bool Row(const Frame& frame, std::string_view primary_key, const DecodedRow& decoded) = 0;
};
void RunScan(const SelectPlan& plan, ExecEnv* env, const Frame* outer, ScanTarget* target);

// True for the plans RunPointSelect runs: one level, a lookup by the whole
// primary key, no aggregation, DISTINCT, LIMIT, OFFSET or sort expression;
// then also fills the plan's point_* fields. Called once, at Prepare.
bool PlanPointSelect(SelectPlan* plan);
// Runs such a plan with the buffers in *scratch: appends its row (if any)
// to *out (null: drops it) and returns the number of rows, 0 or 1. The same
// result as RunSelect, without its per-call allocations. Throws ExecFailure.
// prebuilt_key: as FindPointRow's.
uint64_t RunPointSelect(const SelectPlan& plan, ExecEnv* env, ExecScratch* scratch, ResultSet* out,
                        std::string_view prebuilt_key = {});

// The first join level after the first that is an inner join by the whole
// primary key (see sql/README.md "Plans"), or -1. The scan looks it up for
// up to kJoinLookupBatch outer rows at a time with one TxnView::get_many,
// then runs each pair on in the order of the nested loop.
int BatchedLookupLevel(const SelectPlan& plan);
inline constexpr size_t kJoinLookupBatch = 32;

// Marks the columns of this query's row (depth 0) that expr reads in *read
// (those with an index below its size); false if it holds a subquery.
bool MarkColumns(const BExpr& expr, std::vector<bool>* read);

// True for the UPDATE and DELETE plans whose scan is a lookup by the whole
// primary key with no subquery; then also fills the plan's point_* fields and
// sets modify->point. Called once, at Prepare.
bool PlanPointModify(ModifyPlan* modify);
// For an UPDATE or DELETE that scans (not PlanPointModify's): only the
// columns its filters, assignments and RETURNING read are loaded into
// slots (none is, if one of them holds a subquery: then all are). At Prepare.
void NarrowModifyScan(ModifyPlan* modify);
// For a SELECT: the columns of each level's row that nothing reads but the
// filters its exact key already satisfies (where_is_key) are not loaded
// into slots (none is dropped if an expression holds a subquery or a level
// is a derived table), and a batched join saves with each queued row only
// the outer slots read after its lookup (SelectPlan::batch_saved_slots).
// Called once, at bind time, before decode_columns is set from `needed`.
void NarrowSelectLevels(SelectPlan* plan);
// Finds the row of a point plan (PlanPointSelect or PlanPointModify): checks
// the constant filters, builds the key into scratch->key, reads the row,
// decodes it into scratch->columns (its first entries, one per column of
// the table: the vector may be longer) and `slot_columns` of it into the frame's
// slots, and checks the other filters. False when no row matches. *row
// points into the tree: valid until the transaction changes it. for_update:
// the row is about to be changed (WriteTxn::get_for_update; env->write set).
// prebuilt_key (data() not null): the key PointRowKey built for the same
// parameters (PreparedStatement::ExecuteBatch, for its look-ahead), looked
// up as it is instead of building it into scratch->key again.
bool FindPointRow(const SelectPlan& plan, std::span<const uint32_t> slot_columns,
                  const Frame& frame, ExecScratch* scratch, std::string_view* row,
                  bool for_update = false, std::string_view prebuilt_key = {});
// The key FindPointRow would look up for `frame`, into scratch->key, without
// the lookup or the filters; false when no row can match. Throws ExecFailure.
bool PointRowKey(const SelectPlan& plan, const Frame& frame, ExecScratch* scratch);

}  // namespace solo::sql
