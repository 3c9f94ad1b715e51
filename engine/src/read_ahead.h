// A bounded queue between a producer thread that reads and checks a file
// ahead (checkpoint blocks, log rounds: pread + CRC32C) and the consumer that
// applies what it read, so that the two overlap (recovery.cc). One producer,
// one consumer.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

#include "solo/status.h"

namespace solo::internal {

template <typename Item>
class ReadAhead {
 public:
  // The producer waits once the queue holds max_bytes or more, until the
  // consumer has taken it down to half of that: a producer that waited for
  // each single item it may add was woken (a futex call on each side) for
  // every item the consumer took, ~6% of a recovery's samples.
  explicit ReadAhead(size_t max_bytes) : max_bytes_(max_bytes) {}
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Producer: queues `item` (`bytes` of it count against the bound). Returns
  // false, dropping it, once the consumer has stopped.
  bool push(Item item, size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (queued_bytes_ >= max_bytes_) {
      producer_waits_ = true;
      room_.wait(lock, [&] { return stopped_ || queued_bytes_ <= max_bytes_ / 2; });
      producer_waits_ = false;
    }
    if (stopped_) return false;
    bool was_empty = items_.empty();
    items_.emplace_back(std::move(item), bytes);
    queued_bytes_ += bytes;
    if (was_empty) ready_.notify_one();
    return true;
  }
  // Producer: nothing more comes; `status` is why (OK at the end).
  void finish(Status status) {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    status_ = std::move(status);
    ready_.notify_one();
  }

  // Consumer: waits for the next item; false once the producer finished and
  // everything was taken (then status() says why it finished).
  bool pop(Item* item) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty() || finished_; });
    if (items_.empty()) return false;
    *item = std::move(items_.front().first);
    queued_bytes_ -= items_.front().second;
    items_.pop_front();
    if (producer_waits_ && queued_bytes_ <= max_bytes_ / 2) room_.notify_one();
    return true;
  }
  // Consumer: the next item without taking it (nullptr at the end). Valid
  // until the next pop().
  const Item* peek() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty() || finished_; });
    return items_.empty() ? nullptr : &items_.front().first;
  }
  // Consumer: takes nothing more; the producer's push() returns false.
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    room_.notify_one();
  }
  // After pop() returned false: the producer's status.
  Status status() {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

 private:
  const size_t max_bytes_;
  std::mutex mutex_;
  std::condition_variable ready_;  // consumer waits: an item or the end
  std::condition_variable room_;   // producer waits: below the bound, or stopped
  std::deque<std::pair<Item, size_t>> items_;
  size_t queued_bytes_ = 0;
  bool producer_waits_ = false;  // in push(), for the queue to drain to half
  bool finished_ = false;
  bool stopped_ = false;
  Status status_;
};

}  // namespace solo::internal
