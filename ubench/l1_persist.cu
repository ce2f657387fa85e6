// Whether an SM's L1 keeps global data from one kernel to the next. Each
// CTA (one warp, one per SM) owns a chain of 16 lines, 128 B apart, that is
// in the L2. A first kernel reads each line of its CTA's chain (ld.global.ca,
// mode "read") or writes every byte of it (mode "write": a full line, which a
// write-allocating L1 would hold); the next kernel chases the same chain
// with ld.global.ca and times it. Where a CTA of the second kernel runs on
// the SM its chain was touched on (`%smid` of both), the chase reads the L1
// latency if the L1 kept the lines and the L2 latency if the kernel boundary
// emptied it. Reference: the same chase over chains no kernel has touched
// since they were put in the L2 (ld.global.cg).
//   keys: l1_across_kernels_read_cycles, l1_across_kernels_write_cycles
//         (cycles per load, mean over the CTAs on the same SM in both
//         kernels), l1_across_kernels_l2_cycles (the reference),
//         l1_across_kernels_same_sm_ctas (how many CTAs of the read and the
//         write pair ran on the SM of their first kernel, of 2 x ctas)
//   args: ctas=N (default: the SM count)
#include "ubench.h"

constexpr int kLines = 16;
constexpr size_t kLineWords = 128 / sizeof(uint64_t);
constexpr size_t kChainWords = kLines * kLineWords;

// Every line of every chain into the L2 (not any L1: .cg).
__global__ void to_l2(const uint64_t* region, size_t lines, uint64_t* sink) {
  uint64_t acc = 0;
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < lines; i += size_t{gridDim.x} * blockDim.x)
    acc ^= ub::ld_cg(region + i * kLineWords);
  if (acc == 1) sink[0] = acc;  // never true: keeps the loads
}

// Mode 0 reads word 0 of each line of the CTA's chain; mode 1 writes all 32
// words of each line (lanes 0 and 1 the link's halves, the others zero: the
// chain stays intact). Records the CTA's SM.
template <int kMode>
__global__ void touch(uint64_t* chains, unsigned* smids, uint64_t* sink) {
  uint64_t* chain = chains + blockIdx.x * kChainWords;
  const unsigned lane = threadIdx.x % 32;
  uint64_t acc = 0;
  for (int k = 0; k < kLines; ++k) {
    uint64_t* line = chain + k * kLineWords;
    if (kMode == 0) {
      if (lane == 0) acc ^= ub::ld_ca(line);
    } else {
      const uint64_t next = reinterpret_cast<uint64_t>(chain + ((k + 1) % kLines) * kLineWords);
      const unsigned word = lane < 2 ? static_cast<unsigned>(next >> (32 * lane)) : 0u;
      reinterpret_cast<unsigned*>(line)[lane] = word;
    }
  }
  if (lane == 0) {
    smids[blockIdx.x] = ub::sm_id();
    if (acc == 1) sink[0] = acc;
  }
}

// Lane 0 chases the CTA's chain once: cycles per load, and the CTA's SM.
__global__ void probe(const uint64_t* chains, unsigned* smids, double* cycles, uint64_t* sink) {
  if (threadIdx.x != 0) return;
  const uint64_t* p = chains + blockIdx.x * kChainWords;
  smids[blockIdx.x] = ub::sm_id();
  long long t0 = ub::clock_now();
#pragma unroll 4
  for (int k = 0; k < kLines; ++k) p = reinterpret_cast<const uint64_t*>(ub::ld_ca(p));
  sink[blockIdx.x + 1] = reinterpret_cast<uint64_t>(p);
  long long t1 = ub::clock_now();
  cycles[blockIdx.x] = double(t1 - t0) / kLines;
}

int main(int argc, char** argv) {
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", ub::props().multiProcessorCount));
  const size_t set_words = static_cast<size_t>(ctas) * kChainWords;  // one set of chains
  uint64_t *region, *sink;
  unsigned *smid_first, *smid_second;
  double* cycles;
  UB_CHECK(cudaMalloc(&region, 3 * set_words * sizeof(uint64_t)));  // read, write, reference
  UB_CHECK(cudaMalloc(&sink, (ctas + 1) * sizeof(uint64_t)));
  UB_CHECK(cudaMalloc(&smid_first, ctas * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&smid_second, ctas * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&cycles, ctas * sizeof(double)));
  std::vector<uint64_t> image(3 * set_words, 0);
  for (size_t c = 0; c < 3 * static_cast<size_t>(ctas); ++c)
    for (int k = 0; k < kLines; ++k)
      image[c * kChainWords + k * kLineWords] =
          reinterpret_cast<uint64_t>(region + c * kChainWords + ((k + 1) % kLines) * kLineWords);
  UB_CHECK(cudaMemcpy(region, image.data(), image.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  probe<<<ctas, 32>>>(region + 2 * set_words, smid_second, cycles, sink);  // the probe's code, warm
  UB_LAUNCHED();
  to_l2<<<ctas, 256>>>(region, 3 * static_cast<size_t>(ctas) * kLines, sink);
  UB_LAUNCHED();

  // Mean cycles per load over the CTAs whose probe ran where `smid_first` says
  // their chain was touched (all of them for the reference: nullptr).
  int same_total = 0;
  auto chase = [&](const uint64_t* chains, bool compare) {
    probe<<<ctas, 32>>>(chains, smid_second, cycles, sink);
    UB_LAUNCHED();
    std::vector<double> c(ctas);
    std::vector<unsigned> first(ctas), second(ctas);
    UB_CHECK(cudaMemcpy(c.data(), cycles, ctas * sizeof(double), cudaMemcpyDeviceToHost));
    UB_CHECK(cudaMemcpy(first.data(), smid_first, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
    UB_CHECK(cudaMemcpy(second.data(), smid_second, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
    double sum = 0;
    int n = 0;
    for (int b = 0; b < ctas; ++b)
      if (!compare || first[b] == second[b]) sum += c[b], ++n;
    if (compare) same_total += n;
    return n ? sum / n : 0.0;
  };
  double reference = chase(region + 2 * set_words, false);
  touch<0><<<ctas, 32>>>(region, smid_first, sink);
  UB_LAUNCHED();
  double after_read = chase(region, true);
  touch<1><<<ctas, 32>>>(region + set_words, smid_first, sink);
  UB_LAUNCHED();
  double after_write = chase(region + set_words, true);
  ub::emit("l1_across_kernels_read_cycles", after_read);
  ub::emit("l1_across_kernels_write_cycles", after_write);
  ub::emit("l1_across_kernels_l2_cycles", reference);
  ub::emit("l1_across_kernels_same_sm_ctas", same_total);
  return 0;
}
