#include "solo/sql/session.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "solo/sql/parser.h"

namespace solo::sql {
namespace {

// Statement kind of `sql` without binding it; nullopt on a syntax error.
Result<StatementKind> KindOf(std::string_view sql) {
  Result<ParsedStatement> parsed = ParseStatement(sql);
  if (!parsed.ok()) return parsed.error();
  return parsed->statement->kind;
}

}  // namespace

// An explicit transaction: a thread that holds db.write() open and runs the
// session's statements inside it, one request at a time.
struct Session::Txn {
  std::mutex mu;
  std::condition_variable cv;
  // Request (session -> owner).
  enum class Op { kNone, kStatement, kCommit, kRollback } op = Op::kNone;
  std::string_view sql;
  std::span<const Value> params;
  ResultSet* out = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  // Answer (owner -> session).
  bool answered = false;
  SqlStatus result;
  // State.
  bool failed = false;     // an error happened: 25P02 until ROLLBACK
  bool finished = false;   // the write fn returned
  bool timed_out = false;  // ... because the session was idle too long
  Status write_status;
  std::thread thread;
};

Session::Session(Database& db) : Session(db, Options{}) {}
Session::Session(Database& db, Options options) : db_(db), options_(options) {}

Session::~Session() {
  if (txn_) Finish(/*commit=*/false, nullptr);
}

bool Session::in_transaction() const { return txn_ != nullptr; }

Result<PreparedStatement> Session::Get(const TxnView& view, std::string_view sql) {
  auto found = cache_.find(std::string(sql));
  if (found != cache_.end()) return found->second;
  Result<PreparedStatement> prepared = PreparedStatement::Prepare(view, sql);
  if (prepared.ok() && prepared->statement_class() != StatementClass::kDdl) {
    if (cache_.size() > 1000) cache_.clear();
    cache_.emplace(std::string(sql), prepared.value());
  }
  return prepared;
}

SqlStatus Session::Exec(std::string_view sql, std::span<const Value> params, ResultSet* out) {
  if (out != nullptr) out->Clear();
  Result<StatementKind> kind = KindOf(sql);
  if (!kind.ok()) {
    if (txn_) txn_->failed = true;
    return kind.error();
  }
  if (timed_out_) {
    timed_out_ = false;
    return SqlError(SqlState::kIdleInTransactionTimeout,
                    "terminating transaction due to idle-in-transaction timeout");
  }
  if (txn_ && txn_->finished && txn_->timed_out) {
    Finish(false, nullptr);
    return SqlError(SqlState::kIdleInTransactionTimeout,
                    "terminating transaction due to idle-in-transaction timeout");
  }
  bool transaction_statement = kind.value() == StatementKind::kBegin ||
                               kind.value() == StatementKind::kCommit ||
                               kind.value() == StatementKind::kRollback;
  if (transaction_statement && !params.empty()) {
    // As PreparedStatement::Execute refuses values beyond a statement's
    // parameters (42P02); these have none. Nothing is begun or ended.
    if (txn_) txn_->failed = true;
    return SqlError(SqlState::kUndefinedParameter,
                    fmt::format("{} parameter{} given, but the statement requires 0", params.size(),
                                params.size() == 1 ? "" : "s"));
  }
  switch (kind.value()) {
    case StatementKind::kBegin:
      if (txn_) {
        if (out) out->set_tag("BEGIN");
        return SqlError(SqlState::kActiveSqlTransaction, "there is already a transaction in progress");
      }
      if (out) out->set_tag("BEGIN");
      return Begin();
    case StatementKind::kCommit:
    case StatementKind::kRollback:
      if (!txn_) {
        if (out) out->set_tag(kind.value() == StatementKind::kCommit ? "COMMIT" : "ROLLBACK");
        return {};  // PostgreSQL: a warning, no error
      }
      return Finish(kind.value() == StatementKind::kCommit, out);
    default: break;
  }
  if (!txn_) return ExecAutocommit(sql, params, out);

  Txn& txn = *txn_;
  if (txn.failed) {
    return SqlError(SqlState::kInFailedSqlTransaction,
                    "current transaction is aborted, commands ignored until end of transaction block");
  }
  std::unique_lock<std::mutex> lock(txn.mu);
  if (txn.finished) {
    lock.unlock();
    bool timed_out = txn.timed_out;
    Finish(false, nullptr);
    if (timed_out) {
      return SqlError(SqlState::kIdleInTransactionTimeout,
                      "terminating transaction due to idle-in-transaction timeout");
    }
    return SqlError(SqlState::kInFailedSqlTransaction, "the transaction has ended");
  }
  txn.op = Txn::Op::kStatement;
  txn.sql = sql;
  txn.params = params;
  txn.out = out;
  txn.cancel = cancel_;
  txn.answered = false;
  txn.cv.notify_all();
  txn.cv.wait(lock, [&] { return txn.answered || txn.finished; });
  if (!txn.answered) {
    return SqlError(SqlState::kIdleInTransactionTimeout,
                    "terminating transaction due to idle-in-transaction timeout");
  }
  SqlStatus result = std::move(txn.result);
  if (!result.ok()) txn.failed = true;
  return result;
}

SqlStatus Session::ExecAutocommit(std::string_view sql, std::span<const Value> params,
                                  ResultSet* out) {
  SqlStatus result;
  bool done = false;
  // Reads first try a snapshot; a statement that is not a read goes to the owner.
  Status read_status = db_.read([&](ReadTxn& view) {
    Result<PreparedStatement> prepared = Get(view, sql);
    if (!prepared.ok()) {
      result = prepared.error();
      done = true;
      return Status::OK();
    }
    if (!prepared->read_only()) return Status::OK();
    result = prepared->Execute(view, params, out, cancel_);
    if (!result.ok() && result.error().state() == SqlState::kObjectNotInPrerequisiteState) {
      cache_.erase(std::string(sql));
      Result<PreparedStatement> again = PreparedStatement::Prepare(view, sql);
      if (!again.ok()) {
        result = again.error();
      } else {
        result = again->Execute(view, params, out, cancel_);
      }
    }
    done = true;
    return Status::OK();
  });
  if (!read_status.ok()) return SqlError(SqlState::kInternalError, read_status.ToString());
  if (done) return result;
  Status write_status = db_.write([&](WriteTxn& txn) {
    Result<PreparedStatement> prepared = Get(txn, sql);
    if (!prepared.ok()) {
      result = prepared.error();
      return Status::Aborted("error");
    }
    result = prepared->Execute(txn, params, out, cancel_);
    if (!result.ok() && result.error().state() == SqlState::kObjectNotInPrerequisiteState) {
      cache_.erase(std::string(sql));
      Result<PreparedStatement> again = PreparedStatement::Prepare(txn, sql);
      result = again.ok() ? again->Execute(txn, params, out, cancel_) : SqlStatus(again.error());
    }
    return result.ok() ? Status::OK() : Status::Aborted("error");
  });
  if (result.ok() && !write_status.ok()) {
    return SqlError(SqlState::kInternalError, write_status.ToString());
  }
  return result;
}

SqlStatus Session::Begin() {
  txn_ = std::make_unique<Txn>();
  Txn* txn = txn_.get();
  auto timeout = options_.idle_timeout;
  txn->thread = std::thread([this, txn, timeout] {
    Status status = db_.write([&](WriteTxn& write) -> Status {
      std::unique_lock<std::mutex> lock(txn->mu);
      for (;;) {
        bool woke = txn->cv.wait_for(lock, timeout, [&] { return txn->op != Txn::Op::kNone; });
        if (!woke) {
          txn->timed_out = true;
          write.rollback();
          return Status::Aborted("idle in transaction");
        }
        Txn::Op op = txn->op;
        txn->op = Txn::Op::kNone;
        if (op == Txn::Op::kCommit) {
          if (txn->failed) {
            write.rollback();
            return Status::Aborted("failed transaction");
          }
          return Status::OK();
        }
        if (op == Txn::Op::kRollback) {
          write.rollback();
          return Status::Aborted("rollback");
        }
        // A statement: prepared against the transaction's own catalog.
        Result<PreparedStatement> prepared = PreparedStatement::Prepare(write, txn->sql);
        if (!prepared.ok()) {
          txn->result = prepared.error();
        } else if (prepared->read_only()) {
          txn->result = prepared->Execute(static_cast<const TxnView&>(write), txn->params, txn->out,
                                          txn->cancel);
        } else {
          txn->result = prepared->Execute(write, txn->params, txn->out, txn->cancel);
        }
        if (!txn->result.ok()) txn->failed = true;
        txn->answered = true;
        txn->cv.notify_all();
      }
    });
    std::lock_guard<std::mutex> lock(txn->mu);
    txn->write_status = status;
    txn->finished = true;
    txn->cv.notify_all();
  });
  return {};
}

SqlStatus Session::Finish(bool commit, ResultSet* out) {
  Txn& txn = *txn_;
  bool was_failed = txn.failed;
  {
    std::unique_lock<std::mutex> lock(txn.mu);
    if (!txn.finished) {
      txn.op = commit ? Txn::Op::kCommit : Txn::Op::kRollback;
      txn.cv.notify_all();
      txn.cv.wait(lock, [&] { return txn.finished; });
    }
  }
  txn.thread.join();
  bool timed_out = txn.timed_out;
  Status status = txn.write_status;
  txn_.reset();
  cache_.clear();  // DDL inside the transaction may have been undone
  if (out) out->set_tag(commit && !was_failed && !timed_out ? "COMMIT" : "ROLLBACK");
  if (timed_out && commit) {
    return SqlError(SqlState::kIdleInTransactionTimeout,
                    "terminating transaction due to idle-in-transaction timeout");
  }
  if (commit && !was_failed && !status.ok()) {
    return SqlError(SqlState::kInternalError, "commit failed: " + status.ToString());
  }
  return {};
}

}  // namespace solo::sql
