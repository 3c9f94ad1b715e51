// compare-table: prints the side-by-side table of one or more `tpcc run`
// JSON results (one per engine or configuration), with ratios against the
// first.
//
//   compare-table A.json [B.json ...]
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

bool load(const std::string& path, json* doc, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = "cannot open " + path;
    return false;
  }
  try {
    file >> *doc;
  } catch (const std::exception& failure) {
    *error = fmt::format("{} is not valid JSON: {}", path, failure.what());
    return false;
  }
  for (const char* key : {"engine", "storage", "warehouses", "terminals", "tps", "tpmC",
                          "per_type", "cpu_us_per_txn", "rss_bytes", "checks"}) {
    if (!doc->contains(key)) {
      *error = fmt::format("{} has no '{}': not a tpcc run result", path, key);
      return false;
    }
  }
  return true;
}

std::string checks_cell(const json& doc) {
  const json& checks = doc.at("checks");
  size_t held = 0, total = 0, audit_ok = 0, audit_judged = 0, not_judged = 0, not_applicable = 0;
  for (const json& condition : checks.at("conditions")) {
    ++total;
    held += condition["ok"].get<bool>() ? 1 : 0;
  }
  // An entry the run was too short for is neither within nor outside its
  // band, nor is one that does not apply (W=1's remote rates; results
  // written before session 37 have no "applicable" and count it as judged).
  for (const json& entry : checks.at("audit")) {
    if (!entry.value("applicable", true)) {
      ++not_applicable;
      continue;
    }
    if (!entry.value("judged", true)) {
      ++not_judged;
      continue;
    }
    ++audit_judged;
    audit_ok += entry["ok"].get<bool>() ? 1 : 0;
  }
  std::string audit = fmt::format("audit {}/{}", audit_ok, audit_judged);
  std::vector<std::string> apart;
  if (not_judged > 0) apart.push_back(fmt::format("{} not judged", not_judged));
  if (not_applicable > 0) apart.push_back(fmt::format("{} n/a", not_applicable));
  if (!apart.empty()) audit += fmt::format(" ({})", fmt::join(apart, ", "));
  std::string rows;
  if (checks.contains("cardinality")) {
    rows = checks["cardinality"]["ok"].get<bool>() ? " rows ok" : " rows FAIL";
  }
  if (!checks.value("ran", true)) return "-/" + audit + rows;
  return fmt::format("{}/{} {}{}", held, total, audit, rows);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    fmt::print(stderr, "usage: compare-table RESULT.json [RESULT.json ...]\n");
    return argc < 2 ? 2 : 0;
  }
  std::vector<json> docs;
  std::vector<std::string> paths;
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    json doc;
    std::string error;
    if (!load(argv[arg_idx], &doc, &error)) {
      fmt::print(stderr, "compare-table: error: {}\n", error);
      return 1;
    }
    docs.push_back(std::move(doc));
    paths.push_back(argv[arg_idx]);
  }
  // Every row first: a result with the keys but not their shape is refused
  // before any of the table is printed.
  std::vector<std::string> rows;
  for (size_t doc_idx = 0; doc_idx < docs.size(); ++doc_idx) {
    const json& doc = docs[doc_idx];
    try {
      double base_tps = docs.front()["tps"].get<double>();
      double tps = doc["tps"].get<double>();
      std::string p99;
      for (const char* type : {"new_order", "payment", "order_status", "delivery", "stock_level"}) {
        p99 += fmt::format("{}{:.1f}", p99.empty() ? "" : "/",
                           doc.at("per_type").at(type).at("p99_ms").get<double>());
      }
      std::string owner = doc.contains("owner_utilization")
                              ? fmt::format("{:.2f}", doc["owner_utilization"].get<double>())
                              : "-";
      rows.push_back(fmt::format(
          "| {} | {} | {} | {} | {:.0f} | {:.0f} | {:.2f} | {} | {:.1f} | {:.0f} | {} | {} |\n",
          doc["engine"].get<std::string>(), doc["storage"].get<std::string>(),
          doc["warehouses"].get<int>(), doc["terminals"].get<int>(), tps, doc["tpmC"].get<double>(),
          tps > 0 ? base_tps / tps : 0.0, p99, doc["cpu_us_per_txn"].get<double>(),
          doc["rss_bytes"].get<double>() / (1024.0 * 1024.0), owner, checks_cell(doc)));
    } catch (const json::exception& failure) {
      fmt::print(stderr, "compare-table: error: {} is not a tpcc run result: {}\n", paths[doc_idx],
                 failure.what());
      return 1;
    }
  }
  std::string first_engine = docs.front()["engine"].is_string()
                                 ? docs.front()["engine"].get<std::string>()
                                 : std::string("first");
  fmt::print("| engine | storage | W | T | tps | tpmC | {} ÷ this | p99 ms NO/P/OS/D/SL | cpu us/txn "
             "| RSS MiB | owner util | checks |\n",
             first_engine);
  fmt::print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (const std::string& row : rows) fmt::print("{}", row);
  return 0;
}
