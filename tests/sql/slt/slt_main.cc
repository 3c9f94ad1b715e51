// sql_slt_runner: runs sqllogictest files (see slt_file.h).
//
//   sql_slt_runner [--backend=sqlite|parse|solo] [--verbose] FILE...
//
// --backend=sqlite runs them on an in-memory SQLite database (records marked
// "skipif sqlite" are skipped); --backend=parse (the default until solo's
// executor exists) checks with solo's parser that every statement solo must
// accept parses and every expected syntax error is found. Every file starts
// from an empty database. Exit status 0 when nothing failed, 1 otherwise, 2 on
// a bad command line or a malformed file.

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "parse_backend.h"
#include "solo_backend.h"
#include "slt_runner.h"
#include "sqlite_backend.h"

namespace {

int Usage() {
  std::cerr << "usage: sql_slt_runner [--backend=sqlite|parse|solo] [--verbose] FILE...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace solo::sql::slt;
  std::string backend_name = "parse";
  bool verbose = false;
  std::vector<std::string> files;
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    std::string_view arg = argv[arg_idx];
    if (arg.substr(0, 10) == "--backend=") {
      backend_name = std::string(arg.substr(10));
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg.substr(0, 2) == "--") {
      return Usage();
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.empty()) return Usage();
  std::unique_ptr<Backend> backend;
  if (backend_name == "sqlite") {
    backend = std::make_unique<SqliteBackend>();
  } else if (backend_name == "solo") {
    backend = std::make_unique<SoloBackend>();
  } else if (backend_name == "parse") {
    backend = std::make_unique<ParseBackend>();
  } else {
    return Usage();
  }

  RunStats total;
  for (const std::string& path : files) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << path << ": cannot open\n";
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::vector<Record> records;
    std::string error;
    if (!ParseSltFile(text.str(), &records, &error)) {
      std::cerr << path << ": " << error << "\n";
      return 2;
    }
    backend->Reset();
    RunStats stats = RunRecords(path, records, *backend, std::cout, verbose);
    std::cout << fmt::format("{}: {} passed, {} failed, {} skipped, {} codes unchecked\n", path,
                             stats.passed, stats.failed, stats.skipped, stats.unchecked);
    total.passed += stats.passed;
    total.failed += stats.failed;
    total.skipped += stats.skipped;
    total.unchecked += stats.unchecked;
  }
  std::cout << fmt::format("{} backend: {} passed, {} failed, {} skipped, {} codes unchecked\n",
                           backend->name(), total.passed, total.failed, total.skipped,
                           total.unchecked);
  return total.failed == 0 ? 0 : 1;
}
