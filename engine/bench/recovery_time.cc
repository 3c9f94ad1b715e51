// Times one recovery: opens the database in DIR (newest checkpoint + log
// replay, engine/README.md "Durability"), reads what it recovered from
// Stats, and closes it without writing anything (so the next run replays
// the same log). Prints one JSON object: the open's wall time and the
// process's CPU time during it (steadier than wall time on a shared
// machine; with the 1-minute load average), the engine's
// own recovery time, the checkpoint it loaded, the log rounds and payload
// bytes it replayed, the bytes of the segment files and checkpoints in DIR,
// the recovered state's size, and the owner thread's busy, idle and CPU time (it
// applies everything; the reader and prefault helpers run beside it). Uses the
// default Options (as tpcc does), but for the checkpoints (none).
//
//   recovery_time DIR
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>

#include "solo/database.h"

int main(int argc, char** argv) {
  const char* usage =
      "usage: recovery_time DIR\n"
      "Opens the solo database in DIR (checkpoint load + log replay), prints the\n"
      "recovery's times and sizes as one JSON object, closes it without writing.\n";
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (argc != 2) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string dir = argv[1];
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    std::fprintf(stderr, "recovery_time: %s is not a directory\n", dir.c_str());
    return 1;
  }
  uint64_t segment_bytes = 0, segment_files = 0, checkpoint_file_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("wal-", 0) == 0) {
      segment_bytes += entry.file_size();
      segment_files++;
    } else if (name.rfind("checkpoint-", 0) == 0) {
      checkpoint_file_bytes += entry.file_size();
    }
  }
  solo::Options options;
  options.dir = dir;
  // Writes nothing, so that the next run replays the same log: no checkpoint
  // at close, and none after recovery (due when the replayed log reaches
  // the trigger, as after a kill during a checkpoint).
  options.checkpoint_at_close_bytes = 0;
  options.checkpoint_log_bytes = 0;
  auto cpu_seconds = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  };
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  auto opened = solo::Database::open(options);
  const double open_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double open_cpu_s = cpu_seconds() - cpu_start;
  if (!opened.ok()) {
    std::fprintf(stderr, "recovery_time: open %s: %s\n", dir.c_str(), opened.status().ToString().c_str());
    return 1;
  }
  solo::Stats stats = (*opened)->stats();
  double loadavg[1] = {0};
  (void)getloadavg(loadavg, 1);
  const solo::Status closed = (*opened)->close();
  if (!closed.ok()) {
    std::fprintf(stderr, "recovery_time: close %s: %s\n", dir.c_str(), closed.ToString().c_str());
    return 1;
  }
  std::printf(
      "{\"dir\": \"%s\", \"open_s\": %.3f, \"open_cpu_s\": %.3f, \"recovery_s\": %.3f, "
      "\"checkpoint_load_s\": %.3f, \"checkpoint_bytes\": %llu, "
      "\"replayed_rounds\": %llu, \"replayed_log_bytes\": %llu, \"durable_lsn\": %llu, "
      "\"commits_replayed\": %llu, \"state_bytes\": %llu, \"arena_bytes\": %llu, \"segment_files\": %llu, "
      "\"segment_file_bytes\": %llu, \"checkpoint_file_bytes\": %llu, \"loadavg_1m\": %.2f, "
      "\"owner_busy_s\": %.3f, \"owner_idle_s\": %.3f, \"owner_cpu_s\": %.3f}\n",
      dir.c_str(), open_s, open_cpu_s, static_cast<double>(stats.recovery_ns) / 1e9,
      static_cast<double>(stats.recovery_checkpoint_ns) / 1e9,
      static_cast<unsigned long long>(stats.recovered_checkpoint_bytes),
      static_cast<unsigned long long>(stats.replayed_rounds),
      static_cast<unsigned long long>(stats.replayed_log_bytes),
      static_cast<unsigned long long>(stats.durable_lsn),
      static_cast<unsigned long long>(stats.commits),
      static_cast<unsigned long long>(stats.state_bytes),
      static_cast<unsigned long long>(stats.arena_bytes),
      static_cast<unsigned long long>(segment_files),
      static_cast<unsigned long long>(segment_bytes),
      static_cast<unsigned long long>(checkpoint_file_bytes), loadavg[0],
      static_cast<double>(stats.owner_busy_ns) / 1e9, static_cast<double>(stats.owner_idle_ns) / 1e9,
      static_cast<double>(stats.owner_cpu_ns) / 1e9);
  return 0;
}
