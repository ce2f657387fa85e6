// Atomics with memory orders and scopes, as libcu++ (cuda::atomic_ref,
// cuda::atomic_thread_fence) and the scoped CUDA intrinsics compile them for
// compute_80: atom.{add,exch,cas,min,max,and,or,xor} with
// .relaxed/.acquire/.release/.acq_rel at .cta/.gpu/.sys, ld.acquire/relaxed,
// st.release/relaxed, fence.sc/acq_rel at every scope, on global and shared
// memory and through generic addresses. A "last block finishes" reduction
// (acq_rel ticket, the thread-0-only atomic that the other warps skip with
// every lane off) runs on the legacy stream and on a created one. Results are
// recomputed on the CPU.
#include <cuda/atomic>
#include <cstdint>
#include <vector>

#include "check.h"

constexpr int kThreads = 128, kBlocks = 8, kN = kThreads * kBlocks;
using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;

struct Counters {
  unsigned add_rel, add_acq, add_rlx, add_ar, add_sc;
  unsigned min_v, max_v, and_v, or_v, xor_v;
  unsigned exch_v, cas_hits;
  int block_net;
  float fsum;
  unsigned long long sys_sum;
  unsigned intrinsic_sys, intrinsic_block;
};

__global__ void every_order(Counters* c, unsigned* loads) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  using dev = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
  dev(c->add_rel).fetch_add(1, memory_order_release);
  dev(c->add_acq).fetch_add(2, memory_order_acquire);
  dev(c->add_rlx).fetch_add(3, memory_order_relaxed);
  dev(c->add_ar).fetch_add(4, memory_order_acq_rel);
  dev(c->add_sc).fetch_add(5);
  dev(c->min_v).fetch_min(i + 10, memory_order_acquire);
  dev(c->max_v).fetch_max(i, memory_order_release);
  dev(c->and_v).fetch_and(~(1u << (i % 32)), memory_order_relaxed);
  dev(c->or_v).fetch_or(1u << (i % 32), memory_order_acquire);
  dev(c->xor_v).fetch_xor(i, memory_order_acq_rel);
  dev(c->exch_v).exchange(i, memory_order_release);
  unsigned expected = 0;  // the first CAS to arrive finds 0, the rest find 77
  if (dev(c->cas_hits).compare_exchange_strong(expected, 77, memory_order_acq_rel)) loads[kN] = i;
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(c->block_net);
  blk.fetch_add(2, memory_order_release);
  blk.fetch_sub(1);
  cuda::atomic_ref<float, cuda::thread_scope_device>(c->fsum).fetch_add(0.5f, memory_order_release);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(c->sys_sum).fetch_add(i, memory_order_release);
  atomicAdd_system(&c->intrinsic_sys, 1);
  atomicAdd_block(&c->intrinsic_block, 1);
  cuda::atomic_thread_fence(memory_order_acq_rel, cuda::thread_scope_block);
  cuda::atomic_thread_fence(memory_order_release, cuda::thread_scope_system);
  cuda::std::atomic_thread_fence(cuda::std::memory_order_seq_cst);
  // Every thread's own word: a release store, then acquire/relaxed loads of it.
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> mine(loads[i]);
  mine.store(i * 3, memory_order_release);
  unsigned a = mine.load(memory_order_acquire);
  mine.store(a + mine.load(memory_order_relaxed), memory_order_relaxed);
}

// Shared-memory histogram with block-scope release/acquire atomics.
__global__ void shared_histogram(const unsigned* in, unsigned* bins) {
  __shared__ unsigned h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
  cuda::atomic_ref<unsigned, cuda::thread_scope_block>(h[v % 16]).fetch_add(1, memory_order_release);
  __syncthreads();
  if (threadIdx.x < 16) {
    unsigned n = cuda::atomic_ref<unsigned, cuda::thread_scope_block>(h[threadIdx.x]).load(memory_order_acquire);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(bins[threadIdx.x]).fetch_add(n, memory_order_relaxed);
  }
}

// Each block writes its partial sum; the block that takes the last ticket
// (acq_rel: it sees every partial released before the others' tickets) adds them.
__global__ void last_block_sum(const unsigned* in, unsigned* partial, unsigned* ticket, unsigned* total) {
  __shared__ unsigned s;
  __shared__ bool last;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  atomicAdd_block(&s, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(partial[blockIdx.x]).store(s, memory_order_relaxed);
    unsigned t = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*ticket).fetch_add(1, memory_order_acq_rel);
    last = t == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    unsigned sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      sum += cuda::atomic_ref<unsigned, cuda::thread_scope_device>(partial[b]).load(memory_order_acquire);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*total).store(sum, memory_order_release);
  }
}

long check_orders(const Counters& c, const std::vector<unsigned>& loads) {
  long bad = 0;
  bad += c.add_rel != 1u * kN || c.add_acq != 2u * kN || c.add_rlx != 3u * kN;
  bad += c.add_ar != 4u * kN || c.add_sc != 5u * kN;
  bad += c.min_v != 10u || c.max_v != unsigned(kN - 1);
  bad += c.and_v != 0u || c.or_v != 0xffffffffu;
  unsigned x = 0;
  for (unsigned i = 0; i < unsigned(kN); ++i) x ^= i;
  bad += c.xor_v != x;
  bad += c.exch_v >= unsigned(kN);  // some thread's index, whichever came last
  bad += c.cas_hits != 77u || loads[kN] >= unsigned(kN);
  bad += c.block_net != kN;  // +2 -1 per thread, one word shared by all blocks
  bad += c.fsum != 0.5f * kN;
  bad += c.sys_sum != (unsigned long long)kN * (kN - 1) / 2;
  bad += c.intrinsic_sys != unsigned(kN) || c.intrinsic_block != unsigned(kN);
  for (unsigned i = 0; i < unsigned(kN); ++i) bad += loads[i] != 6 * i;
  return bad;
}

int main() {
  long bad = 0;
  Counters init{};
  init.min_v = 0xffffffffu;
  init.and_v = 0xffffffffu;
  Counters* dc;
  unsigned *loads, *in, *bins, *partial, *ticket, *total;
  CHECK(cudaMalloc(&dc, sizeof(Counters)));
  CHECK(cudaMalloc(&loads, (kN + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&in, kN * sizeof(unsigned)));
  CHECK(cudaMalloc(&bins, 16 * sizeof(unsigned)));
  CHECK(cudaMalloc(&partial, kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMalloc(&total, sizeof(unsigned)));
  CHECK(cudaMemcpy(dc, &init, sizeof init, cudaMemcpyHostToDevice));
  std::vector<unsigned> h_in(kN);
  for (int i = 0; i < kN; ++i) h_in[i] = (i * 2654435761u) >> 20;
  CHECK(cudaMemcpy(in, h_in.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, 16 * sizeof(unsigned)));

  every_order<<<kBlocks, kThreads>>>(dc, loads);
  CHECK_LAUNCH();
  Counters c;
  std::vector<unsigned> h_loads(kN + 1);
  CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_loads.data(), loads, (kN + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost));
  bad += check_orders(c, h_loads);

  shared_histogram<<<kBlocks, kThreads>>>(in, bins);
  CHECK_LAUNCH();
  unsigned h_bins[16], want_bins[16] = {};
  for (unsigned v : h_in) ++want_bins[v % 16];
  CHECK(cudaMemcpy(h_bins, bins, sizeof h_bins, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 16; ++b) bad += h_bins[b] != want_bins[b];

  unsigned want_total = 0;
  for (unsigned v : h_in) want_total += v;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (cudaStream_t s : {cudaStream_t(0), stream}) {
    CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
    CHECK(cudaMemset(total, 0, sizeof(unsigned)));
    last_block_sum<<<kBlocks, kThreads, 0, s>>>(in, partial, ticket, total);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    unsigned got;
    CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    bad += got != want_total;
  }
  CHECK(cudaStreamDestroy(stream));
  return verdict("scoped_atomics", bad);
}
