// A one-line progress display on a terminal (kernel, cycles, rate), redrawn
// at most twice a second; silent when stderr is not a terminal.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

#include <fmt/format.h>

namespace ws::tools {

// A one-line progress display on a terminal; silent otherwise.
class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressLine(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)), start_(Clock::now()) {}
  ~ProgressLine() { clear(); }
  void update(const std::string& kernel_tag, uint64_t cycles, uint64_t warp_insts) {
    if (!due()) return;
    double secs = std::chrono::duration<double>(last_ - start_).count();
    draw(fmt::format("{}  {} cycles  {:.2f} M warp insts/s", kernel_tag, cycles,
                     secs > 0 ? warp_insts / secs / 1e6 : 0.0));
  }
  // Any other text, at the same pace (e.g. `warpsim profile`).
  void show(const std::string& text) {
    if (due()) draw(text);
  }
  void clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool due() {
    if (!enabled_) return false;
    auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return false;
    last_ = now;
    return true;
  }
  void draw(const std::string& line) {
    std::cerr << "\r" << line << "\033[K" << std::flush;
    shown_ = true;
  }

  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_{};
};


}  // namespace ws::tools
