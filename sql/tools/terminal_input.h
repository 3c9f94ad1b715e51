// The interactive shell's input: lines from the terminal, read with
// readline (editing, history) when solo is built with it, and Ctrl-C.
//
// Ctrl-C (SIGINT) while ReadLine waits for input ends it with kInterrupt,
// the line typed so far discarded, as psql's and sqlite3's prompts do; so
// does one that comes after the line's Enter but before ReadLine returns
// it (nothing has run yet).
// Between ReadLine calls (a statement or dot command runs) the first Ctrl-C
// sets cancel_flag(), which the shell gives its Session
// (Session::set_cancel_flag): the running statement ends with 57014,
// "canceling statement due to user request", within ~1,000 rows of its
// scan (or its sort's comparisons, its groups, its inserts, CREATE INDEX's
// and DROP's rows in the engine), and is undone as after any error; the
// shell drops the rest of the line and shows the prompt again. It also
// prints a note on stderr, because a statement may not reach a check soon
// (a long expression over a few rows): a second Ctrl-C then ends the
// process by SIGINT's default action. (Every
// commit that has returned is kept by a durable database; an in-memory one
// is lost.) ReadLine clears the flag once its handler is in place, so a
// Ctrl-C that comes after a statement's last check cancels the line's next
// statement rather than being lost. Scripts (ScriptInterrupt, below) are
// cancelled the same way.
//
// The signal handlers only store an atomic, write(2) and sigaction(2), all
// async-signal-safe: the prompt's handler writes a byte to a pipe that
// ReadLine polls with the terminal, so an interrupt is never missed between
// a check and a wait. Tests: tests/sql/shell_interrupt_test.py.
#pragma once

#include <atomic>
#include <string>

namespace solo::shell {

class TerminalInput {
 public:
  enum class Event {
    kLine,       // a line (without its '\n')
    kInterrupt,  // Ctrl-C: the partial line is gone
    kEnd,        // end of input (Ctrl-D on an empty line), or the terminal failed
  };

  // Installs the SIGINT handler for the time between ReadLine calls. At most
  // one TerminalInput at a time; main thread only, as every member.
  TerminalInput();
  // Restores SIGINT's default action.
  ~TerminalInput();
  TerminalInput(const TerminalInput&) = delete;
  TerminalInput& operator=(const TerminalInput&) = delete;

  // Shows prompt and waits for a line from standard input, which is a
  // terminal. A line entered is added to the history unless it is empty.
  Event ReadLine(const char* prompt, std::string* line);

  // The flag a Ctrl-C between ReadLine calls sets (see above), for
  // Session::set_cancel_flag; valid while this TerminalInput lives.
  const std::atomic<bool>* cancel_flag() const;
  // True when a Ctrl-C came since the last line was read.
  bool cancel_requested() const;

 private:
  Event Read(const char* prompt, std::string* line);

  std::string pending_;  // without readline: bytes read after the last line returned
  unsigned line_delay_ms_ = 0;  // SOLO_SHELL_TEST_LINE_DELAY_MS (tests only)
};

// Ctrl-C during a script (-c, -f, standard input that is not a terminal):
// the first one sets cancel_flag() and prints the note, as between
// ReadLine calls, and a second one ends the process. The flag is never
// cleared: the running statement, or the next one at its start, fails with
// 57014, and the script stops there as at any error.
class ScriptInterrupt {
 public:
  // Installs the SIGINT handler, unless SIGINT is ignored (a job that a
  // shell script started in the background keeps ignoring it). Not
  // together with a TerminalInput; main thread only.
  ScriptInterrupt();
  // Restores SIGINT's default action (if the handler was installed).
  ~ScriptInterrupt();
  ScriptInterrupt(const ScriptInterrupt&) = delete;
  ScriptInterrupt& operator=(const ScriptInterrupt&) = delete;

  // For Session::set_cancel_flag; valid while this ScriptInterrupt lives.
  const std::atomic<bool>* cancel_flag() const;
  // True once a Ctrl-C came.
  bool requested() const;

 private:
  bool ignored_ = false;  // SIGINT was ignored when the run started: left so
};

}  // namespace solo::shell
