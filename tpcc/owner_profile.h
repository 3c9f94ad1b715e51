// `tpcc run --profile`: where solo's owner thread spends its time.
//
// perf (Debian's linux-perf) samples the owner thread ("solo-owner") by CPU
// clock with call stacks during the measured window. Each sample is put in
// the bucket of the first frame, from the leaf up, that names a bucket (so
// malloc called by the SQL executor counts as the executor, a B+tree lookup
// called by it as finding rows). Samples are taken only while the owner runs;
// its idle share comes from the engine's own busy/idle counters ("waiting").
#pragma once

#include <string>
#include <vector>

namespace tpcc {

struct ProfileBucket {
  std::string name;
  double share = 0;  // of the owner's wall time in the window, 0..1
  long samples = 0;
};

struct OwnerProfile {
  std::vector<ProfileBucket> buckets;  // fixed order; sums to 1
  long samples = 0;
  std::string perf_data;               // the perf.data file kept for `perf report`
  std::vector<std::pair<std::string, long>> top_symbols;  // leaf symbols, most samples first
};

class OwnerProfiler {
 public:
  // Throws BackendError when perf is missing or cannot sample this process.
  // `data_path` is where perf.data goes.
  explicit OwnerProfiler(std::string data_path);
  ~OwnerProfiler();
  OwnerProfiler(const OwnerProfiler&) = delete;
  OwnerProfiler& operator=(const OwnerProfiler&) = delete;

  // Starts sampling the thread named "solo-owner" of this process after
  // `delay_s` (the warm-up), for `seconds`. Throws BackendError if there is
  // no such thread or perf cannot be started.
  void start(double delay_s, double seconds);
  // Waits for perf to finish and classifies the samples. `owner_utilization`
  // (busy / (busy + idle)) gives the waiting share.
  OwnerProfile finish(double owner_utilization);

 private:
  std::string data_path_;
  int perf_pid_ = -1;
};

// Classifies one sample's stack (leaf first, demangled symbol names).
// Exposed for tests.
std::string classify_owner_stack(const std::vector<std::string>& frames);

// Prints the buckets as a small table.
void print_owner_profile(const OwnerProfile& profile);

}  // namespace tpcc
