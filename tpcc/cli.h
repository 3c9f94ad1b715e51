// Command-line parsing of the `tpcc` tool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

struct CliOptions {
  std::string command;  // "load" | "run" | "check" | "replay" | "crosscheck" | "help"
  BackendOptions backend;
  int warehouses = 1;
  int terminals = 4;
  double duration_s = 30;
  double warmup_s = 0;
  uint64_t seed = 1;
  bool think = false;
  // Driver threads for engines that take submitted writes (solo); 0: a
  // thread per terminal.
  int drivers = 1;
  int connections = -1;  // --connections: 0 is one per terminal, -1 the engine's default
  // Districts per database transaction of a Delivery (1..10; 10: one
  // transaction, the same on every engine).
  int delivery_districts = 10;
  bool no_load = false;
  bool no_check = false;
  // load, run, replay, crosscheck: refuse a load that cannot fit in memory
  // (memory_check.h); --no-memory-check turns it off.
  bool memory_check = true;
  // run, crosscheck: end the run's window once MemAvailable falls below this
  // (RunOptions::memory_floor_bytes); -1: default_memory_floor_bytes(), 0: never.
  int64_t memory_floor_mib = -1;
  bool after_load = false;  // check: also condition 11
  bool quiet = false;       // no progress output
  bool profile = false;     // run, solo: sample the owner thread with perf
  std::string json_path;
  std::string success_file;  // run: append acknowledged New-Orders; check: verify them
  std::string journal_path;          // run: record; replay: read
  std::vector<std::string> engines;  // crosscheck: the first runs, the rest replay
  uint64_t transactions = 0;         // run/crosscheck: stop after N (0: use --duration)
  bool keep = false;                 // crosscheck: keep the databases even when all agree
};

// Parses argv. On a usage error returns nullopt and sets `*error` to a
// one-line message naming the problem.
std::optional<CliOptions> parse_cli(const std::vector<std::string>& args, std::string* error);

// The --help text.
std::string usage_text();

}  // namespace tpcc
