// Ctrl-C and a cluster's SIGTERM during a long simulation: while an
// InterruptGuard lives, SIGINT, SIGTERM and SIGHUP only record the signal
// (the handler does nothing else, as a handler must); the simulation loops
// poll pending_interrupt(), stop at the next check, write what is finished
// and then exit with the conventional status (128 + the signal number).
#pragma once
#include <string>

namespace ws {

class InterruptGuard {
 public:
  // Takes over each of the signals whose disposition is the default one (a
  // program under `warpsim exec` may have its own handler: that one stays).
  InterruptGuard();
  ~InterruptGuard();  // restores the dispositions it replaced
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  unsigned replaced_ = 0;  // bit i: kSignals[i] was taken over
};

// The first signal recorded since the process started (0 if none).
int pending_interrupt();
// "SIGINT", "SIGTERM", ... for messages.
std::string signal_name(int signo);
// "interrupted by SIGTERM" when a signal is pending, else "".
std::string interrupt_reason();
// Ends the process as the signal would have with its default action (the
// parent sees it killed by that signal; a shell reports 128 + signo).
[[noreturn]] void die_of_signal(int signo);

}  // namespace ws
