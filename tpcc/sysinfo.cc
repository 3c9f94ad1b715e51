#include "tpcc/sysinfo.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

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

int64_t processes_cpu_micros(const std::vector<int>& pids) {
  int64_t total = 0;
  long ticks_per_second = sysconf(_SC_CLK_TCK);
  for (int pid : pids) {
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string content;
    if (!std::getline(stat, content)) continue;
    // Fields after the command name (which may contain spaces) in ')'.
    size_t close = content.rfind(')');
    if (close == std::string::npos) continue;
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
    total += (utime + stime) * 1000000 / ticks_per_second;
  }
  return total;
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

int64_t anon_huge_page_bytes() {
  std::ifstream rollup("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(rollup, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) {
      return std::stoll(line.substr(std::strlen("AnonHugePages:"))) * 1024;  // "  N kB"
    }
  }
  return 0;
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
