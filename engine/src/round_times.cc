// RoundTimes: the owner's round-duration histogram (solo/database.h).
//
// Bucket b < 8 holds exactly b ns; above, a power of two [2^e, 2^(e+1))
// (e >= 3) is split into 8 equal buckets: b = (e - 2) * 8 + the 3 bits
// after the leading one. So a bucket is at most 1/8 of its low bound wide.
#include <bit>

#include "solo/database.h"

namespace solo {

size_t RoundTimes::bucket_of(uint64_t ns) {
  if (ns < 8) return static_cast<size_t>(ns);
  const int exponent = 63 - std::countl_zero(ns);
  return static_cast<size_t>((exponent - 2) * 8) + static_cast<size_t>((ns >> (exponent - 3)) & 7);
}

uint64_t RoundTimes::bucket_low(size_t bucket) {
  if (bucket < 8) return bucket;
  const int exponent = static_cast<int>(bucket / 8) + 2;
  return (uint64_t{8} + bucket % 8) << (exponent - 3);
}

uint64_t RoundTimes::count() const {
  uint64_t total = 0;
  for (uint64_t bucket_count : counts) total += bucket_count;
  return total;
}

uint64_t RoundTimes::quantile_ns(double q) const {
  const uint64_t total = count();
  if (total == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total));
  if (static_cast<double>(rank) < q * static_cast<double>(total)) rank++;  // ceil
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (size_t bucket = 0; bucket < kBuckets; ++bucket) {
    seen += counts[bucket];
    if (seen >= rank) {
      const uint64_t low = bucket_low(bucket);
      const uint64_t high = bucket + 1 < kBuckets ? bucket_low(bucket + 1) : low;
      return low + (high - low) / 2;
    }
  }
  return bucket_low(kBuckets - 1);
}

RoundTimes RoundTimes::since(const RoundTimes& earlier) const {
  RoundTimes delta;
  for (size_t bucket = 0; bucket < kBuckets; ++bucket) {
    delta.counts[bucket] = counts[bucket] - earlier.counts[bucket];
  }
  return delta;
}

}  // namespace solo
