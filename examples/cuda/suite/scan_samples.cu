// scan_samples: exclusive prefix sum of 1M uint, styled after the CUDA
// samples' scan (scanExclusiveShared / scanExclusiveShared2 /
// uniformUpdate) with the warp-shuffle scan of the samples' shfl_scan as an
// alternative. Level one: 256-thread CTAs, each thread loads a uint4 (four
// consecutive elements), scans them serially and the 256 per-thread totals
// are scanned across the CTA, so a CTA scans 1024 elements. Level two: one
// CTA gathers the 1024 CTA totals (last exclusive result plus last input of
// each CTA) and scans them the same way. Level three: uniformUpdate adds
// each CTA's scanned total to its 256 uint4. The CTA-wide scan of the
// per-thread totals comes in three versions, each run as the whole
// three-launch pipeline:
//   shared   - Hillis-Steele over a zero-padded shared array of 2 x 256 with
//              __syncthreads between the read and the write of each step;
//   shuffle  - __shfl_up_sync inclusive scan in each warp, the warp totals
//              through shared memory, scanned by the first warp with
//              __shfl_up_sync again;
//   volatile - the legacy warp-synchronous form: a volatile shared array
//              per warp, s[pos] += s[pos - offset] with no barrier inside
//              the warp (relies on the warp executing in lock step, as old
//              public codes do), warp totals combined as in shuffle.
// Checked exactly against a host exclusive scan.
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kThreadblockSize = 256;
constexpr int kElemsPerBlock = 4 * kThreadblockSize;  // 1024
constexpr int kN = 1024 * 1024;
constexpr int kBlocks = kN / kElemsPerBlock;  // 1024 CTA totals for level two
constexpr int kLogWarpSize = 5, kWarpSize = 1 << kLogWarpSize;
constexpr int kWarps = kThreadblockSize / kWarpSize;
static_assert(kBlocks == kElemsPerBlock, "level two scans the CTA totals in a single CTA");

enum Variant { kShared = 0, kShuffle = 1, kVolatile = 2 };

// ---- CTA-wide inclusive scan of one uint per thread ----

// Hillis-Steele in shared memory: s_data holds 2 * size entries, the lower
// half of each thread's window is zero padding.
__device__ inline uint scan1_inclusive_shared(uint idata, volatile uint* s_data, uint size) {
  uint pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  s_data[pos] = 0;
  pos += size;
  s_data[pos] = idata;
  for (uint offset = 1; offset < size; offset <<= 1) {
    __syncthreads();
    uint t = s_data[pos] + s_data[pos - offset];
    __syncthreads();
    s_data[pos] = t;
  }
  return s_data[pos];
}

__device__ inline uint warp_scan_inclusive_shfl(uint v) {
  const uint lane = threadIdx.x & (kWarpSize - 1);
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset <<= 1) {
    uint n = __shfl_up_sync(0xFFFFFFFFu, v, offset);
    if (lane >= offset) v += n;
  }
  return v;
}

// Legacy warp-synchronous scan: each warp owns 2 * 32 volatile entries.
__device__ inline uint warp_scan_inclusive_volatile(uint idata, volatile uint* s_warp) {
  const uint lane = threadIdx.x & (kWarpSize - 1);
  uint pos = lane + kWarpSize;
  s_warp[lane] = 0;
  s_warp[pos] = idata;
  for (uint offset = 1; offset < kWarpSize; offset <<= 1) s_warp[pos] += s_warp[pos - offset];
  return s_warp[pos];
}

template <int kVariant>
__device__ inline uint scan1_inclusive(uint idata, uint* s_data) {
  if (kVariant == kShared) return scan1_inclusive_shared(idata, s_data, kThreadblockSize);

  const uint lane = threadIdx.x & (kWarpSize - 1), warp = threadIdx.x >> kLogWarpSize;
  uint* s_totals = s_data + 2 * kThreadblockSize;  // kWarps entries after the per-warp windows
  uint v = kVariant == kShuffle ? warp_scan_inclusive_shfl(idata)
                                : warp_scan_inclusive_volatile(idata, s_data + warp * 2 * kWarpSize);
  if (lane == kWarpSize - 1) s_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    uint t = lane < kWarps ? s_totals[lane] : 0;
    t = kVariant == kShuffle ? warp_scan_inclusive_shfl(t) : warp_scan_inclusive_volatile(t, s_data);
    if (lane < kWarps) s_totals[lane] = t;  // inclusive warp totals
  }
  __syncthreads();
  uint result = v + (warp > 0 ? s_totals[warp - 1] : 0);
  __syncthreads();  // s_data is reused by the caller's next scan
  return result;
}

// Exclusive scan of the four elements a thread holds, across the CTA.
template <int kVariant>
__device__ inline uint4 scan4_exclusive(uint4 idata4, uint* s_data) {
  // Serial inclusive scan of the thread's own four elements.
  idata4.y += idata4.x;
  idata4.z += idata4.y;
  idata4.w += idata4.z;
  // Exclusive scan of the per-thread totals.
  uint oval = scan1_inclusive<kVariant>(idata4.w, s_data) - idata4.w;
  uint4 odata4;
  odata4.x = oval;
  odata4.y = oval + idata4.x;
  odata4.z = oval + idata4.y;
  odata4.w = oval + idata4.z;
  return odata4;
}

// Shared memory for every variant: 2 entries per thread plus the warp totals.
constexpr int kSharedWords = 2 * kThreadblockSize + kWarps;

template <int kVariant>
__global__ void scan_exclusive_shared(uint4* d_dst, const uint4* d_src) {
  __shared__ uint s_data[kSharedWords];
  uint pos = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 idata4 = d_src[pos];
  d_dst[pos] = scan4_exclusive<kVariant>(idata4, s_data);
}

// Level two: the exclusive scan of the CTA totals of level one, in one CTA.
template <int kVariant>
__global__ void scan_exclusive_shared2(uint* d_buf, const uint* d_dst, const uint* d_src, uint blocks) {
  __shared__ uint s_data[kSharedWords];
  uint4 idata4;
  uint* v = reinterpret_cast<uint*>(&idata4);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    uint b = 4 * threadIdx.x + k;
    v[k] = b < blocks ? d_dst[(b + 1) * kElemsPerBlock - 1] + d_src[(b + 1) * kElemsPerBlock - 1] : 0;
  }
  uint4 odata4 = scan4_exclusive<kVariant>(idata4, s_data);
  const uint* o = reinterpret_cast<const uint*>(&odata4);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    uint b = 4 * threadIdx.x + k;
    if (b < blocks) d_buf[b] = o[k];
  }
}

// Level three: adds each CTA's offset to its 1024 elements.
__global__ void uniform_update(uint4* d_data, const uint* d_buffer) {
  __shared__ uint buf;
  uint pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) buf = d_buffer[blockIdx.x];
  __syncthreads();
  uint4 data4 = d_data[pos];
  data4.x += buf;
  data4.y += buf;
  data4.z += buf;
  data4.w += buf;
  d_data[pos] = data4;
}

template <int kVariant>
void scan_exclusive(uint* d_dst, const uint* d_src, uint* d_buf) {
  scan_exclusive_shared<kVariant><<<kBlocks, kThreadblockSize>>>(reinterpret_cast<uint4*>(d_dst),
                                                                 reinterpret_cast<const uint4*>(d_src));
  scan_exclusive_shared2<kVariant><<<1, kThreadblockSize>>>(d_buf, d_dst, d_src, kBlocks);
  uniform_update<<<kBlocks, kThreadblockSize>>>(reinterpret_cast<uint4*>(d_dst), d_buf);
}

int main() {
  std::vector<uint> in(kN), want(kN);
  XorShift32 rng(31337);
  for (uint& e : in) e = rng.next() >> 22;  // [0, 1024)
  uint sum = 0;
  for (int i = 0; i < kN; ++i) {
    want[i] = sum;
    sum += in[i];
  }

  uint* d_src = to_device(in);
  uint* d_dst = device_zeros<uint>(kN);
  uint* d_buf = device_zeros<uint>(kBlocks);

  const char* names[] = {"shared", "shuffle", "volatile"};
  long bad = 0;
  float total_ms = 0;
  int launches = 0;
  std::vector<uint> got(kN);
  for (int variant = 0; variant < 3; ++variant) {
    CHECK(cudaMemset(d_dst, 0, kN * sizeof(uint)));
    EventTimer timer;
    timer.start();
    if (variant == kShared) scan_exclusive<kShared>(d_dst, d_src, d_buf);
    if (variant == kShuffle) scan_exclusive<kShuffle>(d_dst, d_src, d_buf);
    if (variant == kVolatile) scan_exclusive<kVolatile>(d_dst, d_src, d_buf);
    CHECK(cudaGetLastError());
    float ms = timer.stop_ms();
    CHECK_LAUNCH();
    total_ms += ms;
    launches += 3;
    copy_to_host(got, d_dst);
    long wrong = 0;
    int first = -1;
    for (int i = 0; i < kN; ++i)
      if (got[i] != want[i]) {
        if (first < 0) first = i;
        ++wrong;
      }
    std::printf("%-9s %s", names[variant], wrong ? "mismatch" : "ok");
    if (wrong) std::printf(" (%ld wrong, first at %d: got %u want %u)", wrong, first, got[first], want[first]);
    std::printf("\n");
    bad += wrong;
  }

  print_timing(total_ms, launches);
  device_free(d_src, d_dst, d_buf);
  return verdict("scan_samples", bad);
}
