#include "tpcc/histogram.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

using tpcc::Histogram;

TEST_CASE("histogram is exact below 64 us") {
  Histogram histogram;
  for (int value = 1; value <= 50; ++value) histogram.record(value);
  CHECK(histogram.count() == 50);
  CHECK(histogram.quantile(0.5) == 25);
  CHECK(histogram.quantile(0.9) == 45);
  CHECK(histogram.quantile(1.0) == 50);
  CHECK(histogram.max() == 50);
}

TEST_CASE("histogram quantiles are within 4% of the exact ones") {
  std::mt19937_64 gen(7);
  std::lognormal_distribution<double> dist(7.0, 1.5);  // a long tail, like latencies
  std::vector<int64_t> values;
  Histogram histogram;
  for (int sample = 0; sample < 200000; ++sample) {
    auto value = static_cast<int64_t>(dist(gen));
    values.push_back(value);
    histogram.record(value);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    int64_t exact = values[static_cast<size_t>(q * values.size()) - 1];
    int64_t approx = histogram.quantile(q);
    INFO("q=" << q << " exact=" << exact << " approx=" << approx);
    CHECK(approx >= exact);
    CHECK(static_cast<double>(approx) <= static_cast<double>(exact) * 1.04 + 1);
  }
  CHECK(histogram.quantile(1.0) == values.back());
}

TEST_CASE("merged histograms equal one histogram of all values") {
  Histogram left, right, all;
  for (int64_t value = 0; value < 100000; value += 7) {
    (value % 2 ? left : right).record(value);
    all.record(value);
  }
  left.merge(right);
  CHECK(left.count() == all.count());
  CHECK(left.max() == all.max());
  for (double q : {0.1, 0.5, 0.9, 0.99}) CHECK(left.quantile(q) == all.quantile(q));
}

TEST_CASE("empty histogram reports zeros") {
  Histogram histogram;
  CHECK(histogram.quantile(0.99) == 0);
  CHECK(histogram.max() == 0);
}
