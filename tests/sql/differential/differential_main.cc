// The differential test: random tables and statements from a seed, run on
// solo (in process) and on PostgreSQL 15, whose outcomes must be the same.
// README.md describes the generator, the comparison and the exclusions;
// differential_test.sh starts the private PostgreSQL that the meson test uses.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "generator.h"
#include "outcome.h"
#include "pg_engine.h"
#include "solo_engine.h"

namespace solo::sql::differential {
namespace {

constexpr const char* kUsage = R"(usage: sql_differential --pg CONNINFO [options]

Runs random statements on solo and on PostgreSQL and compares their outcomes
(rows, or the SQLSTATE of an error). At the first difference it prints the
seed, the statement's number, the statement and both outcomes, and exits 1.

  --pg CONNINFO     libpq connection string of a PostgreSQL 15 server (the
                    test creates and uses a database `solo_differential`)
  --seed N          first seed (default 1)
  --seeds N         number of seeds, N, N+1, ... (default 20)
  --statements N    random statements per seed after the set-up (default 300)
  --keep-going      after a difference, go on with the next seed; exit 1 at the end
  --verbose         print every statement
  --help            this text

The meson test (sql_differential, suites sql and pg) runs seeds 1-60; a
longer run, with a private server started by scripts/pg:
  tests/sql/differential/differential_test.sh build/debug/tests/sql/sql_differential \
      scripts/pg --seed 1000 --seeds 500 --keep-going
)";

struct Options {
  std::string conninfo;
  uint64_t first_seed = 1;
  uint64_t seeds = 20;
  int statements = 300;
  bool keep_going = false;
  bool verbose = false;
};

[[noreturn]] void BadUsage(const std::string& why) {
  std::fprintf(stderr, "sql_differential: %s (see --help)\n", why.c_str());
  std::exit(2);
}

uint64_t ParseNumber(const char* flag, const char* text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*text == '\0' || *end != '\0' || *text == '-')
    BadUsage(std::string(flag) + " needs a number");
  return value;
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    const std::string_view arg = argv[arg_idx];
    auto value = [&]() -> const char* {
      if (arg_idx + 1 >= argc) BadUsage(std::string(arg) + " needs a value");
      return argv[++arg_idx];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--pg") {
      options.conninfo = value();
    } else if (arg == "--seed") {
      options.first_seed = ParseNumber("--seed", value());
    } else if (arg == "--seeds") {
      options.seeds = ParseNumber("--seeds", value());
    } else if (arg == "--statements") {
      options.statements = static_cast<int>(ParseNumber("--statements", value()));
    } else if (arg == "--keep-going") {
      options.keep_going = true;
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else {
      BadUsage("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (options.conninfo.empty()) BadUsage("--pg is required");
  return options;
}

struct Tally {
  uint64_t statements = 0;
  uint64_t errors = 0;  // statements that failed on both engines alike
  uint64_t rows = 0;    // rows compared
};

// Runs one seed. Returns false at the first difference, after printing it.
bool RunSeed(uint64_t seed, const Options& options, PgEngine& pg, Tally* tally) {
  SoloEngine solo;
  pg.Run("DROP TABLE IF EXISTS t1, t2, t3");
  Rng rng(seed);
  std::vector<Step> steps = SetupSteps(rng);
  const size_t setup_count = steps.size();
  int statement_number = 0;
  size_t step_idx = 0;
  while (true) {
    if (step_idx == steps.size()) {
      if (statement_number >= options.statements + static_cast<int>(setup_count)) break;
      for (Step& step : NextSteps(rng)) steps.push_back(std::move(step));
    }
    const Step& step = steps[step_idx++];
    ++statement_number;
    if (options.verbose)
      std::printf("%llu/%d: %s\n", static_cast<unsigned long long>(seed), statement_number,
                  step.sql.c_str());
    const Outcome solo_outcome = solo.Run(step.sql);
    const Outcome pg_outcome = pg.Run(step.sql);
    ++tally->statements;
    if (!solo_outcome.ok && !pg_outcome.ok) ++tally->errors;
    tally->rows += pg_outcome.rows.size();
    if (!SameOutcome(solo_outcome, pg_outcome, step.ordered)) {
      std::printf(
          "DIFFERENCE at seed %llu, statement %d (%s):\n  %s\n--- solo: %s--- postgres: %s\n",
          static_cast<unsigned long long>(seed), statement_number,
          step.ordered ? "rows compared in order" : "rows compared as multisets", step.sql.c_str(),
          Describe(solo_outcome).c_str(), Describe(pg_outcome).c_str());
      std::fflush(stdout);
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  uint64_t failed_seeds = 0;
  try {
    PgEngine pg(options.conninfo, "solo_differential");
    for (uint64_t seed = options.first_seed; seed < options.first_seed + options.seeds; ++seed) {
      if (RunSeed(seed, options, pg, &tally)) continue;
      ++failed_seeds;
      if (!options.keep_going) break;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sql_differential: %s\n", error.what());
    return 2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%llu seed(s) from %llu, %llu statements (%llu failing alike on both), %llu rows, "
      "%.1f s: %llu seed(s) differ\n",
      static_cast<unsigned long long>(options.seeds),
      static_cast<unsigned long long>(options.first_seed),
      static_cast<unsigned long long>(tally.statements),
      static_cast<unsigned long long>(tally.errors), static_cast<unsigned long long>(tally.rows),
      seconds, static_cast<unsigned long long>(failed_seeds));
  return failed_seeds == 0 ? 0 : 1;
}

}  // namespace
}  // namespace solo::sql::differential

int main(int argc, char** argv) {
  return solo::sql::differential::Main(argc, argv);
}
