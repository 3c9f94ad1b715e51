// Prepared statements: SQL text parsed, bound against a catalog and planned
// once, then executed many times with parameters. See sql/README.md,
// "Executing SQL".
//
// Threads. A PreparedStatement is immutable once Prepare() has returned: any
// number of threads may execute it at the same time (each call keeps its own
// state). Reads (SELECT, EXPLAIN) run on any thread inside db.read() with the
// ReadTxn, or on the owner inside db.write() with the WriteTxn; everything
// else (INSERT, UPDATE, DELETE, DDL) runs only on the owner thread inside
// db.write() with the WriteTxn.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solo/catalog.h"
#include "solo/function_ref.h"
#include "solo/sql/error.h"
#include "solo/sql/result.h"
#include "solo/sql/value.h"
#include "solo/txn.h"

namespace solo::sql {

struct Plan;
struct ExecScratch;

// The rows of a statement, row-major, and the number of rows it changed.
// Reusable: Execute() clears it but keeps its buffers (values with their
// text capacity, and the executor's per-call buffers), so that executing a
// statement again with the same ResultSet allocates nothing in steady state.
// Copying copies the rows, not the buffers. One thread at a time.
class ResultSet {
 public:
  ResultSet();
  ~ResultSet();
  ResultSet(const ResultSet& other);
  ResultSet& operator=(const ResultSet& other);
  ResultSet(ResultSet&& other) noexcept;
  ResultSet& operator=(ResultSet&& other) noexcept;

  size_t column_count() const { return names().size(); }
  size_t row_count() const { return column_count() == 0 ? 0 : value_count_ / column_count(); }
  const std::vector<std::string>& column_names() const { return names(); }
  // Preconditions: row < row_count(), column < column_count().
  const Value& at(size_t row, size_t column) const { return values_[row * column_count() + column]; }
  // INSERT, UPDATE, DELETE: rows inserted, changed or deleted; SELECT: rows returned.
  uint64_t affected_rows() const { return affected_; }
  // "SELECT", "INSERT", ... or "BEGIN"/"COMMIT"/"ROLLBACK" (the command tag).
  const std::string& tag() const { return tag_; }

  void Clear();

  // For the executor: appends a row of column_count() values and returns
  // them to be overwritten (they hold an earlier row's values, or NULL).
  Value* AppendRow();
  // For the executor: a value of a row already appended, to be changed in
  // place. Preconditions: row < row_count(), column < column_count().
  Value& mutable_at(size_t row, size_t column) { return values_[row * column_count() + column]; }
  // Empties the rows and takes `names` (which belong to `source`, a plan
  // kept alive meanwhile: they are referred to, not copied) and `tag`.
  void ResetFor(const std::shared_ptr<const Plan>& source, const std::vector<std::string>& names,
                std::string_view tag);
  std::vector<std::string>& mutable_names() {
    if (shared_names_ != nullptr) names_ = *shared_names_;
    shared_names_ = nullptr;
    names_source_.reset();
    return names_;
  }
  void set_affected(uint64_t affected) { affected_ = affected; }
  void set_tag(std::string_view tag) {
    mutable_names();  // the tag no longer comes from names_source_
    tag_.assign(tag);
  }
  // The executor's buffers, made on first use.
  ExecScratch& scratch();

 private:
  const std::vector<std::string>& names() const {
    return shared_names_ != nullptr ? *shared_names_ : names_;
  }
  std::vector<std::string> names_;  // unless shared_names_ is set
  const std::vector<std::string>* shared_names_ = nullptr;  // names_source_'s
  std::vector<Value> values_;  // the rows are [0, value_count_); the rest are spare
  size_t value_count_ = 0;
  uint64_t affected_ = 0;
  std::string tag_;
  std::shared_ptr<const Plan> names_source_;  // see ResetFor
  std::unique_ptr<ExecScratch> scratch_;
};

// A success or a SqlError; OK costs no allocation.
class SqlStatus {
 public:
  SqlStatus() = default;
  SqlStatus(SqlError error) : error_(std::make_unique<SqlError>(std::move(error))) {}  // NOLINT
  bool ok() const { return error_ == nullptr; }
  // Precondition: !ok().
  const SqlError& error() const { return *error_; }

 private:
  std::unique_ptr<SqlError> error_;
};

enum class StatementClass : uint8_t {
  kRead,         // SELECT, EXPLAIN: any thread with a TxnView
  kWrite,        // INSERT, UPDATE, DELETE: the owner, with a WriteTxn
  kDdl,          // CREATE, DROP: the owner, with a WriteTxn
  kTransaction,  // BEGIN, COMMIT, ROLLBACK: only a Session runs these
};

class PreparedStatement {
 public:
  // Parses `sql` (exactly one statement, `?` or `$n` parameters), binds its
  // names against the catalog of `view` and plans it. Returns the SqlError
  // of the first problem (syntax 42601, unknown table 42P01, column 42703,
  // ...) with its position in `sql`. DDL is only parsed here and checked
  // when executed. `view` is only read during the call: a ReadTxn inside
  // db.read() (any thread) or the WriteTxn inside db.write() (owner).
  static Result<PreparedStatement> Prepare(const TxnView& view, std::string_view sql);

  PreparedStatement(const PreparedStatement&) = default;
  PreparedStatement& operator=(const PreparedStatement&) = default;
  PreparedStatement(PreparedStatement&&) noexcept = default;
  PreparedStatement& operator=(PreparedStatement&&) noexcept = default;
  ~PreparedStatement();

  StatementClass statement_class() const;
  bool read_only() const { return statement_class() == StatementClass::kRead; }
  // The number of parameters Execute() expects (the highest $n or the count of ?):
  // exactly that many values, fewer or more is 42P02 and nothing runs.
  uint32_t parameter_count() const;
  const std::string& sql() const;
  // Output column names (empty for statements without rows).
  const std::vector<std::string>& column_names() const;

  // Executes on the owner thread inside db.write(). Replaces *out's rows
  // (out may be null to drop them) and sets its affected count. On error
  // returns the SqlError (constraint violations 23505/23502, 22003, 22012,
  // ...; 55000 if a table the plan uses no longer exists), and the statement
  // may have made part of its changes: the caller must then undo the
  // transaction (return an error from the write fn, or txn.rollback()).
  // kTransaction statements are refused (a Session runs them).
  // `cancel` (may be null; must outlive the call) may be set by any thread,
  // or a signal handler, while the statement runs: the statement then fails
  // with 57014 (kQueryCanceled), the caller undoing its changes as after any
  // error. It is looked at when the statement starts and every 1,024 steps
  // of the loops it may spend long in (sql/README.md "Sessions": a scan's
  // rows, the changes, an INSERT's rows, a sort's comparisons, the groups,
  // and the rows of CREATE INDEX and DROP inside the engine). The call only
  // reads the flag; the caller clears it.
  SqlStatus Execute(WriteTxn& txn, std::span<const Value> params, ResultSet* out,
                    const std::atomic<bool>* cancel = nullptr) const;

  // Executes the statement once per parameter set, in order, as as many
  // Execute() calls would, and calls each(k, *out) after the k-th (*out
  // holds its rows and affected count then; `out` may be null). Stops at the first error and
  // returns it (the sets before it have run; undo as after Execute). Where
  // the statement finds one row by its whole primary key (a point UPDATE,
  // DELETE or SELECT), the rows of all the sets are first looked up
  // together (TxnView::get_many), so that their cache misses overlap
  // instead of coming one after another, statement by statement: a lookup
  // in a large table waits for ~2 dependent memory misses (engine/README.md).
  SqlStatus ExecuteBatch(WriteTxn& txn, std::span<const std::span<const Value>> param_sets,
                         ResultSet* out, FunctionRef<void(size_t, const ResultSet&)> each) const;

  // Executes a kRead statement on the calling thread against `view` (a
  // ReadTxn inside db.read(), or a WriteTxn on the owner). Refuses others
  // with 25006-like kFeatureNotSupported. Any thread. `cancel` as above.
  SqlStatus Execute(const TxnView& view, std::span<const Value> params, ResultSet* out,
                    const std::atomic<bool>* cancel = nullptr) const;

  // EXPLAIN's text for this statement: one line per plan node.
  std::vector<std::string> Explain() const;

 private:
  explicit PreparedStatement(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {}
  std::shared_ptr<const Plan> plan_;
};

}  // namespace solo::sql
