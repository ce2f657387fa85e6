// Suite benchmark: variable-length (Huffman) encoding of 262,144 byte
// symbols, in the style of Rodinia's huffman (its VLC encoder). The host
// builds a canonical Huffman code (lengths at most 16) from the histogram of
// a skewed input; the device encodes in three launches. `vlc_codes` (256
// CTAs of 256 threads) copies the codeword and length tables into shared
// memory, lets every thread read one 32-bit word (four symbols), look up
// and concatenate their codewords into a 64-bit value, and runs a
// Hillis-Steele prefix scan of the bit lengths in shared memory; it keeps
// each thread's code, length and offset in its CTA and the CTA's total.
// `vlc_scan_blocks` (one CTA) scans the 256 CTA totals into bit offsets
// (a work-efficient up-sweep / down-sweep scan). `vlc_write` assembles each
// CTA's bits in a shared-memory word buffer aligned like the output (shared
// atomicOr, a codeword may span three words), then stores the interior
// words to the global bit stream and atomicOr's the first and last ones,
// which neighbouring CTAs share. 3 launches. Checked by decoding the stream
// on the host and comparing with the input, the total bit count, and that
// nothing is written past the end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr int kThreads = 256, kBlocks = 256;
constexpr int kWords = kThreads * kBlocks;  // input words of four symbols
constexpr int kSymbols = 4 * kWords;
constexpr int kMaxLen = 16;
constexpr int kBlockWordsMax = kThreads * 2 + 2;  // 64 bits a thread, plus the misaligned start
static_assert(kBlocks <= 1024 && (kBlocks & (kBlocks - 1)) == 0, "one CTA scans the totals");

// ---- kernels ----

__global__ void vlc_codes(const unsigned* in, const unsigned* codewords, const unsigned* lengths,
                          unsigned long long* codes, unsigned* code_len, unsigned* local_off, unsigned* block_bits) {
  __shared__ unsigned s_cw[256], s_len[256];
  __shared__ unsigned s_scan[2][kThreads];
  int t = threadIdx.x, g = blockIdx.x * kThreads + t;
  s_cw[t] = codewords[t];
  s_len[t] = lengths[t];
  __syncthreads();
  unsigned word = in[g];
  unsigned long long code = 0;
  unsigned len = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned sym = (word >> (8 * k)) & 0xFFu;
    unsigned l = s_len[sym];
    code = (code << l) | s_cw[sym];
    len += l;
  }
  codes[g] = code;
  code_len[g] = len;
  // Inclusive scan of the lengths, ping-ponging between two buffers.
  int cur = 0;
  s_scan[cur][t] = len;
  __syncthreads();
  for (int d = 1; d < kThreads; d <<= 1) {
    unsigned v = s_scan[cur][t];
    if (t >= d) v += s_scan[cur][t - d];
    s_scan[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  local_off[g] = s_scan[cur][t] - len;
  if (t == kThreads - 1) block_bits[blockIdx.x] = s_scan[cur][t];
}

// Exclusive scan of the CTA totals (Blelloch), one CTA of kBlocks / 2 threads.
__global__ void vlc_scan_blocks(const unsigned* block_bits, unsigned* block_off, unsigned* total) {
  __shared__ unsigned s[kBlocks];
  int t = threadIdx.x;
  s[2 * t] = block_bits[2 * t];
  s[2 * t + 1] = block_bits[2 * t + 1];
  int offset = 1;
  for (int d = kBlocks >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      s[bi] += s[ai];
    }
    offset <<= 1;
  }
  __syncthreads();
  if (t == 0) {
    *total = s[kBlocks - 1];
    s[kBlocks - 1] = 0;
  }
  for (int d = 1; d < kBlocks; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      unsigned tmp = s[ai];
      s[ai] = s[bi];
      s[bi] += tmp;
    }
  }
  __syncthreads();
  block_off[2 * t] = s[2 * t];
  block_off[2 * t + 1] = s[2 * t + 1];
}

// Puts `len` bits of `code` (right-aligned) at bit `pos` of a most-significant-first word array.
__device__ inline void or_bits(unsigned* words, unsigned pos, unsigned long long code, unsigned len) {
  unsigned w = pos / 32, b = pos % 32;
  while (len > 0) {
    unsigned n = min(len, 32u - b);
    unsigned chunk = unsigned(code >> (len - n)) & (n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1u));
    atomicOr(&words[w], chunk << (32u - b - n));
    len -= n;
    ++w;
    b = 0;
  }
}

__global__ void vlc_write(const unsigned long long* codes, const unsigned* code_len, const unsigned* local_off,
                          const unsigned* block_bits, const unsigned* block_off, unsigned* out) {
  __shared__ unsigned s_out[kBlockWordsMax];
  int t = threadIdx.x, g = blockIdx.x * kThreads + t;
  for (int k = t; k < kBlockWordsMax; k += kThreads) s_out[k] = 0;
  __syncthreads();
  unsigned start = block_off[blockIdx.x];
  unsigned lead = start % 32;  // the CTA's first bit inside its first output word
  or_bits(s_out, lead + local_off[g], codes[g], code_len[g]);
  __syncthreads();
  unsigned bits = block_bits[blockIdx.x];
  if (bits == 0) return;
  unsigned first = start / 32, nwords = (lead + bits + 31) / 32;
  for (unsigned k = t; k < nwords; k += kThreads) {
    if (k == 0 || k == nwords - 1)
      atomicOr(&out[first + k], s_out[k]);  // may be shared with the neighbouring CTAs
    else
      out[first + k] = s_out[k];
  }
}

// ---- host side ----

// Code lengths from symbol counts (a plain Huffman tree, ties by order).
std::vector<int> huffman_lengths(const std::vector<long>& count) {
  struct Node {
    long w;
    int left, right;
  };
  std::vector<Node> nodes;
  std::vector<int> live;
  for (int s = 0; s < 256; ++s) {
    nodes.push_back({count[s], -1, -1});
    if (count[s] > 0) live.push_back(s);
  }
  while (live.size() > 1) {
    std::stable_sort(live.begin(), live.end(), [&](int a, int b) { return nodes[a].w < nodes[b].w; });
    int a = live[0], b = live[1];
    nodes.push_back({nodes[a].w + nodes[b].w, a, b});
    live.erase(live.begin(), live.begin() + 2);
    live.push_back(int(nodes.size()) - 1);
  }
  std::vector<int> len(256, 0);
  std::vector<std::pair<int, int>> stack{{live[0], 0}};
  while (!stack.empty()) {
    auto [n, d] = stack.back();
    stack.pop_back();
    if (nodes[n].left < 0)
      len[n] = std::max(d, 1);
    else
      stack.push_back({nodes[n].left, d + 1}), stack.push_back({nodes[n].right, d + 1});
  }
  return len;
}

int main() {
  // Skewed symbols: weight 40 + 1000 exp(-s / 16), drawn by inverse CDF.
  std::vector<double> cdf(256);
  double acc = 0;
  for (int s = 0; s < 256; ++s) cdf[s] = (acc += 40.0 + 1000.0 * std::exp(-s / 16.0));
  std::vector<uint8_t> sym(kSymbols);
  XorShift32 rng{0x1234ABCDu};
  std::vector<long> count(256, 0);
  for (uint8_t& s : sym) {
    double u = rng.uniform() * acc;
    s = uint8_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    ++count[s];
  }
  std::vector<int> len = huffman_lengths(count);
  int maxlen = *std::max_element(len.begin(), len.end());
  if (maxlen > kMaxLen) {
    std::printf("code too long (%d)\n", maxlen);
    return verdict("huffman", 1);
  }
  // Canonical codewords: by length, then symbol.
  std::vector<int> order(256);
  for (int s = 0; s < 256; ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return len[a] < len[b]; });
  std::vector<unsigned> codeword(256, 0), length(256, 0);
  unsigned next = 0;
  int prev_len = 0;
  for (int s : order) {
    if (len[s] == 0) continue;
    next <<= (len[s] - prev_len);
    prev_len = len[s];
    codeword[s] = next++;
    length[s] = unsigned(len[s]);
  }
  std::vector<unsigned> in(kWords);
  std::memcpy(in.data(), sym.data(), kSymbols);  // four symbols a word, the first in the low byte

  const int out_words = kWords * 2 + 2;
  unsigned *d_in = to_device(in), *d_cw = to_device(codeword), *d_len = to_device(length);
  auto* d_codes = device_alloc<unsigned long long>(kWords);
  unsigned *d_code_len = device_alloc<unsigned>(kWords), *d_local = device_alloc<unsigned>(kWords);
  unsigned *d_block_bits = device_alloc<unsigned>(kBlocks), *d_block_off = device_alloc<unsigned>(kBlocks);
  unsigned *d_total = device_alloc<unsigned>(1), *d_out = device_zeros<unsigned>(out_words);

  EventTimer timer;
  timer.start();
  vlc_codes<<<kBlocks, kThreads>>>(d_in, d_cw, d_len, d_codes, d_code_len, d_local, d_block_bits);
  vlc_scan_blocks<<<1, kBlocks / 2>>>(d_block_bits, d_block_off, d_total);
  vlc_write<<<kBlocks, kThreads>>>(d_codes, d_code_len, d_local, d_block_bits, d_block_off, d_out);
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<unsigned> out = to_host(d_out, out_words);
  unsigned total = to_host(d_total, 1)[0];

  long bad = 0;
  unsigned long long want_bits = 0;
  for (int s = 0; s < kSymbols; ++s) want_bits += length[sym[s]];
  if (total != want_bits) {
    std::printf("total bits %u, want %llu\n", total, want_bits);
    ++bad;
  }
  // Decode: table from (length, code) to symbol.
  std::vector<std::vector<int>> lookup(kMaxLen + 1, std::vector<int>(1 << kMaxLen, -1));
  for (int s = 0; s < 256; ++s)
    if (length[s]) lookup[length[s]][codeword[s]] = s;
  unsigned long long pos = 0;
  auto bit_at = [&](unsigned long long p) { return (out[p / 32] >> (31 - p % 32)) & 1u; };
  long wrong = 0;
  for (int s = 0; s < kSymbols && pos <= want_bits; ++s) {
    unsigned code = 0;
    int got = -1;
    for (int l = 1; l <= kMaxLen; ++l) {
      code = (code << 1) | bit_at(pos++);
      if ((got = lookup[l][code]) >= 0) break;
    }
    wrong += got != sym[s];
  }
  bad += wrong;
  if (pos != want_bits) ++bad;
  for (unsigned long long p = want_bits; p < (unsigned long long)out_words * 32; ++p) bad += bit_at(p);
  std::printf("bits=%u (%.3f per symbol), max code length %d, wrong symbols %ld\n", total,
              double(total) / kSymbols, maxlen, wrong);

  print_timing(ms, 3);
  device_free(d_in, d_cw, d_len, d_codes, d_code_len, d_local, d_block_bits, d_block_off, d_total, d_out);
  return verdict("huffman", bad);
}
