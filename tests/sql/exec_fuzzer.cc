// libFuzzer target for the whole SQL layer: binder, planner, executor and
// sessions over an in-memory database (built only when the compiler is
// clang; see tests/sql/meson.build). The parser has its own target
// (parser_fuzzer.cc), with its round-trip property.
//
// Each input is a script: its statements (cut at each ';') run one by one
// in a Session over a fresh database that holds two small tables (kSetup). The property: no
// crash and no sanitizer report; every error carries a SQLSTATE other than
// XX000 (an internal error is a bug) and a position inside its statement,
// and FormatError can show it; the database's invariants hold after every
// round (Options::check_invariants). A statement that runs longer than
// kStatementMs is cancelled (57014), so that a cross join of grown tables
// ends instead of timing out.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "solo/database.h"
#include "solo/sql/error.h"
#include "solo/sql/result.h"
#include "solo/sql/session.h"

namespace {

constexpr const char* kSetup[] = {
    "CREATE TABLE t (a INTEGER PRIMARY KEY, b VARCHAR(20), c DECIMAL(8,2), d TIMESTAMP, "
    "e CHAR(4), f DOUBLE PRECISION, g BIGINT, h SMALLINT, i TEXT)",
    "CREATE INDEX t_b ON t (b)",
    "CREATE TABLE u (k INTEGER, j INTEGER, v TEXT, PRIMARY KEY (k, j))",
    "CREATE UNIQUE INDEX u_v ON u (v)",
    "INSERT INTO t VALUES (1, 'one', 1.50, '2020-01-01 00:00:00', 'ab', 0.5, 10, 1, 'x'), "
    "(2, NULL, -3.25, NULL, 'x', NULL, -7, NULL, NULL), "
    "(3, 'three', 0, '1999-12-31 23:59:59.5', 'abcd', 1e10, 9000000000, -32768, '')",
    "INSERT INTO u VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, NULL), (3, 3, 'c')",
};
constexpr int kMaxStatements = 8;
constexpr int64_t kStatementMs = 1000;

[[noreturn]] void Fail(const std::string& what, std::string_view sql) {
  std::fprintf(stderr, "exec fuzz check failed: %s\n  in: %.*s\n", what.c_str(),
               static_cast<int>(sql.size()), sql.data());
  std::abort();
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One thread for the process: sets the cancel flag once the running
// statement's deadline has passed (0: none running).
std::atomic<bool> cancel{false};
std::atomic<int64_t> deadline_ms{0};

void StartWatchdog() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::thread([] {
      while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const int64_t deadline = deadline_ms.load();
        if (deadline != 0 && NowMs() > deadline) cancel.store(true);
      }
    }).detach();
  });
}

// SOLO_FUZZ_FORBID_STATE=CODE: an error with that SQLSTATE fails the check
// too, so that a test can show that a failed check fails the run (a seed
// divides by zero: 22012).
bool Forbidden(std::string_view code) {
  static const char* forbidden = std::getenv("SOLO_FUZZ_FORBID_STATE");
  return forbidden != nullptr && code == forbidden;
}

void CheckError(const solo::sql::SqlError& error, std::string_view sql) {
  if (error.code().size() != 5) Fail("an error without a SQLSTATE: " + error.ToString(), sql);
  if (error.state() == solo::sql::SqlState::kInternalError || Forbidden(error.code())) {
    Fail("an internal (or forbidden) error: " + error.ToString(), sql);
  }
  if (error.pos().valid() && error.pos().offset > sql.size()) {
    Fail("an error position outside the statement: " + error.ToString(), sql);
  }
  (void)solo::sql::FormatError(error, sql);  // must not crash either
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  StartWatchdog();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  solo::Options options;
  options.check_invariants = true;
  options.prefault_arenas = 0;  // a thread touching 4 MiB per input would dominate
  auto opened = solo::Database::open(options);
  if (!opened.ok()) Fail("open: " + opened.status().ToString(), "");
  solo::Database& db = **opened;
  {
    solo::sql::Session session(db);
    session.set_cancel_flag(&cancel);
    for (const char* setup : kSetup) {
      solo::sql::SqlStatus status = session.Exec(setup);
      if (!status.ok()) Fail("set-up: " + status.error().ToString(), setup);
    }
    // Cut at every ';' (also one in a string: that piece is then a syntax
    // error, which is checked too), so that one broken statement does not
    // keep the script's others from running.
    int statements = 0;
    for (size_t begin = 0; begin < input.size() && statements < kMaxStatements;) {
      size_t end = input.find(';', begin);
      end = end == std::string_view::npos ? input.size() : end + 1;
      const std::string_view sql = input.substr(begin, end - begin);
      begin = end;
      if (sql.find_first_not_of(" \t\r\n;") == std::string_view::npos) continue;
      statements++;
      solo::sql::ResultSet result;
      cancel.store(false);
      deadline_ms.store(NowMs() + kStatementMs);
      solo::sql::SqlStatus status = session.Exec(sql, &result);
      deadline_ms.store(0);
      if (!status.ok()) CheckError(status.error(), sql);
    }
    cancel.store(false);
    // Whatever the statements did, the tables still read whole.
    for (const char* check : {"SELECT * FROM t", "SELECT * FROM u"}) {
      solo::sql::SqlStatus status = session.Exec(check);
      if (!status.ok() && status.error().state() != solo::sql::SqlState::kInFailedSqlTransaction &&
          status.error().state() != solo::sql::SqlState::kUndefinedTable) {
        Fail("reading a table afterwards: " + status.error().ToString(), check);
      }
    }
  }  // the session rolls back an open transaction
  solo::Status closed = db.close();
  if (!closed.ok()) Fail("close: " + closed.ToString(), "");
  return 0;
}
