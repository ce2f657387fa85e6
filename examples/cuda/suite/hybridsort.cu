// Suite benchmark: hybrid sort of 262,144 floats in the style of Rodinia's
// hybridsort, a bucket sort followed by a merge sort of float4 vectors
// inside each bucket. The host picks 255 pivots from a regular sample of the
// input (every 64th value, sorted) so that the 256 buckets come out about
// equal, and puts them in __constant__ memory. `bucket_count` (128 CTAs,
// each owning 2,048 consecutive values read through a float texture object
// on linear memory) finds every value's bucket by a binary search over the
// pivots (divergent constant-memory indices) and counts it with a shared-
// memory atomicAdd, then writes its counts bucket-major; `bucket_prefix`
// (one thread per bucket) turns each bucket's row of per-CTA counts into
// offsets in place and writes the bucket sizes. The host copies the 256
// sizes back, lays the buckets out each padded to a multiple of four values
// and uploads the bucket and float4 offsets to constant memory;
// `bucket_scatter` recounts like `bucket_count` and places every value at
// its bucket's start plus its CTA's offset plus the rank the shared atomic
// returned. Then `sort_vec4` (a thread per float4, which finds its bucket by
// a binary search) fills the padding with +inf and sorts each float4 with a
// five-comparator network, and `merge_pass` runs with run lengths of 1, 2,
// 4, ... float4s until each bucket is one run: a thread per pair of
// neighbouring runs in a bucket reads them through a float4 texture object
// and merges them four values at a time (a bitonic merge of two float4s
// keeps the low half for output and the high half for the next step,
// taking the next float4 from whichever run has the smaller head); the
// host uploads each pass's thread offsets per bucket to constant memory.
// `pack` drops the padding. Exercises shared-memory atomics whose return
// values are used, 1-D float and float4 texture fetches, constant-memory
// tables indexed per thread, float4 loads and stores, min/max chains, long
// data-dependent serial loops in few threads, and a host round trip in the
// middle. Checked exactly: the result must equal std::sort of the input,
// and the bucket sizes must equal a host count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kN = 262144;
constexpr int kBuckets = 256;
constexpr int kCountThreads = 256, kPerThread = 8;
constexpr int kChunk = kCountThreads * kPerThread;  // values per counting CTA
constexpr int kCountCtas = kN / kChunk;             // 128
constexpr int kThreads = 256;                       // sort_vec4, merge_pass, pack
constexpr int kMaxVecs = kN / 4 + kBuckets;         // float4s in the padded layout, at most
constexpr int kSampleStride = 64;
static_assert(kN % kChunk == 0, "whole counting CTAs only");

__constant__ float c_pivots[kBuckets - 1];
__constant__ int c_start[kBuckets + 1];       // first value of each bucket (unpadded); [kBuckets] = kN
__constant__ int c_vec_start[kBuckets + 1];   // first float4 of each bucket (padded)
__constant__ int c_pair_start[kBuckets + 1];  // first merge_pass thread of each bucket, this pass

// ---- shared by the kernels and the host ----

// The number of pivots not above x: the bucket of x, 0 .. kBuckets - 1.
__host__ __device__ inline int bucket_of(float x, const float* pivots) {
  int lo = 0, hi = kBuckets - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (x < pivots[mid])
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// ---- device helpers ----

// The last slot whose start is not above t (starts ascending, possibly repeated).
__device__ inline int slot_of(const int* starts, int t) {
  int lo = 0, hi = kBuckets - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

__device__ inline void order(float& a, float& b) {
  float lo = fminf(a, b), hi = fmaxf(a, b);
  a = lo;
  b = hi;
}

__device__ inline void sort4(float4& v) {
  order(v.x, v.y);
  order(v.z, v.w);
  order(v.x, v.z);
  order(v.y, v.w);
  order(v.y, v.z);
}

// a and b sorted: afterwards lo holds the four smallest of the eight, hi the
// four largest, both sorted (b reversed makes a bitonic sequence).
__device__ inline void merge4(float4 a, float4 b, float4& lo, float4& hi) {
  lo = make_float4(fminf(a.x, b.w), fminf(a.y, b.z), fminf(a.z, b.y), fminf(a.w, b.x));
  hi = make_float4(fmaxf(a.x, b.w), fmaxf(a.y, b.z), fmaxf(a.z, b.y), fmaxf(a.w, b.x));
  order(lo.x, lo.z);
  order(lo.y, lo.w);
  order(lo.x, lo.y);
  order(lo.z, lo.w);
  order(hi.x, hi.z);
  order(hi.y, hi.w);
  order(hi.x, hi.y);
  order(hi.z, hi.w);
}

// ---- kernels ----

// Per-CTA bucket counts, written bucket-major: counts[bucket * kCountCtas + cta].
__global__ void bucket_count(cudaTextureObject_t values, int* counts) {
  __shared__ int s_count[kBuckets];
  int t = threadIdx.x;
  for (int b = t; b < kBuckets; b += kCountThreads) s_count[b] = 0;
  __syncthreads();
  int base = blockIdx.x * kChunk;
  for (int k = 0; k < kPerThread; ++k) {
    float x = tex1Dfetch<float>(values, base + k * kCountThreads + t);
    atomicAdd(&s_count[bucket_of(x, c_pivots)], 1);
  }
  __syncthreads();
  for (int b = t; b < kBuckets; b += kCountThreads) counts[b * kCountCtas + blockIdx.x] = s_count[b];
}

// Thread b: bucket b's per-CTA counts into exclusive offsets, and its size.
__global__ void bucket_prefix(int* counts, int* sizes) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= kBuckets) return;
  int running = 0;
  for (int c = 0; c < kCountCtas; ++c) {
    int n = counts[b * kCountCtas + c];
    counts[b * kCountCtas + c] = running;
    running += n;
  }
  sizes[b] = running;
}

// Every value to its bucket in the padded layout (same CTA split as bucket_count).
__global__ void bucket_scatter(cudaTextureObject_t values, const int* offsets, float* out) {
  __shared__ int s_fill[kBuckets];
  int t = threadIdx.x;
  for (int b = t; b < kBuckets; b += kCountThreads) s_fill[b] = 0;
  __syncthreads();
  int base = blockIdx.x * kChunk;
  for (int k = 0; k < kPerThread; ++k) {
    float x = tex1Dfetch<float>(values, base + k * kCountThreads + t);
    int b = bucket_of(x, c_pivots);
    int rank = atomicAdd(&s_fill[b], 1);
    out[4 * c_vec_start[b] + offsets[b * kCountCtas + blockIdx.x] + rank] = x;
  }
}

// Each float4 sorted; the padding at the end of a bucket becomes +inf.
__global__ void sort_vec4(float4* data, int nvecs) {
  int t = blockIdx.x * kThreads + threadIdx.x;
  if (t >= nvecs) return;
  int b = slot_of(c_vec_start, t);
  int real = c_start[b + 1] - c_start[b] - 4 * (t - c_vec_start[b]);  // values of the bucket in this float4
  float4 v = data[t];
  if (real < 4) v.w = INFINITY;
  if (real < 3) v.z = INFINITY;
  if (real < 2) v.y = INFINITY;
  sort4(v);
  data[t] = v;
}

// Thread t merges one pair of sorted runs of `run` float4s within a bucket
// (the second may be short or empty) from src into dst.
__global__ void merge_pass(cudaTextureObject_t src, float4* dst, int run, int nthreads) {
  int t = blockIdx.x * kThreads + threadIdx.x;
  if (t >= nthreads) return;
  int b = slot_of(c_pair_start, t);
  int nvecs = c_vec_start[b + 1] - c_vec_start[b];
  int first = 2 * (t - c_pair_start[b]) * run;
  int la = min(run, nvecs - first), lb = max(0, min(run, nvecs - first - la));
  int a = c_vec_start[b] + first, bb = a + la;  // the two runs
  float4* out = dst + a;
  if (lb == 0) {
    for (int i = 0; i < la; ++i) out[i] = tex1Dfetch<float4>(src, a + i);
    return;
  }
  float4 lo, hi;
  merge4(tex1Dfetch<float4>(src, a), tex1Dfetch<float4>(src, bb), lo, hi);
  out[0] = lo;
  int ia = 1, ib = 1;
  float4 next_a = tex1Dfetch<float4>(src, a + min(ia, la - 1));
  float4 next_b = tex1Dfetch<float4>(src, bb + min(ib, lb - 1));
  for (int k = 1; k < la + lb - 1; ++k) {
    bool take_a = ib == lb || (ia < la && next_a.x <= next_b.x);
    float4 in;
    if (take_a) {
      in = next_a;
      if (++ia < la) next_a = tex1Dfetch<float4>(src, a + ia);
    } else {
      in = next_b;
      if (++ib < lb) next_b = tex1Dfetch<float4>(src, bb + ib);
    }
    merge4(hi, in, lo, hi);
    out[k] = lo;
  }
  out[la + lb - 1] = hi;
}

// The padded, sorted buckets back to kN consecutive values.
__global__ void pack(const float* padded, float* out) {
  int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= kN) return;
  int b = slot_of(c_start, i);
  out[i] = padded[4 * c_vec_start[b] + i - c_start[b]];
}

// ---- host side ----

// Three quarters uniform on [0, 1000), the rest in three narrow clusters.
std::vector<float> make_values() {
  std::vector<float> v(kN);
  XorShift32 rng{0x5EED50F7u};
  const float centre[3] = {123.0f, 500.5f, 877.25f};
  for (float& x : v) {
    if (rng.next() % 4 != 0) {
      x = 1000.0f * rng.uniform();
    } else {
      float c = centre[rng.next() % 3];
      x = c + 4.0f * (rng.uniform() + rng.uniform() + rng.uniform() - 1.5f);
    }
  }
  return v;
}

cudaTextureObject_t linear_texture(void* d, size_t bytes, cudaChannelFormatDesc format) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = d;
  res.res.linear.desc = format;
  res.res.linear.sizeInBytes = bytes;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  return tex;
}

int main() {
  std::vector<float> values = make_values();
  std::vector<float> sample;
  for (int i = 0; i < kN; i += kSampleStride) sample.push_back(values[i]);
  std::sort(sample.begin(), sample.end());
  std::vector<float> pivots(kBuckets - 1);
  for (int k = 1; k < kBuckets; ++k) pivots[k - 1] = sample[size_t(k) * sample.size() / kBuckets];
  CHECK(cudaMemcpyToSymbol(c_pivots, pivots.data(), pivots.size() * sizeof(float)));

  float* d_in = to_device(values);
  int* d_counts = device_alloc<int>(kBuckets * kCountCtas);
  int* d_sizes = device_alloc<int>(kBuckets);
  float4* d_buf[2] = {device_alloc<float4>(kMaxVecs), device_alloc<float4>(kMaxVecs)};
  float* d_out = device_alloc<float>(kN);
  cudaTextureObject_t tex_in = linear_texture(d_in, kN * sizeof(float), cudaCreateChannelDesc<float>());
  cudaTextureObject_t tex_buf[2];
  for (int i = 0; i < 2; ++i)
    tex_buf[i] = linear_texture(d_buf[i], kMaxVecs * sizeof(float4), cudaCreateChannelDesc<float4>());

  std::vector<int> sizes(kBuckets), start(kBuckets + 1), vec_start(kBuckets + 1), pair_start(kBuckets + 1);
  EventTimer timer;
  int launches = 0, passes = 0;
  timer.start();
  bucket_count<<<kCountCtas, kCountThreads>>>(tex_in, d_counts);
  bucket_prefix<<<kBuckets / 128, 128>>>(d_counts, d_sizes);
  CHECK(cudaGetLastError());
  launches += 2;
  copy_to_host(sizes, d_sizes);
  int max_vecs = 0;
  start[0] = vec_start[0] = 0;
  for (int b = 0; b < kBuckets; ++b) {
    int nv = (sizes[b] + 3) / 4;
    start[b + 1] = start[b] + sizes[b];
    vec_start[b + 1] = vec_start[b] + nv;
    max_vecs = std::max(max_vecs, nv);
  }
  int nvecs = vec_start[kBuckets];
  CHECK(cudaMemcpyToSymbol(c_start, start.data(), start.size() * sizeof(int)));
  CHECK(cudaMemcpyToSymbol(c_vec_start, vec_start.data(), vec_start.size() * sizeof(int)));
  bucket_scatter<<<kCountCtas, kCountThreads>>>(tex_in, d_counts, reinterpret_cast<float*>(d_buf[0]));
  sort_vec4<<<(nvecs + kThreads - 1) / kThreads, kThreads>>>(d_buf[0], nvecs);
  CHECK(cudaGetLastError());
  launches += 2;
  int cur = 0;
  for (int run = 1; run < max_vecs; run *= 2) {
    pair_start[0] = 0;
    for (int b = 0; b < kBuckets; ++b) {
      int nv = vec_start[b + 1] - vec_start[b];
      pair_start[b + 1] = pair_start[b] + (nv + 2 * run - 1) / (2 * run);
    }
    CHECK(cudaMemcpyToSymbol(c_pair_start, pair_start.data(), pair_start.size() * sizeof(int)));
    int threads = pair_start[kBuckets];
    merge_pass<<<(threads + kThreads - 1) / kThreads, kThreads>>>(tex_buf[cur], d_buf[1 - cur], run, threads);
    CHECK(cudaGetLastError());
    ++launches;
    ++passes;
    cur = 1 - cur;
  }
  pack<<<kN / kThreads, kThreads>>>(reinterpret_cast<const float*>(d_buf[cur]), d_out);
  CHECK(cudaGetLastError());
  ++launches;
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> result(kN);
  copy_to_host(result, d_out);

  long bad = 0;
  std::vector<int> want_sizes(kBuckets, 0);
  for (float x : values) ++want_sizes[bucket_of(x, pivots.data())];
  for (int b = 0; b < kBuckets; ++b) bad += sizes[b] != want_sizes[b];
  std::vector<float> want = values;
  std::sort(want.begin(), want.end());
  for (int i = 0; i < kN; ++i) bad += result[i] != want[i];
  int min_size = *std::min_element(sizes.begin(), sizes.end()), max_size = *std::max_element(sizes.begin(), sizes.end());
  std::printf("bucket sizes %d..%d, merge passes=%d\n", min_size, max_size, passes);

  print_timing(ms, launches);
  CHECK(cudaDestroyTextureObject(tex_in));
  for (cudaTextureObject_t t : tex_buf) CHECK(cudaDestroyTextureObject(t));
  device_free(d_in, d_counts, d_sizes, d_buf[0], d_buf[1], d_out);
  return verdict("hybridsort", bad);
}
