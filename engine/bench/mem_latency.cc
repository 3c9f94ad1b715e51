// The machine's memory-latency floor for the point-get target (issue 3): a
// pointer chase through a random cyclic permutation of 64-byte lines (each
// load depends on the previous one), over regions from cache-sized to
// DRAM-sized, once with transparent huge pages asked for (MADV_HUGEPAGE) and
// once forbidden (MADV_NOHUGEPAGE). Also chases `chains` independent cycles
// interleaved, to show how much the memory system overlaps misses that do
// not depend on each other. Times are thread CPU time (the VM is shared).
// Prints one JSON object per line.
//
//   mem_latency [megabytes...]      default: 1 8 32 256
#include <sys/mman.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr size_t kLine = 64;
constexpr size_t kHuge = size_t{2} << 20;

struct Region {
  char* base = nullptr;
  size_t bytes = 0;
};

Region map_region(size_t bytes, bool huge) {
  size_t mapped = bytes + kHuge;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) std::abort();
  char* base =
      reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1));
  madvise(base, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return Region{base, bytes};
}

// AnonHugePages (kB) of the mapping that contains `address`, from /proc/self/smaps.
long anon_huge_kb(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  auto target = reinterpret_cast<uintptr_t>(address);
  while (std::getline(smaps, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = start <= target && target < end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::atol(line.c_str() + 14);
  }
  return -1;
}

// Links every line of the region into `chains` random cycles (Sattolo's
// algorithm over the lines of each chain); returns the chains' start lines.
std::vector<char*> link_cycles(const Region& region, int chains, uint64_t seed) {
  size_t lines = region.bytes / kLine;
  std::vector<uint32_t> order(lines);
  for (size_t line_idx = 0; line_idx < lines; ++line_idx)
    order[line_idx] = static_cast<uint32_t>(line_idx);
  std::mt19937_64 rng(seed);
  for (size_t line_idx = lines - 1; line_idx > 0; --line_idx) {
    std::swap(order[line_idx], order[rng() % line_idx]);
  }
  std::vector<char*> starts;
  size_t per_chain = lines / chains;
  for (int chain = 0; chain < chains; ++chain) {
    size_t first = chain * per_chain;
    for (size_t pos = 0; pos < per_chain; ++pos) {
      char* from = region.base + size_t{order[first + pos]} * kLine;
      char* to = region.base + size_t{order[first + (pos + 1) % per_chain]} * kLine;
      std::memcpy(from, &to, sizeof(to));
    }
    starts.push_back(region.base + size_t{order[first]} * kLine);
  }
  return starts;
}

// CPU time of this thread: the machine is shared, and wall time would count
// the time other processes hold the core.
uint64_t thread_cpu_ns() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000 + static_cast<uint64_t>(now.tv_nsec);
}

template <int kChains>
double chase_ns(std::vector<char*> starts, size_t loads_per_chain) {
  char* cursor[kChains];
  for (int chain = 0; chain < kChains; ++chain) cursor[chain] = starts[chain];
  uint64_t begin = thread_cpu_ns();
  for (size_t step = 0; step < loads_per_chain; ++step) {
    for (int chain = 0; chain < kChains; ++chain)
      cursor[chain] = *reinterpret_cast<char**>(cursor[chain]);
  }
  uint64_t end = thread_cpu_ns();
  uintptr_t sink = 0;
  for (int chain = 0; chain < kChains; ++chain) sink ^= reinterpret_cast<uintptr_t>(cursor[chain]);
  if (sink == 1) std::puts("");  // keeps the loads
  double ns = static_cast<double>(end - begin);
  return ns / static_cast<double>(loads_per_chain * kChains);
}

double run_chase(const Region& region, int chains, size_t loads) {
  std::vector<char*> starts = link_cycles(region, chains, 42 + chains);
  size_t per_chain = loads / chains;
  switch (chains) {
    case 1:
      chase_ns<1>(starts, per_chain / 4);
      return chase_ns<1>(starts, per_chain);
    case 2:
      chase_ns<2>(starts, per_chain / 4);
      return chase_ns<2>(starts, per_chain);
    case 4:
      chase_ns<4>(starts, per_chain / 4);
      return chase_ns<4>(starts, per_chain);
    default:
      chase_ns<8>(starts, per_chain / 4);
      return chase_ns<8>(starts, per_chain);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> megabytes;
  for (int arg = 1; arg < argc; ++arg) megabytes.push_back(std::strtoul(argv[arg], nullptr, 10));
  if (megabytes.empty()) megabytes = {1, 8, 32, 256};
  constexpr size_t kLoads = size_t{1} << 23;
  for (size_t mb : megabytes) {
    for (bool huge : {true, false}) {
      Region region = map_region(mb << 20, huge);
      std::memset(region.base, 1, region.bytes);  // fault everything in first
      long huge_kb = anon_huge_kb(region.base);
      for (int chains : {1, 2, 4, 8}) {
        double ns = run_chase(region, chains, kLoads);
        std::printf(
            "{\"region_mb\": %zu, \"thp_requested\": %s, \"anon_huge_kb\": %ld, \"chains\": %d, "
            "\"ns_per_load\": %.1f}\n",
            mb, huge ? "true" : "false", huge_kb, chains, ns);
        std::fflush(stdout);
      }
      munmap(region.base, region.bytes);
    }
  }
  return 0;
}
