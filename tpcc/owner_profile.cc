#include "tpcc/owner_profile.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "tpcc/backend.h"
#include "tpcc/interrupt.h"
#include "tpcc/sysinfo.h"

extern char** environ;

namespace tpcc {
namespace {

struct BucketRule {
  const char* bucket;
  std::array<const char*, 12> patterns;  // substrings of demangled symbols; nullptr ends
};

// Checked in this order for each frame, leaf first; the first frame that
// matches decides the sample's bucket.
constexpr BucketRule kRules[] = {
    {"copying shared nodes",
     {"node_copy", "btree_make_path_writable", "TreeWriter", "node_compact", nullptr}},
    {"finding rows",
     {"btree_get", "btree_descend", "node_lower_bound", "node_upper_bound", "node_route",
      "node_compare", "node_prefetch", "Cursor", "btree_scan", "TxnView::get", nullptr}},
    {"changing rows",
     {"btree_put", "btree_insert", "btree_remove", "btree_replace", "node_insert_at",
      "node_remove_at", "node_set_key", "node_split", "node_append", "make_record", "WriteTxn::",
      "undo"}},
    {"logging",
     {"DbImpl::log_", "finish_round_durable", "drain_pending", "LogWriter", "put_bytes",
      "put_u32", "put_varint", "crc32c", "fdatasync", "pwrite", nullptr}},
    // The pool's allocate, retire and free_now count with their callers (a
    // node copy, a new record); only reclaiming counts here.
    {"handing out answers",
     {"DbImpl::publish", "notify", "futex_wake", "wake_up", "DbImpl::reclaim",
      "ObjectPool::reclaim", "ObjectPool::make_spare", "DbImpl::store_stats", nullptr}},
    {"SQL executor", {"solo::sql::", nullptr}},
    {"harness (tpcc)", {"tpcc::", nullptr}},
};

constexpr const char* kOther = "other";
constexpr const char* kWaiting = "waiting";

std::vector<std::string> bucket_order() {
  std::vector<std::string> names;
  for (const BucketRule& rule : kRules) names.emplace_back(rule.bucket);
  names.emplace_back(kOther);
  names.emplace_back(kWaiting);
  return names;
}

// The TID of this process's thread named `name`, or -1.
int find_thread(const char* name) {
  for (const auto& [tid, thread_name] : process_threads()) {
    if (thread_name == name) return tid;
  }
  return -1;
}

bool perf_available() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    if (::access(fmt::format("{}/perf", dir).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// "    7f12ab34 solo::internal::btree_get(...)+0x12 (/path)" -> the symbol.
std::string frame_symbol(std::string_view line) {
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  size_t space = line.find(' ');  // after the address
  if (space == std::string_view::npos) return std::string(line);
  line.remove_prefix(space + 1);
  size_t dso = line.rfind(" (");
  if (dso != std::string_view::npos && line.back() == ')') line = line.substr(0, dso);
  return std::string(line);
}

}  // namespace

std::string classify_owner_stack(const std::vector<std::string>& frames) {
  for (const std::string& frame : frames) {
    for (const BucketRule& rule : kRules) {
      for (const char* pattern : rule.patterns) {
        if (pattern == nullptr) break;
        if (frame.find(pattern) != std::string::npos) return rule.bucket;
      }
    }
  }
  return kOther;
}

OwnerProfiler::OwnerProfiler(std::string data_path) : data_path_(std::move(data_path)) {
  if (!perf_available()) {
    throw BackendError(
        "--profile needs perf (Debian package linux-perf; scripts/setup installs it)");
  }
}

OwnerProfiler::~OwnerProfiler() {
  if (perf_pid_ > 0) {
    ::kill(perf_pid_, SIGINT);
    int status = 0;
    ::waitpid(perf_pid_, &status, 0);
  }
}

void OwnerProfiler::start(double delay_s, double seconds) {
  const int tid = find_thread("solo-owner");
  if (tid < 0) throw BackendError("--profile: no solo owner thread in this process");
  std::vector<std::string> args = {"perf", "record", "-q", "-e", "cpu-clock", "-F", "1999", "-g",
                                   "-t", std::to_string(tid), "-o", data_path_};
  if (delay_s > 0) {
    args.push_back("-D");
    args.push_back(std::to_string(static_cast<long>(delay_s * 1000)));
  }
  for (const char* arg : {"--", "sleep"}) args.emplace_back(arg);
  args.push_back(fmt::format("{:.3f}", delay_s + seconds));
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string log = data_path_ + ".log";
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  posix_spawnattr_t attributes;
  init_spawn_attributes(&attributes);  // tpcc blocks SIGINT and SIGTERM; perf should not
  const int error = posix_spawnp(&pid, "perf", &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw BackendError(fmt::format("--profile: cannot run perf: {}", std::strerror(error)));
  perf_pid_ = pid;
}

OwnerProfile OwnerProfiler::finish(double owner_utilization) {
  OwnerProfile profile;
  profile.perf_data = data_path_;
  if (perf_pid_ > 0) {
    int status = 0;
    while (::waitpid(perf_pid_, &status, 0) < 0 && errno == EINTR) {
    }
    perf_pid_ = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::ifstream log(data_path_ + ".log");
      std::string line, last;
      while (std::getline(log, line)) {
        if (!line.empty()) last = line;
      }
      throw BackendError(fmt::format("--profile: perf record failed: {}",
                                     last.empty() ? "no message" : last));
    }
  }
  const std::string command =
      fmt::format("perf script -i '{}' -F ip,sym 2>/dev/null", data_path_);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw BackendError("--profile: cannot run perf script");
  std::map<std::string, long> counts;
  std::map<std::string, long> leaves;
  std::vector<std::string> frames;
  auto finish_sample = [&] {
    if (frames.empty()) return;
    counts[classify_owner_stack(frames)]++;
    leaves[frames.front()]++;
    profile.samples++;
    frames.clear();
  };
  char buffer[8192];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    std::string_view line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      finish_sample();
      continue;
    }
    frames.push_back(frame_symbol(line));
  }
  finish_sample();
  ::pclose(pipe);
  if (profile.samples == 0) throw BackendError("--profile: perf recorded no samples of the owner");

  const double busy = std::clamp(owner_utilization, 0.0, 1.0);
  for (const std::string& name : bucket_order()) {
    ProfileBucket bucket;
    bucket.name = name;
    if (name == kWaiting) {
      bucket.share = 1.0 - busy;
    } else {
      bucket.samples = counts[name];
      bucket.share = busy * static_cast<double>(bucket.samples) / static_cast<double>(profile.samples);
    }
    profile.buckets.push_back(bucket);
  }
  profile.top_symbols.assign(leaves.begin(), leaves.end());
  std::sort(profile.top_symbols.begin(), profile.top_symbols.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  if (profile.top_symbols.size() > 15) profile.top_symbols.resize(15);
  return profile;
}

void print_owner_profile(const OwnerProfile& profile) {
  fmt::print("owner profile ({} samples; perf report -i {} for details):\n", profile.samples,
             profile.perf_data);
  for (const ProfileBucket& bucket : profile.buckets) {
    fmt::print("  {:<22} {:5.1f}%\n", bucket.name, 100.0 * bucket.share);
  }
  fmt::print("  hottest leaf functions:\n");
  for (const auto& [symbol, samples] : profile.top_symbols) {
    fmt::print("    {:5.1f}%  {}\n", 100.0 * static_cast<double>(samples) / static_cast<double>(profile.samples),
               symbol.substr(0, 100));
  }
}

}  // namespace tpcc
