// Random tables, rows and statements for the differential test, from a seed.
// Everything generated is meant to mean the same on solo and PostgreSQL 15;
// README.md lists what is left out on purpose and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace solo::sql::differential {

// One statement to run on both engines.
struct Step {
  std::string sql;
  // The statement has an ORDER BY that orders its rows totally (up to rows
  // that are equal in every column): compare in order. Otherwise as multisets.
  bool ordered = false;
};

// A splitmix64 stream: the same numbers from a seed on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, bound). Precondition: bound > 0.
  uint64_t Below(uint64_t bound) { return Next() % bound; }
  // Uniform in [low, high].
  int64_t Between(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(Below(static_cast<uint64_t>(high - low) + 1));
  }
  // True with probability percent / 100.
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

 private:
  uint64_t state_;
};

// The schema (CREATE TABLE/INDEX), then the rows (one INSERT each), each a
// step: an error in either is compared like any other statement's.
std::vector<Step> SetupSteps(Rng& rng);

// The next random statement. A data-changing statement comes with the
// full-table SELECT that follows it: the result holds one or two steps.
std::vector<Step> NextSteps(Rng& rng);

}  // namespace solo::sql::differential
