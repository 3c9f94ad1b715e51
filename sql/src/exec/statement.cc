// PreparedStatement: Prepare() parses, binds and plans; Execute() runs the
// plan with one call's state. DDL runs from the AST (ddl.cc).
#include "solo/sql/statement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "exec/ddl.h"
#include "exec/eval.h"
#include "exec/plan.h"
#include "exec/value_ops.h"
#include "solo/codec.h"
#include "solo/sql/parser.h"
#include "utf8.h"

namespace solo::sql {

ResultSet::ResultSet() = default;
ResultSet::~ResultSet() = default;
ResultSet::ResultSet(ResultSet&& other) noexcept { *this = std::move(other); }
ResultSet& ResultSet::operator=(ResultSet&& other) noexcept {
  if (this != &other) {
    names_ = std::move(other.names_);
    shared_names_ = std::exchange(other.shared_names_, nullptr);  // other keeps no plan
    values_ = std::move(other.values_);
    value_count_ = std::exchange(other.value_count_, 0);
    affected_ = std::exchange(other.affected_, 0);
    tag_ = std::move(other.tag_);
    names_source_ = std::move(other.names_source_);
    scratch_ = std::move(other.scratch_);
  }
  return *this;
}

ResultSet::ResultSet(const ResultSet& other)
    : names_(other.names()),
      values_(other.values_.begin(), other.values_.begin() + static_cast<ptrdiff_t>(other.value_count_)),
      value_count_(other.value_count_),
      affected_(other.affected_),
      tag_(other.tag_) {}

ResultSet& ResultSet::operator=(const ResultSet& other) {
  if (this != &other) {
    names_ = other.names();
    shared_names_ = nullptr;
    values_.assign(other.values_.begin(), other.values_.begin() + static_cast<ptrdiff_t>(other.value_count_));
    value_count_ = other.value_count_;
    affected_ = other.affected_;
    tag_ = other.tag_;
    names_source_.reset();
  }
  return *this;
}

void ResultSet::Clear() {
  names_.clear();
  shared_names_ = nullptr;
  value_count_ = 0;  // values_ stay, with their text buffers, for the next rows
  affected_ = 0;
  tag_.clear();
  names_source_.reset();
}

void ResultSet::ResetFor(const std::shared_ptr<const Plan>& source,
                         const std::vector<std::string>& names, std::string_view tag) {
  value_count_ = 0;
  affected_ = 0;
  if (names_source_ != source || shared_names_ != &names) {
    shared_names_ = &names;
    tag_.assign(tag);
    names_source_ = source;
  }
}

Value* ResultSet::AppendRow() {
  size_t width = column_count();
  if (values_.size() < value_count_ + width) values_.resize(value_count_ + width);
  Value* row = values_.data() + value_count_;
  value_count_ += width;
  return row;
}

ExecScratch& ResultSet::scratch() {
  if (!scratch_) scratch_ = std::make_unique<ExecScratch>();
  return *scratch_;
}

PreparedStatement::~PreparedStatement() = default;

StatementClass PreparedStatement::statement_class() const { return plan_->statement_class; }
uint32_t PreparedStatement::parameter_count() const { return plan_->parameter_count; }
const std::string& PreparedStatement::sql() const { return plan_->sql; }
const std::vector<std::string>& PreparedStatement::column_names() const {
  return plan_->column_names;
}

Result<PreparedStatement> PreparedStatement::Prepare(const TxnView& view, std::string_view sql) {
  Result<ParsedStatement> parsed = ParseStatement(sql);
  if (!parsed.ok()) return parsed.error();
  auto plan = std::make_shared<Plan>();
  plan->sql.assign(sql);
  plan->parameter_count = parsed->parameter_count;
  plan->parsed = std::move(parsed).value();
  try {
    BindStatement(view, plan.get());
  } catch (ExecFailure& failure) {
    return failure.error;
  }
  plan->point_select = plan->kind == StatementKind::kSelect && !plan->explain && plan->select &&
                       PlanPointSelect(plan->select.get());
  if ((plan->kind == StatementKind::kUpdate || plan->kind == StatementKind::kDelete) &&
      !plan->explain && plan->modify) {
    if (!PlanPointModify(plan->modify.get())) NarrowModifyScan(plan->modify.get());
  }
  return PreparedStatement(std::move(plan));
}

std::vector<std::string> PreparedStatement::Explain() const { return ExplainPlan(*plan_); }

namespace {

class ResultTarget : public RowTarget {
 public:
  explicit ResultTarget(ResultSet* out) : out_(out) {}
  bool Emit(std::span<const Value> row) override {
    ++rows_;
    if (out_ != nullptr) {
      assert(row.size() == out_->column_count());
      Value* dest = out_->AppendRow();
      for (size_t col = 0; col < row.size(); ++col) dest[col] = row[col];
    }
    return true;
  }
  Value* NextRow() override {
    if (out_ == nullptr) return nullptr;
    ++rows_;
    return out_->AppendRow();
  }
  ResultSet* out_;
  uint64_t rows_ = 0;
};

class CollectRows : public RowTarget {
 public:
  bool Emit(std::span<const Value> row) override {
    rows.insert(rows.end(), row.begin(), row.end());
    return true;
  }
  std::vector<Value> rows;
};

[[noreturn]] void ThrowStatus(const Status& status, const TableSchema& schema) {
  if (status.IsAlreadyExists()) {
    // The engine names a unique index whose key is taken; else it is the primary key.
    constexpr std::string_view kIndexPrefix = "duplicate key for unique index ";
    const std::string& message = status.message();
    if (message.starts_with(kIndexPrefix)) {
      ThrowSql(SqlState::kUniqueViolation,
               fmt::format("duplicate key value violates unique index \"{}\" on \"{}\"",
                           message.substr(kIndexPrefix.size()), schema.name));
    }
    ThrowSql(SqlState::kUniqueViolation,
             fmt::format("duplicate key value violates unique constraint on \"{}\"", schema.name));
  }
  if (status.IsConstraint()) ThrowSql(SqlState::kNotNullViolation, status.message());
  if (status.IsAborted()) {
    ThrowSql(SqlState::kInFailedSqlTransaction, "the transaction was rolled back");
  }
  if (status.IsInvalidArgument()) {
    ThrowSql(SqlState::kProgramLimitExceeded, "value not storable: " + status.message());
  }
  ThrowSql(SqlState::kInternalError, status.ToString());
}

// A value that AppendToRow could not store in column `col`: the engine's
// check of the converted value says why. Out of line, so that the loop that
// stores each value does not carry this path's registers and calls.
[[noreturn, gnu::noinline, gnu::cold]] void ThrowNotStorable(const Value& value, size_t col,
                                                             const TableSchema& schema) {
  const solo::ColumnDef& column = schema.columns[col];
  solo::Value converted;
  ToEngine(value, column, &converted);
  Status status = check_value(column, converted);
  if (status.ok()) status = Status::InvalidArgument("value does not fit column " + column.name);
  ThrowStatus(status, schema);
}

uint64_t ExecuteInsert(const InsertPlan& insert, ExecEnv* env) {
  WriteTxn& txn = *env->write;
  const auto& columns = insert.schema.columns;
  // The owner runs one statement at a time: the buffers (and the text
  // capacity of their values) are kept from one INSERT to the next.
  // Each value is converted straight into the encoded row (no solo::Value
  // Row, no second pass of encode_row over it); scratch and values only grow.
  thread_local std::string encoded;
  thread_local std::vector<Value> scratch;
  thread_local std::vector<Value> values;          // computed VALUES expressions
  thread_local std::vector<const Value*> sources;  // each VALUES item's value, not copied
  if (scratch.size() < columns.size()) scratch.resize(columns.size());
  solo::RowBuilder row;
  Frame frame;
  frame.env = env;
  int64_t next_rowid = -1;
  auto put = [&](const Value& value, size_t col) {
    if (!AppendToRow(value, columns[col], &row)) ThrowNotStorable(value, col, insert.schema);
  };
  // Read once: the row's stores could alias the vector for the compiler,
  // which then reloaded and divided its size per column.
  const size_t column_count = columns.size();
  // source_value(i): the i-th value of the source row.
  auto store = [&](const auto& source_value) {
    row.start(insert.schema, &encoded);
    for (size_t col = 0; col < column_count; ++col) {
      if (static_cast<int>(col) == insert.rowid_column) {
        if (next_rowid < 0) {
          next_rowid = 1;
          solo::Result<Cursor> last = txn.scan(insert.table, KeyRange::All(/*reverse=*/true));
          if (last.ok() && last->valid()) {
            next_rowid = decode_column(insert.schema, last->value(), static_cast<uint32_t>(col)).as_int() + 1;
          }
        }
        if (!row.add_int(next_rowid++)) ThrowSql(SqlState::kInternalError, "rowid does not fit");
        continue;
      }
      int source = insert.source_of_column[col];
      if (source >= 0) {
        put(source_value(source), col);
      } else if (insert.defaults[col]) {
        put(Eval(*insert.defaults[col], frame, &scratch[col]), col);
      } else {
        put(Value(), col);
      }
    }
    Status status = row.finish();
    if (status.ok()) status = txn.insert(insert.table, row);
    if (!status.ok()) ThrowStatus(status, insert.schema);
  };
  uint64_t count = 0;
  if (insert.select) {
    CollectRows rows;
    RunSelect(*insert.select, env, nullptr, &rows);
    size_t width = insert.select->outputs.size();
    for (size_t start = 0; width > 0 && start < rows.rows.size(); start += width) {
      // The SELECT looked at the flag as it read these rows; storing them
      // costs more per row than reading did. Undone by the caller.
      CountRowForCancel(env);
      store([&](int source) -> const Value& { return rows.rows[start + source]; });
      ++count;
    }
    return count;
  }
  for (const auto& source_row : insert.rows) {
    CountRowForCancel(env);  // a VALUES list may be long; undone by the caller
    if (values.size() < source_row.size()) values.resize(source_row.size());
    sources.resize(source_row.size());
    // A parameter or a constant is used where it is; only what Eval
    // computes lands in values.
    for (size_t idx = 0; idx < source_row.size(); ++idx) {
      sources[idx] = &EvalInline(*source_row[idx], frame, &values[idx]);
    }
    store([&](int source) -> const Value& { return *sources[source]; });
    ++count;
  }
  return count;
}

// Evaluates the RETURNING list over `frame` into a new row of *out (if any).
void AppendReturning(const ModifyPlan& modify, const Frame& frame, ResultSet* out) {
  if (out == nullptr || modify.returning.empty()) return;
  Value* dest = out->AppendRow();
  for (size_t col = 0; col < modify.returning.size(); ++col) {
    const Value& value = EvalInline(*modify.returning[col], frame, &dest[col]);
    if (&value != &dest[col]) dest[col] = value;
  }
}

// Collects what an UPDATE or DELETE that scans will change (all of it before
// any change: a change never feeds the scan). UPDATE keeps only the values
// of the assigned columns, engine-typed; they are patched into the stored
// row when the change is made (see ApplyCollected).
// Its buffers are kept from one statement to the next (the owner runs one
// at a time), so that a scanning UPDATE allocates nothing once warm.
struct ModifyBuffers {
  std::vector<uint32_t> assigned;
  std::string keys;
  std::vector<size_t> key_ends;
  std::vector<std::string_view> rows;
  std::vector<solo::ColumnView> views;
  std::vector<solo::Value> values;
  std::vector<Value> swapped;
  ResultSet returned;
};

class ModifyCollector : public ScanTarget {
 public:
  ModifyCollector(const ModifyPlan& plan, bool is_update, bool returning, ModifyBuffers* buffers)
      : plan_(plan),
        is_update_(is_update),
        returning_(returning),
        assigned(buffers->assigned),
        keys(buffers->keys),
        key_ends(buffers->key_ends),
        rows(buffers->rows),
        views(buffers->views),
        values(buffers->values),
        swapped(buffers->swapped),
        returned(buffers->returned) {
    assigned.clear();
    keys.clear();
    key_ends.clear();
    rows.clear();
    views.clear();
    returned.Clear();  // no rows (values_ and their text buffers stay)
    for (const auto& assignment : plan.assignments) assigned.push_back(assignment.first);
  }
  bool Row(const Frame& frame, std::string_view primary_key, const DecodedRow& decoded) override {
    key_ends.push_back(keys.size() + primary_key.size());
    keys.append(primary_key);
    if (!is_update_) {
      if (returning_) AppendReturning(plan_, frame, &returned);
      return true;
    }
    // The row's bytes and column views stay valid until the row is changed
    // (all changes come after the scan): patch_columns need not find its
    // columns again. A DELETE has no use for them.
    rows.push_back(decoded.row);
    views.insert(views.end(), decoded.columns.begin(), decoded.columns.end());
    const ScanLevel& level = plan_.scan->levels[0];
    const auto& columns = level.schema.columns;
    // values is only grown: its strings keep their capacity for the next statement.
    size_t base = values_used;
    values_used += assigned.size();
    if (values.size() < values_used) values.resize(values_used);
    Value scratch;
    for (size_t idx = 0; idx < assigned.size(); ++idx) {
      const Value& value = EvalInline(*plan_.assignments[idx].second, frame, &scratch);
      ToEngine(value, columns[assigned[idx]], &values[base + idx]);
    }
    if (returning_ && !plan_.returning_reads_assigned) {
      AppendReturning(plan_, frame, &returned);  // reads no changed column
    } else if (returning_) {
      // Over the changed row: the row's slots with the assigned columns
      // swapped for the values stored, and swapped back after.
      swapped.resize(assigned.size());
      for (size_t idx = 0; idx < assigned.size(); ++idx) {
        FromEngine(values[base + idx], columns[assigned[idx]], &swapped[idx]);
        std::swap(frame.slots[level.slot_base + assigned[idx]], swapped[idx]);
      }
      AppendReturning(plan_, frame, &returned);
      for (size_t idx = 0; idx < assigned.size(); ++idx) {
        std::swap(frame.slots[level.slot_base + assigned[idx]], swapped[idx]);
      }
    }
    return true;
  }
  size_t size() const { return key_ends.size(); }
  std::string_view key(size_t row) const {
    size_t begin = row == 0 ? 0 : key_ends[row - 1];
    return std::string_view(keys).substr(begin, key_ends[row] - begin);
  }
  std::span<const solo::Value> row_values(size_t row) const {
    return std::span<const solo::Value>(values).subspan(row * assigned.size(), assigned.size());
  }
  DecodedRow decoded(size_t row) const {
    const size_t width = views.size() / rows.size();
    return DecodedRow{rows[row], std::span<const solo::ColumnView>(views).subspan(row * width, width)};
  }

  const ModifyPlan& plan_;
  bool is_update_;
  bool returning_;
  std::vector<uint32_t>& assigned;  // the assigned columns, in assignment order
  std::string& keys;                // the primary keys, one after another
  std::vector<size_t>& key_ends;
  std::vector<std::string_view>& rows;       // each row as stored
  std::vector<solo::ColumnView>& views;      // each row's columns, one row after another
  std::vector<solo::Value>& values;  // UPDATE: assigned.size() per row, values_used in use
  size_t values_used = 0;
  std::vector<Value>& swapped;
  ResultSet& returned;  // RETURNING rows, handed out once every change is made
};

// UPDATE or DELETE of the row with a given primary key: one lookup, and for
// UPDATE the assigned columns patched into the stored bytes (the others are
// neither decoded nor encoded again: WriteTxn::patch_columns). prebuilt_key:
// as FindPointRow's.
uint64_t ExecutePointModify(const ModifyPlan& modify, bool is_update, ExecEnv* env, ResultSet* out,
                            std::string_view prebuilt_key) {
  // The owner runs one statement at a time, and these plans hold no subquery.
  thread_local ExecScratch scratch;
  const SelectPlan& plan = *modify.scan;
  const ScanLevel& level = plan.levels[0];
  // Grown only: the values keep their text buffers from statement to statement.
  if (scratch.slots.size() < plan.slot_count) scratch.slots.resize(plan.slot_count);
  Frame frame;
  frame.slots = scratch.slots.data();
  frame.env = env;
  std::string_view row;
  if (!FindPointRow(plan, modify.point_slot_columns, frame, &scratch, &row, /*for_update=*/true,
                    prebuilt_key)) {
    return 0;
  }
  const std::string_view key = prebuilt_key.data() != nullptr ? prebuilt_key : scratch.key;
  Status status;
  if (is_update) {
    const auto& columns = level.schema.columns;
    const size_t assigned_count = modify.assignments.size();
    if (scratch.row_values.size() < assigned_count) scratch.row_values.resize(assigned_count);
    Value value_scratch;
    for (size_t idx = 0; idx < assigned_count; ++idx) {
      const auto& [column, expr] = modify.assignments[idx];
      const Value& value = EvalInline(*expr, frame, &value_scratch);
      ToEngine(value, columns[column], &scratch.row_values[idx]);
    }
    const bool returning = out != nullptr && !modify.returning.empty();
    // FindPointRow decoded every column of the stored row: the patch need
    // not find them again.
    const DecodedRow decoded{
        row, std::span<const solo::ColumnView>(scratch.columns).first(columns.size())};
    status = env->write->patch_columns(
        level.table, key, modify.assigned_columns,
        std::span<const solo::Value>(scratch.row_values.data(), assigned_count), nullptr, &decoded);
    if (status.ok() && returning) {
      // RETURNING reads the row as stored: its other columns are the old
      // row's, decoded by FindPointRow (the old bytes live until the
      // transaction ends); the assigned ones are the values just stored,
      // which decoding the new bytes would give back (not decoded again).
      const size_t returned_count = modify.returning_columns.size();
      for (size_t idx = 0; idx < returned_count; ++idx) {
        const uint32_t col = modify.returning_columns[idx];
        const int assignment = modify.returning_assignment[idx];
        Value* slot = &frame.slots[level.slot_base + col];
        if (assignment >= 0) {
          FromEngine(scratch.row_values[assignment], columns[col], slot);
        } else {
          FromEngine(scratch.columns[col], columns[col], slot);
        }
      }
      AppendReturning(modify, frame, out);
    }
  } else {
    AppendReturning(modify, frame, out);  // the row as it was
    status = env->write->erase(level.table, key);
  }
  if (!status.ok()) ThrowStatus(status, level.schema);
  return 1;
}

// prebuilt_key: FindPointRow's, for a point plan (else not given).
uint64_t ExecuteModify(const ModifyPlan& modify, bool is_update, ExecEnv* env, ResultSet* out,
                       std::string_view prebuilt_key = {}) {
  if (modify.point) return ExecutePointModify(modify, is_update, env, out, prebuilt_key);
  thread_local ModifyBuffers buffers;
  ModifyCollector collector(modify, is_update, out != nullptr && !modify.returning.empty(), &buffers);
  if (collector.returning_) {
    collector.returned.ResetFor(nullptr, out->column_names(), "");
  }
  RunScan(*modify.scan, env, nullptr, &collector);
  const ScanLevel& level = modify.scan->levels[0];
  for (size_t idx = 0; idx < collector.size(); ++idx) {
    CountRowForCancel(env);  // undone with the rest of the statement by the caller
    std::string_view key = collector.key(idx);
    Status status;
    if (is_update) {
      // The stored row with the assigned columns patched in; the others are
      // not decoded.
      const DecodedRow decoded = collector.decoded(idx);
      status = env->write->patch_columns(level.table, key, collector.assigned,
                                         collector.row_values(idx), nullptr, &decoded);
    } else {
      status = env->write->erase(level.table, key);
    }
    if (!status.ok()) ThrowStatus(status, level.schema);
  }
  for (size_t row = 0; row < collector.returned.row_count(); ++row) {
    Value* dest = out->AppendRow();
    for (size_t col = 0; col < out->column_count(); ++col) dest[col] = collector.returned.at(row, col);
  }
  return collector.size();
}

// Where parameter `number` first occurs in the statement's text; no position
// if the text skips it ($1, $3).
SourcePos FirstUse(const Plan& plan, uint32_t number) {
  for (const ParameterUse& use : plan.parsed.parameter_uses) {
    if (use.number == number) return use.pos;
  }
  return {};
}

// 42P02 for a call with fewer values than the statement's parameters, at the
// first occurrence of the lowest-numbered parameter without a value (for ?,
// the first ? past the values given), as PostgreSQL's "bind message supplies
// 1 parameters, but prepared statement requires 2" (08P01, without a
// position).
SqlError MissingParameterError(const Plan& plan, size_t given) {
  const ParameterUse* missing = nullptr;
  for (const ParameterUse& use : plan.parsed.parameter_uses) {
    if (use.number > given && (missing == nullptr || use.number < missing->number)) missing = &use;
  }
  assert(missing != nullptr);  // parameter_count is the highest number used
  return SqlError(
      SqlState::kUndefinedParameter,
      fmt::format("{} parameter{} given, but the statement requires {}: ${} has no value", given,
                  given == 1 ? "" : "s", plan.parameter_count, missing->number),
      missing->pos);
}

// 42P02 for a call with more values than the statement's parameters: a
// value meant for a placeholder the text does not have is the caller's
// mistake as much as a missing one (PostgreSQL refuses both, 08P01; solo
// keeps one code for both counts). Without a position: no text is wrong.
SqlError ExtraParameterError(const Plan& plan, size_t given) {
  return SqlError(SqlState::kUndefinedParameter,
                  fmt::format("{} parameter{} given, but the statement requires {}", given,
                              given == 1 ? "" : "s", plan.parameter_count));
}

// point_key (data() not null): the key of a point plan's row, built by
// PointRowKey for these parameters (FindPointRow's prebuilt_key).
SqlStatus Run(const std::shared_ptr<const Plan>& plan_ptr, const TxnView& view, WriteTxn* write,
              std::span<const Value> params, ResultSet* out, const std::atomic<bool>* cancel,
              std::string_view point_key = {}) {
  const Plan& plan = *plan_ptr;
  if (out != nullptr) {
    out->ResetFor(plan_ptr, plan.column_names,
                  StatementKindName(plan.explain ? StatementKind::kExplain : plan.kind));
  }
  // CREATE TABLE's parameters can only be in DEFAULTs, which CreateTable
  // refuses each at its position (42P02) whether values are given or not.
  if (params.size() < plan.parameter_count && plan.kind != StatementKind::kCreateTable) {
    return MissingParameterError(plan, params.size());
  }
  if (params.size() > plan.parameter_count) return ExtraParameterError(plan, params.size());
  // Text enters here as well as in the statement's text: the same UTF-8 rule.
  // (No more values than parameters get here.)
  for (size_t param_idx = 0; param_idx < params.size(); ++param_idx) {
    const Value& param = params[param_idx];
    if (param.kind() != ValueKind::kText) continue;
    size_t bad = FindInvalidUtf8(param.as_text());
    if (bad != std::string_view::npos) {
      return SqlError(SqlState::kCharacterNotInRepertoire,
                      fmt::format("{} (parameter ${})", InvalidUtf8Message(param.as_text(), bad),
                                  param_idx + 1),
                      FirstUse(plan, static_cast<uint32_t>(param_idx + 1)));
    }
  }
  const Catalog& catalog = view.catalog();
  for (const auto& [tree, name] : plan.trees) {
    const TableInfo* table = catalog.table(tree);
    const IndexInfo* index = table == nullptr ? catalog.index(tree) : nullptr;
    bool same = (table != nullptr && table->schema.name == name) ||
                (index != nullptr && index->schema.name == name);
    if (!same) {
      return SqlError(SqlState::kObjectNotInPrerequisiteState,
                      fmt::format("\"{}\" changed since the statement was prepared; prepare it again",
                                  name));
    }
  }
  ExecEnv env;
  env.view = &view;
  env.write = write;
  env.params = params;
  env.cancel = cancel;
  try {
    // A flag set before the statement starts cancels it, however few rows it reads.
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) ThrowCanceled();
    if (plan.explain) {
      if (out != nullptr) {
        for (const std::string& line : ExplainPlan(plan)) out->AppendRow()->SetText(line);
      }
      return {};
    }
    uint64_t affected = 0;
    switch (plan.kind) {
      case StatementKind::kSelect: {
        if (plan.point_select) {
          ExecScratch local;
          affected = RunPointSelect(*plan.select, &env, out != nullptr ? &out->scratch() : &local,
                                    out, point_key);
          break;
        }
        ResultTarget target(out);
        RunSelect(*plan.select, &env, nullptr, &target);
        affected = target.rows_;
        break;
      }
      case StatementKind::kInsert: affected = ExecuteInsert(*plan.insert, &env); break;
      case StatementKind::kUpdate:
        affected = ExecuteModify(*plan.modify, true, &env, out, point_key);
        break;
      case StatementKind::kDelete:
        affected = ExecuteModify(*plan.modify, false, &env, out, point_key);
        break;
      default:
        ExecuteDdl(*plan.parsed.statement, write, cancel);
        break;
    }
    if (out != nullptr) {
      out->set_affected(affected);
      // CHAR(n) results are held without their trailing spaces (value_ops.h).
      for (const auto& [column, length] : plan.padded_columns) {
        for (size_t row = 0; row < out->row_count(); ++row) {
          Value& value = out->mutable_at(row, column);
          if (value.kind() == ValueKind::kText) PadBpchar(length, &value.mutable_text());
        }
      }
    }
  } catch (ExecFailure& failure) {
    return failure.error;
  }
  return {};
}

}  // namespace

SqlStatus PreparedStatement::Execute(WriteTxn& txn, std::span<const Value> params, ResultSet* out,
                                     const std::atomic<bool>* cancel) const {
  if (plan_->statement_class == StatementClass::kTransaction) {
    return SqlError(SqlState::kActiveSqlTransaction,
                    fmt::format("{} is run by a session, not inside a transaction function",
                                StatementKindName(plan_->kind)));
  }
  return Run(plan_, txn, &txn, params, out, cancel);
}

namespace {

// The keys of a batch's rows that PrefetchPointRows built, which the
// statements then use as they are (FindPointRow's prebuilt_key) instead of
// building them again: set k's is views[k] if k < count and views[k].data()
// is not null (else its statement builds its own). Valid until the next
// PrefetchPointRows into the same object.
struct PrefetchedKeys {
  static constexpr size_t kMaxSets = 64;  // more would leave the first ones' lines evicted again
  std::string bytes;                      // the keys, one after another
  size_t ends[kMaxSets];                  // per set: where its key ends in bytes
  bool built[kMaxSets];
  std::string_view views[kMaxSets];
  size_t count = 0;
  bool in_use = false;  // by an ExecuteBatch under way (a nested one takes another)
};

// The rows a batch of a point statement will find, looked up together ahead
// of its statements (PreparedStatement::ExecuteBatch): their tree paths and
// rows are then in the cache when each statement looks its row up again.
// Only a hint: a set whose key cannot be built is skipped, and any error is
// left for its statement to report. The keys built go to *keys.
void PrefetchPointRows(const Plan& plan, const TxnView& view,
                       std::span<const std::span<const Value>> param_sets, PrefetchedKeys* keys) {
  keys->count = 0;
  const SelectPlan* select = nullptr;
  if (plan.explain || param_sets.size() < 2) return;
  if (plan.kind == StatementKind::kSelect && plan.point_select) {
    select = plan.select.get();
  } else if ((plan.kind == StatementKind::kUpdate || plan.kind == StatementKind::kDelete) &&
             plan.modify->point) {
    select = plan.modify->scan.get();
  }
  if (select == nullptr) return;
  thread_local ExecScratch scratch;
  keys->bytes.clear();
  if (scratch.slots.size() < select->slot_count) scratch.slots.resize(select->slot_count);
  ExecEnv env;
  env.view = &view;
  Frame frame;
  frame.slots = scratch.slots.data();
  frame.env = &env;
  const size_t set_count = std::min(param_sets.size(), PrefetchedKeys::kMaxSets);
  try {
    for (size_t set = 0; set < set_count; ++set) {
      if (param_sets[set].size() < plan.parameter_count) return;  // Execute() reports it
      env.params = param_sets[set];
      keys->built[set] = PointRowKey(*select, frame, &scratch);
      if (keys->built[set]) keys->bytes += scratch.key;
      keys->ends[set] = keys->bytes.size();
    }
  } catch (ExecFailure&) {
    return;  // its statement fails the same way, and reports it
  }
  std::string_view key_views[PrefetchedKeys::kMaxSets];
  std::string_view rows[PrefetchedKeys::kMaxSets];
  size_t key_count = 0;
  size_t start = 0;
  for (size_t set = 0; set < set_count; ++set) {
    if (keys->built[set]) {
      keys->views[set] = std::string_view(keys->bytes).substr(start, keys->ends[set] - start);
      key_views[key_count++] = keys->views[set];
    } else {
      keys->views[set] = std::string_view();
    }
    start = keys->ends[set];
  }
  keys->count = set_count;
  (void)view.get_many(select->levels[0].table, std::span(key_views, key_count),
                      std::span(rows, key_count));
}

}  // namespace

SqlStatus PreparedStatement::ExecuteBatch(WriteTxn& txn,
                                          std::span<const std::span<const Value>> param_sets,
                                          ResultSet* out,
                                          FunctionRef<void(size_t, const ResultSet&)> each) const {
  // A batch run from another's `each` builds its keys apart.
  thread_local PrefetchedKeys shared_keys;
  std::unique_ptr<PrefetchedKeys> nested_keys;
  PrefetchedKeys* keys = &shared_keys;
  if (shared_keys.in_use) {
    nested_keys = std::make_unique<PrefetchedKeys>();
    keys = nested_keys.get();
  }
  keys->in_use = true;
  struct Release {
    PrefetchedKeys* keys;
    ~Release() { keys->in_use = false; }
  } release{keys};
  PrefetchPointRows(*plan_, txn, param_sets, keys);
  ResultSet dropped;
  ResultSet* target = out != nullptr ? out : &dropped;
  for (size_t set = 0; set < param_sets.size(); ++set) {
    // A set whose key was built: the point plan's statement (Execute's
    // checks hold for it) with that key.
    const std::string_view key = set < keys->count ? keys->views[set] : std::string_view();
    SqlStatus status = key.data() != nullptr
                           ? Run(plan_, txn, &txn, param_sets[set], target, nullptr, key)
                           : Execute(txn, param_sets[set], target);
    if (!status.ok()) return status;
    each(set, *target);
  }
  return {};
}

SqlStatus PreparedStatement::Execute(const TxnView& view, std::span<const Value> params,
                                     ResultSet* out, const std::atomic<bool>* cancel) const {
  if (plan_->statement_class != StatementClass::kRead) {
    return SqlError(SqlState::kFeatureNotSupported,
                    fmt::format("{} needs a write transaction", StatementKindName(plan_->kind)));
  }
  return Run(plan_, view, nullptr, params, out, cancel);
}

}  // namespace solo::sql
