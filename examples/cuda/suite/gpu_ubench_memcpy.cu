// gpu_ubench_memcpy: cudaMemcpy bandwidth in the style of the public
// bandwidth tests: host-to-device and device-to-host from pageable (malloc)
// and page-locked (cudaMallocHost) host memory, for copies of 1 KB to 64 MB
// (powers of four), and device-to-device. Each size is copied kReps times
// (fewer for the large ones) between two events on the legacy stream; the
// figures are microseconds per copy and GB/s (10^9 bytes a second).
// Bounds: a V100 sits on PCIe 3.0 x16 (15.75 GB/s raw per direction; about
// 12-13 GB/s reached from page-locked memory, less from pageable memory,
// which the driver stages through a page-locked buffer); a small copy costs
// microseconds whatever its size. A device-to-device copy reads and writes
// device memory: at most half of the 870 GB/s DRAM peak each way.
// The self-check: every byte of each copy's destination after its last
// repetition (the source holds a different pattern per size and direction).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr size_t kMaxBytes = size_t(64) << 20;

int reps_for(size_t bytes) { return bytes <= (size_t(1) << 20) ? 8 : (bytes <= (size_t(16) << 20) ? 2 : 1); }

void pattern(unsigned char* p, size_t n, unsigned seed) {
  uint32_t s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<unsigned char>(s >> 24);
  }
}

// us per copy of `bytes` of kind from src to dst, kReps times between events.
float time_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int reps) {
  EventTimer timer;
  timer.start();
  for (int r = 0; r < reps; ++r) CHECK(cudaMemcpy(dst, src, bytes, kind));
  return timer.stop_ms() * 1000.0f / float(reps);
}

int main() {
  unsigned char* pageable_src = static_cast<unsigned char*>(std::malloc(kMaxBytes));
  unsigned char* pageable_dst = static_cast<unsigned char*>(std::malloc(kMaxBytes));
  unsigned char *pinned_src, *pinned_dst;
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned_src), kMaxBytes));
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned_dst), kMaxBytes));
  unsigned char* dev_a = device_alloc<unsigned char>(kMaxBytes);
  unsigned char* dev_b = device_alloc<unsigned char>(kMaxBytes);
  if (!pageable_src || !pageable_dst) {
    std::printf("FAIL\n");
    return 1;
  }
  long bad = 0;
  float total_ms = 0.0f;
  std::vector<unsigned char> check(kMaxBytes);
  unsigned seed = 1;
  for (size_t bytes = 1024; bytes <= kMaxBytes; bytes *= 4) {
    const int reps = reps_for(bytes);
    const size_t kb = bytes / 1024;
    struct Case {
      const char* name;
      unsigned char* host_src;
      unsigned char* host_dst;
    } cases[] = {{"pageable", pageable_src, pageable_dst}, {"pinned", pinned_src, pinned_dst}};
    for (const Case& c : cases) {
      // host to device: dev_a gets host_src's pattern
      pattern(c.host_src, bytes, seed);
      float h2d = time_copy(dev_a, c.host_src, bytes, cudaMemcpyHostToDevice, reps);
      CHECK(cudaMemcpy(check.data(), dev_a, bytes, cudaMemcpyDeviceToHost));
      bad += std::memcmp(check.data(), c.host_src, bytes) != 0;
      // device to host: host_dst gets dev_a's pattern
      std::memset(c.host_dst, 0, bytes);
      float d2h = time_copy(c.host_dst, dev_a, bytes, cudaMemcpyDeviceToHost, reps);
      bad += std::memcmp(c.host_dst, c.host_src, bytes) != 0;
      total_ms += (h2d + d2h) * reps / 1000.0f;
      std::printf("h2d_%s_%zukb_us=%.2f\n", c.name, kb, h2d);
      std::printf("h2d_%s_%zukb_gbps=%.3f\n", c.name, kb, bytes / (h2d * 1e-6) / 1e9);
      std::printf("d2h_%s_%zukb_us=%.2f\n", c.name, kb, d2h);
      std::printf("d2h_%s_%zukb_gbps=%.3f\n", c.name, kb, bytes / (d2h * 1e-6) / 1e9);
      ++seed;
    }
    // device to device: dev_b gets dev_a's pattern (the pinned source's)
    float d2d = time_copy(dev_b, dev_a, bytes, cudaMemcpyDeviceToDevice, reps);
    CHECK(cudaMemcpy(check.data(), dev_b, bytes, cudaMemcpyDeviceToHost));
    bad += std::memcmp(check.data(), pinned_src, bytes) != 0;
    total_ms += d2d * reps / 1000.0f;
    std::printf("d2d_%zukb_us=%.2f\n", kb, d2d);
    std::printf("d2d_%zukb_gbps=%.3f\n", kb, bytes / (d2d * 1e-6) / 1e9);
  }
  std::free(pageable_src);
  std::free(pageable_dst);
  CHECK(cudaFreeHost(pinned_src));
  CHECK(cudaFreeHost(pinned_dst));
  device_free(dev_a, dev_b);
  print_timing(total_ms, 0);
  return verdict("gpu_ubench_memcpy", bad);
}
