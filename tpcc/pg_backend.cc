// PgBackend: where the server is, probing and dropping the schema, settings
// and server processes.
#include "tpcc/pg_backend.h"

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "tpcc/owned_dir.h"
#include "tpcc/schema.h"

namespace tpcc {
namespace {

// The settings recorded with every result (describe_config).
constexpr const char* kReportedSettings[] = {
    "shared_buffers",     "max_connections",    "synchronous_commit", "fsync",
    "full_page_writes",   "wal_level",          "wal_buffers",        "checkpoint_timeout",
    "max_wal_size",       "autovacuum",         "work_mem",           "jit",
    "huge_pages",         "deadlock_timeout",   "random_page_cost",   "wal_writer_delay",
};

// Reads /proc/<pid>/comm; "" when gone.
std::string process_name(int pid) {
  std::ifstream comm(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

std::string pg_hide_password(const std::string& url) {
  static const std::regex kUriPassword(R"(^([a-z]+://[^:/@]*):[^@/]*@)");
  static const std::regex kKeyPassword(R"((password\s*=\s*)('(\\.|[^'])*'|\S+))");
  std::string hidden = std::regex_replace(url, kUriPassword, "$1:***@");
  return std::regex_replace(hidden, kKeyPassword, "$1***");
}

PgBackend::PgBackend(const BackendOptions& options, PgIsolation write_isolation)
    : shared_(std::make_shared<PgShared>()) {
  shared_->write_isolation = write_isolation;
  if (options.pg_url.empty()) {
    cluster_ = std::make_unique<PgCluster>(options.dir, options.storage, options.terminals);
    default_dir_ = options.dir.empty();
    shared_->conninfo = cluster_->conninfo();
    shared_->where = cluster_->dir();
  } else {
    shared_->conninfo = options.pg_url;
    shared_->where = pg_hide_password(options.pg_url);
  }
}

PgBackend::~PgBackend() = default;  // cluster_ stops what it started

std::unique_ptr<PgConnection> PgBackend::open() {
  if (cluster_) cluster_->ensure_running();
  auto connection = std::make_unique<PgConnection>(shared_);
  std::lock_guard<std::mutex> lock(config_mutex_);
  if (server_config_.empty()) {
    std::string names;
    for (const char* setting : kReportedSettings) {
      names += fmt::format("{}'{}'", names.empty() ? "" : ", ", setting);
    }
    Rows rows = connection->query(fmt::format(
        "SELECT name, current_setting(name) FROM unnest(ARRAY[{}]) AS name", names));
    std::string text = "server " + connection->query("SHOW server_version").get_text(0, 0) + ";";
    for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
      text += fmt::format(" {}={};", rows.get_text(row_idx, 0), rows.get_text(row_idx, 1));
    }
    server_config_ = text;
  }
  return connection;
}

void PgBackend::finish_load(Connection& conn) { conn.execute_script("VACUUM (ANALYZE)"); }

bool PgBackend::exists() {
  if (cluster_ && !cluster_->has_data()) return false;
  auto connection = open();
  Rows rows = connection->query(
      "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
      "AND tablename = 'warehouse'");
  return !rows.empty();
}

void PgBackend::destroy() {
  // A private cluster's tables are dropped only in a directory tpcc made
  // (scripts/pg marks the directories it creates as well).
  if (cluster_) claim_dir(cluster_->dir(), default_dir_, "postgres");
  if (cluster_ && !cluster_->has_data()) return;  // nothing to drop
  auto connection = open();
  std::string script;
  for (const std::string& drop : drop_ddl()) script += drop + ";\n";
  connection->execute_script(script);
}

std::unique_ptr<Connection> PgBackend::connect() { return open(); }

std::string PgBackend::describe_config() const {
  std::string text = fmt::format("postgres at {}; {}; write isolation {}, reads REPEATABLE READ READ ONLY",
                                 shared_->where,
                                 cluster_ ? "private cluster (scripts/pg)" : "existing server",
                                 pg_isolation_name(shared_->write_isolation));
  std::lock_guard<std::mutex> lock(config_mutex_);
  if (!server_config_.empty()) text += "; " + server_config_;
  return text;
}

std::vector<int> PgBackend::server_pids() {
  if (cluster_) return cluster_->pids();
  try {
    auto connection = std::make_unique<PgConnection>(shared_);
    try {
      const std::string data_dir = connection->query("SHOW data_directory").get_text(0, 0);
      std::vector<int> family = postmaster_family(data_dir);
      if (!family.empty()) return family;
    } catch (const BackendError&) {
      // Not allowed to read data_directory: fall back to the backends.
    }
    Rows rows = connection->query("SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL");
    std::vector<int> pids;
    for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
      const int pid = static_cast<int>(rows.get_int(row_idx, 0));
      if (pid == connection->backend_pid()) continue;  // ends with this function
      const std::string name = process_name(pid);
      if (name == "postgres" || name == "postmaster") pids.push_back(pid);
    }
    return pids;
  } catch (const BackendError&) {
    return {};
  }
}

}  // namespace tpcc
