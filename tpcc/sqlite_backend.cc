// SqliteBackend: where the file lives, creating, probing and removing it.
#include "tpcc/sqlite_backend.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "tpcc/owned_dir.h"
#include "tpcc/sqlite_connection.h"

namespace tpcc {
namespace {

constexpr const char* kFileName = "tpcc.sqlite";
constexpr const char* kCompanionSuffixes[] = {"-wal", "-shm", "-journal"};

// Process-wide SQLite settings, applied once before SQLite is initialized:
// memory statistics take a global mutex on every allocation, which all
// terminals would contend on. A no-op (SQLITE_MISUSE) if SQLite was already
// initialized by someone else.
void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

// Creates `dir` if needed (marked as tpcc's when new or empty: owned_dir.h)
// and checks that a file can be created in it.
void ensure_writable_directory(const std::string& dir) {
  try {
    mark_dir_if_new(dir);
  } catch (const BackendError& failure) {
    throw BackendError(fmt::format("sqlite: {}", failure.what()));
  }
  const std::string probe = dir + "/.tpcc-write-probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw BackendError(
        fmt::format("sqlite: cannot write in directory '{}': {}", dir, std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

std::string sqlite_default_dir(Storage storage) {
  // Stable across processes, so that `tpcc load` and a later `tpcc run
  // --no-load` or `tpcc check` find the same database.
  if (storage == Storage::kRam) return "/dev/shm/solo-tpcc";
  return "./tpcc-data";
}

SqliteBackend::SqliteBackend(const BackendOptions& options)
    : SqliteBackend(options, sqlite_profile(options.sqlite_profile, options.storage)) {}

SqliteBackend::SqliteBackend(const BackendOptions& options, const SqliteProfile& profile)
    : shared_(std::make_shared<SqliteShared>()) {
  configure_sqlite_once();
  shared_->profile = profile;
  shared_->storage = options.storage;
  shared_->default_dir = options.dir.empty();
  shared_->dir = shared_->default_dir ? sqlite_default_dir(options.storage) : options.dir;
  shared_->path = shared_->dir + "/" + kFileName;
}

bool SqliteBackend::exists() {
  std::error_code error;
  if (!std::filesystem::is_regular_file(shared_->path, error)) return false;
  sqlite3* db = nullptr;
  // A file that is there but cannot be read is an error, not a missing
  // database: "run `tpcc load` first" would invite destroying it.
  auto unreadable = [&](int rc) {
    std::string message = fmt::format("sqlite: cannot read {}: {} (code {})", shared_->path,
                                      db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc);
    const int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      message += "; the file is damaged";
    }
    return BackendError(message);
  };
  // No CREATE flag: never makes a file.
  int rc = sqlite3_open_v2(shared_->path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    BackendError failure = unreadable(rc);
    sqlite3_close_v2(db);
    throw failure;
  }
  sqlite3_busy_timeout(db, 2000);  // a one-off probe, not a transaction path
  sqlite3_stmt* stmt = nullptr;
  rc = sqlite3_prepare_v2(db,
                          "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'warehouse'",
                          -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    BackendError failure = unreadable(rc);
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    throw failure;
  }
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
  return rc == SQLITE_ROW;
}

StorageCheck SqliteBackend::check_storage() {
  StorageCheck result;
  result.name = "quick_check";
  auto connection = connect();
  std::string answer;
  try {
    answer = static_cast<SqliteConnection&>(*connection).query_text("PRAGMA quick_check");
  } catch (const BackendError& failure) {  // SQLITE_CORRUPT and the like
    result.ok = false;
    result.detail =
        fmt::format("PRAGMA quick_check failed on {}: {}", shared_->path, failure.what());
    return result;
  }
  result.ok = answer == "ok";
  result.detail = result.ok ? "PRAGMA quick_check"
                            : fmt::format("PRAGMA quick_check on {}: {}", shared_->path, answer);
  return result;
}

void SqliteBackend::destroy() {
  std::lock_guard<std::mutex> lock(shared_->open_mutex);
  claim_dir(shared_->dir, shared_->default_dir, "sqlite");
  std::vector<std::string> files{shared_->path};
  for (const char* suffix : kCompanionSuffixes) files.push_back(shared_->path + suffix);
  for (const std::string& file : files) {
    std::error_code error;
    std::filesystem::remove(file, error);
    if (error) {
      throw BackendError(fmt::format("sqlite: cannot remove '{}': {}", file, error.message()));
    }
  }
  shared_->opened_settings.clear();
}

std::unique_ptr<Connection> SqliteBackend::connect() {
  std::lock_guard<std::mutex> lock(shared_->open_mutex);
  ensure_writable_directory(shared_->dir);
  auto connection = std::make_unique<SqliteConnection>(shared_);
  if (shared_->opened_settings.empty()) {
    shared_->opened_settings = fmt::format("file page_size={} journal_mode={} synchronous={}",
                                           connection->query_text("PRAGMA page_size"),
                                           connection->query_text("PRAGMA journal_mode"),
                                           connection->query_text("PRAGMA synchronous"));
  }
  return connection;
}

std::string SqliteBackend::describe_config() const {
  const SqliteProfile& profile = shared_->profile;
  std::string text =
      fmt::format("sqlite {} profile={} storage={} path={};", sqlite3_libversion(), profile.name,
                  shared_->storage == Storage::kRam ? "ram" : "disk", shared_->path);
  for (const std::string& pragma : sqlite_profile_pragmas(profile)) text += " " + pragma + ";";
  text += " " + sqlite_profile_extras(profile);
  std::lock_guard<std::mutex> lock(shared_->open_mutex);
  if (!shared_->opened_settings.empty()) text += "; " + shared_->opened_settings;
  return text;
}

void SqliteBackend::finish_load(Connection& conn) { conn.execute_script("ANALYZE"); }

std::string SqliteBackend::schema_statement(const std::string& ddl) const {
  if (!shared_->profile.without_rowid || ddl.rfind("CREATE TABLE ", 0) != 0) return ddl;
  // Only a key of several columns: a one-column INTEGER key is the rowid
  // itself already (tpcc_meta's text key is looked up once per run).
  size_t key = ddl.find("PRIMARY KEY (");
  if (key == std::string::npos) return ddl;
  size_t close = ddl.find(')', key);
  if (close == std::string::npos || ddl.find(',', key) > close) return ddl;
  return ddl + " WITHOUT ROWID";
}

}  // namespace tpcc
