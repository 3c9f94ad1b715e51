#include "tpcc/memory_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tpcc {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

int64_t bytes_per_warehouse(const BackendOptions& options) {
  if (options.engine == "solo") return 160 * kMiB;
  if (options.storage != Storage::kRam) return 0;
  if (options.engine == "sqlite") return 90 * kMiB;
  if (options.engine == "postgres" && options.pg_url.empty()) return 300 * kMiB;
  return 0;
}

}  // namespace

int64_t load_memory_bytes(const BackendOptions& options, int warehouses) {
  return bytes_per_warehouse(options) * warehouses;
}

int64_t meminfo_bytes(const std::string& field) {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  const std::string prefix = field + ":";
  while (std::getline(meminfo, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream fields(line.substr(prefix.size()));
    int64_t kib = -1;
    if (fields >> kib) return kib * 1024;
  }
  return -1;
}

int64_t available_memory_bytes() {
  return meminfo_bytes("MemAvailable");
}

int64_t default_memory_floor_bytes() {
  const int64_t total = meminfo_bytes("MemTotal");
  return total < 0 ? 1024 * kMiB : std::min(1024 * kMiB, total / 10);
}

std::string memory_shortfall(const std::string& what, int warehouses, int64_t needed,
                             int64_t available) {
  if (available < 0 || needed <= available) return "";
  return fmt::format(
      "{} warehouses need about {:.1f} GiB of memory for {}, but {:.1f} GiB is available "
      "(MemAvailable); load fewer warehouses, or give --no-memory-check to try anyway",
      warehouses, needed / kGiB, what, available / kGiB);
}

}  // namespace tpcc
