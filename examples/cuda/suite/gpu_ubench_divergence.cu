// gpu_ubench_divergence: the cost of branch divergence within a warp, in the
// style of the public GPU microbenchmark suites.
//  - n-way branch: lane l takes path l mod n (n = 1, 2, 4, 8, 32) of a
//    32-way switch; every path is a chain of kChain dependent FFMAs (volatile
//    asm, each path's text its own, so the compiler can neither merge the
//    paths nor turn them into selects). A warp runs its paths one after
//    another, so n paths should cost about n times one. Measured with one
//    warp (the chain's latency) and with 32 warps on one SM (the FP32
//    pipes' throughput: a divergent path holds a pipe as long as a full one);
//    cycles per path-FFMA of one lane (the 1-way figure is one FFMA).
//  - loop: every lane runs a loop of dependent FFMAs, kTrips x (l + 1) / 32
//    trips for lane l (16 to 512), against every lane running 512 (the
//    most) and 264 (the mean): a warp runs until its last lane is done, so
//    the varying loop costs what the uniform 512 does.
// The self-check: every lane's result against the host's (the FFMAs are
// x * 1 + 1: exact small integers).
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kChain = 64;    // FFMAs per path
constexpr int kRepeat = 4;    // times the switch runs (timed)
constexpr int kTrips = 512;   // loop test: most trips
constexpr int kWays[] = {1, 2, 4, 8, 32};

// kChain dependent x = x * 1 + 1, the asm text marked with the path number
// so that no two paths are the same code.
#define FFMA8(P)                                 \
  "fma.rn.f32 %0, %0, %1, %1; // path " #P "\n\t" \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"               \
  "fma.rn.f32 %0, %0, %1, %1;\n\t"
#define PATH(P)                                                                                        \
  case P:                                                                                              \
    asm volatile(FFMA8(P) FFMA8(P) FFMA8(P) FFMA8(P) FFMA8(P) FFMA8(P) FFMA8(P) FFMA8(P) : "+f"(x) \
                 : "f"(one));                                                                          \
    break;

__device__ __forceinline__ float run_path(int path, float x, float one) {
  switch (path) {
    PATH(0) PATH(1) PATH(2) PATH(3) PATH(4) PATH(5) PATH(6) PATH(7)
    PATH(8) PATH(9) PATH(10) PATH(11) PATH(12) PATH(13) PATH(14) PATH(15)
    PATH(16) PATH(17) PATH(18) PATH(19) PATH(20) PATH(21) PATH(22) PATH(23)
    PATH(24) PATH(25) PATH(26) PATH(27) PATH(28) PATH(29) PATH(30) PATH(31)
    default:
      break;
  }
  return x;
}

// one: 1.0f from the host, so the compiler cannot fold the chains.
__global__ void branch_ways(int ways, float one, float* out, long long* cycles) {
  const int path = (threadIdx.x & 31) % ways;
  float x = 0.0f;
  long long t0 = 0;
  // Pass 0 is untimed: it brings this very code (the loop's own inlined
  // copy of the switch) into the instruction caches.
#pragma unroll 1
  for (int r = 0; r <= kRepeat; ++r) {
    if (r == 1) {
      __syncthreads();
      t0 = clock64();
    }
    x = run_path(path, x, one);
  }
  __syncthreads();
  long long t1 = clock64();
  out[threadIdx.x] = x;
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

// trips: lane l runs base_trips * (l + 1) / 32 when varying, else base_trips.
__global__ void loop_trips(int trips, int varying, float one, float* out, long long* cycles) {
  const int lane = threadIdx.x & 31;
  const int n = varying ? trips * (lane + 1) / 32 : trips;
  float x = 0.0f;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < n; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(one));
  __syncthreads();
  long long t1 = clock64();
  out[threadIdx.x] = x;
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

int main() {
  const int kThreadsMax = 1024;
  float* dout = device_alloc<float>(kThreadsMax);
  long long* dcyc = device_alloc<long long>(1);
  long bad = 0;
  float ms = 0.0f;
  int launches = 0;
  auto timed = [&](auto launch) {
    EventTimer timer;
    timer.start();
    launch();
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    ++launches;
    CHECK(cudaDeviceSynchronize());
    return double(to_host(dcyc, 1)[0]);
  };
  for (int warps : {1, 32}) {
    const int threads = 32 * warps;
    double base = 0.0;
    for (int ways : kWays) {
      double cyc = timed([&] { branch_ways<<<1, threads>>>(ways, 1.0f, dout, dcyc); });
      std::vector<float> out = to_host(dout, threads);
      for (float v : out) bad += v != float(kChain * (kRepeat + 1));
      const double per_ffma = cyc / (double(kRepeat) * kChain * warps);
      if (ways == 1) base = per_ffma;
      std::printf("branch_%dways_%dwarps_cycles_per_warp_ffma=%.3f\n", ways, warps, per_ffma);
      std::printf("branch_%dways_%dwarps_slowdown=%.2f\n", ways, warps, per_ffma / base);
      bad += !(cyc > 0);
    }
  }
  double uniform_max = 0.0;
  struct Loop {
    const char* name;
    int trips, varying;
  } loops[] = {{"uniform_512", kTrips, 0}, {"uniform_264", kTrips * 33 / 64, 0}, {"varying_16_to_512", kTrips, 1}};
  for (const Loop& l : loops) {
    double cyc = timed([&] { loop_trips<<<1, 32>>>(l.trips, l.varying, 1.0f, dout, dcyc); });
    std::vector<float> out = to_host(dout, 32);
    for (int lane = 0; lane < 32; ++lane) {
      const int n = l.varying ? l.trips * (lane + 1) / 32 : l.trips;
      bad += out[lane] != float(n);
    }
    if (!l.varying && l.trips == kTrips) uniform_max = cyc;
    std::printf("loop_%s_cycles=%.0f\n", l.name, cyc);
    std::printf("loop_%s_vs_uniform_512=%.3f\n", l.name, cyc / uniform_max);
    bad += !(cyc > 0);
  }
  device_free(dout, dcyc);
  print_timing(ms, launches);
  return verdict("gpu_ubench_divergence", bad);
}
