#include "terminal_input.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#ifdef SOLO_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace solo::shell {
namespace {

// The pipe the prompt's SIGINT handler writes to; both ends non-blocking.
int g_interrupt_pipe[2] = {-1, -1};

void SetInterruptHandler(void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a poll waiting for input returns EINTR
  sigaction(SIGINT, &action, nullptr);
}

void OnPromptInterrupt(int /*signal*/) {
  int saved_errno = errno;
  char byte = 1;
  // Non-blocking: a full pipe already holds an interrupt.
  ssize_t written = write(g_interrupt_pipe[1], &byte, 1);
  static_cast<void>(written);
  errno = saved_errno;
}

// Set by the first Ctrl-C between ReadLine calls, cleared when a line is read.
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "stored by a signal handler");

constexpr char kRunningNote[] =
    "\nsolo: cancelling the statement; Ctrl-C again ends solo (a durable database keeps what "
    "was committed, an in-memory one is lost)\n";

void OnRunningInterrupt(int /*signal*/) {
  int saved_errno = errno;
  // The default action first, then the flag and the note: the handler may
  // run on any of the process's threads (the engine's too), and SIGINT is
  // blocked only in the one running it, so a second Ctrl-C sent once the
  // note is seen could otherwise come to this handler again on another
  // thread (it did: the note twice and a shell that no longer ended on
  // Ctrl-C).
  SetInterruptHandler(SIG_DFL);
  g_cancel.store(true, std::memory_order_relaxed);
  ssize_t written = write(STDERR_FILENO, kRunningNote, sizeof(kRunningNote) - 1);
  static_cast<void>(written);
  errno = saved_errno;
}

// Empties the pipe; true when it held an interrupt.
bool DrainPipe() {
  bool interrupted = false;
  char bytes[64];
  while (read(g_interrupt_pipe[0], bytes, sizeof(bytes)) > 0) interrupted = true;
  return interrupted;
}

#ifdef SOLO_HAVE_READLINE
char* g_line = nullptr;    // the line readline's callback was given (nullptr: end of input)
bool g_line_done = false;  // the callback ran

void OnLine(char* line) {
  g_line = line;
  g_line_done = true;
  // Removed here, so that readline does not show the prompt again.
  rl_callback_handler_remove();
}
#endif

}  // namespace

TerminalInput::TerminalInput() {
  if (pipe2(g_interrupt_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::perror("solo: pipe");
    std::exit(1);
  }
#ifdef SOLO_HAVE_READLINE
  rl_catch_signals = 0;  // SIGINT is ours; readline is told in Read
#endif
  // For shell_interrupt_test only: a pause after each line, so that a
  // Ctrl-C can be sent between Enter and the statement's start.
  if (const char* delay = std::getenv("SOLO_SHELL_TEST_LINE_DELAY_MS")) {
    line_delay_ms_ = static_cast<unsigned>(std::strtoul(delay, nullptr, 10));
  }
  SetInterruptHandler(OnRunningInterrupt);
}

TerminalInput::~TerminalInput() {
  SetInterruptHandler(SIG_DFL);
  close(g_interrupt_pipe[0]);
  close(g_interrupt_pipe[1]);
  g_interrupt_pipe[0] = g_interrupt_pipe[1] = -1;
}

TerminalInput::Event TerminalInput::ReadLine(const char* prompt, std::string* line) {
  // A Ctrl-C from before the prompt was shown is not for it.
  DrainPipe();
  SetInterruptHandler(OnPromptInterrupt);
  // Only now: a Ctrl-C before the handler above still cancels what runs.
  g_cancel.store(false, std::memory_order_relaxed);
  Event event = Read(prompt, line);
  if (event == Event::kLine && line_delay_ms_ > 0) usleep(line_delay_ms_ * 1000);
  SetInterruptHandler(OnRunningInterrupt);
  // A Ctrl-C after Enter but before the handler above was in place went to
  // the pipe, where the next prompt would have dropped it, and the
  // statement ran as if no key had been pressed. Nothing has started yet:
  // the line is dropped as one interrupted before Enter.
  if (event == Event::kLine && DrainPipe()) {
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    return Event::kInterrupt;
  }
  return event;
}

const std::atomic<bool>* TerminalInput::cancel_flag() const {
  return &g_cancel;
}

bool TerminalInput::cancel_requested() const {
  return g_cancel.load(std::memory_order_relaxed);
}

ScriptInterrupt::ScriptInterrupt() {
  g_cancel.store(false, std::memory_order_relaxed);
  struct sigaction current = {};
  sigaction(SIGINT, nullptr, &current);
  ignored_ = current.sa_handler == SIG_IGN;
  if (!ignored_) SetInterruptHandler(OnRunningInterrupt);
}

ScriptInterrupt::~ScriptInterrupt() {
  if (!ignored_) SetInterruptHandler(SIG_DFL);
}

const std::atomic<bool>* ScriptInterrupt::cancel_flag() const {
  return &g_cancel;
}

bool ScriptInterrupt::requested() const {
  return g_cancel.load(std::memory_order_relaxed);
}

#ifdef SOLO_HAVE_READLINE

// readline's callback interface, so that the wait for input is our poll of
// the terminal and the interrupt pipe (readline's own blocking read would
// only be woken by the signal to carry on reading the same line).
TerminalInput::Event TerminalInput::Read(const char* prompt, std::string* line) {
  g_line = nullptr;
  g_line_done = false;
  rl_callback_handler_install(prompt, OnLine);
  for (;;) {
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_interrupt_pipe[0], POLLIN, 0}};
    int ready = poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;  // the pipe tells whether it was SIGINT
    if (ready < 0) {
      rl_callback_handler_remove();
      return Event::kEnd;
    }
    if ((fds[1].revents & POLLIN) != 0 && DrainPipe()) {
      // What readline's own handler would do (Python's readline module does
      // the same), then a fresh line.
      rl_free_line_state();
      rl_callback_sigcleanup();
      rl_replace_line("", 0);
      rl_cleanup_after_signal();
      rl_callback_handler_remove();
      std::fputs("^C\n", rl_outstream != nullptr ? rl_outstream : stdout);
      std::fflush(rl_outstream != nullptr ? rl_outstream : stdout);
      return Event::kInterrupt;
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      rl_callback_read_char();
      if (!g_line_done) continue;
      if (g_line == nullptr) return Event::kEnd;
      *line = g_line;
      std::free(g_line);
      if (!line->empty()) add_history(line->c_str());
      return Event::kLine;
    }
  }
}

#else

// Without readline: the terminal's own line editing (canonical mode), read
// through the same poll as above.
TerminalInput::Event TerminalInput::Read(const char* prompt, std::string* line) {
  std::cout << prompt << std::flush;
  for (;;) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      *line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return Event::kLine;
    }
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_interrupt_pipe[0], POLLIN, 0}};
    int ready = poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Event::kEnd;
    if ((fds[1].revents & POLLIN) != 0 && DrainPipe()) {
      pending_.clear();
      std::cout << "\n" << std::flush;
      return Event::kInterrupt;
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      char bytes[4096];
      ssize_t count = read(STDIN_FILENO, bytes, sizeof(bytes));
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) {  // the end of the input: a last line without '\n' counts
        if (pending_.empty()) return Event::kEnd;
        *line = std::move(pending_);
        pending_.clear();
        return Event::kLine;
      }
      pending_.append(bytes, static_cast<size_t>(count));
    }
  }
}

#endif

}  // namespace solo::shell
