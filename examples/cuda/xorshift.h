// xorshift32, shared by the example programs (examples/cuda/sampling,
// examples/cuda/suite): small, fast, and the same everywhere, so that a
// profile on a GPU and a simulated run see the same inputs.
#pragma once
#include <cstdint>

struct XorShift32 {
  uint32_t s;
  explicit XorShift32(uint32_t seed) : s(seed ? seed : 1) {}
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  }
  float uniform() { return float(next() >> 8) / float(1 << 24); }           // [0, 1)
  float uniform_pm1() { return float(next() >> 8) / float(1 << 23) - 1.0f; }  // [-1, 1)
};
