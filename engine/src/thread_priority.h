// Lowering a background thread below the owner (the checkpointer, the arena
// prefaulter): on Linux scheduling policy and nice value are per thread, and
// an unprivileged thread may lower its own either way.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

namespace solo::internal {

// Puts the calling thread in the SCHED_IDLE class if `sched_idle`, else (or
// where the class cannot be set) at `nice` (0: leaves it). A failure only
// leaves the priority as it was.
inline void lower_this_thread(bool sched_idle, int nice) {
  sched_param idle_param{};
  if (sched_idle && pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle_param) == 0) return;
  if (nice != 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice);
}

}  // namespace solo::internal
