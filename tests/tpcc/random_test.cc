// Tests for tpcc/random.h: the generators obey TPC-C 5.11 clauses 2.1.6,
// 4.3.2.2, 4.3.2.3, 4.3.2.7 and 4.3.3.1, and their distributions match theory.
//
// Every test uses fixed seeds, so it is deterministic; the statistical bounds
// sit 6 or more standard deviations from the expected value, so a correct
// generator passes for any seed while a wrong formula fails by far.

#include "tpcc/random.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace tpcc {
namespace {

// Pearson's chi-square of `observed` against `expected` counts (same size).
double chi_square(const std::vector<int64_t>& observed, const std::vector<double>& expected) {
  REQUIRE(observed.size() == expected.size());
  double statistic = 0;
  for (size_t bucket = 0; bucket < observed.size(); ++bucket) {
    const double diff = static_cast<double>(observed[bucket]) - expected[bucket];
    statistic += diff * diff / expected[bucket];
  }
  return statistic;
}

// A loose upper bound for a chi-square statistic with `dof` degrees of freedom
// under the null hypothesis: mean + 8 standard deviations (mean dof, sd
// sqrt(2 dof)), plus a margin for the normal approximation with small dof.
double chi_square_bound(int64_t dof) {
  return static_cast<double>(dof) + 8.0 * std::sqrt(2.0 * static_cast<double>(dof)) + 10.0;
}

// The exact distribution of NURand(a, c, x, y) as counts out of (a+1)(y-x+1)
// equally likely (random(0, a), random(x, y)) pairs, indexed by value - x.
std::vector<int64_t> nurand_exact_counts(int64_t a, int64_t c, int64_t x, int64_t y) {
  const int64_t range = y - x + 1;
  std::vector<int64_t> counts(static_cast<size_t>(range), 0);
  for (int64_t from_a = 0; from_a <= a; ++from_a) {
    for (int64_t from_range = x; from_range <= y; ++from_range) {
      counts[static_cast<size_t>((from_a | from_range) + c) % range]++;
    }
  }
  return counts;
}

// Draws NURand(a, c, x, y) `draws` times and compares the histogram with the
// exact distribution. Returns the chi-square statistic; checks bounds and a
// per-value deviation bound along the way.
double check_nurand_matches_theory(uint64_t seed, int64_t a, int64_t c, int64_t x, int64_t y,
                                   int64_t draws) {
  const std::vector<int64_t> exact_counts = nurand_exact_counts(a, c, x, y);
  const double pair_count = static_cast<double>((a + 1) * (y - x + 1));

  Rng rng(seed);
  std::vector<int64_t> observed(exact_counts.size(), 0);
  int64_t out_of_range = 0;
  for (int64_t draw_idx = 0; draw_idx < draws; ++draw_idx) {
    const int64_t value = nurand(rng, a, c, x, y);
    if (value < x || value > y) {
      ++out_of_range;
      continue;
    }
    observed[static_cast<size_t>(value - x)]++;
  }
  REQUIRE(out_of_range == 0);

  std::vector<double> expected(exact_counts.size());
  int64_t worst_value = -1;
  double worst_sigmas = 0;
  for (size_t bucket = 0; bucket < exact_counts.size(); ++bucket) {
    expected[bucket] = static_cast<double>(draws) * static_cast<double>(exact_counts[bucket]) / pair_count;
    REQUIRE(expected[bucket] > 0);  // every value of [x, y] is reachable
    const double sigmas =
        std::fabs(static_cast<double>(observed[bucket]) - expected[bucket]) / std::sqrt(expected[bucket]);
    if (sigmas > worst_sigmas) {
      worst_sigmas = sigmas;
      worst_value = x + static_cast<int64_t>(bucket);
    }
  }
  INFO("worst value " << worst_value << " is " << worst_sigmas << " sigmas from theory");
  CHECK(worst_sigmas < 6.5);
  const double statistic = chi_square(observed, expected);
  INFO("chi-square vs exact NURand distribution: " << statistic << " with "
                                                    << exact_counts.size() - 1 << " dof");
  CHECK(statistic < chi_square_bound(static_cast<int64_t>(exact_counts.size()) - 1));
  return statistic;
}

// ---------------------------------------------------------------------------
// Rng

TEST_CASE("Rng is reproducible from its seed", "[tpcc][random]") {
  Rng first(12345);
  Rng second(12345);
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) REQUIRE(first.next() == second.next());

  // A copy continues the same stream from where it was copied.
  Rng copy = first;
  for (int draw_idx = 0; draw_idx < 100; ++draw_idx) {
    REQUIRE(first.uniform(-50, 50) == copy.uniform(-50, 50));
  }
}

TEST_CASE("Rng: different seeds give different streams", "[tpcc][random]") {
  std::set<uint64_t> first_outputs;
  std::set<std::vector<uint64_t>> streams;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    Rng rng(seed);
    std::vector<uint64_t> stream;
    for (int draw_idx = 0; draw_idx < 8; ++draw_idx) stream.push_back(rng.next());
    first_outputs.insert(stream.front());
    streams.insert(stream);
  }
  CHECK(first_outputs.size() == 1000);
  CHECK(streams.size() == 1000);

  // Neighbouring seeds do not give shifted copies of one stream.
  Rng seed_one(1);
  Rng seed_two(2);
  std::set<uint64_t> from_one;
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) from_one.insert(seed_one.next());
  int shared = 0;
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) shared += from_one.count(seed_two.next());
  CHECK(shared == 0);

  // Seed 0 must not leave the generator stuck at zero.
  Rng zero_seed(0);
  int zero_outputs = 0;
  for (int draw_idx = 0; draw_idx < 100; ++draw_idx) zero_outputs += zero_seed.next() == 0;
  CHECK(zero_outputs == 0);
}

TEST_CASE("Rng::uniform covers both bounds and is flat", "[tpcc][random]") {
  Rng rng(7);
  constexpr int64_t kDraws = 60000;
  std::vector<int64_t> face_counts(6, 0);
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    const int64_t face = rng.uniform(1, 6);
    REQUIRE(face >= 1);
    REQUIRE(face <= 6);
    face_counts[static_cast<size_t>(face - 1)]++;
  }
  CHECK(face_counts.front() > 0);  // low bound occurs
  CHECK(face_counts.back() > 0);   // high bound occurs
  const std::vector<double> expected(6, kDraws / 6.0);
  const double statistic = chi_square(face_counts, expected);
  INFO("chi-square of uniform(1, 6): " << statistic);
  CHECK(statistic < chi_square_bound(5));

  // A wider range that is not a power of two: chi-square over 1000 values.
  constexpr int64_t kWideDraws = 500000;
  std::vector<int64_t> value_counts(1000, 0);
  for (int64_t draw_idx = 0; draw_idx < kWideDraws; ++draw_idx) {
    const int64_t value = rng.uniform(0, 999);
    REQUIRE(value >= 0);
    REQUIRE(value <= 999);
    value_counts[static_cast<size_t>(value)]++;
  }
  const double wide_statistic = chi_square(value_counts, std::vector<double>(1000, kWideDraws / 1000.0));
  INFO("chi-square of uniform(0, 999): " << wide_statistic);
  CHECK(wide_statistic < chi_square_bound(999));
}

TEST_CASE("Rng::uniform edge ranges", "[tpcc][random]") {
  Rng rng(99);
  for (int draw_idx = 0; draw_idx < 100; ++draw_idx) REQUIRE(rng.uniform(-5, -5) == -5);

  bool saw_low = false;
  bool saw_high = false;
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) {
    const int64_t value = rng.uniform(-3, 3);
    REQUIRE(value >= -3);
    REQUIRE(value <= 3);
    saw_low |= value == -3;
    saw_high |= value == 3;
  }
  CHECK(saw_low);
  CHECK(saw_high);

  // The full 64-bit range (its width overflows int64_t) takes both signs.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int negatives = 0;
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) negatives += rng.uniform(kMin, kMax) < 0;
  CHECK(negatives > 400);
  CHECK(negatives < 600);

  // Half of a range that spans more than int64_t's maximum.
  int above_zero = 0;
  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) above_zero += rng.uniform(kMin + 1, kMax) > 0;
  CHECK(above_zero > 400);
  CHECK(above_zero < 600);

  for (int draw_idx = 0; draw_idx < 1000; ++draw_idx) REQUIRE(rng.uniform(0, kMax) >= 0);
}

TEST_CASE("Rng::unit lies in [0, 1) with mean 1/2", "[tpcc][random]") {
  Rng rng(2024);
  constexpr int kDraws = 100000;
  double sum = 0;
  int below_tenth = 0;
  for (int draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    const double value = rng.unit();
    REQUIRE(value >= 0.0);
    REQUIRE(value < 1.0);
    sum += value;
    below_tenth += value < 0.1;
  }
  // sd of the mean is 0.289 / sqrt(1e5) = 0.0009; of the tenth count, 95.
  CHECK(sum / kDraws == Approx(0.5).margin(0.006));
  CHECK(below_tenth > 9400);
  CHECK(below_tenth < 10600);
}

// ---------------------------------------------------------------------------
// NURand and its constants (clause 2.1.6)

TEST_CASE("NURand(255, C, 0, 999) matches its exact distribution", "[tpcc][random]") {
  constexpr int64_t kDraws = 1000000;
  const double with_c = check_nurand_matches_theory(31, 255, 173, 0, 999, kDraws);
  const double without_c = check_nurand_matches_theory(32, 255, 0, 0, 999, kDraws);
  INFO("chi-square C=173: " << with_c << ", C=0: " << without_c);
  SUCCEED();
}

TEST_CASE("NURand(1023, C, 1, 3000) matches its exact distribution", "[tpcc][random]") {
  check_nurand_matches_theory(33, 1023, 259, 1, 3000, 1000000);
}

TEST_CASE("NURand(255, C, 0, 999) is far from uniform", "[tpcc][random]") {
  // Theory first: the exact distribution's largest and smallest probability.
  const std::vector<int64_t> exact_counts = nurand_exact_counts(255, 173, 0, 999);
  const auto [min_it, max_it] = std::minmax_element(exact_counts.begin(), exact_counts.end());
  INFO("exact pair counts per value: min " << *min_it << ", max " << *max_it << " (uniform 256)");
  CHECK(*max_it >= 4 * *min_it);

  Rng rng(41);
  constexpr int64_t kDraws = 1000000;
  std::vector<int64_t> observed(1000, 0);
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    observed[static_cast<size_t>(nurand(rng, 255, 173, 0, 999))]++;
  }
  const double against_uniform = chi_square(observed, std::vector<double>(1000, kDraws / 1000.0));
  INFO("chi-square of NURand against uniform: " << against_uniform);
  // A uniform generator would give about 999 +- 45.
  CHECK(against_uniform > 50.0 * chi_square_bound(999));

  // The skew that matters for C_LAST: the busiest 10% of names take far more
  // than 10% of the draws.
  std::vector<int64_t> sorted = observed;
  std::sort(sorted.begin(), sorted.end(), std::greater<int64_t>());
  int64_t busiest_tenth = 0;
  for (size_t value_idx = 0; value_idx < 100; ++value_idx) busiest_tenth += sorted[value_idx];
  INFO("busiest 100 of 1000 values take " << busiest_tenth << " of " << kDraws);
  CHECK(busiest_tenth > kDraws / 5);
}

TEST_CASE("NURand stays inside [x, y] for the three TPC-C uses", "[tpcc][random]") {
  Rng rng(5);
  struct Use {
    int64_t a, c, x, y;
  };
  // C at both ends of [0, A] for each A used by TPC-C.
  const Use uses[] = {{255, 0, 0, 999},     {255, 255, 0, 999},     {1023, 0, 1, 3000},
                      {1023, 1023, 1, 3000}, {8191, 0, 1, 100000}, {8191, 8191, 1, 100000}};
  for (const Use& use : uses) {
    int64_t smallest = use.y;
    int64_t largest = use.x;
    for (int draw_idx = 0; draw_idx < 200000; ++draw_idx) {
      const int64_t value = nurand(rng, use.a, use.c, use.x, use.y);
      REQUIRE(value >= use.x);
      REQUIRE(value <= use.y);
      smallest = std::min(smallest, value);
      largest = std::max(largest, value);
    }
    INFO("A=" << use.a << " C=" << use.c << " smallest " << smallest << " largest " << largest);
    // The draws reach close to both ends of the range.
    CHECK(smallest - use.x < (use.y - use.x) / 100 + 1);
    CHECK(use.y - largest < (use.y - use.x) / 100 + 1);
  }
}

TEST_CASE("c_last_delta_ok implements the delta rule", "[tpcc][random]") {
  CHECK(c_last_delta_ok(100, 165));
  CHECK(c_last_delta_ok(165, 100));
  CHECK(c_last_delta_ok(0, 119));
  CHECK(c_last_delta_ok(255, 136));
  CHECK_FALSE(c_last_delta_ok(100, 164));  // delta 64
  CHECK_FALSE(c_last_delta_ok(0, 120));     // delta 120
  CHECK_FALSE(c_last_delta_ok(10, 106));    // delta 96
  CHECK_FALSE(c_last_delta_ok(106, 10));    // delta 96, other direction
  CHECK_FALSE(c_last_delta_ok(0, 112));     // delta 112
  CHECK_FALSE(c_last_delta_ok(200, 88));    // delta 112, other direction
  CHECK_FALSE(c_last_delta_ok(50, 50));     // delta 0

  int allowed = 0;
  for (int64_t delta = 0; delta <= 255; ++delta) allowed += c_last_delta_ok(0, delta);
  CHECK(allowed == 119 - 65 + 1 - 2);
}

TEST_CASE("make_load_c draws each constant uniformly in [0, A]", "[tpcc][random]") {
  Rng rng(8);
  std::vector<int64_t> c_last_counts(256, 0);
  bool c_id_low = false, c_id_high = false;
  std::set<int64_t> ol_i_id_values;
  for (int draw_idx = 0; draw_idx < 25600; ++draw_idx) {
    const NURandC load = make_load_c(rng);
    REQUIRE(load.c_last >= 0);
    REQUIRE(load.c_last <= 255);
    REQUIRE(load.c_id >= 0);
    REQUIRE(load.c_id <= 1023);
    REQUIRE(load.ol_i_id >= 0);
    REQUIRE(load.ol_i_id <= 8191);
    c_last_counts[static_cast<size_t>(load.c_last)]++;
    c_id_low |= load.c_id == 0;
    c_id_high |= load.c_id == 1023;
    ol_i_id_values.insert(load.ol_i_id);
  }
  const double statistic = chi_square(c_last_counts, std::vector<double>(256, 100.0));
  INFO("chi-square of load C_LAST: " << statistic);
  CHECK(statistic < chi_square_bound(255));
  CHECK(c_id_low);
  CHECK(c_id_high);
  // 25,600 draws from 8192 values leave about 8192 * e^-3.1 = 370 unseen.
  CHECK(ol_i_id_values.size() > 7500);
}

TEST_CASE("make_run_c obeys the C_LAST delta rule and uses every allowed delta",
          "[tpcc][random]") {
  std::set<int64_t> deltas_seen;
  std::set<int64_t> run_c_last_seen;
  // Many seeds, one load and run pair per seed, as a real harness does.
  for (uint64_t seed = 0; seed < 5000; ++seed) {
    Rng rng(seed);
    const NURandC load = make_load_c(rng);
    const NURandC run = make_run_c(rng, load);
    INFO("seed " << seed << " load C_LAST " << load.c_last << " run C_LAST " << run.c_last);
    REQUIRE(c_last_delta_ok(load.c_last, run.c_last));
    REQUIRE(run.c_last >= 0);
    REQUIRE(run.c_last <= 255);
    REQUIRE(run.c_id >= 0);
    REQUIRE(run.c_id <= 1023);
    REQUIRE(run.ol_i_id >= 0);
    REQUIRE(run.ol_i_id <= 8191);
    const int64_t delta = std::abs(run.c_last - load.c_last);
    REQUIRE(delta >= 65);
    REQUIRE(delta <= 119);
    REQUIRE(delta != 96);
    REQUIRE(delta != 112);
    deltas_seen.insert(delta);
    run_c_last_seen.insert(run.c_last);
  }
  std::set<int64_t> deltas_allowed;
  for (int64_t delta = 65; delta <= 119; ++delta) {
    if (delta != 96 && delta != 112) deltas_allowed.insert(delta);
  }
  CHECK(deltas_allowed.size() == 53);
  CHECK(deltas_seen == deltas_allowed);
  // Every run value in [0, 255] is reachable from some load value.
  CHECK(run_c_last_seen.size() == 256);

  // Every possible load value, including the edges where only one direction fits.
  Rng rng(77);
  for (int64_t load_c_last = 0; load_c_last <= 255; ++load_c_last) {
    NURandC load;
    load.c_last = load_c_last;
    std::set<int64_t> deltas_for_load;
    for (int draw_idx = 0; draw_idx < 200; ++draw_idx) {
      const NURandC run = make_run_c(rng, load);
      INFO("load C_LAST " << load_c_last << " run C_LAST " << run.c_last);
      REQUIRE(run.c_last >= 0);
      REQUIRE(run.c_last <= 255);
      REQUIRE(c_last_delta_ok(load_c_last, run.c_last));
      deltas_for_load.insert(std::abs(run.c_last - load_c_last));
    }
    // From any load value all 53 deltas fit in at least one direction, and the
    // choice is random, not a fixed offset.
    CHECK(deltas_for_load.size() > 30);
  }
}

TEST_CASE("make_run_c draws C_ID and OL_I_ID independently of the load", "[tpcc][random]") {
  Rng rng(3);
  const NURandC load = make_load_c(rng);
  std::set<int64_t> c_id_values;
  std::set<int64_t> ol_i_id_values;
  for (int draw_idx = 0; draw_idx < 2000; ++draw_idx) {
    const NURandC run = make_run_c(rng, load);
    c_id_values.insert(run.c_id);
    ol_i_id_values.insert(run.ol_i_id);
  }
  // 2000 draws over 1024 values: about 1024 * (1 - e^-1.95) = 882 distinct.
  CHECK(c_id_values.size() > 800);
  CHECK(ol_i_id_values.size() > 1700);
}

// ---------------------------------------------------------------------------
// Last names (clause 4.3.2.3)

TEST_CASE("last_name spells the syllables of the number", "[tpcc][random]") {
  CHECK(last_name(0) == "BARBARBAR");
  CHECK(last_name(371) == "PRICALLYOUGHT");
  CHECK(last_name(999) == "EINGEINGEING");
  CHECK(last_name(1) == "BARBAROUGHT");
  CHECK(last_name(10) == "BAROUGHTBAR");
  CHECK(last_name(100) == "OUGHTBARBAR");
  CHECK(last_name(258) == "ABLEESEATION");
  CHECK(last_name(645) == "ANTIPRESESE");

  std::set<std::string> names;
  size_t longest = 0;
  for (int64_t num = 0; num <= 999; ++num) {
    const std::string name = last_name(num);
    names.insert(name);
    longest = std::max(longest, name.size());
    for (char ch : name) REQUIRE(std::isupper(static_cast<unsigned char>(ch)));
  }
  CHECK(names.size() == 1000);
  CHECK(longest <= 16);  // C_LAST is varchar(16)
}

// ---------------------------------------------------------------------------
// Strings (clauses 4.3.2.2, 4.3.2.7, 4.3.3.1)

TEST_CASE("a_string: uniform lengths in range, alphanumeric alphabet", "[tpcc][random]") {
  Rng rng(11);
  constexpr int kMinLen = 8;
  constexpr int kMaxLen = 16;
  constexpr int64_t kDraws = 90000;
  std::vector<int64_t> length_counts(kMaxLen - kMinLen + 1, 0);
  std::vector<int64_t> char_counts(256, 0);
  int64_t total_chars = 0;
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    const std::string text = a_string(rng, kMinLen, kMaxLen);
    REQUIRE(text.size() >= kMinLen);
    REQUIRE(text.size() <= kMaxLen);
    length_counts[text.size() - kMinLen]++;
    for (char ch : text) {
      REQUIRE(std::isalnum(static_cast<unsigned char>(ch)));
      char_counts[static_cast<unsigned char>(ch)]++;
    }
    total_chars += static_cast<int64_t>(text.size());
  }
  const double length_statistic =
      chi_square(length_counts, std::vector<double>(length_counts.size(), kDraws / 9.0));
  INFO("chi-square of a_string lengths: " << length_statistic);
  CHECK(length_statistic < chi_square_bound(8));
  // Mean length (x + y) / 2 = 12; sd of the mean is 2.58 / 300 = 0.009.
  CHECK(static_cast<double>(total_chars) / kDraws == Approx(12.0).margin(0.06));

  // All 62 alphanumerics occur, evenly.
  std::vector<int64_t> alnum_counts;
  for (int ch = 0; ch < 256; ++ch) {
    if (std::isalnum(ch)) alnum_counts.push_back(char_counts[static_cast<size_t>(ch)]);
  }
  REQUIRE(alnum_counts.size() == 62);
  const double char_statistic = chi_square(
      alnum_counts, std::vector<double>(62, static_cast<double>(total_chars) / 62.0));
  INFO("chi-square of a_string characters: " << char_statistic);
  CHECK(char_statistic < chi_square_bound(61));
}

TEST_CASE("a_string edge lengths", "[tpcc][random]") {
  Rng rng(12);
  CHECK(a_string(rng, 0, 0).empty());
  CHECK(a_string(rng, 24, 24).size() == 24);
  // C_DATA's range: both ends occur.
  bool saw_min = false, saw_max = false;
  for (int draw_idx = 0; draw_idx < 5000; ++draw_idx) {
    const std::string text = a_string(rng, 300, 500);
    REQUIRE(text.size() >= 300);
    REQUIRE(text.size() <= 500);
    saw_min |= text.size() == 300;
    saw_max |= text.size() == 500;
  }
  CHECK(saw_min);
  CHECK(saw_max);
}

TEST_CASE("n_string: digits only, uniform lengths and digits", "[tpcc][random]") {
  Rng rng(13);
  constexpr int64_t kDraws = 50000;
  std::vector<int64_t> length_counts(5, 0);  // lengths 1..5
  std::vector<int64_t> digit_counts(10, 0);
  int64_t total_digits = 0;
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    const std::string digits = n_string(rng, 1, 5);
    REQUIRE(digits.size() >= 1);
    REQUIRE(digits.size() <= 5);
    length_counts[digits.size() - 1]++;
    for (char ch : digits) {
      REQUIRE(ch >= '0');
      REQUIRE(ch <= '9');
      digit_counts[static_cast<size_t>(ch - '0')]++;
    }
    total_digits += static_cast<int64_t>(digits.size());
  }
  const double length_statistic = chi_square(length_counts, std::vector<double>(5, kDraws / 5.0));
  const double digit_statistic =
      chi_square(digit_counts, std::vector<double>(10, static_cast<double>(total_digits) / 10.0));
  INFO("chi-square lengths " << length_statistic << ", digits " << digit_statistic);
  CHECK(length_statistic < chi_square_bound(4));
  CHECK(digit_statistic < chi_square_bound(9));
  CHECK(n_string(rng, 16, 16).size() == 16);  // C_PHONE
}

TEST_CASE("zip_code is four random digits then 11111", "[tpcc][random]") {
  Rng rng(14);
  std::set<std::string> prefixes;
  std::vector<std::set<char>> digits_at(4);
  for (int draw_idx = 0; draw_idx < 10000; ++draw_idx) {
    const std::string zip = zip_code(rng);
    REQUIRE(zip.size() == 9);
    REQUIRE(zip.substr(4) == "11111");
    for (size_t pos = 0; pos < 4; ++pos) {
      REQUIRE(std::isdigit(static_cast<unsigned char>(zip[pos])));
      digits_at[pos].insert(zip[pos]);
    }
    prefixes.insert(zip.substr(0, 4));
  }
  for (const std::set<char>& digits : digits_at) CHECK(digits.size() == 10);
  // 10,000 draws over 10,000 prefixes: about 6,321 distinct (sd about 30).
  CHECK(prefixes.size() > 6100);
  CHECK(prefixes.size() < 6550);
}

TEST_CASE("data_with_original: 10% hold ORIGINAL, lengths in [26, 50]", "[tpcc][random]") {
  Rng rng(15);
  constexpr int64_t kDraws = 100000;
  int64_t with_original = 0;
  std::vector<int64_t> length_counts(25, 0);
  bool marker_at_start = false;
  bool marker_at_end = false;
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    const std::string data = data_with_original(rng);
    REQUIRE(data.size() >= 26);
    REQUIRE(data.size() <= 50);
    length_counts[data.size() - 26]++;
    for (char ch : data) REQUIRE(std::isalnum(static_cast<unsigned char>(ch)));
    const size_t position = data.find("ORIGINAL");
    if (position == std::string::npos) continue;
    ++with_original;
    REQUIRE(data.find("ORIGINAL", position + 1) == std::string::npos);  // only once
    marker_at_start |= position == 0;
    marker_at_end |= position + 8 == data.size();
  }
  const double fraction = static_cast<double>(with_original) / kDraws;
  INFO("fraction with ORIGINAL: " << fraction);
  // sd of the fraction is 0.00095, so 9-11% is a 10-sigma band.
  CHECK(fraction >= 0.09);
  CHECK(fraction <= 0.11);
  CHECK(marker_at_start);
  CHECK(marker_at_end);
  const double length_statistic = chi_square(length_counts, std::vector<double>(25, kDraws / 25.0));
  INFO("chi-square of data lengths: " << length_statistic);
  CHECK(length_statistic < chi_square_bound(24));
}

// ---------------------------------------------------------------------------
// Permutation

TEST_CASE("permutation returns a shuffled permutation of 1..n", "[tpcc][random]") {
  Rng rng(16);
  constexpr int32_t kCount = 3000;
  std::vector<int32_t> customer_ids(kCount, 0);
  permutation(rng, customer_ids.data(), kCount);
  std::vector<int32_t> sorted = customer_ids;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t slot = 0; slot < kCount; ++slot) REQUIRE(sorted[slot] == slot + 1);
  int32_t fixed_points = 0;
  for (int32_t slot = 0; slot < kCount; ++slot) fixed_points += customer_ids[slot] == slot + 1;
  CHECK(fixed_points < 10);  // a uniform shuffle has about 1 fixed point

  std::vector<int32_t> second(kCount, 0);
  permutation(rng, second.data(), kCount);
  CHECK(second != customer_ids);

  int32_t untouched = -7;
  permutation(rng, &untouched, 0);
  CHECK(untouched == -7);
  int32_t single = 0;
  permutation(rng, &single, 1);
  CHECK(single == 1);
}

TEST_CASE("permutation is uniform over all orders", "[tpcc][random]") {
  Rng rng(17);
  constexpr int64_t kDraws = 240000;
  std::vector<std::vector<int32_t>> orders;
  std::vector<int32_t> order = {1, 2, 3, 4};
  do {
    orders.push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
  REQUIRE(orders.size() == 24);

  std::vector<int64_t> order_counts(24, 0);
  std::vector<int32_t> shuffled(4, 0);
  for (int64_t draw_idx = 0; draw_idx < kDraws; ++draw_idx) {
    permutation(rng, shuffled.data(), 4);
    const auto found = std::find(orders.begin(), orders.end(), shuffled);
    REQUIRE(found != orders.end());
    order_counts[static_cast<size_t>(found - orders.begin())]++;
  }
  const double statistic = chi_square(order_counts, std::vector<double>(24, kDraws / 24.0));
  INFO("chi-square over the 24 orders of 4: " << statistic);
  CHECK(statistic < chi_square_bound(23));
}

}  // namespace
}  // namespace tpcc
