// A latency histogram with log-linear buckets: exact below 64 µs, then 32
// buckets per power of two (about 3% relative error), up to ~2^40 µs.
// Not thread-safe: one per terminal, merged after the run.
#pragma once

#include <array>
#include <cstdint>

namespace tpcc {

class Histogram {
 public:
  void record(int64_t micros);
  void merge(const Histogram& other);

  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // The value at quantile q in [0, 1]: the upper bound of the bucket that
  // holds it (never above max()). 0 when empty.
  int64_t quantile(double q) const;

 private:
  static constexpr int kLinear = 64;
  static constexpr int kSubBits = 5;
  static constexpr int kBuckets = kLinear + (40 - 6) * (1 << kSubBits);
  static int bucket_of(int64_t micros);
  static int64_t bucket_upper(int bucket);

  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  int64_t max_ = 0;
};

}  // namespace tpcc
