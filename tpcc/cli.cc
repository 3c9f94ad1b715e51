#include "tpcc/cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tpcc {
namespace {

bool parse_int(const std::string& text, int64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_double(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty() && std::isfinite(*out);
}

// The longest --duration or --warmup: 10^7 s (116 days). The driver counts
// in int64 nanoseconds, which a value near 9.2e9 s would overflow (the run
// then ended at once with nothing committed).
constexpr double kMaxSeconds = 1e7;

// Options that only some commands use, and those commands. An option not
// listed applies to every command: the engine and where it lives (--engine,
// --storage, --dir and the engine settings), --quiet, and --warehouses,
// --seed and --terminals, which scripts pass to every command alike (check
// and replay take W and the seed from the database or the journal; the
// terminals also size a private PostgreSQL cluster). --profile has its own
// check.
struct OptionScope {
  const char* option;
  std::vector<std::string> commands;
};

const std::vector<OptionScope>& option_scopes() {
  static const std::vector<OptionScope> scopes = {
      {"--engine", {"load", "run", "check", "replay"}},
      {"--duration", {"run"}},
      {"--warmup", {"run"}},
      {"--think", {"run"}},
      {"--connections", {"run"}},
      {"--no-load", {"run"}},
      {"--json", {"run"}},
      {"--drivers", {"run", "crosscheck"}},
      {"--delivery-districts", {"run", "crosscheck"}},
      {"--transactions", {"run", "crosscheck"}},
      {"--journal", {"run", "replay", "crosscheck"}},
      {"--success-file", {"run", "check"}},
      {"--no-check", {"load", "run", "replay"}},
      {"--no-memory-check", {"load", "run", "replay", "crosscheck"}},
      {"--memory-floor-mib", {"run", "crosscheck"}},
      {"--after-load", {"check"}},
      {"--engines", {"crosscheck"}},
      {"--keep", {"crosscheck"}},
  };
  return scopes;
}

// Sets *error and returns false if `option` is given to a command that does
// not use it (it would be ignored without a word).
bool option_applies(const std::string& command, const std::string& option, std::string* error) {
  for (const OptionScope& scope : option_scopes()) {
    if (option != scope.option) continue;
    for (const std::string& user : scope.commands) {
      if (user == command) return true;
    }
    std::string users;
    for (const std::string& user : scope.commands) users += (users.empty() ? "" : ", ") + user;
    *error = fmt::format("{} does not apply to `tpcc {}` (only to: {})", option, command, users);
    return false;
  }
  return true;
}

}  // namespace

std::string usage_text() {
  return R"(usage: tpcc <command> [options]

Runs TPC-C (5.11) against an engine and checks the result.

commands:
  load     create the schema and load W warehouses (then check all 12 conditions
           and the fixed-size tables' row counts against W)
  run      load a fresh database (unless --no-load), run T terminals for the
           duration, then check the consistency conditions and the row counts
           and audit the mix (a rate the run is too short to judge, such as
           Order-Status by name over 10 transactions, is reported as not
           judged with the run length it needs, and does not fail)
  check    check the consistency conditions and row counts of an existing
           database
  replay   load a fresh database from the journal's seed and W, replay the
           journal (--journal FILE) serially, then check it
  crosscheck
           run --transactions N on the first of --engines with --journal,
           replay the journal on each other engine, compare every table row
           by row and check each engine; non-zero exit on any difference.
           The engines' databases and the journal are removed afterwards
           when everything agrees (--keep keeps them), kept for inspection
           when not
  help     this text

options:
  --engine NAME        solo, sqlite or postgres (default: sqlite)
  --warehouses W       number of warehouses, W >= 1 (default 1)
  --terminals T        terminal threads, T >= 1 (default 4); terminal i has home
                       warehouse i % W + 1 and district (i / W) % 10 + 1
  --duration S         run: measured seconds (default 30; at most 10000000)
  --warmup S           run: seconds run before measuring (default 0; at most
                       10000000)
  --storage ram|disk   ram: database files on /dev/shm; disk: on the real disk,
                       every commit durable (default ram)
  --dir PATH           where the database lives (default: /dev/shm/solo-tpcc for
                       ram, ./tpcc-data for disk). load, run and replay delete
                       the database there, so a non-empty PATH must hold the
                       tpcc-owned file that tpcc writes into a directory it
                       makes or finds empty; others are refused
  --seed N             seed of the load and of the terminals (default 1)
  --think              keying and think times on (clause 5.2.5); off by default
  --drivers N          solo, without --think: N threads run the T terminals,
                       each keeping the writes of its terminals in flight
                       (Database::submit) and running their reads, instead
                       of one thread per terminal blocked in each write
                       (default 1; 0: a thread per terminal, as for the
                       other engines, which have no such interface)
  --connections N      the T terminals share N connections, as behind a
                       connection pool or transaction monitor: a terminal
                       takes one for each transaction, the longest waiting
                       first, and the wait is part of its response time.
                       For servers whose throughput falls with more
                       concurrent transactions (PostgreSQL at W=1 in memory:
                       8 terminals 1,705 tps, 64 terminals 644). A thread
                       per terminal only (not solo's driver threads, whose
                       owner runs one write at a time anyway). 0: a
                       connection per terminal. Default: 4 per core for
                       postgres (8 on 2 cores), 0 for the others
  --delivery-districts N
                       districts a Delivery delivers per database transaction,
                       1..10: a business Delivery is one or more (up to 10)
                       database transactions (clause 2.7.4.1), run one after
                       another by its terminal (default 10: one transaction,
                       on every engine). Fewer districts per transaction keep
                       a terminal in its Delivery longer: at T=64 on solo,
                       1 parks a third of the terminals there and lowers the
                       others' response times as fewer terminals would
                       (tpcc/README.md)
  --no-load            run against the database already in --dir
  --no-check           load, run, replay: skip the consistency conditions
  --no-memory-check    load, run, replay, crosscheck: load even when the
                       database will not fit in the memory available (by
                       default refused before anything is created: solo
                       takes ~160 MiB per warehouse after the load, SQLite
                       and PostgreSQL on --storage ram ~90 and ~300 MiB;
                       a run adds to it)
  --memory-floor-mib N run, crosscheck: end the run early, keeping and
                       reporting what it measured (exit 1, "ended_early" in
                       the JSON), once the machine's available memory falls
                       below N MiB, instead of growing on into the kernel's
                       out-of-memory kill (solo's state grows ~1 GiB a minute
                       at ~50k tps). Default: a tenth of the memory, at most
                       1024; 0: never
  --success-file FILE  run: append each acknowledged New-Order ("NO w d o_id")
                       to FILE; check: verify that every one in FILE is
                       present, that no rolled-back one is, and that
                       sum(D_NEXT_O_ID) grew by at least their number (the
                       durability test of clause 3.5; see scripts/crashloop)
  --profile            run, solo: sample the owner thread with perf during the
                       measured window and print the share of its time in
                       finding rows, changing rows, copying shared nodes, the
                       SQL executor, logging, handing out answers, waiting...
                       (perf.data next to --json, else owner-profile.perf.data)
  --after-load         check: include condition 11 (holds only right after load)
  --solo-checkpoint-mib N, --solo-checkpoint-ratio K
                       solo: checkpoint once the log since the last one reaches
                       max(N MiB, K x the last checkpoint's size) (default 64, 1;
                       N from 1 to 1048576, i.e. 1 TiB; K 0: every N MiB, the
                       old trigger)
  --solo-checkpoint-reuse 0|1
                       solo: 1 (default): a checkpoint overwrites the file of
                       the one before the last; 0: each one is a new file
                       (solo::Options::checkpoint_reuse_file)
  --solo-answer-wait auto|nap|futex
                       solo: how the driver waits for its writes' answers:
                       nap sleeps until shortly before the round's expected
                       end, so that the owner need not wake it; futex sleeps
                       until the owner wakes it; auto (default): nap where no
                       fdatasync stands between a round and its answer (ram)
                       (solo::Options::answer_wait)
  --sqlite-profile P   a named SQLite pragma set (default: the tuned one for the
                       storage; see results/sqlite-sweep)
  --pg-url URL         postgres: use this existing server (libpq URI or
                       key=value string) instead of a private cluster; the
                       private cluster (scripts/pg) lives in --dir (default
                       /dev/shm/solo-pg for ram, ./pg-data for disk) and is
                       started and stopped by tpcc unless it already runs
  --json FILE          run: write the results as JSON (FILE is checked
                       before the run starts)
  --journal FILE       run: record every committed write transaction with its
                       input in commit order (serializes writers); replay: the
                       journal to replay (crosscheck: default DIR/journal.txt)
  --engines A,B,...    crosscheck: engines, the first runs and journals
                       (default sqlite,postgres)
  --transactions N     run/crosscheck: stop after N transactions instead of
                       after --duration (crosscheck default 10000)
  --keep               crosscheck: keep the databases and journal when all agree
  --quiet              no progress output
  --help               this text

An option that a command does not use (such as --json for check) is refused.
--warehouses, --seed and --terminals are accepted by every command; check and
replay take W and the seed from the database or the journal.

check and run --no-load only read a database: they create nothing, and
refuse a directory that holds no database of the engine.

exit status: 0 when everything held, 1 when a check, the audit or the run
failed or the database could not be opened, 2 for a usage error, 130 or 143
after SIGINT or SIGTERM (which first stop a private PostgreSQL cluster that
this tpcc started; its data stays). A SIGINT while `tpcc run`'s terminals run
ends the run's window instead: its results are printed (and written to
--json, with "ended_early") before the exit with 130; a second SIGINT exits
at once.
)";
}

std::optional<CliOptions> parse_cli(const std::vector<std::string>& args, std::string* error) {
  CliOptions options;
  if (args.empty()) {
    *error = "missing command (load, run, check, replay, crosscheck); see tpcc --help";
    return std::nullopt;
  }
  size_t arg_idx = 0;
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    options.command = "help";
    return options;
  }
  options.command = args[arg_idx++];
  if (options.command != "load" && options.command != "run" && options.command != "check" &&
      options.command != "replay" && options.command != "crosscheck") {
    *error = fmt::format("unknown command '{}' (expected load, run, check, replay or crosscheck)",
                         options.command);
    return std::nullopt;
  }
  while (arg_idx < args.size()) {
    std::string flag = args[arg_idx++];
    std::string value;
    // --flag=value is accepted as well as --flag value. An empty "--flag="
    // is a missing value: taking the next argument instead turned
    // `--json= --no-load` into a JSON file named --no-load and a reload.
    bool inline_value = false;
    if (size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    if (!option_applies(options.command, flag, error)) return std::nullopt;
    auto take_value = [&]() -> std::optional<std::string> {
      if (inline_value) {
        if (value.empty()) {
          *error = fmt::format("{} needs a value (got an empty '{}=')", flag, flag);
          return std::nullopt;
        }
        return value;
      }
      if (arg_idx >= args.size()) {
        *error = fmt::format("{} needs a value", flag);
        return std::nullopt;
      }
      return args[arg_idx++];
    };
    // A switch (--think, --no-load, ...) takes no value.
    auto is_switch = [&]() {
      if (!inline_value) return true;
      *error = fmt::format("{} takes no value, got '{}={}'", flag, flag, value);
      return false;
    };
    auto take_int = [&](int64_t low, int64_t high) -> std::optional<int64_t> {
      auto text = take_value();
      if (!text) return std::nullopt;
      int64_t number = 0;
      if (!parse_int(*text, &number)) {
        *error = fmt::format("{} expects an integer, got '{}'", flag, *text);
        return std::nullopt;
      }
      if (number < low || number > high) {
        *error = fmt::format("{} must be between {} and {}, got {}", flag, low, high, number);
        return std::nullopt;
      }
      return number;
    };
    auto take_seconds = [&]() -> std::optional<double> {
      auto text = take_value();
      if (!text) return std::nullopt;
      double seconds = 0;
      if (!parse_double(*text, &seconds) || seconds < 0) {
        *error = fmt::format("{} expects a number of seconds >= 0, got '{}'", flag, *text);
        return std::nullopt;
      }
      if (seconds > kMaxSeconds) {
        *error =
            fmt::format("{} must be at most {:.0f} seconds, got '{}'", flag, kMaxSeconds, *text);
        return std::nullopt;
      }
      return seconds;
    };

    if (flag == "--help" || flag == "-h") {
      options.command = "help";
      return options;
    } else if (flag == "--engine") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.backend.engine = *text;
    } else if (flag == "--warehouses") {
      auto number = take_int(1, 10000);
      if (!number) return std::nullopt;
      options.warehouses = static_cast<int>(*number);
    } else if (flag == "--terminals") {
      auto number = take_int(1, 4096);
      if (!number) return std::nullopt;
      options.terminals = static_cast<int>(*number);
    } else if (flag == "--duration") {
      auto seconds = take_seconds();
      if (!seconds) return std::nullopt;
      if (*seconds <= 0) {
        *error = "--duration must be more than 0 seconds";
        return std::nullopt;
      }
      options.duration_s = *seconds;
    } else if (flag == "--warmup") {
      auto seconds = take_seconds();
      if (!seconds) return std::nullopt;
      options.warmup_s = *seconds;
    } else if (flag == "--storage") {
      auto text = take_value();
      if (!text) return std::nullopt;
      if (*text == "ram") {
        options.backend.storage = Storage::kRam;
      } else if (*text == "disk") {
        options.backend.storage = Storage::kDisk;
      } else {
        *error = fmt::format("--storage must be ram or disk, got '{}'", *text);
        return std::nullopt;
      }
    } else if (flag == "--dir") {
      auto text = take_value();
      if (!text) return std::nullopt;
      if (text->empty()) {
        *error = "--dir needs a path";
        return std::nullopt;
      }
      options.backend.dir = *text;
    } else if (flag == "--seed") {
      auto number = take_int(0, INT64_MAX);
      if (!number) return std::nullopt;
      options.seed = static_cast<uint64_t>(*number);
    } else if (flag == "--json") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.json_path = *text;
    } else if (flag == "--solo-checkpoint-mib") {
      auto number = take_int(1, kMaxSoloCheckpointMib);
      if (!number) return std::nullopt;
      options.backend.solo_checkpoint_mib = *number;
    } else if (flag == "--solo-checkpoint-ratio") {
      auto number = take_int(0, 1000);
      if (!number) return std::nullopt;
      options.backend.solo_checkpoint_ratio = static_cast<double>(*number);
    } else if (flag == "--solo-checkpoint-reuse") {
      auto number = take_int(0, 1);
      if (!number) return std::nullopt;
      options.backend.solo_checkpoint_reuse = static_cast<int>(*number);
    } else if (flag == "--solo-answer-wait") {
      auto text = take_value();
      if (!text) return std::nullopt;
      if (*text != "auto" && *text != "nap" && *text != "futex") {
        *error = "--solo-answer-wait must be auto, nap or futex, not '" + *text + "'";
        return std::nullopt;
      }
      options.backend.solo_answer_wait = *text;
    } else if (flag == "--sqlite-profile") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.backend.sqlite_profile = *text;
    } else if (flag == "--pg-url") {
      auto text = take_value();
      if (!text) return std::nullopt;
      if (text->empty()) {
        *error = "--pg-url needs a URL";
        return std::nullopt;
      }
      options.backend.pg_url = *text;
    } else if (flag == "--journal") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.journal_path = *text;
    } else if (flag == "--engines") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.engines.clear();
      size_t start = 0;
      while (start <= text->size()) {
        size_t comma = text->find(',', start);
        if (comma == std::string::npos) comma = text->size();
        std::string engine = text->substr(start, comma - start);
        if (engine.empty()) {
          *error = fmt::format("--engines has an empty name in '{}'", *text);
          return std::nullopt;
        }
        // Each engine's database lives in DIR/<engine>: a repeated name
        // would run and compare one database against itself.
        if (std::find(options.engines.begin(), options.engines.end(), engine) !=
            options.engines.end()) {
          *error = fmt::format("--engines names '{}' twice in '{}'", engine, *text);
          return std::nullopt;
        }
        options.engines.push_back(engine);
        start = comma + 1;
      }
    } else if (flag == "--transactions") {
      auto number = take_int(1, INT64_MAX);
      if (!number) return std::nullopt;
      options.transactions = static_cast<uint64_t>(*number);
    } else if (flag == "--drivers") {
      auto number = take_int(0, 64);
      if (!number) return std::nullopt;
      options.drivers = static_cast<int>(*number);
    } else if (flag == "--connections") {
      auto number = take_int(0, 100000);
      if (!number) return std::nullopt;
      options.connections = static_cast<int>(*number);
    } else if (flag == "--delivery-districts") {
      auto number = take_int(1, 10);
      if (!number) return std::nullopt;
      options.delivery_districts = static_cast<int>(*number);
    } else if (flag == "--think") {
      if (!is_switch()) return std::nullopt;
      options.think = true;
    } else if (flag == "--no-load") {
      if (!is_switch()) return std::nullopt;
      options.no_load = true;
    } else if (flag == "--success-file") {
      auto text = take_value();
      if (!text) return std::nullopt;
      options.success_file = *text;
    } else if (flag == "--profile") {
      if (!is_switch()) return std::nullopt;
      options.profile = true;
    } else if (flag == "--no-check") {
      if (!is_switch()) return std::nullopt;
      options.no_check = true;
    } else if (flag == "--no-memory-check") {
      if (!is_switch()) return std::nullopt;
      options.memory_check = false;
    } else if (flag == "--memory-floor-mib") {
      auto number = take_int(0, int64_t{1} << 30);
      if (!number) return std::nullopt;
      options.memory_floor_mib = *number;
    } else if (flag == "--after-load") {
      if (!is_switch()) return std::nullopt;
      options.after_load = true;
    } else if (flag == "--quiet") {
      if (!is_switch()) return std::nullopt;
      options.quiet = true;
    } else if (flag == "--keep") {
      if (!is_switch()) return std::nullopt;
      options.keep = true;
    } else {
      *error = fmt::format("unknown option '{}'; see tpcc --help", flag);
      return std::nullopt;
    }
  }
  options.backend.terminals = options.terminals;
  options.backend.progress = !options.quiet;
  if (options.profile && (options.command != "run" || options.backend.engine != "solo")) {
    *error = "--profile is for `run --engine solo` (it samples solo's owner thread)";
    return std::nullopt;
  }
  if (options.command == "replay" && options.journal_path.empty()) {
    *error = "replay needs --journal FILE";
    return std::nullopt;
  }
  if (options.command == "crosscheck") {
    if (options.engines.empty()) options.engines = {"sqlite", "postgres"};
    if (options.engines.size() < 2) {
      *error = "crosscheck needs at least two --engines";
      return std::nullopt;
    }
    if (options.transactions == 0) options.transactions = 10000;
  }
  return options;
}

}  // namespace tpcc
