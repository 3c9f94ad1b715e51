#include "tpcc/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tpcc {

int Histogram::bucket_of(int64_t micros) {
  if (micros < kLinear) return static_cast<int>(std::max<int64_t>(micros, 0));
  int exponent = std::bit_width(static_cast<uint64_t>(micros)) - 1;  // >= 6
  int sub = static_cast<int>((micros >> (exponent - kSubBits)) & ((1 << kSubBits) - 1));
  int bucket = kLinear + (exponent - 6) * (1 << kSubBits) + sub;
  return std::min(bucket, kBuckets - 1);
}

int64_t Histogram::bucket_upper(int bucket) {
  if (bucket < kLinear) return bucket;
  int exponent = (bucket - kLinear) / (1 << kSubBits) + 6;
  int sub = (bucket - kLinear) % (1 << kSubBits);
  int64_t base = int64_t{1} << exponent;
  int64_t step = int64_t{1} << (exponent - kSubBits);
  return base + (sub + 1) * step - 1;
}

void Histogram::record(int64_t micros) {
  ++buckets_[bucket_of(micros)];
  ++count_;
  max_ = std::max(max_, micros);
}

void Histogram::merge(const Histogram& other) {
  for (int bucket = 0; bucket < kBuckets; ++bucket) buckets_[bucket] += other.buckets_[bucket];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

int64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int bucket = 0; bucket < kBuckets; ++bucket) {
    seen += buckets_[bucket];
    if (seen >= rank) return std::min(bucket_upper(bucket), max_);
  }
  return max_;
}

}  // namespace tpcc
