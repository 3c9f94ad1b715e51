#include "tpcc/sysinfo.h"

#include <fmt/format.h>
#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "git_rev.h"

#ifndef SOLO_GIT_REV
#define SOLO_GIT_REV "unknown"
#endif

namespace tpcc {

int64_t process_cpu_micros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& tv) { return tv.tv_sec * 1000000LL + tv.tv_usec; };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

namespace {

// utime + stime of a /proc stat file (a process's or a thread's), in
// microseconds; -1 if it cannot be read (the process or thread is gone).
int64_t stat_cpu_micros(const std::string& path) {
  std::ifstream stat(path);
  std::string content;
  if (!std::getline(stat, content)) return -1;
  // Fields after the command name (which may contain spaces) in ')'.
  size_t close = content.rfind(')');
  if (close == std::string::npos || close + 2 > content.size()) return -1;
  std::istringstream fields(content.substr(close + 2));
  std::string field;
  int64_t utime = 0, stime = 0;
  for (int field_idx = 3; fields >> field; ++field_idx) {
    if (field_idx == 14) utime = std::stoll(field);
    if (field_idx == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  return (utime + stime) * 1000000 / sysconf(_SC_CLK_TCK);
}

// The CPU clock of thread `tid` of this process: the id that glibc's
// pthread_getcpuclockid makes from a thread's TID (Linux's CPUCLOCK_SCHED |
// CPUCLOCK_PERTHREAD_MASK, the TID inverted above them), usable for any
// thread of the same process.
clockid_t thread_clock(int tid) {
  return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u);
}

}  // namespace

int64_t processes_cpu_micros(const std::vector<int>& pids) {
  int64_t total = 0;
  for (int pid : pids) {
    int64_t micros = stat_cpu_micros(fmt::format("/proc/{}/stat", pid));
    if (micros > 0) total += micros;
  }
  return total;
}

std::vector<std::pair<int, std::string>> process_threads() {
  std::vector<std::pair<int, std::string>> threads;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return threads;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    const int tid = std::atoi(entry->d_name);
    std::ifstream comm(fmt::format("/proc/self/task/{}/comm", tid));
    std::string name;
    if (std::getline(comm, name)) threads.emplace_back(tid, std::move(name));  // else ended meanwhile
  }
  ::closedir(tasks);
  return threads;
}

std::map<std::string, int64_t> thread_cpu_micros_by_name() {
  std::map<std::string, int64_t> by_name;
  for (const auto& [tid, name] : process_threads()) {
    int64_t micros = -1;
    timespec ts{};
    if (::clock_gettime(thread_clock(tid), &ts) == 0) {
      micros = ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
    } else {
      micros = stat_cpu_micros(fmt::format("/proc/self/task/{}/stat", tid));
    }
    if (micros >= 0) by_name[name] += micros;
  }
  return by_name;
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

HugePageAdvised huge_page_advised_memory() {
  // Each mapping's block lists its fields ("Rss:   N kB", ...) and ends with
  // its "VmFlags:" line, which says whether it was advised ("hg").
  std::ifstream smaps("/proc/self/smaps");
  HugePageAdvised advised;
  int64_t mapping_rss_kib = 0;
  int64_t mapping_huge_kib = 0;
  auto kib_after = [](const std::string& line, size_t prefix) {
    return std::stoll(line.substr(prefix));  // "   N kB"
  };
  std::string line;
  while (std::getline(smaps, line)) {
    if (line.rfind("Rss:", 0) == 0) {
      mapping_rss_kib = kib_after(line, std::strlen("Rss:"));
    } else if (line.rfind("AnonHugePages:", 0) == 0) {
      mapping_huge_kib = kib_after(line, std::strlen("AnonHugePages:"));
    } else if (line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(std::strlen("VmFlags:")));
      std::string flag;
      while (flags >> flag) {
        if (flag != "hg") continue;
        advised.resident_bytes += mapping_rss_kib * 1024;
        advised.huge_bytes += mapping_huge_kib * 1024;
        break;
      }
      mapping_rss_kib = 0;
      mapping_huge_kib = 0;
    }
  }
  return advised;
}

std::string machine_description() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown cpu";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  double mem_gib = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                   static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024 * 1024);
  return fmt::format("{}, {} cores, {:.0f} GiB", model, std::thread::hardware_concurrency(),
                     mem_gib);
}

std::string git_revision() { return SOLO_GIT_REV; }

}  // namespace tpcc
