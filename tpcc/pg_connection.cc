// PgConnection: statement cache, binding, reading, the transaction loop.
#include "tpcc/pg_connection.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <pqxx/pqxx>

#include <fmt/format.h>

namespace tpcc {
namespace {

// Type OIDs of the built-in types the harness reads (pg_type.h).
constexpr pqxx::oid kBoolOid = 16;
constexpr pqxx::oid kInt8Oid = 20;
constexpr pqxx::oid kInt2Oid = 21;
constexpr pqxx::oid kInt4Oid = 23;
constexpr pqxx::oid kOidOid = 26;
constexpr pqxx::oid kFloat4Oid = 700;
constexpr pqxx::oid kFloat8Oid = 701;
constexpr pqxx::oid kTimestampOid = 1114;

// SQLSTATEs after which the whole transaction is run again.
bool is_retryable_state(const std::string& sqlstate) {
  return sqlstate == "40001"     // serialization_failure
         || sqlstate == "40P01";  // deadlock_detected
}

// The server's message on one line: "ERROR:  " dropped, the lines (DETAIL,
// HINT, CONTEXT, libpq's hints) trimmed and joined with "; ".
std::string one_line(const char* what) {
  std::string text = what;
  if (text.rfind("ERROR:", 0) == 0) text.erase(0, text.find_first_not_of(' ', 6));
  std::string joined;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t first = line.find_first_not_of(" \t");
    const size_t last = line.find_last_not_of(" \t\r");
    if (first != std::string::npos) {
      if (!joined.empty()) joined += "; ";
      joined += line.substr(first, last - first + 1);
    }
    start = end + 1;
  }
  return joined;
}

// Converts a libpqxx exception (the current one) about `what` into a
// BackendError: retryable for serialization failures and deadlocks.
[[noreturn]] void rethrow_as_backend_error(const std::string& what) {
  try {
    throw;
  } catch (const pqxx::sql_error& error) {
    const std::string& state = error.sqlstate();
    throw BackendError(fmt::format("postgres: {}: {} (SQLSTATE {})", what, one_line(error.what()),
                                   state.empty() ? "unknown" : state),
                       is_retryable_state(state));
  } catch (const pqxx::serialization_failure& error) {
    // libpqxx 6 derives these from pqxx::failure, not sql_error.
    throw BackendError(fmt::format("postgres: {}: {} (SQLSTATE 40001)", what, one_line(error.what())),
                       /*retryable=*/true);
  } catch (const pqxx::deadlock_detected& error) {
    throw BackendError(fmt::format("postgres: {}: {} (SQLSTATE 40P01)", what, one_line(error.what())),
                       /*retryable=*/true);
  } catch (const pqxx::statement_completion_unknown& error) {
    throw BackendError(fmt::format("postgres: {}: {} (SQLSTATE 40003)", what, one_line(error.what())));
  } catch (const pqxx::in_doubt_error& error) {
    throw BackendError(fmt::format("postgres: {}: the commit's outcome is unknown: {}", what,
                                   one_line(error.what())));
  } catch (const pqxx::broken_connection& error) {
    throw BackendError(fmt::format("postgres: {}: connection lost: {}", what, one_line(error.what())));
  } catch (const pqxx::failure& error) {
    throw BackendError(fmt::format("postgres: {}: {}", what, one_line(error.what())));
  } catch (const pqxx::usage_error& error) {
    throw BackendError(fmt::format("postgres: {}: {}", what, one_line(error.what())));
  }
}

std::string double_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", value);  // shortest text that reads back as the same double
}

// One field of a result, converted as pg_connection.h describes.
Value field_value(const pqxx::field& field, pqxx::oid type) {
  if (field.is_null()) return Value();
  const char* text = field.c_str();
  const size_t size = field.size();
  switch (type) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
    case kOidOid: {
      int64_t number = 0;
      const auto [end, error] = std::from_chars(text, text + size, number);
      if (error == std::errc() && end == text + size) return Value(number);
      break;
    }
    case kFloat4Oid:
    case kFloat8Oid: {
      char* end = nullptr;
      const double number = std::strtod(text, &end);
      if (end == text + size) return Value(number);
      break;
    }
    case kTimestampOid: {
      int64_t micros = 0;
      if (parse_timestamp(std::string_view(text, size), &micros)) return Value(Timestamp{micros});
      break;
    }
    case kBoolOid:
      return Value(int64_t{text[0] == 't' ? 1 : 0});
  }
  return Value(std::in_place_type<std::string>, text, size);
}

void convert_result(const pqxx::result& result, Rows* out) {
  out->clear();
  const auto columns = static_cast<size_t>(result.columns());
  out->set_columns(columns);
  if (columns == 0) return;
  std::vector<pqxx::oid> types(columns);
  for (size_t col = 0; col < columns; ++col) {
    types[col] = result.column_type(static_cast<pqxx::row::size_type>(col));
  }
  for (const pqxx::row& row : result) {
    for (size_t col = 0; col < columns; ++col) {
      out->push(field_value(row[static_cast<pqxx::row::size_type>(col)], types[col]));
    }
  }
}

}  // namespace

const char* pg_isolation_name(PgIsolation isolation) {
  switch (isolation) {
    case PgIsolation::kReadCommitted: return "READ COMMITTED";
    case PgIsolation::kRepeatableRead: return "REPEATABLE READ";
    case PgIsolation::kSerializable: return "SERIALIZABLE";
  }
  return "?";
}

std::string pg_placeholders(const std::string& sql, size_t* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  size_t pos = 0;
  auto copy_until = [&](char close) {  // copies through the closing quote ('' and "" stay inside)
    out += sql[pos++];
    while (pos < sql.size()) {
      const char c = sql[pos++];
      out += c;
      if (c == close) {
        if (pos < sql.size() && sql[pos] == close) {
          out += sql[pos++];
          continue;
        }
        return;
      }
    }
  };
  while (pos < sql.size()) {
    const char c = sql[pos];
    if (c == '\'' || c == '"') {
      copy_until(c);
    } else if (c == '-' && pos + 1 < sql.size() && sql[pos + 1] == '-') {
      const size_t end = sql.find('\n', pos);
      const size_t stop = end == std::string::npos ? sql.size() : end;
      out.append(sql, pos, stop - pos);
      pos = stop;
    } else if (c == '/' && pos + 1 < sql.size() && sql[pos + 1] == '*') {
      const size_t end = sql.find("*/", pos + 2);
      const size_t stop = end == std::string::npos ? sql.size() : end + 2;
      out.append(sql, pos, stop - pos);
      pos = stop;
    } else if (c == '?') {
      out += '$';
      out += std::to_string(next++);
      ++pos;
    } else {
      out += c;
      ++pos;
    }
  }
  if (count != nullptr) *count = static_cast<size_t>(next - 1);
  return out;
}

// The libpqxx connection and, during a body, its transaction.
struct PgConnection::Impl {
  explicit Impl(const std::string& conninfo) : conn(conninfo) {}
  pqxx::connection conn;
  std::unique_ptr<pqxx::dbtransaction> txn;  // open from BEGIN to COMMIT/ROLLBACK
  std::vector<size_t> param_counts;          // index = StmtId

  void begin(PgIsolation isolation, bool write) {
    using pqxx::transaction;
    if (!write) {
      txn = std::make_unique<transaction<pqxx::repeatable_read, pqxx::read_only>>(conn);
      return;
    }
    switch (isolation) {
      case PgIsolation::kReadCommitted:
        txn = std::make_unique<transaction<pqxx::read_committed, pqxx::read_write>>(conn);
        return;
      case PgIsolation::kRepeatableRead:
        txn = std::make_unique<transaction<pqxx::repeatable_read, pqxx::read_write>>(conn);
        return;
      case PgIsolation::kSerializable:
        txn = std::make_unique<transaction<pqxx::serializable, pqxx::read_write>>(conn);
        return;
    }
  }

  // Rolls back the open transaction, if any, ignoring errors (the
  // connection may be gone; the server then rolls back by itself).
  void end_quietly() noexcept {
    if (!txn) return;
    try {
      txn->abort();
    } catch (...) {
    }
    txn.reset();
  }
};

// The Txn handed to a body: forwards to the connection. Valid only inside the body.
class PgTxn final : public Txn {
 public:
  explicit PgTxn(PgConnection* connection) : connection_(connection) {}
  int64_t exec(StmtId stmt, std::span<const Value> params, Rows* out) override {
    return connection_->exec(stmt, params, out);
  }

 private:
  PgConnection* const connection_;
};

PgConnection::PgConnection(std::shared_ptr<const PgShared> shared) : shared_(std::move(shared)) {
  try {
    impl_ = std::make_unique<Impl>(shared_->conninfo);
    // Timestamps are read back as ISO text and compared as UTC whatever the
    // server's defaults are (these matter for a server given by --pg-url).
    impl_->conn.set_variable("DateStyle", "'ISO, YMD'");
    impl_->conn.set_variable("TimeZone", "'UTC'");
  } catch (const pqxx::broken_connection& error) {
    std::string message =
        fmt::format("postgres: cannot connect to {}: {}", shared_->where, one_line(error.what()));
    if (message.find("too many clients") != std::string::npos) {
      message += " (restart the cluster with more connections: scripts/pg stop, then "
                 "scripts/pg start --terminals T)";
    }
    throw BackendError(message);
  } catch (...) {
    rethrow_as_backend_error("connect to " + shared_->where);
  }
}

PgConnection::~PgConnection() {
  if (impl_) impl_->end_quietly();
}

int PgConnection::backend_pid() const { return impl_->conn.backendpid(); }

StmtId PgConnection::prepare(const std::string& sql) {
  if (auto found = ids_.find(sql); found != ids_.end()) return found->second;
  const StmtId id = static_cast<StmtId>(names_.size());
  const std::string name = fmt::format("solo_{}", id);
  size_t param_count = 0;
  const std::string converted = pg_placeholders(sql, &param_count);
  try {
    impl_->conn.prepare(name, converted);
    impl_->conn.prepare_now(name);  // a bad statement fails here, not at its first use
  } catch (...) {
    try {
      impl_->conn.unprepare(name);
    } catch (...) {
    }
    rethrow_as_backend_error(fmt::format("prepare '{}'", sql));
  }
  names_.push_back(name);
  sql_.push_back(sql);
  impl_->param_counts.push_back(param_count);
  ids_.emplace(sql, id);
  return id;
}

int64_t PgConnection::exec(StmtId id, std::span<const Value> params, Rows* out) {
  if (id < 0 || static_cast<size_t>(id) >= names_.size()) {
    throw BackendError(fmt::format("postgres: statement id {} was not prepared on this connection", id));
  }
  const std::string& sql = sql_[id];
  if (!impl_->txn) {
    throw BackendError(fmt::format("postgres: '{}' executed outside a transaction body", sql));
  }
  if (params.size() != impl_->param_counts[id]) {
    throw BackendError(fmt::format("postgres: '{}' takes {} parameters, got {}", sql,
                                   impl_->param_counts[id], params.size()));
  }
  param_text_.resize(params.size());
  param_pointers_.resize(params.size());
  for (size_t param_idx = 0; param_idx < params.size(); ++param_idx) {
    const Value& value = params[param_idx];
    std::string& text = param_text_[param_idx];
    switch (value.index()) {
      case 0: break;  // NULL: a null pointer below
      case 1: text = std::to_string(std::get<int64_t>(value)); break;
      case 2: {
        const Decimal& decimal = std::get<Decimal>(value);
        text = format_decimal(decimal.units, decimal.scale);
        break;
      }
      case 3: text = double_text(std::get<double>(value)); break;
      case 4: {
        const std::string& string = std::get<std::string>(value);
        if (string.find('\0') != std::string::npos) {
          throw BackendError(fmt::format("postgres: '{}': parameter {} holds a NUL byte", sql,
                                         param_idx + 1));
        }
        text = string;
        break;
      }
      case 5: text = format_timestamp(std::get<Timestamp>(value).micros); break;
    }
    param_pointers_[param_idx] = value.index() == 0 ? nullptr : text.c_str();
  }
  pqxx::result result;
  try {
    result = impl_->txn->exec_prepared(names_[id],
                                       pqxx::prepare::make_dynamic_params(param_pointers_));
  } catch (...) {
    rethrow_as_backend_error(fmt::format("'{}'", sql));
  }
  if (out != nullptr) convert_result(result, out);
  return static_cast<int64_t>(result.affected_rows());
}

TxnResult PgConnection::run(const TxnBody& body, bool write) {
  PgTxn txn(this);
  const char* level = write ? pg_isolation_name(shared_->write_isolation) : "REPEATABLE READ";
  for (uint32_t retries = 0;; ++retries) {
    try {
      try {
        impl_->begin(shared_->write_isolation, write);
      } catch (...) {
        rethrow_as_backend_error(fmt::format("BEGIN ISOLATION LEVEL {}", level));
      }
      const Outcome outcome = body(txn);
      try {
        if (outcome == Outcome::kCommit) {
          impl_->txn->commit();
        } else {
          impl_->txn->abort();
        }
      } catch (...) {
        rethrow_as_backend_error(outcome == Outcome::kCommit ? "COMMIT" : "ROLLBACK");
      }
      impl_->txn.reset();
      return TxnResult{outcome, retries};
    } catch (const BackendError& error) {
      impl_->end_quietly();
      if (!error.retryable() || retries + 1 >= kMaxRetries) throw;
    } catch (...) {
      impl_->end_quietly();
      throw;
    }
  }
}

TxnResult PgConnection::write(const TxnBody& body) { return run(body, /*write=*/true); }

TxnResult PgConnection::read(const TxnBody& body) { return run(body, /*write=*/false); }

void PgConnection::execute_script(const std::string& sql) {
  if (impl_->txn) throw BackendError("postgres: execute_script inside a transaction body");
  try {
    pqxx::nontransaction work(impl_->conn);
    work.exec(sql);
  } catch (...) {
    rethrow_as_backend_error(fmt::format("script '{}'", sql));
  }
}

Rows PgConnection::query(const std::string& sql) {
  if (impl_->txn) throw BackendError("postgres: query inside a transaction body");
  Rows rows;
  try {
    pqxx::nontransaction work(impl_->conn);
    convert_result(work.exec(sql), &rows);
  } catch (...) {
    rethrow_as_backend_error(fmt::format("'{}'", sql));
  }
  return rows;
}

}  // namespace tpcc
