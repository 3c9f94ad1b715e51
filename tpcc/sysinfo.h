// Process measurements and facts about the machine, for reports.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tpcc {

// CPU time (user + system) of this process, in microseconds.
int64_t process_cpu_micros();
// CPU time of other processes (e.g. a database server), in microseconds;
// processes that are gone count 0.
int64_t processes_cpu_micros(const std::vector<int>& pids);
// This process's live threads: (TID, name from /proc/self/task/*/comm).
std::vector<std::pair<int, std::string>> process_threads();
// CPU time (user + system) of this process's live threads, summed by
// thread name (/proc/self/task/*/comm, e.g. "solo-owner"), in microseconds.
// Read with nanosecond resolution from each thread's CPU clock where the
// kernel allows it, else in clock ticks from /proc (10 ms here). A thread
// that has ended is not in it (process_cpu_micros still counts it).
std::map<std::string, int64_t> thread_cpu_micros_by_name();
// Resident set size of this process, in bytes.
int64_t resident_bytes();
// The memory this process asked to have backed by transparent huge pages
// (madvise MADV_HUGEPAGE: the mappings with the "hg" flag in
// /proc/self/smaps; in a process running solo, its arenas): the resident
// bytes of those mappings and, of them, the bytes in huge pages
// (AnonHugePages). Both come from the same mappings in one read, so
// huge_bytes <= resident_bytes. Zeros if the kernel does not say.
struct HugePageAdvised {
  int64_t resident_bytes = 0;
  int64_t huge_bytes = 0;
};
HugePageAdvised huge_page_advised_memory();
// "model name, N cores, M GiB" from /proc.
std::string machine_description();
// The git revision of the source tree (SOLO_GIT_REV at build time), or
// "unknown".
std::string git_revision();

}  // namespace tpcc
