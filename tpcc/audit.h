// The input-mix audit (TPC-C clause 9.2 style; bounds from TPCC-NOTES.md).
#pragma once

#include <string>
#include <vector>

#include "tpcc/driver.h"

namespace tpcc {

struct AuditResult {
  std::string name;
  double value = 0;      // measured, in percent (average lines: a count)
  double low = 0;        // bounds applied
  double high = 0;
  double spec_low = 0;   // the spec's bounds
  double spec_high = 0;
  bool ok = false;
  std::string note;      // why the bounds differ from the spec's, if they do
};

// Audits the decisions in `mix` against the spec's bounds. Where the sample is
// too small for the spec's band to be meaningful (three standard deviations
// of the binomial sampling error exceed the band's half width), the band is
// widened to mean +- 3 sigma and `note` says so. With one warehouse the remote
// rates are not applicable (every supplier and customer is local) and pass
// with a note.
std::vector<AuditResult> audit_mix(const MixCounts& mix, int warehouses);

}  // namespace tpcc
