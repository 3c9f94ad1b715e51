// PgCluster: runs scripts/pg and finds the server's processes.
#include "tpcc/pg_cluster.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tpcc/interrupt.h"

#ifndef SOLO_SOURCE_DIR
#define SOLO_SOURCE_DIR "."
#endif

extern char** environ;

namespace tpcc {
namespace {

struct ScriptResult {
  int status = -1;     // exit status, or -1 when it could not run or died of a signal
  std::string output;  // stdout and stderr together
};

// Runs `args` (args[0] is the program) with stdout and stderr captured.
ScriptResult run_program(const std::vector<std::string>& args) {
  ScriptResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.output = fmt::format("pipe: {}", std::strerror(errno));
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // The script and the server it starts get no signal blocked and the
  // default actions for SIGINT and SIGTERM (tpcc blocks them: interrupt.h).
  posix_spawnattr_t attributes;
  init_spawn_attributes(&attributes);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe_fds[1]);
  if (spawn_error != 0) {
    ::close(pipe_fds[0]);
    result.output = fmt::format("cannot run {}: {}", args[0], std::strerror(spawn_error));
    return result;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got > 0) {
      result.output.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wait_status)) result.status = WEXITSTATUS(wait_status);
  return result;
}

// The script's error line ("scripts/pg: error: ...") or its last line.
std::string reason_of(const ScriptResult& result) {
  std::istringstream lines(result.output);
  std::string line, last, error;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    last = line;
    if (error.empty() && line.find("error:") != std::string::npos) error = line;
  }
  std::string reason = !error.empty() ? error : last;
  if (reason.empty()) reason = fmt::format("exit status {}", result.status);
  return reason;
}

const char* storage_flag(Storage storage) { return storage == Storage::kRam ? "ram" : "disk"; }

}  // namespace

std::string pg_default_dir(Storage storage) {
  if (storage == Storage::kRam) return "/dev/shm/solo-pg";
  return std::filesystem::absolute("pg-data").string();
}

std::string pg_script_path() {
  if (const char* path = std::getenv("SOLO_PG_SCRIPT"); path != nullptr && *path != '\0') {
    return path;
  }
  return std::string(SOLO_SOURCE_DIR) + "/scripts/pg";
}

std::vector<int> postmaster_family(const std::string& data_dir) {
  std::ifstream pid_file(data_dir + "/postmaster.pid");
  int postmaster = 0;
  if (!(pid_file >> postmaster) || postmaster <= 0) return {};
  if (::kill(postmaster, 0) != 0 && errno == ESRCH) return {};
  std::vector<int> pids{postmaster};
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid == postmaster) continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string content;
    if (!std::getline(stat, content)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces, so parse after the last ')'.
    const size_t close = content.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(content.substr(close + 1));
    std::string state;
    int parent = 0;
    if (fields >> state >> parent && parent == postmaster) pids.push_back(static_cast<int>(pid));
  }
  ::closedir(proc);
  return pids;
}

PgCluster::PgCluster(const std::string& dir, Storage storage, int terminals)
    : dir_(std::filesystem::absolute(dir.empty() ? pg_default_dir(storage) : dir)
               .lexically_normal()
               .string()),
      storage_(storage),
      terminals_(terminals),
      state_(std::make_shared<State>()) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  // On SIGINT or SIGTERM: stop the cluster if this object started it. It
  // waits for a start in progress (ensure_running holds the mutex), so that
  // a server that comes up just then is stopped too.
  interrupt_cleanup_ = std::make_unique<InterruptCleanup>(
      [state = state_, dir = dir_] { stop_if_started(*state, dir); });
}

PgCluster::~PgCluster() {
  // Registered until the stop is done: a signal during it waits for it
  // instead of ending the process halfway.
  stop_if_started(*state_, dir_);
  interrupt_cleanup_.reset();
}

void PgCluster::stop_if_started(State& state, const std::string& dir) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.started_here) return;
  state.started_here = false;
  state.running = false;
  const ScriptResult stopped = run_program({pg_script_path(), "stop", "--dir", dir});
  if (stopped.status != 0) {
    fmt::print(stderr, "postgres: could not stop the cluster at {}: {}\n", dir, reason_of(stopped));
  }
}

bool PgCluster::has_data() const {
  std::error_code error;
  return std::filesystem::exists(dir_ + "/data/PG_VERSION", error);
}

void PgCluster::ensure_running() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->running) return;
  const std::string script = pg_script_path();
  if (::access(script.c_str(), X_OK) != 0) {
    throw BackendError(fmt::format(
        "postgres: cannot run {} to start a private cluster (set SOLO_PG_SCRIPT, or give "
        "--pg-url)",
        script));
  }
  const ScriptResult status = run_program({script, "status", "--dir", dir_});
  if (status.status == 0) {
    state_->running = true;
    return;
  }
  std::vector<std::string> args{script, "start", "--dir", dir_, "--storage", storage_flag(storage_)};
  if (terminals_ > 0) {
    args.push_back("--terminals");
    args.push_back(std::to_string(terminals_));
  }
  const ScriptResult started = run_program(args);
  if (started.status != 0) {
    throw BackendError(fmt::format("postgres: cannot start a private cluster: {}", reason_of(started)));
  }
  state_->running = true;
  state_->started_here = true;
}

bool PgCluster::started_here() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->started_here;
}

std::string PgCluster::conninfo() const {
  std::string quoted;  // a conninfo value in single quotes, \ and ' escaped
  for (char c : dir_) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  return fmt::format("host='{}' port=5432 dbname=tpcc user=postgres", quoted);
}

std::vector<int> PgCluster::pids() const { return postmaster_family(dir_ + "/data"); }

}  // namespace tpcc
