// Waiting for and announcing rounds; see round_signal.h for why it is built
// this way and engine/README.md "Rounds" for the protocol.
#include "round_signal.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "clock.h"

namespace solo::internal {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

uint32_t* word(std::atomic<uint32_t>& atomic) {
  return reinterpret_cast<uint32_t*>(&atomic);
}

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

RoundSignal::RoundSignal(uint32_t first_round)
    : spare_cores_(static_cast<int64_t>(std::thread::hardware_concurrency()) - 1) {
  for (auto& expected : expected_answer_ns_) expected.store(0, std::memory_order_relaxed);
  round_done_.store(first_round, std::memory_order_relaxed);
  round_running_.store(first_round, std::memory_order_relaxed);
  handed_on_.store(first_round, std::memory_order_relaxed);
  for (auto& count : sleepers_) count.store(0, std::memory_order_relaxed);
}

void RoundSignal::round_started(uint32_t round, uint32_t requests, uint64_t start_ns) {
  owner_cpu_.store(sched_getcpu(), std::memory_order_relaxed);  // rseq/vDSO: no system call
  expected_answer_ns_[round % 32].store(start_ns + requests * ns_per_request_ + answer_lag_ns_,
                                        std::memory_order_relaxed);
  round_running_.store(round, std::memory_order_seq_cst);
}

void RoundSignal::round_ran(uint32_t round, uint32_t requests, uint64_t start_ns, uint64_t end_ns) {
  const uint64_t per_request = (end_ns - start_ns) / (requests == 0 ? 1 : requests);
  ns_per_request_ = ns_per_request_ == 0 ? per_request : (ns_per_request_ * 7 + per_request) / 8;
  ran_end_ns_[round % 32] = end_ns;
}

void RoundSignal::round_answered(uint32_t round) {
  if (naps_.load(std::memory_order_relaxed)) {
    const uint64_t lag = now_ns() - ran_end_ns_[round % 32];
    answer_lag_ns_ = (answer_lag_ns_ * 7 + lag) / 8;
  }
  // The done flags are set. A caller of this round that counted itself a
  // sleeper is either seen here or sees the new round_done_ in its futex
  // call (both sides are seq_cst): no wake-up is lost.
  round_done_.store(round, std::memory_order_seq_cst);
  last_round_woke_ = sleepers_[round % 32].load(std::memory_order_seq_cst) != 0;
  if (last_round_woke_) {
    // One thread: it hands the wake-up on to the others (hand_on()).
    futex_wake(round_done_, 1, bit_of(round));
    round_wakes_.fetch_add(1, std::memory_order_relaxed);
  }
}

void RoundSignal::hand_on() {
  // Every round r <= round_done_ is answered, and a caller of r that has not
  // yet slept sees that in its futex call. So the thread that moves
  // handed_on_ past r wakes every sleeper of r; the owner's one wake-up
  // reaches some thread of r (or none sleeps yet), which comes here.
  uint32_t done_round = round_done_.load(std::memory_order_seq_cst);
  uint32_t from = handed_on_.load(std::memory_order_relaxed);
  while (static_cast<int32_t>(done_round - from) > 0) {
    if (!handed_on_.compare_exchange_weak(from, done_round, std::memory_order_seq_cst,
                                          std::memory_order_relaxed)) {
      continue;
    }
    uint32_t bits = 0;
    if (done_round - from >= 32) {
      bits = FUTEX_BITSET_MATCH_ANY;
    } else {
      for (uint32_t answered = from + 1; answered != done_round + 1; ++answered) {
        if (sleepers_[answered % 32].load(std::memory_order_seq_cst) != 0) bits |= bit_of(answered);
      }
    }
    if (bits != 0) {
      futex_wake(round_done_, INT_MAX, bits);
      caller_wakes_.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
}

void RoundSignal::owner_wait(const std::atomic<WriteRequest*>& queue_head, int64_t writers) {
  auto has_work = [&queue_head] { return queue_head.load(std::memory_order_acquire) != nullptr; };
  auto pusher_elsewhere = [this] {
    return pusher_cpu_.load(std::memory_order_relaxed) != sched_getcpu();
  };
  if (writers <= spare_cores_ && !last_round_woke_ && pusher_elsewhere()) {
    if (spin_until(has_work, kOwnerSpinNs, pusher_elsewhere)) return;
  } else {
    // The callers need this core (they outnumber the cores, or the last one
    // ran here): yielding lets them run and push, and the next round takes
    // their requests without a sleep and a ring.
    for (int yield = 0; yield < kOwnerYields; ++yield) {
      if (has_work()) return;
      sched_yield();
    }
  }
  while (true) {
    owner_asleep_.store(1, std::memory_order_seq_cst);
    // A push after this load sees owner_asleep_ == 1 and rings.
    if (queue_head.load(std::memory_order_seq_cst) != nullptr) break;
    owner_sleeps_.fetch_add(1, std::memory_order_relaxed);
    futex_wait(owner_asleep_, 1, FUTEX_BITSET_MATCH_ANY);
  }
  owner_asleep_.store(0, std::memory_order_relaxed);
}

void RoundSignal::pushed(bool queue_was_empty) {
  pusher_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
  if (!queue_was_empty) return;
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
  // Napping gives the core up, wherever the owner runs.
  if (writers <= spare_cores_ && naps_.load(std::memory_order_relaxed)) {
    nap_until_expected(done, round);
  }
  if (writers <= spare_cores_ && owner_elsewhere()) {
    if (spin_until(answered, kCallerSpinNs, owner_elsewhere)) return;
  } else {
    // More writers than cores, or the owner shares this core: yielding a few
    // times lets the owner (and the other callers) run; an answer that comes
    // meanwhile needs no wake-up system call from the owner.
    for (int yield = 0; yield < kCallerYields; ++yield) {
      if (answered()) return;
      sched_yield();
    }
  }
  while (!answered()) {
    // Which round answers this request: its stamp once the owner took it;
    // before that, one of the two rounds after the running one (the owner
    // may be between taking a batch and announcing it).
    uint32_t running = round_running_.load(std::memory_order_seq_cst);
    uint32_t stamp = round.load(std::memory_order_seq_cst);
    uint32_t candidates[2];
    int candidate_count = 0;
    if (stamp != 0) {
      candidates[candidate_count++] = stamp;
    } else {
      candidates[candidate_count++] = round_after(running);
      candidates[candidate_count++] = round_after(round_after(running));
    }
    uint32_t seen = round_done_.load(std::memory_order_seq_cst);
    uint32_t bits = 0;
    for (int candidate = 0; candidate < candidate_count; ++candidate) {
      bits |= bit_of(candidates[candidate]);
      sleepers_[candidates[candidate] % 32].fetch_add(1, std::memory_order_seq_cst);
    }
    bool slept = false;
    if (done.load(std::memory_order_seq_cst) == 0) {
      caller_sleeps_.fetch_add(1, std::memory_order_relaxed);
      futex_wait(round_done_, seen, bits);
      slept = true;
    }
    for (int candidate = 0; candidate < candidate_count; ++candidate) {
      sleepers_[candidates[candidate] % 32].fetch_sub(1, std::memory_order_seq_cst);
    }
    if (slept) hand_on();
  }
}

void RoundSignal::nap_until_expected(const std::atomic<uint32_t>& done,
                                     const std::atomic<uint32_t>& round) {
  // Timers of this thread fire when asked, not up to 50 us later (the
  // default slack), or each short nap would overshoot the answer.
  static thread_local bool precise_timers = false;
  if (!precise_timers) {
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    precise_timers = true;
  }
  bool napped = false;
  while (done.load(std::memory_order_acquire) == 0) {
    // The request's round once taken; before that, at least the running one.
    const uint32_t running = round_running_.load(std::memory_order_seq_cst);
    const uint32_t stamp = round.load(std::memory_order_acquire);
    const uint64_t expected =
        expected_answer_ns_[(stamp != 0 ? stamp : running) % 32].load(std::memory_order_relaxed);
    const uint64_t now = now_ns();
    uint64_t nap_ns = kNapStepNs;
    if (expected > now + 2 * kNapStepNs) {
      nap_ns = std::min(expected - now - kNapStepNs, kNapMaxNs);
    } else if (!napped || now > expected + kNapOverdueNs) {
      // An answer due within ~40 us (a short round) is caught spinning; an
      // estimate that was wrong (or stale) ends in the futex as without naps.
      return;
    }
    napped = true;
    caller_naps_.fetch_add(1, std::memory_order_relaxed);
    timespec nap{};
    nap.tv_nsec = static_cast<long>(nap_ns);  // below kNapMaxNs, under a second
    nanosleep(&nap, nullptr);
  }
}

}  // namespace solo::internal
