// compare-table: prints the side-by-side table of one or more `tpcc run`
// JSON results (one per engine or configuration), with ratios against the
// first.
//
//   compare-table A.json [B.json ...]
#include <fmt/format.h>

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
  const json& checks = doc["checks"];
  size_t held = 0, total = 0, audit_ok = 0, audit_total = 0;
  for (const json& condition : checks["conditions"]) {
    ++total;
    held += condition["ok"].get<bool>() ? 1 : 0;
  }
  for (const json& entry : checks["audit"]) {
    ++audit_total;
    audit_ok += entry["ok"].get<bool>() ? 1 : 0;
  }
  if (!checks.value("ran", true)) return fmt::format("-/audit {}/{}", audit_ok, audit_total);
  return fmt::format("{}/{} audit {}/{}", held, total, audit_ok, audit_total);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    fmt::print(stderr, "usage: compare-table RESULT.json [RESULT.json ...]\n");
    return argc < 2 ? 2 : 0;
  }
  std::vector<json> docs;
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    json doc;
    std::string error;
    if (!load(argv[arg_idx], &doc, &error)) {
      fmt::print(stderr, "compare-table: error: {}\n", error);
      return 1;
    }
    docs.push_back(std::move(doc));
  }
  double base_tps = docs.front()["tps"].get<double>();
  std::string first_engine = docs.front()["engine"].get<std::string>();
  fmt::print("| engine | storage | W | T | tps | tpmC | {} ÷ this | p99 ms NO/P/OS/D/SL | cpu us/txn "
             "| RSS MiB | owner util | checks |\n",
             first_engine);
  fmt::print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (const json& doc : docs) {
    double tps = doc["tps"].get<double>();
    std::string p99;
    for (const char* type : {"new_order", "payment", "order_status", "delivery", "stock_level"}) {
      p99 += fmt::format("{}{:.1f}", p99.empty() ? "" : "/",
                         doc["per_type"][type]["p99_ms"].get<double>());
    }
    std::string owner = doc.contains("owner_utilization")
                            ? fmt::format("{:.2f}", doc["owner_utilization"].get<double>())
                            : "-";
    fmt::print("| {} | {} | {} | {} | {:.0f} | {:.0f} | {:.2f} | {} | {:.1f} | {:.0f} | {} | {} |\n",
               doc["engine"].get<std::string>(), doc["storage"].get<std::string>(),
               doc["warehouses"].get<int>(), doc["terminals"].get<int>(), tps,
               doc["tpmC"].get<double>(), tps > 0 ? base_tps / tps : 0.0, p99,
               doc["cpu_us_per_txn"].get<double>(),
               doc["rss_bytes"].get<double>() / (1024.0 * 1024.0), owner, checks_cell(doc));
  }
  return 0;
}
