// Waiting for and announcing rounds; see round_signal.h for why it is built
// this way and engine/README.md "Rounds" for the protocol.
#include "round_signal.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <thread>

namespace solo::internal {

namespace {

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

uint32_t* word(std::atomic<uint32_t>& atomic) { return reinterpret_cast<uint32_t*>(&atomic); }

// Sleeps while *futex == expected, until a wake whose bitset meets `bits`.
void futex_wait(std::atomic<uint32_t>& futex, uint32_t expected, uint32_t bits) {
  syscall(SYS_futex, word(futex), FUTEX_WAIT_BITSET_PRIVATE, expected, nullptr, nullptr, bits);
}

void futex_wake(std::atomic<uint32_t>& futex, int count, uint32_t bits) {
  syscall(SYS_futex, word(futex), FUTEX_WAKE_BITSET_PRIVATE, count, nullptr, nullptr, bits);
}

// Polls `ready` for up to `limit_ns` while `worth_it()` (both looked at
// every 8 polls).
template <typename Ready, typename WorthIt>
bool spin_until(Ready ready, uint64_t limit_ns, WorthIt worth_it) {
  uint64_t start = now_ns();
  while (true) {
    for (int poll = 0; poll < 8; ++poll) {
      if (ready()) return true;
      cpu_relax();
    }
    if (now_ns() - start > limit_ns || !worth_it()) return ready();
  }
}

}  // namespace

static_assert(std::atomic<uint32_t>::is_always_lock_free && sizeof(std::atomic<uint32_t>) == 4,
              "futex words are plain 32-bit integers");

RoundSignal::RoundSignal()
    : spare_cores_(static_cast<int64_t>(std::thread::hardware_concurrency()) - 1) {
  for (auto& count : sleepers_) count.store(0, std::memory_order_relaxed);
}

void RoundSignal::round_started(uint32_t round) {
  owner_cpu_.store(sched_getcpu(), std::memory_order_relaxed);  // rseq/vDSO: no system call
  round_running_.store(round, std::memory_order_seq_cst);
}

void RoundSignal::round_answered(uint32_t round) {
  // The done flags are set. A caller of this round that counted itself a
  // sleeper is either seen here or sees the new round_done_ in its futex
  // call (both sides are seq_cst): no wake-up is lost.
  round_done_.store(round, std::memory_order_seq_cst);
  last_round_woke_ = sleepers_[round % 32].load(std::memory_order_seq_cst) != 0;
  if (last_round_woke_) {
    futex_wake(round_done_, INT_MAX, bit_of(round));
    round_wakes_.fetch_add(1, std::memory_order_relaxed);
  }
}

void RoundSignal::owner_wait(const std::atomic<WriteRequest*>& queue_head) {
  auto has_work = [&queue_head] { return queue_head.load(std::memory_order_acquire) != nullptr; };
  if (!last_round_woke_ && spin_until(has_work, kOwnerSpinNs, [] { return true; })) return;
  while (true) {
    owner_asleep_.store(1, std::memory_order_seq_cst);
    // A push after this load sees owner_asleep_ == 1 and rings.
    if (queue_head.load(std::memory_order_seq_cst) != nullptr) break;
    owner_sleeps_.fetch_add(1, std::memory_order_relaxed);
    futex_wait(owner_asleep_, 1, FUTEX_BITSET_MATCH_ANY);
  }
  owner_asleep_.store(0, std::memory_order_relaxed);
}

void RoundSignal::ring_owner() {
  if (owner_asleep_.load(std::memory_order_seq_cst) != 0 &&
      owner_asleep_.exchange(0, std::memory_order_seq_cst) == 1) {
    futex_wake(owner_asleep_, 1, FUTEX_BITSET_MATCH_ANY);
  }
}

void RoundSignal::wait_answer(const std::atomic<uint32_t>& done, const std::atomic<uint32_t>& round,
                              int64_t writers) {
  auto answered = [&done] { return done.load(std::memory_order_acquire) != 0; };
  if (answered()) return;
  // Spinning helps only if it does not take the core the owner needs.
  auto owner_elsewhere = [this] {
    return owner_cpu_.load(std::memory_order_relaxed) != sched_getcpu();
  };
  if (writers <= spare_cores_ && owner_elsewhere() &&
      spin_until(answered, kCallerSpinNs, owner_elsewhere)) {
    return;
  }
  while (!answered()) {
    // Which round answers this request: its stamp once the owner took it;
    // before that, one of the two rounds after the running one (the owner
    // may be between taking a batch and announcing it).
    uint32_t running = round_running_.load(std::memory_order_seq_cst);
    uint32_t stamp = round.load(std::memory_order_seq_cst);
    uint32_t first = stamp != 0 ? stamp : running + 1;
    uint32_t last = stamp != 0 ? stamp : running + 2;
    uint32_t seen = round_done_.load(std::memory_order_seq_cst);
    uint32_t bits = 0;
    for (uint32_t candidate = first; candidate <= last; ++candidate) {
      bits |= bit_of(candidate);
      sleepers_[candidate % 32].fetch_add(1, std::memory_order_seq_cst);
    }
    if (done.load(std::memory_order_seq_cst) == 0) {
      caller_sleeps_.fetch_add(1, std::memory_order_relaxed);
      futex_wait(round_done_, seen, bits);
    }
    for (uint32_t candidate = first; candidate <= last; ++candidate) {
      sleepers_[candidate % 32].fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace solo::internal
