// SIGINT and SIGTERM: the harness stops what it started, then exits.
//
// Without this, Ctrl-C (or a SIGTERM) killed `tpcc` at once and left a
// private PostgreSQL cluster it had started running, with its socket and
// 2 GB of shared buffers. install_interrupt_handler() (first thing in
// main) blocks both signals in every thread and waits for them on a thread
// of its own; when one comes it prints a line, runs the cleanups registered
// with InterruptCleanup (newest first; PgCluster stops the cluster it
// started) and ends the process with _exit(128 + signal). Nothing else runs
// down: a solo or SQLite database is left as after a crash, which their
// logs recover; no JSON or journal is written. Processes the harness spawns
// start with no signal blocked.
//
// The one exception is a SIGINT while `tpcc run`'s terminals run (an
// InterruptEndsWindow lives): it ends the run's window instead, so that the
// run's results are reported and written as for a shorter run, and the
// process exits with 130 after that; a second SIGINT (or a SIGTERM) ends
// the process at once as above.
#pragma once

#include <spawn.h>

#include <cstdint>
#include <functional>

namespace tpcc {

// Blocks SIGINT and SIGTERM in the calling thread and starts the thread that
// waits for them. Call once, from main, before any other thread exists (the
// threads it starts inherit the blocked mask). Not calling it (the tests)
// leaves the signals' default action. A signal ignored when the process
// started (a background job of a shell without job control, nohup) stays
// ignored.
void install_interrupt_handler();

// True once a SIGINT or SIGTERM has come. Any thread.
bool interrupted();

// Called by the main thread when it would end the process after an
// interrupt (its work failed because the cleanups stopped a server):
// waits until the interrupt thread has run the cleanups and exited, so that
// the process's exit status and output are the interrupt's. Returns at once
// when there was no interrupt.
void wait_if_interrupted();

// While one lives (the terminals' run), the first SIGINT is deferred: it
// prints a line and sets deferred_interrupt(), which the run polls to end
// its window early.
class InterruptEndsWindow {
 public:
  InterruptEndsWindow();
  ~InterruptEndsWindow();
  InterruptEndsWindow(const InterruptEndsWindow&) = delete;
  InterruptEndsWindow& operator=(const InterruptEndsWindow&) = delete;
};

// The signal a live InterruptEndsWindow deferred (SIGINT), or 0. Any thread.
int deferred_interrupt();

// Initializes `attributes` (posix_spawnattr_init) so that the process
// spawned with them starts with no signal blocked and SIGINT and SIGTERM at
// their default actions. The caller destroys them.
void init_spawn_attributes(posix_spawnattr_t* attributes);

// A cleanup for an interrupt, registered while the object lives. `cleanup`
// may run on the interrupt thread at any moment until the destructor has
// returned, and also after the owner of what it cleans up began its own
// clean-up, so it must own (share) the state it needs and be idempotent.
class InterruptCleanup {
 public:
  explicit InterruptCleanup(std::function<void()> cleanup);
  ~InterruptCleanup();
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

 private:
  uint64_t id_;
};

}  // namespace tpcc
