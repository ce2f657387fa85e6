// Host-side helpers shared by the suite programs: the fixed-seed input
// generators (an LCG and xorshift32, each program keeps the one its inputs
// were made with), device copies, event timing and the elapsed_us= /
// launches= lines. Kernels stay in the programs; this header has none.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../../../tests/cuda/check.h"
#include "../xorshift.h"

// ---- input generators ----

// Linear congruential generator (the PolyBench-style programs).
struct Lcg {
  uint32_t s;
  uint32_t next() {
    s = s * 1664525u + 1013904223u;
    return s;
  }
  float uniform() { return float(next() >> 8) / 16777216.0f; }  // [0, 1)
};

// Values in [0, 1) from a fixed-seed linear congruential generator.
inline void fill_lcg(std::vector<float>& v, uint32_t seed) {
  Lcg rng{seed};
  for (float& e : v) e = rng.uniform();
}

// ---- device memory ----

template <typename T>
T* device_alloc(size_t n) {
  T* d;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  return d;
}

// n elements, all bytes zero.
template <typename T>
T* device_zeros(size_t n) {
  T* d = device_alloc<T>(n);
  CHECK(cudaMemset(d, 0, n * sizeof(T)));
  return d;
}

// A new device array holding the first n elements of h.
template <typename T>
T* to_device(const T* h, size_t n) {
  T* d = device_alloc<T>(n);
  CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
T* to_device(const std::vector<T>& h) {
  return to_device(h.data(), h.size());
}

template <typename T>
void copy_to_device(T* d, const std::vector<T>& h) {
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// Fills h (its size elements) from d.
template <typename T>
void copy_to_host(std::vector<T>& h, const T* d) {
  CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

template <typename T>
std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  copy_to_host(h, d);
  return h;
}

inline void device_free_one(void* d) { CHECK(cudaFree(d)); }

template <typename... T>
void device_free(T*... d) {
  (device_free_one(d), ...);
}

// ---- textures ----

// A texture object over n elements of T at d (linear memory, element reads).
template <typename T>
cudaTextureObject_t linear_texture(const T* d, size_t n) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = const_cast<T*>(d);
  res.res.linear.desc = cudaCreateChannelDesc<T>();
  res.res.linear.sizeInBytes = n * sizeof(T);
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  return tex;
}

// ---- timing and the report ----

// Two events around the timed launches: created on construction, start()
// records the first, stop_ms() the second and returns the milliseconds
// between them (waiting for it, then destroying both).
struct EventTimer {
  cudaEvent_t begin, end;
  EventTimer() {
    CHECK(cudaEventCreate(&begin));
    CHECK(cudaEventCreate(&end));
  }
  void start() { CHECK(cudaEventRecord(begin)); }
  float stop_ms() {
    CHECK(cudaEventRecord(end));
    return elapsed_ms_and_destroy(begin, end);
  }
};

// The two lines every program prints before its verdict (compared with the
// H100 runs of examples/hw): elapsed_us= with us_decimals digits, launches=.
inline void print_timing(float ms, int launches, int us_decimals = 3) {
  std::printf("elapsed_us=%.*f\n", us_decimals, ms * 1000.0f);
  std::printf("launches=%d\n", launches);
}
