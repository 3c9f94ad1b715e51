#include "writeback_pacer.h"

#include "clock.h"

namespace solo::internal {

Status WritebackPacer::wrote_up_to(uint64_t end) {
  if (chunk_bytes_ == 0 || end < started_ + chunk_bytes_) return Status::OK();
  // Start the new chunk first, so the device has it queued while we wait.
  Status status = file_->write_back(started_, end - started_, /*wait=*/false);
  if (!status.ok()) return status;
  if (started_ > waited_) {
    const uint64_t wait_start = now_ns();
    status = file_->write_back(waited_, started_ - waited_, /*wait=*/true);
    wait_ns_ += now_ns() - wait_start;
    if (!status.ok()) return status;
    waited_ = started_;
  }
  started_ = end;
  return Status::OK();
}

}  // namespace solo::internal
