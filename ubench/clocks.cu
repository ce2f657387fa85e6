// Clock and warp-level costs:
// - clock_read_overhead_cycles: two back-to-back %clock64 reads;
// - core_clock_mhz: a kernel spins a known number of cycles, timed by events
//   (the difference of two spin lengths, so launch costs drop out; a
//   discarded spin first, so that both find the code warm);
// - shfl_latency_cycles: a dependent chain of __shfl_xor_sync;
// - s2r_chain_cycles: per step of a dependent chain through a special-register
//   read: ISETP on the running sum, the read of %warpid predicated on it (an
//   S2R that ptxas cannot hoist: %warpid may change), the bits extracted, the
//   sum updated. In sm_90 code ptxas times the rest of the step at 27 cycles
//   (ISETP to the predicated S2R 13, SHF 4, SGXT 5, IMAD 5), so S2R's latency
//   on an H100 is the figure less 27; sm_75 code hoists the S2R and the figure
//   measures no S2R. Under the simulator the PTX chain is timed as written;
//   reported, not tuned;
// - syncthreads_cycles: a loop of __syncthreads() in a CTA of 1024 threads,
//   per barrier, timed by warp 0 (difference of two loop lengths);
//   syncthreads_cycles_w16 / _w8 / _w4 / _w2 / _w1 the same in CTAs of 16,
//   8, 4, 2 and 1 warps; syncthreads_cycles_2x16 in two CTAs of 16 warps on
//   each SM (twice as many CTAs as SMs), the mean over the CTAs: whether
//   the cost per warp is the CTA's or the SM's.
// The last two time the second of two passes in each launch: the first pass
// warms the code, so both launches time warm code.
//   args: steps=N (default 256)
#include "ubench.h"

__global__ void clock_pair(long long* out) {
  long long a = ub::clock_now();
  long long b = ub::clock_now();
  out[0] = b - a;
}

__global__ void spin(long long cycles, long long* out) {
  long long start = ub::clock_now(), now = start;
  while (now - start < cycles) now = ub::clock_now();
  out[1] = now - start;
}

__global__ void shfl_chain(long steps, long long* out, unsigned* sink) {
  unsigned v = threadIdx.x;
  long long t0 = 0, t1 = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass fetches the instructions
    sink[1] = v;
    t0 = ub::clock_now();
#pragma unroll 16
    for (long i = 0; i < steps; ++i) v = __shfl_xor_sync(0xffffffffu, v, 1);
    sink[0] = v;
    t1 = ub::clock_now();
  }
  if (threadIdx.x == 0) out[2] = t1 - t0;
}

__global__ void s2r_chain(long steps, long long* out, unsigned* sink) {
  unsigned acc = threadIdx.x, w = 0;
  long long t0 = 0, t1 = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass fetches the instructions
    sink[1] = acc;
    t0 = ub::clock_now();
#pragma unroll 16
    for (long i = 0; i < steps; ++i) {
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0xffffffff;\n\t@p mov.u32 %0, %%warpid;\n\t}"
          : "+r"(w)
          : "r"(acc));
      acc += w;
    }
    sink[0] = acc;
    t1 = ub::clock_now();
  }
  if (threadIdx.x == 0) out[3] = t1 - t0;
}

__global__ void barriers(long steps, long long* out) {
  long long t0 = 0, t1 = 0;
  for (int pass = 0; pass < 2; ++pass) {
    t0 = ub::clock_now();
    for (long i = 0; i < steps; ++i) __syncthreads();
    t1 = ub::clock_now();
  }
  if (threadIdx.x == 0) out[8 + blockIdx.x] = t1 - t0;
}

long long read_slot(const long long* dev, int slot) {
  long long v = 0;
  UB_CHECK(cudaMemcpy(&v, dev + slot, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

int main(int argc, char** argv) {
  const long steps = ub::arg(argc, argv, "steps", 256);
  const long long spin_cycles = ub::arg(argc, argv, "spin_cycles", 20000);
  long long* out;
  unsigned* sink;
  const int sms = ub::props().multiProcessorCount;
  UB_CHECK(cudaMalloc(&out, (8 + 2 * sms) * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sink, 64));
  clock_pair<<<1, 1>>>(out);
  UB_LAUNCHED();
  clock_pair<<<1, 1>>>(out);  // second launch: instructions fetched
  UB_LAUNCHED();
  ub::emit("clock_read_overhead_cycles", static_cast<double>(read_slot(out, 0)));

  ub::EventTimer timer;
  auto spins = ub::warm_pair([&](int k) {
    timer.begin();
    spin<<<1, 1>>>(spin_cycles << k, out);
    const float ms = timer.end_ms();
    UB_LAUNCHED();
    return std::pair<float, long long>{ms, read_slot(out, 1)};
  });
  ub::emit("core_clock_mhz",
           (spins[1].second - spins[0].second) / ((spins[1].first - spins[0].first) * 1000.0));

  long long c[2];
  for (int k = 0; k < 2; ++k) {
    shfl_chain<<<1, 32>>>(steps << k, out, sink);
    UB_LAUNCHED();
    c[k] = read_slot(out, 2);
  }
  ub::emit("shfl_latency_cycles", static_cast<double>(c[1] - c[0]) / steps);
  for (int k = 0; k < 2; ++k) {
    s2r_chain<<<1, 32>>>(steps << k, out, sink);
    UB_LAUNCHED();
    c[k] = read_slot(out, 3);
  }
  ub::emit("s2r_chain_cycles", static_cast<double>(c[1] - c[0]) / steps);

  // 32 warps, then fewer: how a barrier's cost grows with its warps.
  for (int warps : {32, 16, 8, 4, 2, 1}) {
    for (int k = 0; k < 2; ++k) {
      barriers<<<1, 32 * warps>>>(steps << k, out);
      UB_LAUNCHED();
      c[k] = read_slot(out, 8);
    }
    std::string key = warps == 32 ? "syncthreads_cycles" : "syncthreads_cycles_w" + std::to_string(warps);
    ub::emit(key.c_str(), static_cast<double>(c[1] - c[0]) / steps);
  }
  double mean[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    barriers<<<2 * sms, 512>>>(steps << k, out);
    UB_LAUNCHED();
    for (int cta = 0; cta < 2 * sms; ++cta) mean[k] += static_cast<double>(read_slot(out, 8 + cta)) / (2 * sms);
  }
  ub::emit("syncthreads_cycles_2x16", (mean[1] - mean[0]) / steps);
  return 0;
}
