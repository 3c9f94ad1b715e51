#include "tpcc/report.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tpcc/schema.h"
#include "tpcc/sysinfo.h"

namespace tpcc {
namespace {

double ms(int64_t micros) { return static_cast<double>(micros) / 1000.0; }

}  // namespace

void print_conditions(const std::vector<ConditionResult>& conditions) {
  for (const ConditionResult& condition : conditions) {
    fmt::print("  condition {:2}  {}  {}\n", condition.id, condition.ok ? "ok  " : "FAIL",
               condition.detail);
  }
}

bool all_ok(const RunReport& report) {
  if (!report.result.error.empty() || !report.result.ended_early.empty()) return false;
  for (const auto& condition : report.conditions) {
    if (!condition.ok) return false;
  }
  if (report.cardinality && !report.cardinality->ok) return false;
  for (const auto& entry : report.audit) {
    if (!entry.ok) return false;
  }
  return true;
}

void print_summary(const RunReport& report) {
  const RunResult& result = report.result;
  fmt::print("\nTPC-C  engine={}  storage={}  W={}  T={}{}  measured {:.1f} s{}\n", report.engine,
             report.storage, report.warehouses, report.terminals,
             result.drivers > 0   ? fmt::format(" (on {} driver thread{})", result.drivers,
                                                result.drivers == 1 ? "" : "s")
             : result.connections > 0 ? fmt::format(" (sharing {} connections)", result.connections)
                                      : "",
             result.measured_s, report.think ? "  (keying and think times on)" : "");
  if (result.delivery_districts < kDistrictsPerWarehouse) {
    fmt::print("delivery: {} district{} per database transaction\n", result.delivery_districts,
               result.delivery_districts == 1 ? "" : "s");
  }
  fmt::print("{:<13}{:>9}{:>10}{:>9}{:>9}{:>9}{:>9}{:>10}\n", "type", "count", "rollbacks",
             "retries", "p50 ms", "p90 ms", "p99 ms", "max ms");
  for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
    const TypeStats& stats = result.per_type[type_idx];
    fmt::print("{:<13}{:>9}{:>10}{:>9}{:>9.2f}{:>9.2f}{:>9.2f}{:>10.2f}\n",
               txn_type_name(static_cast<TxnType>(type_idx)), stats.count, stats.rollbacks,
               stats.retries, ms(stats.latency.quantile(0.5)), ms(stats.latency.quantile(0.9)),
               ms(stats.latency.quantile(0.99)), ms(stats.latency.max()));
  }
  // Driver mode: the same writes timed to the owner's answer, before the
  // driver thread took it.
  std::string answered;
  for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
    const Histogram& latency = result.per_type[type_idx].answer_latency;
    if (latency.count() == 0) continue;
    answered +=
        fmt::format("  {} p50 {:.2f} p99 {:.2f} ms", txn_type_name(static_cast<TxnType>(type_idx)),
                    ms(latency.quantile(0.5)), ms(latency.quantile(0.99)));
  }
  if (!answered.empty()) fmt::print("to the owner's answer:{}\n", answered);
  fmt::print("committed {}  tps {:.0f}  tpmC {:.0f}  cpu {:.1f} us/txn  rss {:.1f} MiB\n",
             result.committed, result.tps, result.tpmc, result.cpu_us_per_txn,
             static_cast<double>(result.rss_bytes) / (1024.0 * 1024.0));
  if (!result.cpu_by_thread.empty()) {
    fmt::print("cpu by thread (us/txn):");
    for (const auto& [name, value] : result.cpu_by_thread) fmt::print("  {} {:.1f}", name, value);
    fmt::print("\n");
  }
  for (const auto& [name, value] : result.engine_metrics) {
    fmt::print("{} {:.4g}  ", name, value);
  }
  if (!result.engine_metrics.empty()) fmt::print("\n");
  if (!result.error.empty()) fmt::print("RUN STOPPED BY AN ERROR: {}\n", result.error);
  if (!result.ended_early.empty() && result.error.empty()) {
    fmt::print("RUN ENDED EARLY: {}; the figures above are that shorter window's\n",
               result.ended_early);
  }
  if (report.checks_ran) {
    size_t held = 0;
    for (const auto& condition : report.conditions) held += condition.ok ? 1 : 0;
    fmt::print("consistency: {}/{} conditions hold\n", held, report.conditions.size());
    for (const auto& condition : report.conditions) {
      if (!condition.ok) fmt::print("  condition {} FAILED: {}\n", condition.id, condition.detail);
    }
    if (report.cardinality) print_cardinality(*report.cardinality);
  } else {
    fmt::print("consistency: not checked (--no-check)\n");
  }
  // Within bounds out of the judged entries; not judged (too short a run)
  // and not applicable (W=1's remote rates) counted apart.
  size_t within = 0, judged = 0, not_judged = 0, not_applicable = 0;
  for (const auto& entry : report.audit) {
    if (!entry.applicable) {
      ++not_applicable;
    } else if (!entry.judged) {
      ++not_judged;
    } else {
      ++judged;
      within += entry.ok ? 1 : 0;
    }
  }
  fmt::print("audit: {}/{} within bounds{}{}\n", within, judged,
             not_judged > 0
                 ? fmt::format(", {} not judged (the run is too short for them)", not_judged)
                 : "",
             not_applicable > 0 ? fmt::format(", {} not applicable", not_applicable) : "");
  for (const auto& entry : report.audit) {
    fmt::print("  {:<26}{:>8.3f}  [{:.3f}, {:.3f}]  {}{}\n", entry.name, entry.value, entry.low,
               entry.high,
               !entry.applicable ? "n/a"
               : !entry.judged   ? "not judged"
               : entry.ok        ? "ok"
                                 : "OUT OF BOUNDS",
               entry.note.empty() ? "" : "  (" + entry.note + ")");
  }
}

void write_json(const RunReport& report, const std::string& path) {
  using nlohmann::json;
  const RunResult& result = report.result;
  json doc;
  doc["engine"] = report.engine;
  doc["warehouses"] = report.warehouses;
  doc["terminals"] = report.terminals;
  doc["storage"] = report.storage;
  doc["duration_s"] = report.duration_s;
  doc["warmup_s"] = report.warmup_s;
  doc["measured_s"] = result.measured_s;
  doc["seed"] = report.seed;
  doc["think"] = report.think;
  doc["drivers"] = result.drivers;
  doc["connections"] = result.connections;
  doc["delivery_districts"] = result.delivery_districts;
  doc["load_s"] = report.load_s;
  doc["config"] = report.config;
  doc["committed"] = result.committed;
  doc["completed"] = result.completed;
  doc["tps"] = result.tps;
  doc["tpmC"] = result.tpmc;
  json per_type = json::object();
  for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
    const TypeStats& stats = result.per_type[type_idx];
    per_type[txn_type_name(static_cast<TxnType>(type_idx))] = {
        {"count", stats.count},
        {"rollbacks", stats.rollbacks},
        {"retries", stats.retries},
        {"p50_ms", ms(stats.latency.quantile(0.5))},
        {"p90_ms", ms(stats.latency.quantile(0.9))},
        {"p99_ms", ms(stats.latency.quantile(0.99))},
        {"max_ms", ms(stats.latency.max())},
    };
    if (stats.answer_latency.count() > 0) {
      json& entry = per_type[txn_type_name(static_cast<TxnType>(type_idx))];
      entry["answer_p50_ms"] = ms(stats.answer_latency.quantile(0.5));
      entry["answer_p99_ms"] = ms(stats.answer_latency.quantile(0.99));
    }
  }
  // The latency distribution per type as [quantile, ms] points, for CDF
  // plots (compare/): every 2% and the tail.
  json cdf = json::object();
  for (int type_idx = 0; type_idx < kTxnTypes; ++type_idx) {
    const Histogram& latency = result.per_type[type_idx].latency;
    json points = json::array();
    if (latency.count() > 0) {
      for (int step = 1; step <= 49; ++step) {
        double q = step / 50.0;
        points.push_back({q, ms(latency.quantile(q))});
      }
      for (double q : {0.99, 0.995, 0.999, 0.9999}) points.push_back({q, ms(latency.quantile(q))});
      points.push_back({1.0, ms(latency.max())});
    }
    cdf[txn_type_name(static_cast<TxnType>(type_idx))] = points;
  }
  doc["per_type"] = per_type;
  doc["latency_cdf"] = cdf;
  doc["cpu_us_per_txn"] = result.cpu_us_per_txn;
  json by_thread = json::object();
  for (const auto& [name, value] : result.cpu_by_thread) by_thread[name] = value;
  doc["cpu_us_per_txn_by_thread"] = by_thread;
  doc["rss_bytes"] = result.rss_bytes;
  doc["error"] = result.error;
  doc["ended_early"] = result.ended_early;
  for (const auto& [name, value] : result.engine_metrics) doc[name] = value;
  json conditions = json::array();
  for (const auto& condition : report.conditions) {
    conditions.push_back({{"id", condition.id}, {"ok", condition.ok}, {"detail", condition.detail}});
  }
  json audit = json::array();
  for (const auto& entry : report.audit) {
    audit.push_back({{"name", entry.name},
                     {"value", entry.value},
                     {"low", entry.low},
                     {"high", entry.high},
                     {"spec_low", entry.spec_low},
                     {"spec_high", entry.spec_high},
                     {"ok", entry.ok},
                     {"judged", entry.judged},
                     {"applicable", entry.applicable},
                     {"note", entry.note}});
  }
  doc["checks"] = {{"ran", report.checks_ran}, {"conditions", conditions}, {"audit", audit}};
  if (report.cardinality) {
    doc["checks"]["cardinality"] = {{"ok", report.cardinality->ok},
                                    {"detail", report.cardinality->detail}};
  }
  if (report.owner_profile) {
    json buckets = json::object();
    for (const ProfileBucket& bucket : report.owner_profile->buckets) buckets[bucket.name] = bucket.share;
    doc["owner_profile"] = {{"samples", report.owner_profile->samples}, {"buckets", buckets}};
  }
  doc["ok"] = all_ok(report);
  doc["git_rev"] = git_revision();
  doc["machine"] = machine_description();

  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  file << doc.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace tpcc
