#include "common/interrupt.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace ws {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);

volatile std::sig_atomic_t g_pending = 0;
struct sigaction g_previous[kNumSignals];

// Async-signal-safe: one store. A second signal while the first is being
// handled still only records the first.
void record_signal(int signo) {
  if (g_pending == 0) g_pending = signo;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  for (int i = 0; i < kNumSignals; ++i) {
    struct sigaction old {};
    if (sigaction(kSignals[i], nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(kSignals[i], &sa, &g_previous[i]) == 0) replaced_ |= 1u << i;
  }
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < kNumSignals; ++i)
    if (replaced_ >> i & 1) sigaction(kSignals[i], &g_previous[i], nullptr);
}

int pending_interrupt() { return g_pending; }

std::string signal_name(int signo) {
  switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "signal " + std::to_string(signo);
}

std::string interrupt_reason() {
  int s = pending_interrupt();
  return s ? "interrupted by " + signal_name(s) : std::string();
}

void die_of_signal(int signo) {
  std::signal(signo, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(signo);
  _exit(128 + signo);  // only if the signal did not end the process
}

}  // namespace ws
