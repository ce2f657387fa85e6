// Basic vocabulary types shared by every layer.
#pragma once
#include <cstdint>
#include <compare>

namespace ws {

// A byte address in the simulated device's (64-bit) address space.
using Addr = uint64_t;
// A count of clock cycles in some clock domain (the domain is named by context).
using Cycle = uint64_t;
// Absolute simulated time in picoseconds; every clock domain is expressed in it.
using Tick = uint64_t;

inline constexpr Tick kNever = ~Tick{0};

// Clock period of a domain, kept in picoseconds so that domains with unrelated
// frequencies interleave exactly and deterministically.
struct ClockPeriod {
  Tick ps = 1000;
  static ClockPeriod from_mhz(double mhz) { return ClockPeriod{static_cast<Tick>(1e6 / mhz + 0.5)}; }
  double mhz() const { return 1e6 / static_cast<double>(ps); }
  auto operator<=>(const ClockPeriod&) const = default;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3&) const = default;
};

}  // namespace ws
