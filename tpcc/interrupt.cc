// The interrupt thread and the registry of cleanups.
#include "tpcc/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace tpcc {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_window_scopes{0};  // live InterruptEndsWindow objects
std::atomic<int> g_deferred{0};       // the signal one of them deferred

struct Registry {
  std::mutex mutex;
  uint64_t next_id = 1;
  std::map<uint64_t, std::function<void()>> cleanups;  // by registration order
};

Registry& registry() {
  static Registry* instance = new Registry;  // never destroyed: the thread may outlive main
  return *instance;
}

sigset_t interrupt_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

[[noreturn]] void on_interrupt(int signal_number) {
  g_interrupted.store(true);
  std::fprintf(stderr, "\ntpcc: %s: stopping what this run started, then exiting\n",
               signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  std::vector<std::function<void()>> cleanups;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (auto it = registry().cleanups.rbegin(); it != registry().cleanups.rend(); ++it) {
      cleanups.push_back(it->second);
    }
  }
  for (const auto& cleanup : cleanups) cleanup();
  std::fflush(stderr);
  std::fflush(stdout);
  _exit(128 + signal_number);
}

}  // namespace

void install_interrupt_handler() {
  // A signal ignored when the process started stays ignored (a shell's
  // background job, nohup): it never arrives, so it is not waited for.
  sigset_t signals;
  sigemptyset(&signals);
  for (int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) {
      sigaddset(&signals, signal_number);
    }
  }
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    pthread_setname_np(pthread_self(), "tpcc-signals");
    while (true) {
      int signal_number = 0;
      if (sigwait(&signals, &signal_number) != 0) continue;
      if (signal_number == SIGINT && g_window_scopes.load() > 0 && g_deferred.load() == 0) {
        g_deferred.store(signal_number);
        std::fprintf(stderr,
                     "\ntpcc: SIGINT: ending the run's window now; its results follow "
                     "(SIGINT again exits at once)\n");
        continue;
      }
      on_interrupt(signal_number);
    }
  }).detach();
}

void init_spawn_attributes(posix_spawnattr_t* attributes) {
  posix_spawnattr_init(attributes);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(attributes, &no_signals);
  const sigset_t signals = interrupt_signals();
  posix_spawnattr_setsigdefault(attributes, &signals);
  posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

bool interrupted() {
  return g_interrupted.load();
}

void wait_if_interrupted() {
  if (!interrupted()) return;
  for (;;) ::pause();  // the interrupt thread ends the process
}

InterruptEndsWindow::InterruptEndsWindow() {
  g_window_scopes.fetch_add(1);
}

InterruptEndsWindow::~InterruptEndsWindow() {
  g_window_scopes.fetch_sub(1);
}

int deferred_interrupt() {
  return g_deferred.load();
}

InterruptCleanup::InterruptCleanup(std::function<void()> cleanup) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  id_ = registry().next_id++;
  registry().cleanups.emplace(id_, std::move(cleanup));
}

InterruptCleanup::~InterruptCleanup() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().cleanups.erase(id_);
}

}  // namespace tpcc
