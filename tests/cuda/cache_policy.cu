// L2 cache policies (createpolicy) and the .L2::cache_hint operand of ld,
// st, red, atom and cp.async: the policy is an opaque 64-bit value and the
// hint changes no result (docs/exec.md, "Cache policies"). libcu++'s
// cuda::annotated_ptr and cuda::apply_access_property emit hinted loads and
// stores and prefetch.global.L2::evict_last; createpolicy itself comes from
// inline PTX (libcu++ builds its policies as constants). Every result is
// checked on the CPU.
#include <cuda/annotated_ptr>

#include <cstdint>
#include <vector>

#include "check.h"

constexpr int kN = 4096;

__device__ uint64_t fractional_last(float fraction) {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, %1;" : "=l"(p) : "f"(fraction));
  return p;
}

__device__ uint64_t policies_differ(const int* base) {
  uint64_t whole, first, range, last_unchanged;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0;" : "=l"(whole));
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0f3F800000;" : "=l"(first));
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0f3E800000;" : "=l"(last_unchanged));
  asm volatile("createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %0, [%1], 1024, 4096;"
               : "=l"(range)
               : "l"(base));
  // Equal requests give equal policies; different ones differ.
  return (whole == fractional_last(1.0f)) + 2 * (whole != first) + 4 * (range != whole) +
         8 * (last_unchanged != fractional_last(0.25f));
}

// out[i] = 3 * in[i] + 1 through hinted loads and stores, a hinted red adds
// every element into *sum, a hinted atom counts the threads.
__global__ void hinted(const int* in, int* out, unsigned* sum, unsigned* count, uint64_t* flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t keep = fractional_last(0.5f);
  int v;
  asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(v) : "l"(in + i), "l"(keep));
  asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(out + i), "r"(3 * v + 1), "l"(keep) : "memory");
  asm volatile("red.global.add.L2::cache_hint.u32 [%0], %1, %2;" ::"l"(sum), "r"(v), "l"(keep) : "memory");
  unsigned old;
  asm volatile("atom.global.add.L2::cache_hint.u32 %0, [%1], 1, %2;" : "=r"(old) : "l"(count), "l"(keep) : "memory");
  if (old >= kN) count[1] = old;  // (never: kN threads add 1 each)
  if (i == 0) *flags = policies_differ(in);
}

// cp.async with a cache hint, then libcu++'s annotated pointers.
__global__ void staged(const int* in, int* out) {
  __shared__ __align__(16) int tile[256];
  int t = threadIdx.x, base = blockIdx.x * 256;
  uint64_t keep = fractional_last(1.0f);
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile[t]));
  asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;" ::"r"(dst), "l"(in + base + t),
               "l"(keep)
               : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  cuda::annotated_ptr<int, cuda::access_property::streaming> o(out);
  cuda::annotated_ptr<const int, cuda::access_property::persisting> p(in);
  o[base + t] = tile[255 - t] + p[base + t];
  if (t == 0) cuda::apply_access_property(in + base, 256 * sizeof(int), cuda::access_property::persisting{});
}

int main() {
  std::vector<int> in(kN);
  unsigned want_sum = 0;
  for (int i = 0; i < kN; ++i) in[i] = (i * 37) % 1000 - 500, want_sum += static_cast<unsigned>(in[i]);
  int *d_in, *d_out;
  unsigned *d_sum, *d_count;
  uint64_t* d_flags;
  CHECK(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK(cudaMalloc(&d_out, kN * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, sizeof(unsigned)));
  CHECK(cudaMalloc(&d_count, sizeof(unsigned)));
  CHECK(cudaMalloc(&d_flags, sizeof(uint64_t)));
  CHECK(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_sum, 0, sizeof(unsigned)));
  CHECK(cudaMemset(d_count, 0, sizeof(unsigned)));
  hinted<<<kN / 256, 256>>>(d_in, d_out, d_sum, d_count, d_flags);
  CHECK_LAUNCH();
  std::vector<int> out(kN);
  unsigned sum = 0, count = 0;
  uint64_t flags = 0;
  CHECK(cudaMemcpy(out.data(), d_out, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&flags, d_flags, sizeof flags, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kN; ++i) bad += out[i] != 3 * in[i] + 1;
  bad += sum != want_sum;
  bad += count != kN;
  bad += flags != 15;
  staged<<<kN / 256, 256>>>(d_in, d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, kN * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) bad += out[i] != in[i / 256 * 256 + 255 - i % 256] + in[i];
  if (flags != 15) std::printf("policy comparisons gave %llu, expected 15\n", (unsigned long long)flags);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sum));
  CHECK(cudaFree(d_count));
  CHECK(cudaFree(d_flags));
  return verdict("cache_policy", bad);
}
