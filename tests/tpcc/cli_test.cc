#include "tpcc/cli.h"

#include <catch2/catch.hpp>

#include "tpcc/memory_check.h"

using tpcc::parse_cli;

namespace {

std::string error_of(std::vector<std::string> args) {
  std::string error;
  auto options = parse_cli(args, &error);
  CHECK_FALSE(options.has_value());
  return error;
}

}  // namespace

TEST_CASE("run with every flag") {
  std::string error;
  auto options = parse_cli({"run", "--engine", "sqlite", "--warehouses", "2", "--terminals=8",
                            "--duration", "20.5", "--warmup", "3", "--storage", "disk", "--dir",
                            "/tmp/x", "--seed", "42", "--json", "r.json", "--think", "--no-load",
                            "--no-check", "--quiet"},
                           &error);
  REQUIRE(options.has_value());
  CHECK(options->command == "run");
  CHECK(options->warehouses == 2);
  CHECK(options->terminals == 8);
  CHECK(options->duration_s == 20.5);
  CHECK(options->warmup_s == 3);
  CHECK(options->backend.storage == tpcc::Storage::kDisk);
  CHECK(options->backend.dir == "/tmp/x");
  CHECK(options->seed == 42);
  CHECK(options->json_path == "r.json");
  CHECK(options->think);
  CHECK(options->no_load);
  CHECK(options->no_check);
  CHECK(options->quiet);
}

TEST_CASE("defaults") {
  std::string error;
  auto options = parse_cli({"run"}, &error);
  REQUIRE(options.has_value());
  CHECK(options->warehouses == 1);
  CHECK(options->terminals == 4);
  CHECK(options->duration_s == 30);
  CHECK(options->backend.storage == tpcc::Storage::kRam);
  CHECK_FALSE(options->think);
  // A Delivery is one database transaction unless --delivery-districts
  // splits it, on every engine.
  CHECK(options->delivery_districts == 10);
  auto given = parse_cli({"run", "--delivery-districts", "3"}, &error);
  REQUIRE(given.has_value());
  CHECK(given->delivery_districts == 3);
  // Connections: the engine's default (-1: PostgreSQL's pool, a connection
  // per terminal elsewhere) unless given; 0 asks for one per terminal.
  CHECK(options->connections == -1);
  auto pooled = parse_cli({"run", "--connections", "0"}, &error);
  REQUIRE(pooled.has_value());
  CHECK(pooled->connections == 0);
  pooled = parse_cli({"run", "--connections=12"}, &error);
  REQUIRE(pooled.has_value());
  CHECK(pooled->connections == 12);
}

TEST_CASE("bad input names the problem") {
  CHECK(error_of({}).find("missing command") != std::string::npos);
  CHECK(error_of({"fly"}).find("unknown command 'fly'") != std::string::npos);
  CHECK(error_of({"run", "--bogus"}).find("unknown option '--bogus'") != std::string::npos);
  CHECK(error_of({"run", "--warehouses", "0"}).find("--warehouses must be between 1") !=
        std::string::npos);
  CHECK(error_of({"run", "--terminals", "-3"}).find("--terminals") != std::string::npos);
  CHECK(error_of({"run", "--duration", "abc"}).find("--duration expects a number") !=
        std::string::npos);
  CHECK(error_of({"run", "--duration", "0"}).find("more than 0") != std::string::npos);
  CHECK(error_of({"run", "--warehouses", "1x"}).find("expects an integer") != std::string::npos);
  CHECK(error_of({"run", "--storage", "tape"}).find("ram or disk") != std::string::npos);
  CHECK(error_of({"run", "--json"}).find("--json needs a value") != std::string::npos);
  CHECK(error_of({"run", "--think=yes"}).find("--think takes no value") != std::string::npos);
  CHECK(error_of({"run", "--no-load="}).find("--no-load takes no value") != std::string::npos);
}

// Regression (probe item 3): an empty "--opt=" took the next argument as its
// value, so `--json= --no-load` wrote JSON to a file named --no-load and
// reloaded the database.
TEST_CASE("an empty --opt= is a missing value, not the next argument") {
  CHECK(error_of({"run", "--json=", "--no-load"}).find("--json needs a value") !=
        std::string::npos);
  CHECK(error_of({"check", "--dir=", "--quiet"}).find("--dir needs a value") != std::string::npos);
  CHECK(error_of({"run", "--warehouses=", "2"}).find("--warehouses needs a value") !=
        std::string::npos);
  CHECK(error_of({"run", "--engine="}).find("--engine needs a value") != std::string::npos);
  std::string error;
  auto options = parse_cli({"run", "--json=r.json", "--no-load"}, &error);
  REQUIRE(options.has_value());
  CHECK(options->json_path == "r.json");
  CHECK(options->no_load);
}

// Regression (probe item 12): 1e10 s overflowed the driver's int64
// nanoseconds and the run ended at once with nothing committed.
TEST_CASE("--duration and --warmup are bounded") {
  CHECK(error_of({"run", "--duration", "1e10"}).find("--duration must be at most 10000000") !=
        std::string::npos);
  CHECK(error_of({"run", "--duration", "1e300"}).find("at most") != std::string::npos);
  CHECK(error_of({"run", "--warmup", "1e300"}).find("--warmup must be at most") !=
        std::string::npos);
  std::string error;
  auto options = parse_cli({"run", "--duration", "1e7", "--warmup", "10000000"}, &error);
  REQUIRE(options.has_value());
  CHECK(options->duration_s == 1e7);
  CHECK(options->warmup_s == 1e7);
}

// Regression (probe item 7): options a command does not use were ignored
// without a word (`check --json F` wrote nothing).
TEST_CASE("an option the command does not use is refused") {
  CHECK(error_of({"check", "--json", "c.json"}).find("--json does not apply to `tpcc check`") !=
        std::string::npos);
  CHECK(error_of({"load", "--json=l.json"}).find("--json does not apply to `tpcc load`") !=
        std::string::npos);
  CHECK(error_of({"replay", "--journal", "j", "--json", "r"}).find("`tpcc replay`") !=
        std::string::npos);
  CHECK(error_of({"crosscheck", "--json", "x"}).find("`tpcc crosscheck`") != std::string::npos);
  CHECK(error_of({"load", "--journal", "j"}).find("--journal does not apply") != std::string::npos);
  CHECK(error_of({"load", "--success-file", "s"}).find("--success-file does not apply") !=
        std::string::npos);
  CHECK(error_of({"load", "--transactions", "9"}).find("--transactions does not apply") !=
        std::string::npos);
  CHECK(error_of({"check", "--duration", "3"}).find("--duration does not apply") !=
        std::string::npos);
  CHECK(error_of({"run", "--after-load"}).find("--after-load does not apply") != std::string::npos);
  CHECK(error_of({"run", "--engines", "solo,sqlite"}).find("--engines does not apply") !=
        std::string::npos);
  CHECK(error_of({"crosscheck", "--engine", "solo"}).find("--engine does not apply") !=
        std::string::npos);
  // What the scripts pass to every command stays accepted (scripts/crashloop
  // checks with --warehouses; scripts/sqlite-sweep loads with --terminals).
  std::string error;
  CHECK(parse_cli({"check", "--warehouses", "1", "--seed", "3", "--terminals", "8",
                   "--success-file", "s", "--after-load", "--storage", "disk", "--quiet"},
                  &error));
  CHECK(parse_cli({"load", "--warehouses", "2", "--terminals", "4", "--seed", "1", "--no-check",
                   "--sqlite-profile", "x"},
                  &error));
  CHECK(parse_cli({"replay", "--journal", "j", "--no-check"}, &error));
  CHECK(parse_cli({"crosscheck", "--engines", "solo,sqlite", "--transactions", "10", "--drivers",
                   "0", "--delivery-districts", "2", "--journal", "j", "--keep"},
                  &error));
}

TEST_CASE("help") {
  std::string error;
  auto options = parse_cli({"--help"}, &error);
  REQUIRE(options.has_value());
  CHECK(options->command == "help");
  CHECK(tpcc::usage_text().find("--warehouses") != std::string::npos);
}

TEST_CASE("postgres: --pg-url names a server; the terminals size a private cluster") {
  std::string error;
  auto options = parse_cli({"run", "--engine", "postgres", "--terminals", "16", "--pg-url",
                            "postgresql://bob@db.example:5432/tpcc"},
                           &error);
  REQUIRE(options.has_value());
  CHECK(options->backend.engine == "postgres");
  CHECK(options->backend.pg_url == "postgresql://bob@db.example:5432/tpcc");
  CHECK(options->backend.terminals == 16);

  auto with_equals = parse_cli({"run", "--pg-url=host=/tmp dbname=tpcc"}, &error);
  REQUIRE(with_equals.has_value());
  CHECK(with_equals->backend.pg_url == "host=/tmp dbname=tpcc");

  auto private_cluster = parse_cli({"run", "--engine", "postgres"}, &error);
  REQUIRE(private_cluster.has_value());
  CHECK(private_cluster->backend.pg_url.empty());
  CHECK(private_cluster->backend.terminals == 4);

  CHECK(error_of({"run", "--pg-url"}).find("--pg-url needs a value") != std::string::npos);
  CHECK(error_of({"run", "--pg-url="}).find("--pg-url needs") != std::string::npos);
  CHECK(tpcc::usage_text().find("--pg-url URL") != std::string::npos);
}

TEST_CASE("solo's checkpoint trigger flags") {
  std::string error;
  auto options = parse_cli({"run", "--engine", "solo", "--solo-checkpoint-mib", "8",
                            "--solo-checkpoint-ratio", "0"},
                           &error);
  REQUIRE(options);
  CHECK(options->backend.solo_checkpoint_mib == 8);
  CHECK(options->backend.solo_checkpoint_ratio == 0.0);
  auto defaults = parse_cli({"run", "--engine", "solo"}, &error);
  REQUIRE(defaults);
  CHECK(defaults->backend.solo_checkpoint_mib < 0);  // the engine's default
  CHECK(defaults->backend.solo_checkpoint_ratio < 0);
  CHECK(error_of({"run", "--solo-checkpoint-ratio", "-1"}) != "");
}

// Regression (probe item 1): --solo-checkpoint-mib 0 turned solo's automatic
// checkpoints off (checkpoint_log_bytes 0 means never), and 2^44 or more
// overflowed to 0 or garbage when shifted to bytes.
TEST_CASE("--solo-checkpoint-mib is 1..1048576: 0 and overflowing values are usage errors") {
  const std::string range = "--solo-checkpoint-mib must be between 1 and 1048576";
  CHECK(error_of({"run", "--solo-checkpoint-mib", "0"}).find(range + ", got 0") !=
        std::string::npos);
  CHECK(error_of({"run", "--solo-checkpoint-mib", "17592186044416"}).find(range) !=
        std::string::npos);  // 2^44: 2^64 bytes, 0 once shifted
  CHECK(error_of({"run", "--solo-checkpoint-mib", "1048577"}).find(range) != std::string::npos);
  std::string error;
  auto largest = parse_cli({"run", "--engine", "solo", "--solo-checkpoint-mib", "1048576"}, &error);
  REQUIRE(largest);
  CHECK(largest->backend.solo_checkpoint_mib == 1048576);
  auto smallest = parse_cli({"run", "--engine", "solo", "--solo-checkpoint-mib", "1"}, &error);
  REQUIRE(smallest);
  CHECK(smallest->backend.solo_checkpoint_mib == 1);
  CHECK(tpcc::usage_text().find("N from 1 to 1048576") != std::string::npos);
}

TEST_CASE("--no-memory-check: load, run, replay and crosscheck only") {
  std::string error;
  auto load = parse_cli({"load", "--no-memory-check"}, &error);
  REQUIRE(load);
  CHECK_FALSE(load->memory_check);
  auto run = parse_cli({"run"}, &error);
  REQUIRE(run);
  CHECK(run->memory_check);
  CHECK(parse_cli({"crosscheck", "--no-memory-check"}, &error));
  CHECK(error_of({"check", "--no-memory-check"}).find("--no-memory-check does not apply") !=
        std::string::npos);
}

TEST_CASE("the memory a load takes: solo always, SQLite and PostgreSQL on /dev/shm only") {
  tpcc::BackendOptions options;
  options.engine = "solo";
  options.storage = tpcc::Storage::kDisk;
  CHECK(tpcc::load_memory_bytes(options, 10) == 10 * tpcc::load_memory_bytes(options, 1));
  CHECK(tpcc::load_memory_bytes(options, 1) >= (int64_t{150} << 20));
  options.engine = "sqlite";
  CHECK(tpcc::load_memory_bytes(options, 10) == 0);  // on the disk
  options.storage = tpcc::Storage::kRam;
  CHECK(tpcc::load_memory_bytes(options, 1) >= (int64_t{85} << 20));
  options.engine = "postgres";
  CHECK(tpcc::load_memory_bytes(options, 1) >= (int64_t{270} << 20));
  options.pg_url = "host=/tmp";  // a server tpcc did not start: its memory is not ours to judge
  CHECK(tpcc::load_memory_bytes(options, 1) == 0);

  const int64_t gib = int64_t{1} << 30;
  CHECK(tpcc::memory_shortfall("solo", 4, gib, 2 * gib).empty());
  CHECK(tpcc::memory_shortfall("solo", 4, gib, -1).empty());  // unknown: not refused
  const std::string refused = tpcc::memory_shortfall("solo", 100, 16 * gib, 8 * gib);
  CHECK(refused.find("100 warehouses need about 16.0 GiB of memory for solo, but 8.0 GiB is "
                     "available") != std::string::npos);
  CHECK(refused.find("--no-memory-check") != std::string::npos);
  CHECK(tpcc::available_memory_bytes() > 0);  // /proc/meminfo's MemAvailable
}
