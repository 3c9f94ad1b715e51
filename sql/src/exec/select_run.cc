// Runs SELECT plans: the nested-loop scan over access paths, aggregation,
// DISTINCT, ORDER BY and LIMIT/OFFSET.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "exec/eval.h"
#include "exec/value_ops.h"
#include "solo/codec.h"

namespace solo::sql {
namespace {

enum class KeyFit { kFits, kNever, kUnusable };

// A level's table or index gone or changed since the plan was made (a scan
// or a lookup refused): 55000, named.
[[noreturn, gnu::cold]] void TableChanged(const ScanLevel& level) {
  ThrowSql(SqlState::kObjectNotInPrerequisiteState,
           fmt::format("table \"{}\" changed since the statement was prepared", level.name));
}

// Converts a value for comparison with a key column, exactly.
KeyFit ToKeyValue(const Value& value, const solo::ColumnDef& column, SourcePos pos, solo::Value* out) {
  if (value.is_null()) return KeyFit::kNever;
  if (value.kind() == ValueKind::kInt && IsIntegerColumn(column)) {
    // The commonest key: no conversion. A value out of the column's range
    // makes append_key fail, which callers treat like kNever/kUnusable.
    out->set_int(value.as_int());
    return KeyFit::kFits;
  }
  Value cast;
  try {
    CastValue(value, column, &cast, pos);
  } catch (ExecFailure& failure) {
    if (failure.error.state() == SqlState::kNumericValueOutOfRange) return KeyFit::kUnusable;
    throw;
  }
  if (CompareValues(cast, value, pos) != 0) return KeyFit::kUnusable;
  switch (cast.kind()) {
    case ValueKind::kInt:
    case ValueKind::kDecimal:
    case ValueKind::kTimestamp:
    case ValueKind::kBool:
      out->set_int(cast.as_int());
      break;
    case ValueKind::kDouble: out->set_double(cast.as_double()); break;
    case ValueKind::kText: out->set_string(cast.as_text()); break;
    default: return KeyFit::kUnusable;
  }
  return KeyFit::kFits;
}

// Encodes the whole-key prefix of `level`'s equality bounds into *key;
// false when no row can match (a NULL, or a value no key column holds).
bool BuildEqualKey(const ScanLevel& level, const Frame& frame, std::vector<solo::Value>* key_values,
                   std::string* key) {
  // Resized, not cleared: a text key value keeps its buffer for the next statement.
  const size_t equal_count = level.equal.size();  // read once (see ExecuteInsert)
  if (key_values->size() != equal_count) key_values->resize(equal_count);
  Value scratch;
  // The commonest key, integers for integer columns, is encoded as the
  // values come (TPC-C's every key); anything else takes the general path.
  // Gathered on the stack and stored once (an append per column cost more
  // than the encoding).
  char buffer[kMaxKeyBytes + kMaxIntKeyBytes + 1];
  size_t length = 0;
  size_t eq = 0;
  for (; eq < equal_count && length <= kMaxKeyBytes; ++eq) {
    const Value& value = EvalInline(*level.equal[eq].value, frame, &scratch);
    if (value.kind() != ValueKind::kInt) break;
    const size_t bytes =
        write_integer_key(level.schema.columns[level.key_columns[eq]], value.as_int(), buffer + length);
    if (bytes == 0) break;
    length += bytes;
    (*key_values)[eq].set_int(value.as_int());
  }
  if (eq == equal_count) {
    // clear + append: std::string::assign's general replace (overlaps,
    // reallocation) cost more than the key's encoding.
    key->clear();
    key->append(buffer, length);
    return true;
  }
  for (; eq < equal_count; ++eq) {
    const KeyBound& bound = level.equal[eq];
    const Value& value = EvalInline(*bound.value, frame, &scratch);
    KeyFit fit = ToKeyValue(value, level.schema.columns[level.key_columns[eq]], bound.value->pos,
                            &(*key_values)[eq]);
    if (fit != KeyFit::kFits) return false;  // equal to something no key holds
  }
  key->clear();
  return append_key(level.schema, level.key_columns, *key_values, key).ok();
}

// *dst = src without a string copy for a value that is not a text (the
// batch saves and restores outer slots per row, mostly integers).
inline void CopyValue(const Value& src, Value* dst) {
  switch (src.kind()) {
    case ValueKind::kNull:
      dst->SetNull();
      return;
    case ValueKind::kBool:
      dst->SetBool(src.as_bool());
      return;
    case ValueKind::kInt:
      dst->SetInt(src.as_int());
      return;
    case ValueKind::kDecimal:
      dst->SetDecimal(src.units(), src.scale());
      return;
    case ValueKind::kDouble:
      dst->SetDouble(src.as_double());
      return;
    case ValueKind::kTimestamp:
      dst->SetTimestamp(src.as_timestamp());
      return;
    case ValueKind::kText:
      *dst = src;
      return;
  }
}

// Decodes the leading level.decode_columns columns of `row` into the first
// entries of `columns`, which holds at least one per column of the table
// after (grown only: a point statement's scratch serves tables of several
// widths, and shrinking it and growing it back would reset every view).
void DecodeLeading(const ScanLevel& level, std::string_view row,
                   std::vector<solo::ColumnView>* columns) {
  const size_t width = level.schema.columns.size();
  if (columns->size() < width) columns->resize(width);
  const std::span<solo::ColumnView> views(columns->data(), width);
  Status status = level.decode_columns == width
                      ? decode_row_view(level.schema, row, views)
                      : decode_leading_columns(level.schema, row, level.decode_columns, views);
  if (!status.ok()) ThrowSql(SqlState::kInternalError, "cannot decode a row: " + status.ToString());
}

// Loads the columns of `row` that `level` needs into their slots (with
// exact_range, a range scan's whose bounds were exact: needed_exact); fills
// *columns only for a level without needed_offsets (a scan whose decoding is
// handed on: RunScan's).
void DecodeNeeded(const ScanLevel& level, std::string_view row,
                  std::vector<solo::ColumnView>* columns, Value* slots, bool exact_range = false) {
  const std::vector<uint32_t>& needed = exact_range ? level.needed_exact : level.needed;
  if (!level.needed_offsets.empty()) {
    const std::vector<uint32_t>& offsets =
        exact_range ? level.needed_exact_offsets : level.needed_offsets;
    const size_t needed_count = needed.size();  // read once (see ExecuteInsert)
    for (size_t needed_idx = 0; needed_idx < needed_count; ++needed_idx) {
      const uint32_t col = needed[needed_idx];
      solo::ColumnView view;
      if (!solo::read_column_at(level.schema, row, col, offsets[needed_idx], &view)) {
        ThrowSql(SqlState::kInternalError, "cannot decode a row: row too short");
      }
      FromEngine(view, level.schema.columns[col], &slots[level.slot_base + col]);
    }
    return;
  }
  DecodeLeading(level, row, columns);
  for (uint32_t col : needed) {
    FromEngine((*columns)[col], level.schema.columns[col], &slots[level.slot_base + col]);
  }
}

struct LevelState {
  std::optional<Cursor> cursor;
  KeyRange range;
  std::string prefix;
  std::string bound_key;
  // The row's primary key, a view of where it is kept (the cursor's entry,
  // the prefix, an IN key, a batch key): valid while the level is on the row.
  std::string_view primary_key;
  std::vector<solo::Value> key_values;
  std::vector<solo::ColumnView> columns;
  std::string_view row;  // the row Decode last loaded (its bytes as stored)
  // ScanLevel::kLowerBound / kUpperBound: the bounds BuildRange made exact
  // keys of (the range holds only rows that pass those filters).
  uint8_t exact_bounds = 0;
  std::vector<std::string> in_keys;  // IN-list levels: one key per distinct value
  std::vector<int64_t> in_numbers;   // IntegerInKeys' values
  std::vector<std::string_view> in_key_views;
  std::vector<std::string_view> in_rows;
  bool derived_ready = false;
  std::vector<Value> derived_rows;  // row-major
};

class CollectTarget : public RowTarget {
 public:
  explicit CollectTarget(std::vector<Value>* rows) : rows_(rows) {}
  bool Emit(std::span<const Value> row) override {
    rows_->insert(rows_->end(), row.begin(), row.end());
    return true;
  }
  std::vector<Value>* rows_;
};

// The outer rows waiting for the batched level's lookups, in scan order:
// entry i is keys[i] with the outer levels' slots saved at
// outer_slots[i * width, (i + 1) * width). Values are copies, so nothing
// here points into rows or buffers that the scan reuses.
struct LookupBatch {
  size_t count = 0;
  std::vector<std::string> keys;
  std::vector<Value> outer_slots;
  std::vector<std::string_view> key_views;
  std::vector<std::string_view> rows;
};

// A Scanner's buffers. Kept per thread from one statement to the next (a
// stack of them: a statement may run another inside it, a derived table or
// a subquery), so that a warm statement allocates none of them: strings and
// vectors keep their capacity; what a scan reads is reset on taking one,
// what points into the trees (cursors, rows) on giving it back.
struct ScanWorkspace {
  std::vector<Value> slots;
  std::vector<LevelState> states;
  std::vector<uint32_t> saved_slots;
  LookupBatch batch;
  std::vector<Value> output_row;  // OutputStage's row (its texts keep their buffers)

  void Reset(size_t slot_count, size_t level_count) {
    if (slots.size() < slot_count) slots.resize(slot_count);
    for (size_t slot = 0; slot < slot_count; ++slot) slots[slot].SetNull();  // texts keep their buffers
    if (states.size() < level_count) states.resize(level_count);
    for (size_t level = 0; level < level_count; ++level) {
      LevelState& state = states[level];  // cursor and row: cleared by Release
      state.prefix.clear();
      state.bound_key.clear();
      state.primary_key = {};
      state.key_values.clear();
      state.in_keys.clear();
      state.in_numbers.clear();
      state.in_key_views.clear();
      state.in_rows.clear();
      state.derived_ready = false;
      state.derived_rows.clear();
    }
    saved_slots.clear();
    batch.count = 0;
    batch.keys.clear();  // sized with outer_slots for one plan's width
    batch.outer_slots.clear();
  }
  // Drops what could point into the transaction's trees or outlive it.
  void Release(size_t level_count) {
    for (size_t level = 0; level < level_count; ++level) {
      states[level].cursor.reset();
      states[level].row = {};
    }
  }
};

class ScanWorkspaces {
 public:
  static std::unique_ptr<ScanWorkspace> Take(size_t slot_count, size_t level_count) {
    std::vector<std::unique_ptr<ScanWorkspace>>& free = FreeList();
    std::unique_ptr<ScanWorkspace> workspace;
    if (free.empty()) {
      workspace = std::make_unique<ScanWorkspace>();
    } else {
      workspace = std::move(free.back());
      free.pop_back();
    }
    workspace->Reset(slot_count, level_count);
    return workspace;
  }
  static void Give(std::unique_ptr<ScanWorkspace> workspace, size_t level_count) {
    workspace->Release(level_count);
    FreeList().push_back(std::move(workspace));
  }

 private:
  static std::vector<std::unique_ptr<ScanWorkspace>>& FreeList() {
    thread_local std::vector<std::unique_ptr<ScanWorkspace>> free;
    return free;
  }
};

class Scanner {
 public:
  Scanner(const SelectPlan& plan, ExecEnv* env, const Frame* outer)
      : plan_(plan),
        workspace_(ScanWorkspaces::Take(plan.slot_count, plan.levels.size())),
        slots_(workspace_->slots),
        states_(workspace_->states),
        saved_slots_(workspace_->saved_slots),
        batch_(workspace_->batch) {
    frame_.slots = slots_.data();
    frame_.outer = outer;
    frame_.env = env;
    batched_level_ = BatchedLookupLevel(plan);
    if (plan.batch_slots_planned) {
      saved_slots_.assign(plan.batch_saved_slots.begin(), plan.batch_saved_slots.end());
      return;
    }
    // The outer levels' slots a queued row needs again: a table's needed
    // columns (no other slot is loaded or read), a derived level's all.
    for (int level_idx = 0; level_idx < batched_level_; ++level_idx) {
      const ScanLevel& level = plan.levels[level_idx];
      if (level.derived) {
        for (uint32_t col = 0; col < level.columns; ++col) {
          saved_slots_.push_back(level.slot_base + col);
        }
      } else {
        for (uint32_t col : level.needed) saved_slots_.push_back(level.slot_base + col);
      }
    }
  }

  ~Scanner() { ScanWorkspaces::Give(std::move(workspace_), plan_.levels.size()); }
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  const Frame& frame() const { return frame_; }
  std::vector<Value>* output_row() { return &workspace_->output_row; }

  // Calls on_row for every joined input row that passes the filters, in
  // nested-loop order; stops when it returns false.
  template <class F>
  void Run(F&& on_row) {
    for (const BExprPtr& filter : plan_.constant_filters) {
      if (!EvalPredicate(*filter, frame_)) return;
    }
    if (batched_level_ < 0) {
      // A FULL JOIN's level 1 is not batched (a LEFT JOIN's is not).
      if (Level(0, on_row) && plan_.levels.size() == 2 && plan_.levels[1].full_join) {
        Unmatched(on_row);
      }
      return;
    }
    bool more = false;
    try {
      more = Level(0, on_row);
    } catch (...) {
      // An outer row read ahead of the pending ones failed. Unbatched, those
      // would have gone through the pipeline first: so they do now, and if
      // they end the scan, the failing row was never to be read.
      if (!FlushBatch(on_row)) return;
      throw;
    }
    if (more) FlushBatch(on_row);
  }

  std::string_view primary_key(size_t level) const { return states_[level].primary_key; }
  DecodedRow decoded_row(size_t level) const {
    return DecodedRow{states_[level].row, states_[level].columns};
  }

 private:
  void SetNulls(const ScanLevel& level) {
    for (uint32_t col = 0; col < level.columns; ++col) slots_[level.slot_base + col].SetNull();
  }

  // FULL JOIN (ScanLevel::full_join, level 1 of two): after the scan, the
  // rows of level 1's table that matched no row of level 0 (their keys are
  // not in full_matched_), each with level 0 NULL, through the WHERE
  // filters of both levels (level 0's as they hold on NULLs: `a.x IS NULL`
  // passes, `a.x > 5` does not). False when on_row stopped the scan.
  template <class F>
  bool Unmatched(F& on_row) {
    const ScanLevel& outer = plan_.levels[0];
    const ScanLevel& level = plan_.levels[1];
    LevelState& state = states_[1];
    SetNulls(outer);
    if (!Filters(outer.where)) return true;
    solo::Result<Cursor> cursor = frame_.env->view->scan(level.table, KeyRange::All(false));
    if (!cursor.ok()) {
      TableChanged(level);
    }
    for (; cursor->valid(); cursor->next()) {
      CountRowForCancel(frame_.env);
      state.primary_key = cursor->key();
      if (full_matched_.count(std::string(state.primary_key)) != 0) continue;
      Decode(level, state, cursor->value());
      if (!Filters(level.where)) continue;
      if (!Level(2, on_row)) return false;
    }
    return true;
  }

  void Decode(const ScanLevel& level, LevelState& state, std::string_view row,
              bool exact_range = false) {
    DecodeNeeded(level, row, &state.columns, slots_.data(), exact_range);
    state.row = row;
  }

  bool Filters(const std::vector<BExprPtr>& filters) {
    for (const BExprPtr& filter : filters) {
      if (!EvalPredicate(*filter, frame_)) return false;
    }
    return true;
  }

  // The level's WHERE filters but those its exact key already satisfied.
  bool NonKeyFilters(const ScanLevel& level, uint8_t exact_bounds = 0) {
    for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
      if (level.where_is_key[filter_idx]) continue;
      const uint8_t range_bound = level.where_range_bound[filter_idx];
      if (range_bound != 0 && (range_bound & exact_bounds) == range_bound) continue;
      if (!EvalPredicate(*level.where[filter_idx], frame_)) return false;
    }
    return true;
  }

  // Builds the key range of a base-table level; false when no row can match.
  bool BuildRange(const ScanLevel& level, LevelState& state) {
    if (!BuildEqualKey(level, frame_, &state.key_values, &state.prefix)) return false;
    Value scratch;
    state.exact_bounds = 0;
    KeyRange& range = state.range;
    range.reverse = level.reverse;
    range.has_lower = range.has_upper = false;
    range.lower_inclusive = true;
    range.upper_inclusive = false;
    range.lower.clear();
    range.upper.clear();
    if (!state.prefix.empty()) {
      range.has_lower = true;
      range.lower = state.prefix;
      range.upper = prefix_successor(state.prefix);
      range.has_upper = !range.upper.empty();
    }
    size_t range_col = level.equal.size();
    // A bound on an integer column that fit it is exact: the range then
    // holds just the rows that pass its filter (other types keep the filter:
    // -0.0 and 0.0, or texts, may compare equal with different keys).
    const bool exact_type = range_col < level.key_columns.size() &&
                            IsIntegerColumn(level.schema.columns[level.key_columns[range_col]]);
    auto bound_key = [&](const KeyBound& bound, bool* usable) -> const std::string& {
      *usable = false;
      const Value& value = EvalInline(*bound.value, frame_, &scratch);
      if (value.is_null()) return state.bound_key;  // caller: no rows
      solo::Value key_value;
      if (ToKeyValue(value, level.schema.columns[level.key_columns[range_col]], bound.value->pos,
                     &key_value) != KeyFit::kFits) {
        return state.bound_key;
      }
      state.key_values.push_back(std::move(key_value));
      state.bound_key.clear();
      if (!append_key(level.schema, level.key_columns, state.key_values, &state.bound_key).ok()) {
        state.key_values.pop_back();
        return state.bound_key;
      }
      state.key_values.pop_back();
      *usable = true;
      return state.bound_key;
    };
    bool lower_bounded = false;  // range.lower is the lower bound's key
    if (level.lower.value) {
      bool usable;
      const Value& check = EvalInline(*level.lower.value, frame_, &scratch);
      if (check.is_null()) return false;
      const std::string& key = bound_key(level.lower, &usable);
      if (usable) {
        range.has_lower = true;
        range.lower = level.lower.inclusive ? key : prefix_successor(key);
        range.lower_inclusive = true;
        lower_bounded = true;
        // (An exclusive bound whose key has no successor scans from the start.)
        if (exact_type && !range.lower.empty()) state.exact_bounds |= ScanLevel::kLowerBound;
      }
    }
    if (level.upper.value) {
      bool usable;
      const Value& check = EvalInline(*level.upper.value, frame_, &scratch);
      if (check.is_null()) return false;
      const std::string& key = bound_key(level.upper, &usable);
      if (usable) {
        std::string upper = level.upper.inclusive ? prefix_successor(key) : key;
        range.has_upper = !upper.empty();
        range.upper = std::move(upper);
        range.upper_inclusive = false;
        if (exact_type) state.exact_bounds |= ScanLevel::kUpperBound;
        // Without a lower bound the range starts at the prefix, where a
        // nullable column's NULLs sort: start after them, since no NULL
        // passes a comparison (the exact bound skips the filter that would
        // otherwise refuse them).
        if (!lower_bounded) {
          range.lower = state.prefix;
          append_not_null_floor(level.schema.columns[level.key_columns[range_col]], &range.lower);
          range.has_lower = !range.lower.empty();
          range.lower_inclusive = true;
        }
      }
    }
    return true;
  }

  template <class F>
  bool Level(size_t level_idx, F& on_row) {
    if (level_idx == plan_.levels.size()) return on_row();
    const ScanLevel& level = plan_.levels[level_idx];
    LevelState& state = states_[level_idx];
    const TxnView& view = *frame_.env->view;
    if (static_cast<int>(level_idx) == batched_level_) return AddToBatch(level_idx, on_row);
    bool matched = false;
    if (level.derived) {
      if (!state.derived_ready) {
        CollectTarget target(&state.derived_rows);
        RunSelect(*level.derived, frame_.env, frame_.outer, &target);
        state.derived_ready = true;
      }
      size_t width = level.columns;
      for (size_t start = 0; width > 0 && start < state.derived_rows.size(); start += width) {
        CountRowForCancel(frame_.env);
        for (size_t col = 0; col < width; ++col) slots_[level.slot_base + col] = state.derived_rows[start + col];
        if (!Filters(level.on)) continue;
        matched = true;
        if (!Filters(level.where)) continue;
        if (!Level(level_idx + 1, on_row)) return false;
      }
      if (width == 0 && !state.derived_rows.empty()) {
        matched = true;
        if (Filters(level.where) && !Level(level_idx + 1, on_row)) return false;
      }
    } else if (BuildRange(level, state)) {
      bool is_index = level.tree != level.table;
      if (!level.in_values.empty()) {
        if (!InList(level_idx, on_row, &matched)) return false;
      } else if (!is_index && level.equal.size() == level.key_columns.size()) {
        // A point lookup by the whole primary key.
        std::string_view row;
        if (view.get(level.table, state.prefix, &row).ok()) {
          state.primary_key = state.prefix;
          Decode(level, state, row);
          if (Filters(level.on)) {
            matched = true;
            if (level.full_join) full_matched_.emplace(state.primary_key);
            if (NonKeyFilters(level) && !Level(level_idx + 1, on_row)) return false;  // exact key
          }
        }
      } else if (!ScanRange(level_idx, on_row, &matched)) {
        return false;
      }
    }
    if (level.left_join && !matched) {
      SetNulls(level);
      if (Filters(level.where) && !Level(level_idx + 1, on_row)) return false;
    }
    return true;
  }

  // Runs the rows of state.range through the level's filters and the levels
  // below; false when on_row stopped the scan.
  template <class F>
  bool ScanRange(size_t level_idx, F& on_row, bool* matched) {
    const ScanLevel& level = plan_.levels[level_idx];
    LevelState& state = states_[level_idx];
    const TxnView& view = *frame_.env->view;
    bool is_index = level.tree != level.table;
    solo::Result<Cursor> cursor = view.scan(level.tree, state.range);
    if (!cursor.ok()) {
      TableChanged(level);
    }
    state.cursor.emplace(std::move(cursor.value()));
    ExecEnv* env = frame_.env;
    // The range-bound filters are not evaluated (NonKeyFilters): the columns
    // only they read are not loaded.
    const bool exact_range =
        level.range_filter_bounds != 0 &&
        (state.exact_bounds & level.range_filter_bounds) == level.range_filter_bounds;
    for (; state.cursor->valid(); state.cursor->next()) {
      CountRowForCancel(env);
      std::string_view row;
      if (is_index) {
        state.primary_key = state.cursor->value();
        if (!view.get(level.table, state.primary_key, &row).ok()) continue;
      } else {
        state.primary_key = state.cursor->key();
        row = state.cursor->value();
      }
      Decode(level, state, row, exact_range);
      if (!Filters(level.on)) continue;
      *matched = true;
      if (level.full_join) full_matched_.emplace(state.primary_key);
      // The range is the exact key prefix of the equality bounds (BuildRange,
      // InList): every row in it passes them, and the range bounds that
      // BuildRange made exact.
      if (!NonKeyFilters(level, state.exact_bounds)) continue;
      if (!Level(level_idx + 1, on_row)) return false;
    }
    return true;
  }

  // InList's keys when every IN value is an integer (or NULL) and the column
  // an integer column (New-Order's items): the values sorted and made
  // distinct as numbers (the key encoding keeps their order), each key the
  // equality prefix (BuildRange's) and the value. False, nothing done, when
  // a value is of another kind: the general path decides then.
  bool IntegerInKeys(const ScanLevel& level, const solo::ColumnDef& column, LevelState& state) {
    if (!IsIntegerColumn(column)) return false;
    std::vector<int64_t>& numbers = state.in_numbers;
    numbers.clear();
    Value scratch;
    for (const BExprPtr& expr : level.in_values) {
      const Value& value = EvalInline(*expr, frame_, &scratch);
      if (value.is_null()) continue;  // equal to no row
      if (value.kind() != ValueKind::kInt) return false;
      numbers.push_back(value.as_int());
    }
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    for (int64_t number : numbers) {
      state.bound_key.assign(state.prefix);
      // Out of the column's range: equal to no row.
      if (append_integer_key(column, number, &state.bound_key)) state.in_keys.push_back(state.bound_key);
    }
    return true;
  }

  // A level whose next key column is given by an IN list: the distinct keys
  // (equal prefix + one value each) in key order; with the whole primary key,
  // fetched in one batch (the lookups' cache misses overlap), else one range
  // scan per key prefix. False when on_row stopped the scan.
  template <class F>
  bool InList(size_t level_idx, F& on_row, bool* matched) {
    const ScanLevel& level = plan_.levels[level_idx];
    LevelState& state = states_[level_idx];
    const TxnView& view = *frame_.env->view;
    const solo::ColumnDef& column = level.schema.columns[level.key_columns[level.equal.size()]];
    state.in_keys.clear();
    if (!IntegerInKeys(level, column, state)) {
      Value scratch;
      for (const BExprPtr& expr : level.in_values) {
        const Value& value = EvalInline(*expr, frame_, &scratch);
        solo::Value key_value;
        // NULL, or a value the column cannot hold: equal to no row.
        if (ToKeyValue(value, column, expr->pos, &key_value) != KeyFit::kFits) continue;
        state.key_values.push_back(std::move(key_value));
        std::string key;
        bool usable = append_key(level.schema, level.key_columns, state.key_values, &key).ok();
        state.key_values.pop_back();
        if (usable) state.in_keys.push_back(std::move(key));
      }
      std::sort(state.in_keys.begin(), state.in_keys.end());
      state.in_keys.erase(std::unique(state.in_keys.begin(), state.in_keys.end()), state.in_keys.end());
    }
    bool is_index = level.tree != level.table;
    if (is_index || level.equal.size() + 1 != level.key_columns.size()) {
      state.exact_bounds = 0;  // (an IN level has no range bounds)
      for (const std::string& key : state.in_keys) {
        state.range = KeyRange{};
        state.range.has_lower = true;
        state.range.lower = key;
        state.range.upper = prefix_successor(key);
        state.range.has_upper = !state.range.upper.empty();
        if (!ScanRange(level_idx, on_row, matched)) return false;
      }
      return true;
    }
    state.in_key_views.assign(state.in_keys.begin(), state.in_keys.end());
    state.in_rows.assign(state.in_keys.size(), std::string_view());
    if (!view.get_many(level.table, state.in_key_views, state.in_rows).ok()) {
      TableChanged(level);
    }
    for (size_t idx = 0; idx < state.in_keys.size(); ++idx) {
      if (state.in_rows[idx].data() == nullptr) continue;  // no such row
      state.primary_key = state.in_keys[idx];
      Decode(level, state, state.in_rows[idx]);
      if (!Filters(level.on)) continue;
      *matched = true;
      if (level.full_join) full_matched_.emplace(state.primary_key);
      if (!NonKeyFilters(level)) continue;  // every key was exact
      if (!Level(level_idx + 1, on_row)) return false;
    }
    return true;
  }

  // The batched level (an inner join by the whole primary key, see
  // BatchedLookupLevel) for the current outer row: queues its key and the
  // outer slots; runs the batch when it is full. False when on_row stopped
  // the scan.
  template <class F>
  bool AddToBatch(size_t level_idx, F& on_row) {
    const ScanLevel& level = plan_.levels[level_idx];
    LevelState& state = states_[level_idx];
    LookupBatch& batch = batch_;
    const size_t entry = batch.count;
    const size_t width = saved_slots_.size();
    if (batch.keys.size() <= entry) {
      batch.keys.emplace_back();
      batch.outer_slots.resize((entry + 1) * width);
    }
    // The key is built in its slot of the batch, taken only if there is one
    // (else no row can match).
    if (!BuildEqualKey(level, frame_, &state.key_values, &batch.keys[entry])) return true;
    ++batch.count;
    Value* saved = batch.outer_slots.data() + entry * width;  // none when width is 0
    for (size_t slot_idx = 0; slot_idx < width; ++slot_idx) {
      CopyValue(slots_[saved_slots_[slot_idx]], &saved[slot_idx]);
    }
    if (batch.count < kJoinLookupBatch) return true;
    return FlushBatch(on_row);
  }

  // Looks up the pending keys with one get_many, then runs each outer row
  // with its inner row (if any) through the level's filters and the levels
  // below, in the order they were queued. False when on_row stopped the scan.
  template <class F>
  bool FlushBatch(F& on_row) {
    LookupBatch& batch = batch_;
    size_t count = batch.count;
    batch.count = 0;  // taken: if a row below fails, Run must not run these again
    if (count == 0) return true;
    const ScanLevel& level = plan_.levels[batched_level_];
    LevelState& state = states_[batched_level_];
    batch.key_views.assign(batch.keys.begin(), batch.keys.begin() + static_cast<ptrdiff_t>(count));
    batch.rows.assign(count, std::string_view());
    if (!frame_.env->view->get_many(level.table, batch.key_views, batch.rows).ok()) {
      TableChanged(level);
    }
    size_t width = saved_slots_.size();
    for (size_t entry = 0; entry < count; ++entry) {
      // Restored for every entry, found or not: after a flush from
      // AddToBatch the outer levels go on with their current row, the last.
      const Value* saved = batch.outer_slots.data() + entry * width;
      for (size_t slot_idx = 0; slot_idx < width; ++slot_idx) {
        CopyValue(saved[slot_idx], &slots_[saved_slots_[slot_idx]]);
      }
      if (batch.rows[entry].data() == nullptr) continue;  // no such row
      state.primary_key = batch.keys[entry];
      Decode(level, state, batch.rows[entry]);
      if (!Filters(level.on)) continue;
      if (!NonKeyFilters(level)) continue;  // the key was exact
      if (!Level(batched_level_ + 1, on_row)) return false;
    }
    return true;
  }

  const SelectPlan& plan_;
  std::unique_ptr<ScanWorkspace> workspace_;  // from ScanWorkspaces, given back by the destructor
  std::vector<Value>& slots_;  // at least plan_.slot_count (more from an earlier statement)
  std::vector<LevelState>& states_;
  Frame frame_;
  int batched_level_ = -1;            // BatchedLookupLevel(plan_)
  // The keys of level 1's rows that a row of level 0 matched (FULL JOIN;
  // a Scanner runs once, so it starts empty).
  std::unordered_set<std::string> full_matched_;
  std::vector<uint32_t>& saved_slots_;  // the slots of the levels before it
  LookupBatch& batch_;
};

// The values an aggregate's DISTINCT has seen. Integers, the commonest
// (ids: Stock-Level's COUNT(DISTINCT s_i_id)), are kept as numbers in an
// open-addressing set while every value has been one: no text is formatted
// and nothing is allocated per value. The first value of another kind moves
// them to the general set of AppendHashKey's bytes, which makes 5, 5.0 and
// 5.00 one value, and every value goes there from then on.
class DistinctValues {
 public:
  // True if `value` (not NULL) was not seen before; it is seen from now on.
  bool Insert(const Value& value) {
    if (value.kind() == ValueKind::kInt && keys_.empty()) return InsertInt(value.as_int());
    if (int_count_ > 0) MoveIntsToKeys();
    std::string key;
    AppendHashKey(value, &key);
    return keys_.insert(std::move(key)).second;
  }

 private:
  // ints_ holds kEmpty in its free entries; the value kEmpty itself is
  // has_empty_value_.
  static constexpr int64_t kEmpty = INT64_MIN;

  static size_t Hash(int64_t number, size_t mask) {
    // Fibonacci hashing: the product's high bits mix every bit of the value.
    return static_cast<size_t>((static_cast<uint64_t>(number) * 0x9E3779B97F4A7C15ULL) >> 32) &
           mask;
  }

  bool InsertInt(int64_t number) {
    if (number == kEmpty) {
      if (has_empty_value_) return false;
      has_empty_value_ = true;
      ++int_count_;
      return true;
    }
    if (2 * (int_count_ + 1) > ints_.size()) Grow();
    const size_t mask = ints_.size() - 1;
    for (size_t entry = Hash(number, mask);; entry = (entry + 1) & mask) {
      if (ints_[entry] == number) return false;
      if (ints_[entry] == kEmpty) {
        ints_[entry] = number;
        ++int_count_;
        return true;
      }
    }
  }

  // Doubles the table (at most half full after), 64 entries at first.
  void Grow() {
    std::vector<int64_t> old(std::max<size_t>(64, 2 * ints_.size()), kEmpty);
    old.swap(ints_);
    const size_t mask = ints_.size() - 1;
    for (int64_t number : old) {
      if (number == kEmpty) continue;
      size_t entry = Hash(number, mask);
      while (ints_[entry] != kEmpty) entry = (entry + 1) & mask;
      ints_[entry] = number;
    }
  }

  void MoveIntsToKeys() {
    auto move = [this](int64_t number) {
      std::string key;
      AppendHashKey(Value::Int(number), &key);
      keys_.insert(std::move(key));
    };
    for (int64_t number : ints_) {
      if (number != kEmpty) move(number);
    }
    if (has_empty_value_) move(kEmpty);
    ints_.clear();
    has_empty_value_ = false;
    int_count_ = 0;
  }

  std::vector<int64_t> ints_;  // empty, or a power of two entries
  size_t int_count_ = 0;       // the integers held (kEmpty included)
  bool has_empty_value_ = false;
  std::unordered_set<std::string> keys_;
};

struct AggState {
  int64_t count = 0;
  Value acc;  // MIN, MAX; SUM and AVG of floating-point values
  // SUM and AVG of integers and decimals: a 128-bit sum at the largest scale
  // seen, so that only a result that does not fit fails (22003), not a sum
  // on the way (AVG of two values near the BIGINT limit).
  __int128 exact_sum = 0;
  int exact_scale = 0;
  int64_t exact_count = 0;
  std::unique_ptr<DistinctValues> seen;
};

// Adds an integer or decimal value to state's 128-bit sum.
void AddExact(const Value& value, AggState* state, SourcePos pos) {
  int64_t units = 0;
  int scale = 0;
  if (value.kind() == ValueKind::kInt) {
    units = value.as_int();
  } else {
    units = value.units();
    scale = value.scale();
  }
  // |sum| stays below 2^126: 2^63 per value, rescaled by at most 10^18, for
  // more rows than a table holds.
  constexpr __int128 kLimit = static_cast<__int128>(1) << 126;
  auto overflow = [pos] {
    ThrowSql(SqlState::kNumericValueOutOfRange, "numeric value out of range", pos);
  };
  if (scale > state->exact_scale) {
    const __int128 factor = kPow10[scale - state->exact_scale];
    if (state->exact_sum > kLimit / factor || state->exact_sum < -kLimit / factor) overflow();
    state->exact_sum *= factor;
    state->exact_scale = scale;
  }
  const __int128 addend = static_cast<__int128>(units) * kPow10[state->exact_scale - scale];
  state->exact_sum += addend;
  if (state->exact_sum > kLimit || state->exact_sum < -kLimit) overflow();
  ++state->exact_count;
}

void Accumulate(const AggSpec& spec, AggState* state, const Frame& frame) {
  if (spec.fn == AggFn::kCountStar) {
    ++state->count;
    return;
  }
  Value scratch;
  const Value& value = EvalInline(*spec.arg, frame, &scratch);
  if (value.is_null()) return;
  if (spec.distinct) {
    if (!state->seen) state->seen = std::make_unique<DistinctValues>();
    if (!state->seen->Insert(value)) return;
  }
  ++state->count;
  switch (spec.fn) {
    case AggFn::kCount: return;
    case AggFn::kSum:
    case AggFn::kAvg:
      if (!IsNumeric(value)) {
        ThrowSql(SqlState::kUndefinedFunction, "function sum/avg does not exist for this type",
                 spec.arg->pos);
      }
      if (value.kind() == ValueKind::kInt || value.kind() == ValueKind::kDecimal) {
        AddExact(value, state, spec.arg->pos);
      } else if (state->acc.is_null()) {
        state->acc = value;
      } else {
        Value sum;
        Arithmetic(BinaryOp::kAdd, state->acc, value, &sum, spec.arg->pos);
        state->acc = sum;
      }
      return;
    case AggFn::kMin:
    case AggFn::kMax:
      if (state->count == 1) {
        state->acc = value;
      } else {
        int cmp = CompareValues(value, state->acc, spec.arg->pos);
        if (spec.fn == AggFn::kMin ? cmp < 0 : cmp > 0) state->acc = value;
      }
      return;
    default: return;
  }
}

void Finish(const AggSpec& spec, const AggState& state, Value* out) {
  switch (spec.fn) {
    case AggFn::kCountStar:
    case AggFn::kCount: out->SetInt(state.count); return;
    case AggFn::kSum:
    case AggFn::kAvg: {
      if (state.count == 0) {
        out->SetNull();
        return;
      }
      const bool is_avg = spec.fn == AggFn::kAvg;
      Value exact;  // the integers' and decimals' part
      if (state.exact_count > 0) {
        if (is_avg && state.acc.is_null()) {
          DivideDecimal(state.exact_sum, state.exact_scale, state.count, 0, out, spec.arg->pos);
          return;
        }
        const bool fits = state.exact_sum >= INT64_MIN && state.exact_sum <= INT64_MAX;
        if (!fits) {
          ThrowSql(
              SqlState::kNumericValueOutOfRange,
              state.exact_scale == 0 ? "bigint value out of range" : "numeric value out of range",
              spec.arg->pos);
        }
        const auto units = static_cast<int64_t>(state.exact_sum);
        if (state.exact_scale == 0) {
          exact.SetInt(units);
        } else {
          exact.SetDecimal(units, state.exact_scale);
        }
      }
      Value sum;  // with the floating-point part, if any
      if (state.acc.is_null()) {
        sum = exact;
      } else if (exact.is_null()) {
        sum = state.acc;
      } else {
        Arithmetic(BinaryOp::kAdd, state.acc, exact, &sum, spec.arg->pos);
      }
      if (!is_avg) {
        *out = sum;
        return;
      }
      Arithmetic(BinaryOp::kDiv, sum, Value::Int(state.count), out, spec.arg->pos);
      return;
    }
    default:
      if (state.count == 0) out->SetNull();
      else *out = state.acc;
      return;
  }
}

// A whole row's DISTINCT key (AppendHashKey: NULLs equal, numbers by
// value): DISTINCT, INTERSECT and EXCEPT.
void AppendRowKey(std::span<const Value> row, std::string* key) {
  for (const Value& value : row) AppendHashKey(value, key);
}

// The output stage: projection, DISTINCT, sort, OFFSET and LIMIT.
class OutputStage {
 public:
  // `row`: the buffer each output row is built in (a Scanner's, kept from
  // one statement to the next).
  OutputStage(const SelectPlan& plan, const Frame& frame, RowTarget* target,
              std::vector<Value>* row)
      : plan_(plan), target_(target), env_(frame.env), row_(*row) {
    Value scratch;
    if (plan.limit) {
      const Value& limit = Eval(*plan.limit, frame, &scratch);
      if (!limit.is_null()) limit_ = ToCount(limit, plan.limit->pos, "LIMIT");
    }
    if (plan.offset) {
      const Value& offset = Eval(*plan.offset, frame, &scratch);
      if (!offset.is_null()) offset_ = ToCount(offset, plan.offset->pos, "OFFSET");
    }
    width_ = plan.outputs.size();
    for (const auto& key : plan.order) {
      if (key.output_index < 0) ++extra_;
    }
  }

  // Returns false once no more rows are wanted.
  bool Row(const Frame& frame) {
    if (limit_ == 0) return false;
    // Straight into the target's row where nothing is held back (no
    // DISTINCT, sort, sort-only value or OFFSET): the row is not built
    // here to be copied.
    Value* direct = !plan_.distinct && !plan_.need_sort && offset_ == 0 && extra_ == 0
                        ? target_->NextRow()
                        : nullptr;
    if (direct == nullptr) row_.resize(width_ + extra_);
    Value* dest = direct != nullptr ? direct : row_.data();
    for (size_t col = 0; col < width_; ++col) {
      const Value& value = EvalInline(*plan_.outputs[col], frame, &dest[col]);
      if (&value != &dest[col]) dest[col] = value;
    }
    if (direct != nullptr) {  // emitted: counted as Pass counts it
      if (limit_ > 0) --limit_;
      return limit_ != 0;
    }
    size_t extra = width_;
    for (const auto& key : plan_.order) {
      if (key.output_index >= 0) continue;
      const Value& value = EvalInline(*key.expr, frame, &row_[extra]);
      if (&value != &row_[extra]) row_[extra] = value;
      ++extra;
    }
    if (plan_.distinct) {
      std::string key;
      AppendRowKey(std::span<const Value>(row_.data(), width_), &key);
      if (!seen_.insert(std::move(key)).second) return true;
    }
    if (plan_.need_sort) {
      sorted_.insert(sorted_.end(), row_.begin(), row_.end());
      return true;
    }
    return Pass(row_.data());
  }

  void Finish() {
    if (!plan_.need_sort) return;
    size_t stride = width_ + extra_;
    size_t count = stride == 0 ? 0 : sorted_.size() / stride;
    std::vector<size_t> order(count);
    for (size_t idx = 0; idx < count; ++idx) order[idx] = idx;
    // Sort column of each key within a row.
    std::vector<size_t> key_col;
    size_t extra = width_;
    for (const auto& key : plan_.order) {
      key_col.push_back(key.output_index >= 0 ? static_cast<size_t>(key.output_index) : extra++);
    }
    // Each comparison counts as a row for the cancel check: a sort of n rows
    // makes about n log2 n of them, so a flag set while it sorts is seen
    // within kCancelCheckRows comparisons, and without a flag the count is
    // one predictable branch beside CompareValues. (std::stable_sort has no
    // phases to look between; a count kept outside it would look only once
    // it is done.) The throw leaves `order` in some order of its indexes,
    // dropped with the statement.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      CountRowForCancel(env_);
      for (size_t key = 0; key < key_col.size(); ++key) {
        const Value& left = sorted_[a * stride + key_col[key]];
        const Value& right = sorted_[b * stride + key_col[key]];
        const bool desc = plan_.order[key].descending;
        if (left.is_null() || right.is_null()) {
          if (left.is_null() && right.is_null()) continue;
          return plan_.order[key].nulls_first ? left.is_null() : right.is_null();
        }
        int cmp = CompareValues(left, right);
        if (cmp != 0) return desc ? cmp > 0 : cmp < 0;
      }
      return false;
    });
    for (size_t idx : order) {
      CountRowForCancel(env_);
      if (!Pass(&sorted_[idx * stride])) break;
    }
  }

 private:
  static int64_t ToCount(const Value& value, SourcePos pos, const char* what) {
    solo::ColumnDef bigint;
    bigint.type = Type::kBigInt;
    Value count;
    CastValue(value, bigint, &count, pos);
    if (count.as_int() < 0) {
      ThrowSql(SqlState::kInvalidParameterValue, fmt::format("{} must not be negative", what), pos);
    }
    return count.as_int();
  }

  bool Pass(const Value* row) {
    if (offset_ > 0) {
      --offset_;
      return true;
    }
    if (limit_ == 0) return false;
    if (limit_ > 0) --limit_;
    if (!target_->Emit(std::span<const Value>(row, width_))) {
      limit_ = 0;
      return false;
    }
    return limit_ != 0;
  }

  const SelectPlan& plan_;
  RowTarget* target_;
  ExecEnv* env_;  // the statement's, for its cancel flag
  int64_t limit_ = -1;
  int64_t offset_ = 0;
  size_t width_ = 0;
  size_t extra_ = 0;
  std::vector<Value>& row_;
  std::vector<Value> sorted_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

// Marks the columns of this query's row that expr reads; false if it holds
// a subquery (which may read any of them).
bool MarkColumns(const BExpr& expr, std::vector<bool>* read) {
  if (expr.subquery) return false;
  if (expr.kind == BKind::kColumn && expr.depth == 0 && expr.index < read->size()) {
    (*read)[expr.index] = true;
  }
  for (const BExprPtr& arg : expr.args) {
    if (arg && !MarkColumns(*arg, read)) return false;
  }
  return true;
}

int BatchedLookupLevel(const SelectPlan& plan) {
  for (size_t level_idx = 1; level_idx < plan.levels.size(); ++level_idx) {
    const ScanLevel& level = plan.levels[level_idx];
    bool whole_primary_key = level.table != kInvalidTree && level.tree == level.table &&
                             level.in_values.empty() &&
                             level.equal.size() == level.key_columns.size();
    if (!level.derived && whole_primary_key && !level.left_join) return static_cast<int>(level_idx);
  }
  return -1;
}

bool PlanPointSelect(SelectPlan* plan) {
  if (plan->levels.size() != 1 || plan->aggregate || plan->distinct || plan->limit || plan->offset) {
    return false;
  }
  for (const auto& key : plan->order) {
    if (key.output_index < 0) return false;  // a sort expression that might fail
  }
  const ScanLevel& level = plan->levels[0];
  if (level.derived || level.table == kInvalidTree || level.tree != level.table ||
      level.equal.size() != level.key_columns.size() || level.left_join || !level.on.empty()) {
    return false;
  }
  std::vector<bool> read(plan->slot_count, false);
  bool known = true;
  for (const BExprPtr& filter : plan->constant_filters) known = known && MarkColumns(*filter, &read);
  for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
    if (!level.where_is_key[filter_idx]) known = known && MarkColumns(*level.where[filter_idx], &read);
  }
  plan->point_output_column.clear();
  for (const BExprPtr& output : plan->outputs) {
    bool plain = output->kind == BKind::kColumn && output->depth == 0 &&
                 output->index >= level.slot_base && output->index < level.slot_base + level.columns;
    plan->point_output_column.push_back(plain ? static_cast<int>(output->index - level.slot_base) : -1);
    if (!plain) known = known && MarkColumns(*output, &read);
  }
  plan->point_slot_columns.clear();
  for (uint32_t col : level.needed) {
    if (!known || read[level.slot_base + col]) plan->point_slot_columns.push_back(col);
  }
  return true;
}

bool PlanPointModify(ModifyPlan* modify) {
  const SelectPlan& plan = *modify->scan;
  if (plan.levels.size() != 1) return false;
  const ScanLevel& level = plan.levels[0];
  if (level.derived || level.table == kInvalidTree || level.tree != level.table ||
      level.equal.size() != level.key_columns.size() || level.left_join || !level.on.empty()) {
    return false;
  }
  std::vector<bool> read(plan.slot_count, false);
  for (const BExprPtr& filter : plan.constant_filters) {
    if (!MarkColumns(*filter, &read)) return false;
  }
  for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
    if (!level.where_is_key[filter_idx] && !MarkColumns(*level.where[filter_idx], &read)) return false;
  }
  modify->assigned_columns.clear();
  for (const auto& [column, expr] : modify->assignments) {
    if (!MarkColumns(*expr, &read)) return false;
    modify->assigned_columns.push_back(column);
  }
  // RETURNING reads the changed row (decoded after the change) for UPDATE,
  // the row as found for DELETE (the plan without assignments).
  std::vector<bool> returned(plan.slot_count, false);
  for (const BExprPtr& expr : modify->returning) {
    if (!MarkColumns(*expr, modify->assignments.empty() ? &read : &returned)) return false;
  }
  modify->returning_columns.clear();
  modify->returning_assignment.clear();
  for (uint32_t col : level.needed) {
    if (!returned[level.slot_base + col]) continue;
    int assignment = -1;  // the last one wins, as in the patch
    for (size_t idx = 0; idx < modify->assigned_columns.size(); ++idx) {
      if (modify->assigned_columns[idx] == col) assignment = static_cast<int>(idx);
    }
    modify->returning_columns.push_back(col);
    modify->returning_assignment.push_back(assignment);
  }
  modify->point_slot_columns.clear();
  for (uint32_t col : level.needed) {
    if (read[level.slot_base + col]) modify->point_slot_columns.push_back(col);
  }
  modify->point = true;
  return true;
}

namespace {

// Marks in *read the columns of the levels' rows that the scan itself reads:
// its constant filters, each level's key values and bounds (outer levels'
// columns), IN list, ON filters and the WHERE filters its exact key does not
// already satisfy (those are never evaluated: Scanner::NonKeyFilters). False
// if one holds a subquery or a level is a derived table (its slots are
// filled whole from its rows).
// skip_range_level: the level whose range-bound filters (where_range_bound)
// are left out, as when its bounds were exact (or -1).
bool MarkScanReads(const SelectPlan& plan, std::vector<bool>* read, int skip_range_level = -1) {
  auto mark = [&](const BExprPtr& expr) { return !expr || MarkColumns(*expr, read); };
  for (const BExprPtr& filter : plan.constant_filters) {
    if (!mark(filter)) return false;
  }
  for (size_t level_idx = 0; level_idx < plan.levels.size(); ++level_idx) {
    const ScanLevel& level = plan.levels[level_idx];
    const bool skip_range = static_cast<int>(level_idx) == skip_range_level;
    if (level.derived) return false;
    for (const KeyBound& bound : level.equal) {
      if (!mark(bound.value)) return false;
    }
    if (!mark(level.lower.value) || !mark(level.upper.value)) return false;
    for (const BExprPtr& value : level.in_values) {
      if (!mark(value)) return false;
    }
    for (const BExprPtr& filter : level.on) {
      if (!mark(filter)) return false;
    }
    for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
      // A FULL JOIN's unmatched rows are found by no key: Unmatched
      // evaluates every filter.
      if (level.where_is_key[filter_idx] && !level.full_join) continue;
      if (skip_range && level.where_range_bound[filter_idx] != 0 && !level.full_join) continue;
      if (!mark(level.where[filter_idx])) return false;
    }
  }
  return true;
}

// Keeps in each level's `needed` only the columns marked in `read`.
void KeepNeeded(const std::vector<bool>& read, SelectPlan* plan) {
  for (ScanLevel& level : plan->levels) {
    std::vector<uint32_t> needed;
    for (uint32_t col : level.needed) {
      if (read[level.slot_base + col]) needed.push_back(col);
    }
    level.needed = std::move(needed);
  }
}

}  // namespace

void NarrowModifyScan(ModifyPlan* modify) {
  SelectPlan& plan = *modify->scan;
  if (plan.levels.size() != 1) return;
  std::vector<bool> read(plan.slot_count, false);
  if (!MarkScanReads(plan, &read)) return;
  for (const auto& [column, expr] : modify->assignments) {
    if (!MarkColumns(*expr, &read)) return;
  }
  std::vector<bool> returned(plan.slot_count, false);
  for (const BExprPtr& expr : modify->returning) {
    if (!MarkColumns(*expr, &returned)) return;
  }
  const uint32_t slot_base = plan.levels[0].slot_base;
  modify->returning_reads_assigned = false;
  for (const auto& assignment : modify->assignments) {
    if (returned[slot_base + assignment.first]) modify->returning_reads_assigned = true;
  }
  for (size_t slot = 0; slot < read.size(); ++slot) {
    if (returned[slot]) read[slot] = true;
  }
  KeepNeeded(read, &plan);
}

namespace {

// Marks in *read the columns of this query's row that its outputs read
// (over the input row: group keys and aggregate arguments when it
// aggregates, else the select list and sort expressions), LIMIT and
// OFFSET; false if one holds a subquery.
bool MarkOutputReads(const SelectPlan& plan, std::vector<bool>* read) {
  auto mark = [&](const BExprPtr& expr) { return !expr || MarkColumns(*expr, read); };
  if (plan.aggregate) {
    // Outputs, HAVING and ORDER BY are over the aggregate row.
    for (const BExprPtr& key : plan.group_keys) {
      if (!mark(key)) return false;
    }
    for (const AggSpec& agg : plan.aggs) {
      if (!mark(agg.arg)) return false;
    }
  } else {
    for (const BExprPtr& output : plan.outputs) {
      if (!mark(output)) return false;
    }
    for (const SelectPlan::SortKey& key : plan.order) {
      if (!mark(key.expr)) return false;
    }
  }
  return mark(plan.limit) && mark(plan.offset);
}

// Sets plan->batch_saved_slots: a queued outer row of a batched join is
// run on after its lookup through the batched level's filters but those
// its exact key satisfied (the key itself was built when it was queued),
// the levels after it, and the outputs; only the outer slots that these
// read are saved with it and restored. Nothing is planned (every needed
// column is saved) when one holds a subquery or a level is a derived table.
void PlanBatchSlots(SelectPlan* plan) {
  plan->batch_slots_planned = false;
  plan->batch_saved_slots.clear();
  const int batched = BatchedLookupLevel(*plan);
  if (batched < 0) return;
  std::vector<bool> read(plan->slot_count, false);
  auto mark = [&](const BExprPtr& expr) { return !expr || MarkColumns(*expr, &read); };
  for (size_t level_idx = 0; level_idx < plan->levels.size(); ++level_idx) {
    const ScanLevel& level = plan->levels[level_idx];
    if (level.derived) return;
    if (level_idx < static_cast<size_t>(batched)) continue;
    const bool after = level_idx > static_cast<size_t>(batched);
    if (after) {
      for (const KeyBound& bound : level.equal) {
        if (!mark(bound.value)) return;
      }
      if (!mark(level.lower.value) || !mark(level.upper.value)) return;
      for (const BExprPtr& value : level.in_values) {
        if (!mark(value)) return;
      }
    }
    for (const BExprPtr& filter : level.on) {
      if (!mark(filter)) return;
    }
    // The batched level is an inner join by its whole key: its key filters
    // never run. A later level may run them all (a LEFT JOIN's NULL row).
    for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
      if ((after || !level.where_is_key[filter_idx]) && !mark(level.where[filter_idx])) return;
    }
  }
  if (!MarkOutputReads(*plan, &read)) return;
  for (int level_idx = 0; level_idx < batched; ++level_idx) {
    const ScanLevel& level = plan->levels[level_idx];
    for (uint32_t col : level.needed) {
      if (read[level.slot_base + col]) plan->batch_saved_slots.push_back(level.slot_base + col);
    }
  }
  plan->batch_slots_planned = true;
}

}  // namespace

void NarrowSelectLevels(SelectPlan* plan) {
  std::vector<bool> read(plan->slot_count, false);
  if (MarkScanReads(*plan, &read) && MarkOutputReads(*plan, &read)) {
    KeepNeeded(read, plan);
    // Each level's columns that only its own range-bound filters read.
    for (size_t level_idx = 0; level_idx < plan->levels.size(); ++level_idx) {
      ScanLevel& level = plan->levels[level_idx];
      uint8_t bounds = 0;
      for (uint8_t bound : level.where_range_bound) bounds |= bound;
      if (bounds == 0) continue;
      std::vector<bool> exact_read(plan->slot_count, false);
      if (!MarkScanReads(*plan, &exact_read, static_cast<int>(level_idx)) ||
          !MarkOutputReads(*plan, &exact_read)) {
        continue;  // (cannot happen: the same expressions, fewer of them)
      }
      std::vector<uint32_t> needed_exact;
      for (uint32_t col : level.needed) {
        if (exact_read[level.slot_base + col]) needed_exact.push_back(col);
      }
      if (needed_exact.size() == level.needed.size()) continue;
      level.needed_exact = std::move(needed_exact);
      level.range_filter_bounds = bounds;
    }
  }
  PlanBatchSlots(plan);
}

bool FindPointRow(const SelectPlan& plan, std::span<const uint32_t> slot_columns,
                  const Frame& frame, ExecScratch* scratch, std::string_view* row, bool for_update,
                  std::string_view prebuilt_key) {
  const ScanLevel& level = plan.levels[0];
  for (const BExprPtr& filter : plan.constant_filters) {
    if (!EvalPredicate(*filter, frame)) return false;
  }
  std::string_view lookup = prebuilt_key;
  if (lookup.data() == nullptr) {
    if (!BuildEqualKey(level, frame, &scratch->key_values, &scratch->key)) return false;
    lookup = scratch->key;
  }
  // A row about to be changed is found through the WriteTxn, which keeps the
  // descent for the change (no second search).
  Status found = for_update ? frame.env->write->get_for_update(level.table, lookup, row)
                            : frame.env->view->get(level.table, lookup, row);
  if (!found.ok()) return false;
  std::vector<solo::ColumnView>& columns = scratch->columns;
  DecodeLeading(level, *row, &columns);
  for (uint32_t col : slot_columns) {
    FromEngine(columns[col], level.schema.columns[col], &frame.slots[level.slot_base + col]);
  }
  for (size_t filter_idx = 0; filter_idx < level.where.size(); ++filter_idx) {
    if (level.where_is_key[filter_idx]) continue;  // the key was exact: it holds
    if (!EvalPredicate(*level.where[filter_idx], frame)) return false;
  }
  return true;
}

bool PointRowKey(const SelectPlan& plan, const Frame& frame, ExecScratch* scratch) {
  return BuildEqualKey(plan.levels[0], frame, &scratch->key_values, &scratch->key);
}

uint64_t RunPointSelect(const SelectPlan& plan, ExecEnv* env, ExecScratch* scratch, ResultSet* out,
                        std::string_view prebuilt_key) {
  const ScanLevel& level = plan.levels[0];
  if (scratch->slots.size() < plan.slot_count) scratch->slots.resize(plan.slot_count);
  Frame frame;
  frame.slots = scratch->slots.data();
  frame.env = env;
  std::string_view row;
  if (!FindPointRow(plan, plan.point_slot_columns, frame, scratch, &row, /*for_update=*/false,
                    prebuilt_key)) {
    return 0;
  }
  const std::vector<solo::ColumnView>& columns = scratch->columns;
  std::vector<Value> dropped;
  Value* dest = nullptr;
  if (out != nullptr) {
    assert(out->column_count() == plan.outputs.size());
    dest = out->AppendRow();
  } else {
    dropped.resize(plan.outputs.size());  // evaluated all the same: they may fail
    dest = dropped.data();
  }
  for (size_t col = 0; col < plan.outputs.size(); ++col) {
    int column = plan.point_output_column[col];
    if (column >= 0) {  // a plain column: from the row's bytes, one copy
      FromEngine(columns[column], level.schema.columns[column], &dest[col]);
      continue;
    }
    const Value& value = EvalInline(*plan.outputs[col], frame, &dest[col]);
    if (&value != &dest[col]) dest[col] = value;
  }
  return 1;
}

void RunScan(const SelectPlan& plan, ExecEnv* env, const Frame* outer, ScanTarget* target) {
  Scanner scanner(plan, env, outer);
  auto on_row = [&]() {
    return target->Row(scanner.frame(), scanner.primary_key(0), scanner.decoded_row(0));
  };
  scanner.Run(on_row);
}

namespace {

// Passes rows on to `target` and remembers whether it asked to stop (a
// UNION's later arms are then not run).
class UnionTarget : public RowTarget {
 public:
  explicit UnionTarget(RowTarget* target) : target_(target) {}
  bool Emit(std::span<const Value> row) override {
    wants_more_ = target_->Emit(row);
    return wants_more_;
  }
  Value* NextRow() override { return target_->NextRow(); }
  bool wants_more() const { return wants_more_; }

 private:
  RowTarget* target_;
  bool wants_more_ = true;
};

// The rows of an INTERSECT's or EXCEPT's right side: how often each came,
// by its DISTINCT key (AppendHashKey: NULLs equal, numbers by value).
class SetCountTarget : public RowTarget {
 public:
  bool Emit(std::span<const Value> row) override {
    key_.clear();
    AppendRowKey(row, &key_);
    ++counts_[key_];
    return true;
  }
  std::unordered_map<std::string, int64_t>& counts() { return counts_; }

 private:
  std::unordered_map<std::string, int64_t> counts_;
  std::string key_;
};

// Passes on the left side's rows that an INTERSECT or EXCEPT keeps
// (SelectPlan::set_op), using up the right side's counts: a count is how
// many more of that row may pass (INTERSECT) or are still to be dropped
// (EXCEPT). Without ALL a row that passed gets the count 0 (INTERSECT: none
// more pass; EXCEPT: an entry, so none more pass).
class SetOpTarget : public RowTarget {
 public:
  SetOpTarget(const SelectPlan& plan, std::unordered_map<std::string, int64_t>* counts,
              RowTarget* target)
      : intersect_(plan.set_op == SelectPlan::SetOp::kIntersect),
        all_(plan.set_all),
        counts_(*counts),
        target_(target) {}

  bool Emit(std::span<const Value> row) override {
    key_.clear();
    AppendRowKey(row, &key_);
    const auto found = counts_.find(key_);
    bool pass = false;
    if (intersect_) {
      pass = found != counts_.end() && found->second > 0;
      if (pass) found->second = all_ ? found->second - 1 : 0;
    } else if (all_) {
      pass = found == counts_.end() || found->second == 0;
      if (!pass) --found->second;
    } else {
      pass = found == counts_.end();
      if (pass) counts_.emplace(key_, 0);
    }
    return !pass || target_->Emit(row);
  }

 private:
  const bool intersect_;
  const bool all_;
  std::unordered_map<std::string, int64_t>& counts_;
  RowTarget* target_;
  std::string key_;
};

void RunSelectRows(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target);
void RunSelectArms(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target);

}  // namespace

void RunSelect(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target) {
  if (plan.set_op == SelectPlan::SetOp::kNone) {
    RunSelectArms(plan, env, outer, target);
    return;
  }
  SetCountTarget right;
  RunSelect(*plan.set_right, env, outer, &right);
  // Nothing to intersect with: no row passes, and the left side is not run.
  if (plan.set_op == SelectPlan::SetOp::kIntersect && right.counts().empty()) return;
  SetOpTarget left(plan, &right.counts(), target);
  RunSelectArms(plan, env, outer, &left);
}

namespace {

// RunSelect without the plan's set_op: its own rows, then its union_arms'.
void RunSelectArms(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target) {
  if (plan.union_arms.empty()) {
    RunSelectRows(plan, env, outer, target);
    return;
  }
  UnionTarget union_target(target);
  RunSelectRows(plan, env, outer, &union_target);
  for (const std::unique_ptr<SelectPlan>& arm : plan.union_arms) {
    if (!union_target.wants_more()) return;
    RunSelect(*arm, env, outer, &union_target);
  }
}

// RunSelect without the plan's union_arms.
void RunSelectRows(const SelectPlan& plan, ExecEnv* env, const Frame* outer, RowTarget* target) {
  Scanner scanner(plan, env, outer);
  if (!plan.aggregate) {
    OutputStage output(plan, scanner.frame(), target, scanner.output_row());
    auto on_row = [&]() { return output.Row(scanner.frame()); };
    scanner.Run(on_row);
    output.Finish();
    return;
  }
  const Frame& frame = scanner.frame();
  if (plan.streaming) {
    // Streaming aggregation: rows arrive grouped (see the binder's
    // GroupedByScanOrder), so each group is finished and passed on as soon as
    // the next one starts, and LIMIT can stop the scan.
    size_t key_count = plan.group_keys.size();
    std::vector<Value> agg_row(key_count + plan.aggs.size());
    Frame agg_frame;
    agg_frame.slots = agg_row.data();
    agg_frame.outer = outer;
    agg_frame.env = env;
    OutputStage output(plan, agg_frame, target, scanner.output_row());
    std::vector<AggState> states(plan.aggs.size());
    std::string key, group_key;
    bool in_group = false;
    bool wants_more = true;
    auto finish_group = [&]() {
      for (size_t agg = 0; agg < plan.aggs.size(); ++agg) {
        Finish(plan.aggs[agg], states[agg], &agg_row[key_count + agg]);
      }
      if (plan.having && !EvalPredicate(*plan.having, agg_frame)) return true;
      return output.Row(agg_frame);
    };
    auto on_row = [&]() {
      key.clear();
      Value scratch;
      for (const BExprPtr& group_expr : plan.group_keys) {
        AppendHashKey(Eval(*group_expr, frame, &scratch), &key);
      }
      if (!in_group || key != group_key) {
        if (in_group && !finish_group()) {
          wants_more = false;
          return false;
        }
        in_group = true;
        group_key.swap(key);
        for (size_t col = 0; col < key_count; ++col) {
          const Value& value = Eval(*plan.group_keys[col], frame, &agg_row[col]);
          if (&value != &agg_row[col]) agg_row[col] = value;
        }
        for (AggState& state : states) state = AggState();
      }
      for (size_t agg = 0; agg < plan.aggs.size(); ++agg) {
        Accumulate(plan.aggs[agg], &states[agg], frame);
      }
      return true;
    };
    scanner.Run(on_row);
    if (in_group && wants_more) finish_group();
    output.Finish();
    return;
  }
  // Hash aggregation: groups in first-seen order.
  struct Group {
    std::vector<Value> keys;
    std::vector<AggState> states;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> index;
  std::string key;
  if (plan.group_keys.empty()) {
    // One group, of every row (or of none): no key to look up per row.
    groups.emplace_back();
    groups.back().states.resize(plan.aggs.size());
  }
  auto on_row = [&]() {
    if (plan.group_keys.empty()) {
      for (size_t agg = 0; agg < plan.aggs.size(); ++agg) {
        Accumulate(plan.aggs[agg], &groups[0].states[agg], frame);
      }
      return true;
    }
    key.clear();
    Value scratch;
    for (const BExprPtr& group_key : plan.group_keys) {
      AppendHashKey(Eval(*group_key, frame, &scratch), &key);
    }
    auto [it, inserted] = index.try_emplace(key, groups.size());
    if (inserted) {
      Group group;
      for (const BExprPtr& group_key : plan.group_keys) {
        Value value;
        const Value& result = Eval(*group_key, frame, &value);
        group.keys.push_back(result);
      }
      group.states.resize(plan.aggs.size());
      groups.push_back(std::move(group));
    }
    Group& group = groups[it->second];
    for (size_t agg = 0; agg < plan.aggs.size(); ++agg) {
      Accumulate(plan.aggs[agg], &group.states[agg], frame);
    }
    return true;
  };
  scanner.Run(on_row);
  std::vector<Value> agg_row(plan.group_keys.size() + plan.aggs.size());
  Frame agg_frame;
  agg_frame.slots = agg_row.data();
  agg_frame.outer = outer;
  agg_frame.env = env;
  OutputStage output(plan, agg_frame, target, scanner.output_row());
  for (Group& group : groups) {
    // A group per row read is possible (GROUP BY a key), and HAVING and the
    // select list are evaluated here, after the scan's last look at the flag.
    CountRowForCancel(env);
    for (size_t col = 0; col < group.keys.size(); ++col) agg_row[col] = group.keys[col];
    for (size_t agg = 0; agg < plan.aggs.size(); ++agg) {
      Finish(plan.aggs[agg], group.states[agg], &agg_row[group.keys.size() + agg]);
    }
    if (plan.having && !EvalPredicate(*plan.having, agg_frame)) continue;
    if (!output.Row(agg_frame)) break;
  }
  output.Finish();
}

}  // namespace

}  // namespace solo::sql
