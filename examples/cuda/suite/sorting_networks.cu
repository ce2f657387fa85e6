// sorting_networks: bitonic sort of 64K (key, value) pairs of uint, styled
// after the CUDA samples' sortingNetworks (bitonicSort). A chunk of
// kSharedSize = 1024 pairs lives in shared memory, one comparator per thread
// (512-thread CTAs, two pairs loaded per thread). bitonic_sort_shared sorts
// every chunk with the whole bitonic network up to size 1024, alternating the
// final direction from chunk to chunk; then, for every merge size from 2048
// to N, the strides of 1024 and above run as one bitonic_merge_global launch
// each and the strides below 1024 as one bitonic_merge_shared launch. The
// sort direction is a template parameter (the samples pass it at run time);
// every comparator swaps the key and its value together. The program sorts
// ascending then descending (28 launches each, no host synchronisation
// between them). Keys come from a small range so that there are many equal
// keys; the values are the original positions. Checked: keys ordered, values
// a permutation of 0..N-1 and key[i] == input[value[i]].
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kLog2N = 16, kN = 1 << kLog2N;
constexpr int kSharedSize = 1024;              // pairs per shared-memory chunk
constexpr int kThreads = kSharedSize / 2;      // one comparator per thread
constexpr uint kKeyRange = 1u << 13;           // 8K distinct keys for 64K pairs: many ties
static_assert(kN % kSharedSize == 0, "whole chunks only");

// Orders (keyA, valA) and (keyB, valB): ascending when dir == 1.
__device__ inline void comparator(uint& key_a, uint& val_a, uint& key_b, uint& val_b, uint dir) {
  if ((key_a > key_b) == dir) {
    uint t = key_a;
    key_a = key_b;
    key_b = t;
    t = val_a;
    val_a = val_b;
    val_b = t;
  }
}

// Sorts every chunk of kSharedSize pairs; chunk c ends up in direction
// kDir ^ (c & 1), so neighbouring chunks form bitonic sequences of 2048.
template <uint kDir>
__global__ void bitonic_sort_shared(uint* d_dst_key, uint* d_dst_val, const uint* d_src_key, const uint* d_src_val) {
  __shared__ uint s_key[kSharedSize];
  __shared__ uint s_val[kSharedSize];

  const uint base = blockIdx.x * kSharedSize + threadIdx.x;
  s_key[threadIdx.x] = d_src_key[base];
  s_val[threadIdx.x] = d_src_val[base];
  s_key[threadIdx.x + kSharedSize / 2] = d_src_key[base + kSharedSize / 2];
  s_val[threadIdx.x + kSharedSize / 2] = d_src_val[base + kSharedSize / 2];

  for (uint size = 2; size < kSharedSize; size <<= 1) {
    // Direction of the bitonic sub-sequence this comparator belongs to.
    uint ddd = kDir ^ ((threadIdx.x & (size / 2)) != 0);
    for (uint stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
    }
  }

  // Last stage of the chunk: the direction alternates between chunks.
  {
    uint ddd = kDir ^ (blockIdx.x & 1);
    for (uint stride = kSharedSize / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
    }
  }

  __syncthreads();
  d_dst_key[base] = s_key[threadIdx.x];
  d_dst_val[base] = s_val[threadIdx.x];
  d_dst_key[base + kSharedSize / 2] = s_key[threadIdx.x + kSharedSize / 2];
  d_dst_val[base + kSharedSize / 2] = s_val[threadIdx.x + kSharedSize / 2];
}

// One merge step at a stride of kSharedSize or more, straight in global
// memory: one comparator per thread, in place.
template <uint kDir>
__global__ void bitonic_merge_global(uint* d_key, uint* d_val, uint array_length, uint size, uint stride) {
  uint global_comparator = blockIdx.x * blockDim.x + threadIdx.x;
  uint comparator_i = global_comparator & (array_length / 2 - 1);
  uint ddd = kDir ^ ((comparator_i & (size / 2)) != 0);
  uint pos = 2 * global_comparator - (global_comparator & (stride - 1));

  uint key_a = d_key[pos], val_a = d_val[pos];
  uint key_b = d_key[pos + stride], val_b = d_val[pos + stride];
  comparator(key_a, val_a, key_b, val_b, ddd);
  d_key[pos] = key_a;
  d_val[pos] = val_a;
  d_key[pos + stride] = key_b;
  d_val[pos + stride] = val_b;
}

// The strides below kSharedSize of one merge size, in shared memory.
template <uint kDir>
__global__ void bitonic_merge_shared(uint* d_key, uint* d_val, uint array_length, uint size) {
  __shared__ uint s_key[kSharedSize];
  __shared__ uint s_val[kSharedSize];

  const uint base = blockIdx.x * kSharedSize + threadIdx.x;
  s_key[threadIdx.x] = d_key[base];
  s_val[threadIdx.x] = d_val[base];
  s_key[threadIdx.x + kSharedSize / 2] = d_key[base + kSharedSize / 2];
  s_val[threadIdx.x + kSharedSize / 2] = d_val[base + kSharedSize / 2];

  uint comparator_i = (blockIdx.x * blockDim.x + threadIdx.x) & (array_length / 2 - 1);
  uint ddd = kDir ^ ((comparator_i & (size / 2)) != 0);
  for (uint stride = kSharedSize / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
  }

  __syncthreads();
  d_key[base] = s_key[threadIdx.x];
  d_val[base] = s_val[threadIdx.x];
  d_key[base + kSharedSize / 2] = s_key[threadIdx.x + kSharedSize / 2];
  d_val[base + kSharedSize / 2] = s_val[threadIdx.x + kSharedSize / 2];
}

// The whole sort, host side: returns the number of launches.
template <uint kDir>
int bitonic_sort(uint* d_dst_key, uint* d_dst_val, const uint* d_src_key, const uint* d_src_val, uint array_length) {
  int launches = 0;
  uint blocks = array_length / kSharedSize;
  uint threads = kSharedSize / 2;
  bitonic_sort_shared<kDir><<<blocks, threads>>>(d_dst_key, d_dst_val, d_src_key, d_src_val);
  ++launches;
  for (uint size = 2 * kSharedSize; size <= array_length; size <<= 1) {
    for (uint stride = size / 2; stride > 0; stride >>= 1) {
      if (stride >= kSharedSize) {
        bitonic_merge_global<kDir><<<(array_length / 2) / kThreads, kThreads>>>(d_dst_key, d_dst_val, array_length,
                                                                               size, stride);
        ++launches;
      } else {
        bitonic_merge_shared<kDir><<<blocks, threads>>>(d_dst_key, d_dst_val, array_length, size);
        ++launches;
        break;
      }
    }
  }
  return launches;
}

static long check_sorted(const char* name, const std::vector<uint>& key, const std::vector<uint>& val,
                         const std::vector<uint>& in_key, bool ascending) {
  long bad = 0;
  std::vector<char> seen(kN, 0);
  for (int i = 0; i < kN; ++i) {
    if (i > 0) bad += ascending ? key[i - 1] > key[i] : key[i - 1] < key[i];
    uint v = val[i];
    if (v >= uint(kN) || seen[v]) {
      ++bad;
      continue;
    }
    seen[v] = 1;
    bad += key[i] != in_key[v];
  }
  std::printf("%-10s %s\n", name, bad ? "mismatch" : "ok");
  return bad;
}

int main() {
  std::vector<uint> key(kN), val(kN);
  XorShift32 rng(12345);
  for (int i = 0; i < kN; ++i) {
    key[i] = rng.next() % kKeyRange;
    val[i] = uint(i);
  }
  uint *d_in_key = to_device(key), *d_in_val = to_device(val);
  uint *d_out_key = device_zeros<uint>(kN), *d_out_val = device_zeros<uint>(kN);

  long bad = 0;
  float total_ms = 0;
  int launches = 0;
  std::vector<uint> out_key(kN), out_val(kN);
  for (int pass = 0; pass < 2; ++pass) {
    bool ascending = pass == 0;
    EventTimer timer;
    timer.start();
    int n = ascending ? bitonic_sort<1>(d_out_key, d_out_val, d_in_key, d_in_val, kN)
                      : bitonic_sort<0>(d_out_key, d_out_val, d_in_key, d_in_val, kN);
    CHECK(cudaGetLastError());
    float ms = timer.stop_ms();
    CHECK_LAUNCH();
    total_ms += ms;
    launches += n;
    copy_to_host(out_key, d_out_key);
    copy_to_host(out_val, d_out_val);
    bad += check_sorted(ascending ? "ascending" : "descending", out_key, out_val, key, ascending);
  }

  print_timing(total_ms, launches);
  device_free(d_in_key, d_in_val, d_out_key, d_out_val);
  return verdict("sorting_networks", bad);
}
