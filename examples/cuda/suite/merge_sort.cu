// merge_sort: stable ascending sort of 64K (key, value) pairs of uint,
// styled after the CUDA samples' mergeSort. Stage one, merge_sort_shared:
// 512-thread CTAs sort tiles of kSharedSize = 1024 pairs in shared memory by
// merge sort, two pairs per thread; at every run length from 1 to 512 each
// pair finds its place in the merged run with a binary search of the
// neighbouring run (strictly-less count for the left run, less-or-equal
// count for the right run, which keeps equal keys in input order), with
// __syncthreads between the searches and the scattered writes. Stage two,
// for every run length L from 1024 to N / 2, three launches:
//   generate_sample_ranks   - every kSampleStride-th key of both runs of a
//                             pair is a sample; one thread per sample ranks
//                             it in the other run (binary search in global
//                             memory), giving a split point (a, b) of the
//                             merged output;
//   merge_ranks_and_indices - one thread per sample orders the split points
//                             (a binary search of its own index among the
//                             other run's ranks) into the limits arrays;
//   merge_elementary_intervals - one 128-thread CTA per interval between two
//                             consecutive split points (at most 128 keys from
//                             each run) merges it in shared memory with
//                             binary searches and writes it out coalesced.
// Ping-pong buffers, 1 + 3 x 6 = 19 launches per sort, no host
// synchronisation between them. Two inputs: keys from a small range (many
// equal keys, the stability test) and full 32-bit keys. Values are the
// original positions. Checked: keys ascending, values a permutation with
// key[i] == input[value[i]], and equal keys in increasing value order.
#include <utility>
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kLog2N = 16, kN = 1 << kLog2N;
constexpr int kSharedSize = 1024;  // pairs per tile sorted by stage one
constexpr int kSortThreads = kSharedSize / 2;
constexpr int kSampleStride = 128;  // one sample every kSampleStride keys of a run
constexpr int kSamples = kN / kSampleStride;
constexpr int kRankThreads = 128;
constexpr uint kSmallKeyRange = 1u << 12;  // 4K distinct keys for 64K pairs
static_assert(kN % kSharedSize == 0 && kSharedSize % kSampleStride == 0, "whole tiles and samples only");
static_assert(kSamples % kRankThreads == 0, "whole CTAs of samples");

// Smallest power of two >= n (n >= 1).
__host__ __device__ inline uint next_pow2(uint n) {
  uint p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Number of entries of the ascending data[0, len) that are < key
// (kInclusive false) or <= key (kInclusive true). pow2 >= len is a power of
// two; the search keeps pos such that data[0, pos) all qualify.
template <bool kInclusive>
__device__ inline uint binary_rank(uint key, const uint* data, uint len, uint pow2) {
  if (len == 0) return 0;
  uint pos = 0;
  for (uint step = pow2; step > 0; step >>= 1) {
    uint next = min(pos + step, len);
    uint v = data[next - 1];
    if (kInclusive ? (v <= key) : (v < key)) pos = next;
  }
  return pos;
}

// ---- stage one: tiles of kSharedSize pairs ----

__global__ void __launch_bounds__(kSortThreads)
    merge_sort_shared(uint* d_dst_key, uint* d_dst_val, const uint* d_src_key, const uint* d_src_val) {
  __shared__ uint s_key[kSharedSize];
  __shared__ uint s_val[kSharedSize];

  const uint base = blockIdx.x * kSharedSize;
  for (uint i = threadIdx.x; i < kSharedSize; i += kSortThreads) {
    s_key[i] = d_src_key[base + i];
    s_val[i] = d_src_val[base + i];
  }

  for (uint run = 1; run < kSharedSize; run <<= 1) {
    __syncthreads();
    uint key[2], val[2], dst[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      uint pos = threadIdx.x + k * kSortThreads;
      uint r = pos / run;                // run holding this pair
      uint pair_base = (r & ~1u) * run;  // first pair of the two runs being merged
      uint in_run = pos - r * run;
      key[k] = s_key[pos];
      val[k] = s_val[pos];
      if ((r & 1) == 0)  // left run: before the right run's equal keys
        dst[k] = pair_base + in_run + binary_rank<false>(key[k], s_key + pair_base + run, run, run);
      else  // right run: after the left run's equal keys
        dst[k] = pair_base + in_run + binary_rank<true>(key[k], s_key + pair_base, run, run);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      s_key[dst[k]] = key[k];
      s_val[dst[k]] = val[k];
    }
  }

  __syncthreads();
  for (uint i = threadIdx.x; i < kSharedSize; i += kSortThreads) {
    d_dst_key[base + i] = s_key[i];
    d_dst_val[base + i] = s_val[i];
  }
}

// ---- stage two: merging runs of length run into runs of 2 * run ----

// Sample t of the pair t / (2 * run / kSampleStride): the first half of a
// pair's samples come from the left run A, the second half from the right
// run B. d_rank_a / d_rank_b hold the split point: how many keys of A and of
// B precede the sample in the merged output.
__global__ void generate_sample_ranks(uint* d_rank_a, uint* d_rank_b, const uint* d_key, uint run) {
  uint t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kSamples) return;
  const uint per_run = run / kSampleStride, per_pair = 2 * per_run;
  const uint pair = t / per_pair, s = t - pair * per_pair;
  const uint* a = d_key + pair * 2 * run;
  const uint* b = a + run;
  if (s < per_run) {
    uint i = s * kSampleStride;
    d_rank_a[t] = i;
    d_rank_b[t] = binary_rank<false>(a[i], b, run, run);  // B keys strictly below
  } else {
    uint j = (s - per_run) * kSampleStride;
    d_rank_a[t] = binary_rank<true>(b[j], a, run, run);  // A keys up to and including
    d_rank_b[t] = j;
  }
}

// Orders the split points of each pair. Split point of A sample i comes
// after the B samples j whose rank in A is <= i * stride; that of B sample j
// after the A samples i whose rank in B is <= j * stride.
__global__ void merge_ranks_and_indices(uint* d_limit_a, uint* d_limit_b, const uint* d_rank_a, const uint* d_rank_b,
                                        uint run) {
  uint t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kSamples) return;
  const uint per_run = run / kSampleStride, per_pair = 2 * per_run;
  const uint pair = t / per_pair, s = t - pair * per_pair;
  const uint first = pair * per_pair;
  const uint pow2 = next_pow2(per_run);
  uint dst;
  if (s < per_run) {
    // The B samples' ranks in A are ascending: count those <= i * stride.
    dst = s + binary_rank<true>(d_rank_a[t], d_rank_a + first + per_run, per_run, pow2);
  } else {
    dst = (s - per_run) + binary_rank<true>(d_rank_b[t], d_rank_b + first, per_run, pow2);
  }
  d_limit_a[first + dst] = d_rank_a[t];
  d_limit_b[first + dst] = d_rank_b[t];
}

// One CTA per elementary interval: A[a0, a1) and B[b0, b1), each at most
// kSampleStride keys, merged into output positions a0 + b0 onwards.
__global__ void __launch_bounds__(kSampleStride)
    merge_elementary_intervals(uint* d_dst_key, uint* d_dst_val, const uint* d_src_key, const uint* d_src_val,
                               const uint* d_limit_a, const uint* d_limit_b, uint run) {
  __shared__ uint s_key[2 * kSampleStride];
  __shared__ uint s_val[2 * kSampleStride];
  __shared__ uint s_out_key[2 * kSampleStride];
  __shared__ uint s_out_val[2 * kSampleStride];

  const uint per_pair = 2 * run / kSampleStride;
  const uint pair = blockIdx.x / per_pair, k = blockIdx.x - pair * per_pair;
  const uint interval = blockIdx.x;
  const uint a0 = d_limit_a[interval], b0 = d_limit_b[interval];
  const uint a1 = k + 1 < per_pair ? d_limit_a[interval + 1] : run;
  const uint b1 = k + 1 < per_pair ? d_limit_b[interval + 1] : run;
  const uint len_a = a1 - a0, len_b = b1 - b0;
  const uint pair_base = pair * 2 * run;

  // A's slice in s_key[0, len_a), B's in s_key[kSampleStride, + len_b).
  uint t = threadIdx.x;
  if (t < len_a) {
    s_key[t] = d_src_key[pair_base + a0 + t];
    s_val[t] = d_src_val[pair_base + a0 + t];
  }
  if (t < len_b) {
    s_key[kSampleStride + t] = d_src_key[pair_base + run + b0 + t];
    s_val[kSampleStride + t] = d_src_val[pair_base + run + b0 + t];
  }
  __syncthreads();

  if (t < len_a) {
    uint key = s_key[t];
    uint dst = t + binary_rank<false>(key, s_key + kSampleStride, len_b, kSampleStride);
    s_out_key[dst] = key;
    s_out_val[dst] = s_val[t];
  }
  if (t < len_b) {
    uint key = s_key[kSampleStride + t];
    uint dst = t + binary_rank<true>(key, s_key, len_a, kSampleStride);
    s_out_key[dst] = key;
    s_out_val[dst] = s_val[kSampleStride + t];
  }
  __syncthreads();

  const uint out_base = pair_base + a0 + b0, len = len_a + len_b;
  for (uint i = t; i < len; i += kSampleStride) {
    d_dst_key[out_base + i] = s_out_key[i];
    d_dst_val[out_base + i] = s_out_val[i];
  }
}

// The whole sort: d_buf_* are the ping-pong buffers; returns the number of
// launches and sets *in_buf_a when the result ends in d_buf_a.
static int merge_sort(uint* d_buf_a_key, uint* d_buf_a_val, uint* d_buf_b_key, uint* d_buf_b_val, const uint* d_src_key,
                      const uint* d_src_val, uint* d_rank_a, uint* d_rank_b, uint* d_limit_a, uint* d_limit_b,
                      bool* in_buf_a) {
  int launches = 0;
  merge_sort_shared<<<kN / kSharedSize, kSortThreads>>>(d_buf_a_key, d_buf_a_val, d_src_key, d_src_val);
  ++launches;
  uint *src_key = d_buf_a_key, *src_val = d_buf_a_val, *dst_key = d_buf_b_key, *dst_val = d_buf_b_val;
  for (uint run = kSharedSize; run < uint(kN); run <<= 1) {
    generate_sample_ranks<<<kSamples / kRankThreads, kRankThreads>>>(d_rank_a, d_rank_b, src_key, run);
    merge_ranks_and_indices<<<kSamples / kRankThreads, kRankThreads>>>(d_limit_a, d_limit_b, d_rank_a, d_rank_b, run);
    merge_elementary_intervals<<<kSamples, kSampleStride>>>(dst_key, dst_val, src_key, src_val, d_limit_a, d_limit_b,
                                                            run);
    launches += 3;
    std::swap(src_key, dst_key);
    std::swap(src_val, dst_val);
  }
  *in_buf_a = src_key == d_buf_a_key;
  return launches;
}

static long check_sorted(const char* name, const std::vector<uint>& key, const std::vector<uint>& val,
                         const std::vector<uint>& in_key) {
  long order = 0, perm = 0, stable = 0;
  std::vector<char> seen(kN, 0);
  for (int i = 0; i < kN; ++i) {
    if (i > 0) {
      order += key[i - 1] > key[i];
      stable += key[i - 1] == key[i] && val[i - 1] > val[i];
    }
    uint v = val[i];
    if (v >= uint(kN) || seen[v]) {
      ++perm;
      continue;
    }
    seen[v] = 1;
    perm += key[i] != in_key[v];
  }
  std::printf("%-8s order %s, permutation %s, stability %s\n", name, order ? "WRONG" : "ok", perm ? "WRONG" : "ok",
              stable ? "WRONG" : "ok");
  return order + perm + stable;
}

int main() {
  std::vector<uint> val(kN);
  for (int i = 0; i < kN; ++i) val[i] = uint(i);
  uint* d_in_val = to_device(val);
  uint* d_in_key = device_alloc<uint>(kN);
  uint *d_a_key = device_zeros<uint>(kN), *d_a_val = device_zeros<uint>(kN);
  uint *d_b_key = device_zeros<uint>(kN), *d_b_val = device_zeros<uint>(kN);
  uint *d_rank_a = device_zeros<uint>(kSamples), *d_rank_b = device_zeros<uint>(kSamples);
  uint *d_limit_a = device_zeros<uint>(kSamples), *d_limit_b = device_zeros<uint>(kSamples);

  long bad = 0;
  float total_ms = 0;
  int launches = 0;
  std::vector<uint> key(kN), out_key(kN), out_val(kN);
  XorShift32 rng(271828);
  for (int input = 0; input < 2; ++input) {
    const bool small = input == 0;
    for (uint& k : key) k = small ? rng.next() % kSmallKeyRange : rng.next();
    copy_to_device(d_in_key, key);

    bool in_a = false;
    EventTimer timer;
    timer.start();
    launches += merge_sort(d_a_key, d_a_val, d_b_key, d_b_val, d_in_key, d_in_val, d_rank_a, d_rank_b, d_limit_a,
                           d_limit_b, &in_a);
    CHECK(cudaGetLastError());
    total_ms += timer.stop_ms();
    CHECK_LAUNCH();

    copy_to_host(out_key, in_a ? d_a_key : d_b_key);
    copy_to_host(out_val, in_a ? d_a_val : d_b_val);
    bad += check_sorted(small ? "ties" : "full", out_key, out_val, key);
  }

  print_timing(total_ms, launches);
  device_free(d_in_key, d_in_val, d_a_key, d_a_val, d_b_key, d_b_val, d_rank_a, d_rank_b, d_limit_a, d_limit_b);
  return verdict("merge_sort", bad);
}
