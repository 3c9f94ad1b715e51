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
  // False when the run was too short for the bound: the expected count of
  // the audited transactions (or order lines) is below what the widened band
  // needs to lie within its possible range. Then `ok` is true and `note`
  // says how many are needed.
  bool judged = true;
  // False for a rate the run cannot have (the remote rates at W=1): `ok` is
  // true, and summaries count it apart from the entries within bounds.
  bool applicable = true;
  std::string note;      // why the bounds differ from the spec's, if they do
};

// Audits the decisions in `mix` against the spec's bounds. Where the sample is
// too small for the spec's band to be meaningful (four standard deviations
// of the binomial sampling error exceed the band's half width), the band is
// widened to expected +- 4 sigma, within [0, 100] percent (average lines:
// [5, 15]), and `note` says so. Where even that band would reach past 0 or
// 100% (the expected count, from `mix.total` and the mix's shares, is under
// 4 sigma), the entry is not judged (`judged` false, `ok` true) and `note`
// names the number needed. With one warehouse the remote rates are not
// applicable (every supplier and customer is local): `applicable` false, `ok`
// true, with a note.
// The shares of Payment (>= 43%), Order-Status, Delivery and Stock-Level
// (>= 4% each; clause 5.2.3) over `mix.total` are checked against their
// minimums less what `mix.partial_decks` cut decks can hold back (deck.h):
// the largest shortfall a perfect deck can give; not judged where that
// allowance covers the whole minimum. An empty mix (no transaction
// measured) fails every entry.
std::vector<AuditResult> audit_mix(const MixCounts& mix, int warehouses);

}  // namespace tpcc
