// simple_zero_copy: a vector add whose kernel reads and writes host memory
// directly (zero copy), styled after the CUDA samples' simpleZeroCopy. The
// program sets cudaDeviceMapHost, checks canMapHostMemory, and runs the
// same 1M-float c = a + b kernel (256-thread CTAs, one element per thread)
// on two kinds of mapped host memory:
//   host_alloc - cudaHostAlloc(cudaHostAllocMapped), the device pointers
//                from cudaHostGetDevicePointer;
//   register   - page-aligned malloc'ed buffers page-locked and mapped with
//                cudaHostRegister(cudaHostRegisterMapped), device pointers
//                again from cudaHostGetDevicePointer, unregistered after.
// No cudaMemcpy anywhere: the host fills a and b in place, the kernel's
// stores land in c, and after cudaDeviceSynchronize the host reads c.
// Checked exactly (one float addition per element) for both variants.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr int kN = 1 << 20;
constexpr int kThreads = 256;
constexpr size_t kBytes = size_t(kN) * sizeof(float);
constexpr size_t kPage = 4096;

__global__ void vector_add_mapped(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Fills the inputs in place, clears the output, runs the kernel on the
// mapped pointers and checks c on the host; adds the kernel time to *ms.
static long run_variant(const char* name, float* a, float* b, float* c, float* ms) {
  Lcg rng{1357};
  for (int i = 0; i < kN; ++i) {
    a[i] = rng.uniform();
    b[i] = rng.uniform();
  }
  std::memset(c, 0, kBytes);

  float *d_a, *d_b, *d_c;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_a), a, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_b), b, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_c), c, 0));

  EventTimer timer;
  timer.start();
  vector_add_mapped<<<(kN + kThreads - 1) / kThreads, kThreads>>>(d_c, d_a, d_b, kN);
  CHECK(cudaGetLastError());
  *ms += timer.stop_ms();
  CHECK_LAUNCH();

  long wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += c[i] != a[i] + b[i];
  std::printf("%-10s %s\n", name, wrong ? "mismatch" : "ok");
  return wrong;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (!prop.canMapHostMemory) {
    std::printf("device cannot map host memory\n");
    return verdict("simple_zero_copy", 1);
  }
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

  long bad = 0;
  float ms = 0;
  int launches = 0;

  // Variant 1: cudaHostAlloc'd mapped memory.
  {
    float *a, *b, *c;
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&a), kBytes, cudaHostAllocMapped));
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&b), kBytes, cudaHostAllocMapped));
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&c), kBytes, cudaHostAllocMapped));
    bad += run_variant("host_alloc", a, b, c, &ms);
    ++launches;
    CHECK(cudaFreeHost(a));
    CHECK(cudaFreeHost(b));
    CHECK(cudaFreeHost(c));
  }

  // Variant 2: page-aligned malloc'ed memory, registered and mapped.
  {
    float* buf[3];
    for (float*& p : buf) {
      p = static_cast<float*>(std::aligned_alloc(kPage, kBytes));  // kBytes is a whole number of pages
      if (!p) {
        std::printf("aligned_alloc failed\n");
        return verdict("simple_zero_copy", 1);
      }
      CHECK(cudaHostRegister(p, kBytes, cudaHostRegisterMapped));
    }
    bad += run_variant("register", buf[0], buf[1], buf[2], &ms);
    ++launches;
    for (float* p : buf) {
      CHECK(cudaHostUnregister(p));
      std::free(p);
    }
  }

  print_timing(ms, launches);
  return verdict("simple_zero_copy", bad);
}
