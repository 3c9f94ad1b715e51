// Times checkpoints: fills a fresh database in DIR with one table of ROWS
// rows (inserted in random key order, so that a scan in key order meets its
// records scattered through memory, as after a TPC-C run), then takes COUNT
// checkpoints (one inserted row between them, so that each has something
// new), each through Database::checkpoint(), which waits for it. The owner
// idles meanwhile, so the process's CPU time during the call is the
// checkpointer's. Prints one line per checkpoint and a JSON summary (medians).
//
//   checkpoint_bench DIR [--rows N] [--row-bytes B] [--count C] [--no-reuse]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "solo/database.h"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: checkpoint_bench DIR [--rows N] [--row-bytes B] [--count C] [--no-reuse]\n"
      "Fills a new database in DIR (which must not exist) with N rows (default\n"
      "1000000) of B bytes (default 200) in random key order, then times C\n"
      "checkpoints (default 5): wall time, the process's CPU time (the\n"
      "checkpointer's: the owner idles), file bytes. --no-reuse: each checkpoint\n"
      "is a new file (Options::checkpoint_reuse_file = false). DIR is removed at\n"
      "the end.\n";
  std::string dir;
  int64_t rows = 1000000, row_bytes = 200, count = 5;
  bool reuse = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto number = [&](int64_t low) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "checkpoint_bench: %s needs a value\n%s", arg.c_str(), usage);
        std::exit(2);
      }
      char* end = nullptr;
      long long value = std::strtoll(argv[++i], &end, 10);
      if (*end != '\0' || value < low) {
        std::fprintf(stderr, "checkpoint_bench: %s: %s is not a number >= %lld\n", arg.c_str(),
                     argv[i], static_cast<long long>(low));
        std::exit(2);
      }
      return static_cast<int64_t>(value);
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (arg == "--rows") {
      rows = number(1);
    } else if (arg == "--row-bytes") {
      row_bytes = number(1);
    } else if (arg == "--count") {
      count = number(1);
    } else if (arg == "--no-reuse") {
      reuse = false;
    } else if (dir.empty() && arg[0] != '-') {
      dir = arg;
    } else {
      std::fprintf(stderr, "checkpoint_bench: unexpected argument %s\n%s", arg.c_str(), usage);
      return 2;
    }
  }
  if (dir.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  std::error_code error;
  if (std::filesystem::exists(dir, error)) {
    std::fprintf(stderr, "checkpoint_bench: %s exists; give a new directory\n", dir.c_str());
    return 1;
  }
  solo::Options options;
  options.dir = dir;
  options.checkpoint_reuse_file = reuse;
  options.checkpoint_log_bytes = uint64_t{1} << 40;  // only the explicit checkpoints
  options.checkpoint_state_ratio = 0;
  options.checkpoint_at_close_bytes = 0;
  auto opened = solo::Database::open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "checkpoint_bench: open %s: %s\n", dir.c_str(),
                 opened.status().ToString().c_str());
    return 1;
  }
  auto db = std::move(*opened);
  solo::TableId table = 0;
  solo::Status status = db->write([&](solo::WriteTxn& txn) {
    auto made = txn.create_table(
        solo::TableSchema{"t",
                          {solo::ColumnDef::BigInt("id", true),
                           solo::ColumnDef::VarChar("pad", static_cast<uint32_t>(row_bytes))},
                          {0}});
    if (made.ok()) table = *made;
    return made.status();
  });
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(1));
  const std::string pad(static_cast<size_t>(row_bytes), 'x');
  for (size_t start = 0; status.ok() && start < ids.size(); start += 10000) {
    status = db->write([&](solo::WriteTxn& txn) {
      for (size_t i = start; i < std::min(ids.size(), start + 10000); ++i) {
        solo::Status inserted =
            txn.insert(table, {solo::Value::Int(ids[i]), solo::Value::String(pad)});
        if (!inserted.ok()) return inserted;
      }
      return solo::Status::OK();
    });
  }
  std::vector<double> walls, cpus, bytes;
  for (int64_t round = 0; status.ok() && round < count; ++round) {
    status = db->write([&](solo::WriteTxn& txn) {
      return txn.insert(table, {solo::Value::Int(rows + round), solo::Value::String(pad)});
    });
    if (!status.ok()) break;
    const double cpu_start = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    status = db->checkpoint();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = cpu_seconds() - cpu_start;
    double file_bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".ckpt") file_bytes = static_cast<double>(entry.file_size());
    }
    std::printf("checkpoint %lld: %.3f s wall, %.3f s CPU, %.1f MB\n",
                static_cast<long long>(round), wall, cpu, file_bytes / 1e6);
    walls.push_back(wall);
    cpus.push_back(cpu);
    bytes.push_back(file_bytes);
  }
  solo::Status closed = db->close();
  if (status.ok()) status = closed;
  db.reset();
  std::filesystem::remove_all(dir, error);
  if (!status.ok()) {
    std::fprintf(stderr, "checkpoint_bench: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf(
      "{\"rows\": %lld, \"row_bytes\": %lld, \"reuse\": %s, \"checkpoints\": %lld, "
      "\"wall_s_median\": %.4f, \"cpu_s_median\": %.4f, \"mb\": %.1f, \"cpu_ns_per_byte\": %.3f}\n",
      static_cast<long long>(rows), static_cast<long long>(row_bytes), reuse ? "true" : "false",
      static_cast<long long>(count), median(walls), median(cpus), median(bytes) / 1e6,
      median(cpus) * 1e9 / std::max(1.0, median(bytes)));
  return 0;
}
