// The interactive shell's input: lines from the terminal, read with
// readline (editing, history) when solo is built with it, and Ctrl-C.
//
// Ctrl-C (SIGINT) while ReadLine waits for input ends it with kInterrupt,
// the line typed so far discarded, as psql's and sqlite3's prompts do; so
// does one that comes after the line's Enter but before ReadLine returns
// it (nothing has run yet).
// Between ReadLine calls (a statement or dot command runs) Ctrl-C cannot
// cancel anything: the first one prints a note on stderr, a second one ends
// the process by SIGINT's default action. (Every commit that has returned is
// kept by a durable database; an in-memory one is lost.)
//
// The signal handlers only write(2) and sigaction(2), both
// async-signal-safe: the prompt's handler writes a byte to a pipe that
// ReadLine polls with the terminal, so an interrupt is never missed between
// a check and a wait.
#pragma once

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

 private:
  Event Read(const char* prompt, std::string* line);

  std::string pending_;  // without readline: bytes read after the last line returned
  unsigned line_delay_ms_ = 0;  // SOLO_SHELL_TEST_LINE_DELAY_MS (tests only)
};

}  // namespace solo::shell
