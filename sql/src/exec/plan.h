// Bound expressions and plans: what the binder/planner (binder.cc) makes and
// the executor (executor.cc) runs. Immutable once built; every per-execution
// state lives in the executor's ExecState. See sql/README.md "Plans".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solo/catalog.h"
#include "solo/schema.h"
#include "solo/sql/ast.h"
#include "solo/sql/parser.h"
#include "solo/sql/statement.h"
#include "solo/sql/system_tables.h"
#include "solo/sql/value.h"

namespace solo::sql {

struct SelectPlan;

enum class BKind : uint8_t {
  kConst,       // constant
  kParam,       // params[index]
  kColumn,      // slot `index` of the frame `depth` levels out (0: this query)
  kNegate,      // -args[0]
  kNot,         // NOT args[0]
  kAnd,         // args[0] AND args[1] (three-valued)
  kOr,
  kCompare,     // args[0] op args[1], op in binary
  kArith,       // + - * / %
  kConcat,      // ||
  kIsNull,      // args[0] IS [NOT] NULL (negated)
  kInList,      // args[0] [NOT] IN (args[1..])
  kLike,        // args[0] [NOT] LIKE args[1] [ESCAPE args[2]]
  kCase,        // has_operand: args[0] operand; then (when, then) pairs; else last if has_else
  kCast,        // CAST(args[0] AS cast_type)
  kFunction,    // scalar function `function` over args
  kSubquery,    // scalar subquery
  kExists,      // EXISTS (subquery)
  kInSubquery,  // args[0] [NOT] IN (subquery)
};

// kBpcharStrip and kBpcharPad are the binder's, never written in SQL: a
// text without its trailing spaces, and one padded with spaces to `index`
// characters (see "CHAR(n)" in sql/README.md).
enum class ScalarFn : uint8_t {
  kCoalesce,
  kNullif,
  kSubstr,
  kLength,
  kOctetLength,
  kUpper,
  kLower,
  kTrim,
  kAbs,
  kRound,    // round(x) and round(x, n): binder.cc CheckRound
  kReplace,  // replace(text, from, to)
  kBpcharStrip,
  kBpcharPad,
};

struct BExpr {
  BKind kind = BKind::kConst;
  SourcePos pos;
  Value constant;
  uint32_t index = 0;
  uint32_t depth = 0;
  BinaryOp binary = BinaryOp::kEq;
  ScalarFn function = ScalarFn::kCoalesce;
  bool negated = false;
  bool has_operand = false;
  bool has_else = false;
  solo::ColumnDef cast_type;
  // The value's static type, where PostgreSQL's rules depend on it: n > 0
  // for a CHAR(n) (bpchar) value, which is held without trailing spaces and
  // padded to n characters only where it leaves (a result column, LIKE,
  // octet_length); `varchar` for a VARCHAR column or cast, which compares
  // with a CHAR as a CHAR does.
  uint32_t bpchar_length = 0;
  bool varchar = false;
  // kColumn, kCast, kSubquery: the value's SQL type where the binder knows
  // it (a table's column, a cast, an aggregate or group key over a typed
  // value); KnownType (binder.cc) derives the rest. Mixing text with a
  // number or a timestamp is then refused at bind time (42883, 42804), as in
  // PostgreSQL, instead of being converted row by row.
  std::optional<solo::Type> known_type;
  // kColumn, kSubquery: the value is a BOOLEAN (a derived table's or a
  // subquery's predicate, a group key or MIN/MAX over one), which no column
  // type (known_type) names; IsBoolean (binder.cc) derives the rest.
  bool known_boolean = false;
  std::vector<std::unique_ptr<BExpr>> args;
  std::unique_ptr<SelectPlan> subquery;
};
using BExprPtr = std::unique_ptr<BExpr>;

// One bound on a key column: `column op value`.
struct KeyBound {
  BExprPtr value;
  bool inclusive = true;
  std::string text;  // for EXPLAIN
};

// One level of the nested-loop join: where its rows come from and which
// filters run once its columns are loaded.
struct ScanLevel {
  uint32_t item = 0;  // FROM item (slot range [slot_base, slot_base + columns))
  std::string name;   // table name or alias, for EXPLAIN
  // A base table.
  TableId table = kInvalidTree;
  TableSchema schema;                 // a copy: plans outlive catalogs
  TreeId tree = kInvalidTree;         // the table (primary key path) or an index
  std::string index_name;             // empty for the primary key
  std::vector<uint32_t> key_columns;  // table columns in the tree's key order
  std::vector<KeyBound> equal;        // key_columns[0..equal.size()) = value
  KeyBound lower, upper;              // on key_columns[equal.size()], if value set
  // key_columns[equal.size()] IN (in_values), when not empty (then no lower
  // or upper): one lookup per distinct value, in key order. The IN filter
  // stays in `where` as well.
  std::vector<BExprPtr> in_values;
  std::string in_text;  // for EXPLAIN
  bool reverse = false;
  std::vector<uint32_t> needed;  // table columns to decode
  // How many leading columns a scan decodes: all of them where the
  // decoding is handed on (UPDATE and DELETE patch and log from it), else
  // up to the last needed one (SELECT), so a wide row's tail (TPC-C's
  // S_DATA, C_DATA) is neither read nor walked.
  uint32_t decode_columns = 0;
  // SELECT only (its decoding is not handed on): when every needed column
  // has a fixed offset in every row (solo::fixed_column_offset), the offset
  // of needed[k] is needed_offsets[k] and a row's needed columns are read in
  // place, none before them walked; else empty.
  std::vector<uint32_t> needed_offsets;
  // SELECT only: `needed` less the columns that only this level's range
  // bound filters read (where_range_bound), with their offsets as above
  // (empty when needed_offsets is): what a range scan whose bounds BuildRange
  // made exact loads, as it never evaluates those filters (Stock-Level's
  // ol_o_id). range_filter_bounds is the OR of where_range_bound; 0 when no
  // column is left out (then `needed` is loaded).
  std::vector<uint32_t> needed_exact;
  std::vector<uint32_t> needed_exact_offsets;
  uint8_t range_filter_bounds = 0;
  // A subquery in FROM, materialized when the level opens.
  std::unique_ptr<SelectPlan> derived;
  // Filters: `on` decide whether a row matches (LEFT JOIN: else one
  // NULL-extended row); `where` then applies to every row.
  std::vector<BExprPtr> on;
  std::vector<BExprPtr> where;
  // Per `where` filter: it is one of the `equal` bounds (or the IN list). A
  // row found by an exactly encoded key (every bound value fit its column)
  // passes it, so the point paths do not evaluate it again. Bytes, not
  // std::vector<bool>: read once per filter per row, where a bit's shift
  // and mask cost ~1% of TPC-C's instructions.
  std::vector<uint8_t> where_is_key;
  // Per `where` filter: kLowerBound or kUpperBound when it is the `lower` or
  // `upper` bound (else 0). A range scan whose bound value fit the column
  // exactly (BuildRange) holds only rows that pass it, so it is skipped.
  static constexpr uint8_t kLowerBound = 1, kUpperBound = 2;
  std::vector<uint8_t> where_range_bound;
  std::vector<std::string> filter_text;  // for EXPLAIN
  bool left_join = false;
  // FULL JOIN (level 1 of two, a base table; left_join too): after the
  // scan, this table's rows that no row of level 0 matched run with level 0
  // NULL (Scanner::Unmatched).
  bool full_join = false;
  uint32_t slot_base = 0;
  uint32_t columns = 0;
};

enum class AggFn : uint8_t { kCountStar, kCount, kSum, kMin, kMax, kAvg };

struct AggSpec {
  AggFn fn = AggFn::kCountStar;
  bool distinct = false;
  BExprPtr arg;  // over input slots; null for COUNT(*)
  std::string text;
};

struct SelectPlan {
  uint32_t slot_count = 0;  // input row slots
  std::vector<ScanLevel> levels;
  std::vector<BExprPtr> constant_filters;  // WHERE parts that use no table
  // Aggregation: the aggregate row is group keys then aggregate values.
  bool aggregate = false;
  bool streaming = false;  // input arrives ordered by the group keys
  std::vector<BExprPtr> group_keys;
  std::vector<std::string> group_text;
  std::vector<AggSpec> aggs;
  BExprPtr having;  // over the aggregate row
  // Output: over input slots, or the aggregate row when aggregate.
  std::vector<BExprPtr> outputs;
  std::vector<std::string> names;
  bool distinct = false;
  // ORDER BY: keys over the same row as outputs; `sorted` false when the
  // scan order already gives it.
  struct SortKey {
    BExprPtr expr;  // null when output_index is used
    int output_index = -1;
    bool descending = false;
    bool nulls_first = false;  // NULLs before every value (else after)
    std::string text;
  };
  std::vector<SortKey> order;
  bool need_sort = false;
  BExprPtr limit;
  BExprPtr offset;
  // Point SELECT plans only (PlanPointSelect, eval.h): per output, the table
  // column it is when a plain column (decoded straight into the result), or
  // -1; and the table columns the filters and other outputs read, decoded
  // into slots.
  std::vector<int> point_output_column;
  std::vector<uint32_t> point_slot_columns;
  // A batched join (BatchedLookupLevel, eval.h): when batch_slots_planned,
  // the slots of the levels before the batched one that a queued row needs
  // again once its lookup is done, those that the batched level's evaluated
  // filters, the levels after it and the outputs or aggregates read (its
  // key was built before the row was queued); else every needed column of
  // those levels is saved. Set by NarrowSelectLevels.
  bool batch_slots_planned = false;
  std::vector<uint32_t> batch_saved_slots;
  // UNION's input (Binder::BindUnion): plans whose rows RunSelect sends to
  // the same target after this plan's own, each run whole (its DISTINCT,
  // ORDER BY and LIMIT its own); only in a derived level's plan.
  std::vector<std::unique_ptr<SelectPlan>> union_arms;
  // INTERSECT or EXCEPT [ALL] (Binder::BindUnion): RunSelect passes on this
  // plan's rows (its own and its union_arms') by how often set_right's rows
  // hold each, comparing whole rows as DISTINCT does (NULLs equal, numbers
  // by value): INTERSECT a row both hold, once (ALL: as often as both hold
  // it); EXCEPT a row set_right lacks, once (ALL: as often as this plan
  // holds it more). Only in a derived level's plan.
  enum class SetOp : uint8_t { kNone, kIntersect, kExcept };
  SetOp set_op = SetOp::kNone;
  bool set_all = false;
  std::unique_ptr<SelectPlan> set_right;
};

struct InsertPlan {
  TableId table = kInvalidTree;
  TableSchema schema;
  std::vector<int> source_of_column;  // per table column: value index, or -1 (default)
  std::vector<BExprPtr> defaults;     // per table column: null or its DEFAULT
  int rowid_column = -1;              // the hidden row id of a table without a key
  std::vector<std::vector<BExprPtr>> rows;
  std::unique_ptr<SelectPlan> select;
};

struct ModifyPlan {  // UPDATE and DELETE
  std::unique_ptr<SelectPlan> scan;  // one level over the table, every column needed
  std::vector<std::pair<uint32_t, BExprPtr>> assignments;  // UPDATE: column, value
  // Point plans only (PlanPointModify, eval.h): the row is found by its whole
  // primary key; the table columns the filters and assignments read (decoded
  // into slots), and the assigned columns (patched into the stored row).
  bool point = false;
  std::vector<uint32_t> point_slot_columns;
  std::vector<uint32_t> assigned_columns;
  // RETURNING: over the row's slots, holding the changed row (UPDATE) or the
  // deleted one (DELETE); no subquery. Point UPDATE plans: the table columns
  // they read; an assigned one (returning_assignment[k] >= 0: the index in
  // `assignments` of its last assignment) is the value stored, as converted
  // for its column (decoding the new row would give it back unchanged), the
  // others come from the row as found.
  std::vector<BExprPtr> returning;
  std::vector<uint32_t> returning_columns;
  std::vector<int> returning_assignment;
  // Scanning UPDATE plans: whether RETURNING reads an assigned column (the
  // row's slots then hold the values stored while it is evaluated); true
  // unless NarrowModifyScan found otherwise.
  bool returning_reads_assigned = true;
};

struct Plan {
  std::string sql;
  ParsedStatement parsed;  // keeps the AST (DDL runs from it)
  StatementKind kind = StatementKind::kSelect;
  StatementClass statement_class = StatementClass::kRead;
  bool explain = false;
  uint32_t parameter_count = 0;
  std::vector<std::string> column_names;
  // Result columns of type CHAR(n) (column, n), padded with spaces to n
  // characters once the statement has run (RETURNING included).
  std::vector<std::pair<uint32_t, uint32_t>> padded_columns;
  // Tables (and indexes) the plan uses, checked before each execution.
  std::vector<std::pair<TreeId, std::string>> trees;
  std::unique_ptr<SelectPlan> select;
  bool point_select = false;  // select runs through RunPointSelect (eval.h)
  std::unique_ptr<InsertPlan> insert;
  std::unique_ptr<ModifyPlan> modify;
};

inline bool IsHiddenColumn(const solo::ColumnDef& column) { return column.name == kRowIdColumn; }

// binder.cc: binds and plans a parsed statement against `view`'s catalog.
// Throws ExecFailure on a user error.
void BindStatement(const TxnView& view, Plan* plan);

// binder.cc: checks a column's DEFAULT expression at CREATE TABLE. Throws
// ExecFailure, at a position inside expr, for what would fail every INSERT
// that uses it: a column reference or subquery (0A000), a parameter (42P02),
// an aggregate (42803), an unknown function (42883), an evaluation error
// (e.g. 22012), or a value the column cannot store (22P02, 22003, 22001).
// A NULL default passes (NOT NULL is the INSERT's check). Owner thread.
void CheckDefault(const TxnView& view, const Expr& expr, const solo::ColumnDef& column);

// explain.cc: the plan as text lines.
std::vector<std::string> ExplainPlan(const Plan& plan);

}  // namespace solo::sql
