#include "tpcc/audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tpcc {
namespace {

// How many standard deviations a small sample's band is widened to. At 3
// sigma one widened check in ~370 fails by chance, and a compare run makes
// hundreds (every SQLite and PostgreSQL run at T=64 has only ~350
// Order-Statuses): full-s16, -s18 and durable-s21 and -s24 each had a run
// flagged at 3.0-3.3 sigma with every consistency condition holding. At 4
// sigma one in ~16,000 does, and a generator that is off (say 50% by name
// for 60%) is still refused once the sample has about 400.
constexpr double kBandSigma = 4.0;

// A binomial rate audited against [spec_low, spec_high] percent, expected
// `expected` percent.
AuditResult rate(const std::string& name, uint64_t hits, uint64_t trials, double expected,
                 double spec_low, double spec_high) {
  AuditResult result;
  result.name = name;
  result.spec_low = spec_low;
  result.spec_high = spec_high;
  result.low = spec_low;
  result.high = spec_high;
  if (trials == 0) {
    result.ok = false;
    result.note = "no transactions of this kind";
    return result;
  }
  result.value = 100.0 * static_cast<double>(hits) / static_cast<double>(trials);
  double p = expected / 100;
  double sigma_pct = 100 * std::sqrt(p * (1 - p) / static_cast<double>(trials));
  double half_band = std::min(expected - spec_low, spec_high - expected);
  if (kBandSigma * sigma_pct > half_band) {
    // A rate lies in [0, 100] percent: a band beyond it widens nothing.
    result.low = std::clamp(std::min(spec_low, expected - kBandSigma * sigma_pct), 0.0, 100.0);
    result.high = std::clamp(std::max(spec_high, expected + kBandSigma * sigma_pct), 0.0, 100.0);
    result.note = fmt::format("sample of {} too small for the spec band; widened to +-{:g} sigma",
                              trials, kBandSigma);
  }
  result.ok = result.value >= result.low && result.value <= result.high;
  return result;
}

}  // namespace

std::vector<AuditResult> audit_mix(const MixCounts& mix, int warehouses) {
  std::vector<AuditResult> results;
  results.push_back(rate("new_order_rollbacks_pct", mix.new_order_rollbacks, mix.new_orders, 1.0,
                         0.9, 1.1));

  AuditResult lines;
  lines.name = "avg_order_lines";
  lines.spec_low = lines.low = 9.5;
  lines.spec_high = lines.high = 10.5;
  if (mix.new_orders > 0) {
    lines.value = static_cast<double>(mix.order_lines) / static_cast<double>(mix.new_orders);
    // Uniform 5..15 has sigma sqrt(10); widen like the rates for tiny
    // samples, within the possible [5, 15].
    double sigma = std::sqrt(10.0 / static_cast<double>(mix.new_orders));
    if (kBandSigma * sigma > 0.5) {
      lines.low = std::max(5.0, 10 - kBandSigma * sigma);
      lines.high = std::min(15.0, 10 + kBandSigma * sigma);
      lines.note = fmt::format("sample too small for the spec band; widened to +-{:g} sigma",
                               kBandSigma);
    }
    lines.ok = lines.value >= lines.low && lines.value <= lines.high;
  } else {
    lines.note = "no new-order transactions";
  }
  results.push_back(lines);

  if (warehouses > 1) {
    results.push_back(rate("remote_order_lines_pct", mix.remote_order_lines, mix.order_lines, 1.0,
                           0.95, 1.05));
    results.push_back(
        rate("remote_payments_pct", mix.remote_payments, mix.payments, 15.0, 14.0, 16.0));
  } else {
    for (const char* name : {"remote_order_lines_pct", "remote_payments_pct"}) {
      AuditResult not_applicable;
      not_applicable.name = name;
      not_applicable.ok = true;
      not_applicable.note = "W=1: every supplier and customer is in the home warehouse";
      results.push_back(not_applicable);
    }
  }
  results.push_back(rate("payments_by_name_pct", mix.payments_by_name, mix.payments, 60.0, 57.0,
                         63.0));
  results.push_back(rate("order_status_by_name_pct", mix.order_statuses_by_name,
                         mix.order_statuses, 60.0, 57.0, 63.0));
  return results;
}

}  // namespace tpcc
