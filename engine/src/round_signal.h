// How callers of db.write() wait for the round that answers them, and how
// the owner wakes them and is woken itself (engine/README.md "Rounds").
//
// System calls cost ~1 us here (DESIGN.md §8), so:
//   - A round is announced by one futex word, `round_done_` (the number of
//     the last answered round). A sleeping caller waits on it with the futex
//     bitset bit of its own round (round % 32), so that the owner's one
//     FUTEX_WAKE per round wakes the callers of that round and not those
//     already queued for the next one.
//   - The owner calls FUTEX_WAKE only if a caller of that round sleeps (a
//     count per bit), and wakes only one: on this VM each woken thread costs
//     the waker ~3 us of CPU (try_to_wake_up's interrupt enable is a
//     paravirtual call; perf), and on the owner that serialises everything.
//     Whoever returns from a futex wait first wakes the rest of every round
//     answered since the last such hand-on (one FUTEX_WAKE, off the owner's
//     core). A caller that caught its answer while spinning costs nothing.
//   - With no more writers than spare cores, a caller spins (bounded)
//     before sleeping while the owner last ran on another core, and the
//     owner spins (bounded) for the next request after a round whose callers
//     all caught their answer spinning, while the last pusher ran on another
//     core. Where the other side shares the core, they yield a few times
//     instead, so that it runs and no wake-up is needed. On 2 shared cores a spinning caller
//     on the owner's core, or an owner spinning while the callers it woke
//     want its core, made round trips up to 3x slower (measured).
//   - With more writers than cores, callers and the owner yield a few times
//     instead (as libstdc++'s atomic wait does): every caller must be
//     switched in once per transaction anyway, and an answer or request
//     that comes while they yield needs no futex wake-up (a sleep + wake
//     costs ~2.9 us of CPU per side here, engine/bench/wake_cost).
//   - A pusher calls FUTEX_WAKE only if the owner really sleeps.
//   - Naps (set_naps, where the owner answers a round as soon as it has run
//     it: in memory, or with the log written by the owner on tmpfs): a
//     caller with a spare core whose answer is due in more than ~40 us
//     sleeps in nanosleep until 20 us before the owner's estimate of when
//     its round is answered (the round's start + its requests x the recent
//     time per request + the recent delay from running to answering), then
//     in 20 us naps, up to 200 us past it (then as without naps). It
//     wakes on its own timer, so the owner's round needs no FUTEX_WAKE: at
//     TPC-C W=1 T=64 the driver slept on the futex in 0.92-0.99 of the
//     rounds, in 0.01-0.07 with naps, and the owner's time per write fell
//     ~3% (each wake-up costs the owner ~20 us on this VM). Not where a
//     round waits for an fdatasync: the answer then comes when the device
//     says, the estimate is poor, and a late nap leaves the owner without
//     requests (0.91x on disk, measured).
#pragma once

#include <atomic>
#include <cstdint>

namespace solo::internal {

struct WriteRequest;

class RoundSignal {
 public:
  // first_round: the number the rounds count from (tests start near the
  // wrap of the 32-bit counter).
  explicit RoundSignal(uint32_t first_round = 0);
  RoundSignal(const RoundSignal&) = delete;
  RoundSignal& operator=(const RoundSignal&) = delete;

  // --- owner thread -----------------------------------------------------------
  // Number of the round the owner has just taken a batch for; the owner
  // stamps it into each request of the batch before round_started().
  uint32_t next_round() const {
    return round_after(round_running_.load(std::memory_order_relaxed));
  }
  // `requests`: the batch's size; `start_ns`: now_ns() when it was taken.
  void round_started(uint32_t round, uint32_t requests, uint64_t start_ns);
  // The round's transactions have run (it is sealed), `end_ns` = now_ns().
  void round_ran(uint32_t round, uint32_t requests, uint64_t start_ns, uint64_t end_ns);
  uint32_t round_running() const { return round_running_.load(std::memory_order_relaxed); }
  // Every request of `round` has its done flag set: wakes those that sleep
  // (one system call, and none if nobody sleeps).
  void round_answered(uint32_t round);
  // Waits until `queue_head` (the request stack) is non-null: spins for up
  // to kOwnerSpinNs, then sleeps until a pusher rings.
  // `writers`: threads inside write().
  void owner_wait(const std::atomic<WriteRequest*>& queue_head, int64_t writers);

  // --- any thread (callers) ------------------------------------------------------
  // After a push: notes the pusher's core, and if the queue was empty wakes
  // the owner if it sleeps.
  void pushed(bool queue_was_empty);
  // Waits until `done` != 0. `round` is the request's round stamp (0 until
  // the owner takes it); `writers` the number of threads inside write().
  void wait_answer(const std::atomic<uint32_t>& done, const std::atomic<uint32_t>& round,
                   int64_t writers);

  // Counters (relaxed; for Stats): FUTEX_WAKE calls by the owner for
  // rounds and by callers handing the wake-up on, caller sleeps (FUTEX_WAIT
  // calls), and owner sleeps.
  uint64_t round_wakes() const { return round_wakes_.load(std::memory_order_relaxed); }
  uint64_t caller_wakes() const { return caller_wakes_.load(std::memory_order_relaxed); }
  uint64_t caller_sleeps() const { return caller_sleeps_.load(std::memory_order_relaxed); }
  uint64_t owner_sleeps() const { return owner_sleeps_.load(std::memory_order_relaxed); }
  // nanosleep calls of callers that napped (set_naps).
  uint64_t caller_naps() const { return caller_naps_.load(std::memory_order_relaxed); }

  // Round numbers wrap around and skip 0, which marks a request the owner
  // has not taken yet.
  static uint32_t round_after(uint32_t round) { return round + 1 == 0 ? 1 : round + 1; }

  static constexpr uint64_t kOwnerSpinNs = 10000;
  static constexpr uint64_t kCallerSpinNs = 10000;
  static constexpr int kCallerYields = 4;
  static constexpr int kOwnerYields = 4;
  // Naps: the step near the expected answer, the longest single nap, and
  // how long past the expected answer a caller goes on napping.
  static constexpr uint64_t kNapStepNs = 20000;
  static constexpr uint64_t kNapMaxNs = 5000000;
  static constexpr uint64_t kNapOverdueNs = 200000;

  // Whether a caller that may spin first naps until shortly before the
  // owner's estimate of its answer (see nap_until_expected). Any thread.
  void set_naps(bool naps) { naps_.store(naps, std::memory_order_relaxed); }

 private:
  static uint32_t bit_of(uint32_t round) { return 1u << (round % 32); }
  // After a futex wait returned: wakes the remaining sleepers of every round
  // answered since the last hand-on, if this thread is the first to see it.
  void hand_on();
  // Before the spin: sleeps (nanosleep, no futex) until shortly before the
  // owner's estimate of when this request's round is answered.
  void nap_until_expected(const std::atomic<uint32_t>& done, const std::atomic<uint32_t>& round);

  // Immutable after construction.
  const int64_t spare_cores_;  // hardware threads minus the owner's

  // Owner thread only.
  bool last_round_woke_ = true;  // the last round's answer needed a wake-up call
  uint64_t ns_per_request_ = 0;  // moving average over rounds (1/8 weight)
  uint64_t answer_lag_ns_ = 0;   // moving average of end of run -> answer
  uint64_t ran_end_ns_[32] = {};

  // Shared.
  std::atomic<bool> naps_{false};
  alignas(64) std::atomic<uint32_t> round_done_{0};    // futex word: last answered round
  std::atomic<uint32_t> round_running_{0};             // last round whose batch was taken
  std::atomic<int> owner_cpu_{-1};                     // where the owner last started a round
  std::atomic<int> pusher_cpu_{-1};                    // where the last request was pushed
  alignas(64) std::atomic<uint32_t> sleepers_[32];     // callers asleep, by round bit
  alignas(64) std::atomic<uint32_t> handed_on_{0};     // last round whose sleepers were all woken
  alignas(64) std::atomic<uint32_t> owner_asleep_{0};  // futex word: 1 while the owner sleeps
  alignas(64) std::atomic<uint64_t> expected_answer_ns_[32];  // by round bit
  alignas(64) std::atomic<uint64_t> round_wakes_{0};
  std::atomic<uint64_t> caller_naps_{0};
  std::atomic<uint64_t> caller_sleeps_{0};
  std::atomic<uint64_t> caller_wakes_{0};
  std::atomic<uint64_t> owner_sleeps_{0};
};

}  // namespace solo::internal
