// The first fatal durability error (invariant 7): set by the log writer or the
// checkpointer, read by the owner. Any thread.
#pragma once

#include <atomic>
#include <mutex>

#include "solo/status.h"

namespace solo::internal {

class FatalError {
 public:
  // Records `status` unless an error is recorded already (the first one wins).
  void set(const Status& status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_.load(std::memory_order_relaxed)) return;
    status_ = status;
    failed_.store(true, std::memory_order_seq_cst);
  }
  bool failed() const { return failed_.load(std::memory_order_seq_cst); }
  // The recorded error; OK if none.
  Status get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;
  Status status_;
};

}  // namespace solo::internal
