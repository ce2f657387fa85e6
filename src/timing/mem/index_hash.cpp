#include "timing/mem/index_hash.h"

#include <array>
#include <mutex>

namespace ws::timing {

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint32_t log2_exact(uint64_t v) {
  uint32_t n = 0;
  while ((uint64_t{1} << n) < v) ++n;
  return n;
}

namespace {

// Plain modulo: consecutive lines go to consecutive buckets, but a stride that
// is a multiple of the bucket count lands every access in one bucket.
class LinearHash : public IndexHash {
 public:
  explicit LinearHash(uint32_t buckets) : buckets_(buckets) {}
  uint32_t map(uint64_t block) const override { return static_cast<uint32_t>(block % buckets_); }

 private:
  uint32_t buckets_;
};

// Folds every n-bit chunk of the block number together with XOR, so higher
// address bits perturb the index; cheap, but not conflict-free for all strides.
class XorHash : public IndexHash {
 public:
  explicit XorHash(uint32_t buckets) : bits_(log2_exact(buckets)), mask_(buckets - 1) {}
  uint32_t map(uint64_t block) const override {
    if (bits_ == 0) return 0;
    uint64_t acc = 0;
    for (; block != 0; block >>= bits_) acc ^= block;
    return static_cast<uint32_t>(acc & mask_);
  }

 private:
  uint32_t bits_;
  uint64_t mask_;
};

// IPOLY: the block number, read as a polynomial over GF(2), modulo an
// irreducible polynomial P of degree n = log2(buckets). Multiplying by x^k is
// invertible modulo P, so 2^n blocks at any power-of-two stride 2^k hit 2^n
// distinct buckets. P(x) for degree n (primitive trinomials/pentanomials):
//   1: x+1  2: x^2+x+1  3: x^3+x+1  4: x^4+x+1  5: x^5+x^2+1  6: x^6+x+1
//   7: x^7+x+1  8: x^8+x^4+x^3+x^2+1  9: x^9+x^4+1  10: x^10+x^3+1
//   11: x^11+x^2+1  12: x^12+x^6+x^4+x+1  13: x^13+x^4+x^3+x+1
//   14: x^14+x^10+x^6+x+1  15: x^15+x+1  16: x^16+x^12+x^3+x+1
class IpolyHash : public IndexHash {
 public:
  explicit IpolyHash(uint32_t buckets) : by_byte_(table(log2_exact(buckets))) {}
  uint32_t map(uint64_t block) const override {
    uint32_t acc = 0;
    for (uint32_t byte = 0; block != 0; ++byte, block >>= 8) acc ^= by_byte_[byte][block & 0xff];
    return acc;
  }

 private:
  using ByteTable = std::array<std::array<uint32_t, 256>, 8>;
  static constexpr std::array<uint64_t, 17> kPolys = {0x1,   0x3,   0x7,   0xB,    0x13,   0x25,  0x43,
                                                      0x83,  0x11D, 0x211, 0x409,  0x805,  0x1053, 0x201B,
                                                      0x4443, 0x8003, 0x1100B};
  // One table per degree, built on first use and shared by every cache of
  // that many sets (a GPU has one per SM: building them was a tenth of
  // building the GPU, and sharing keeps one copy in the host's caches).
  static const ByteTable& table(uint32_t bits) {
    static std::array<std::once_flag, kPolys.size()> once;
    static std::array<ByteTable, kPolys.size()> tables;
    std::call_once(once[bits], [bits] { build(bits, tables[bits]); });
    return tables[bits];
  }
  static void build(uint32_t bits, ByteTable& out) {
    // remainder[i] = x^i mod P, so a block's remainder is the XOR of the
    // remainders of its set bits (one table walk instead of long division).
    std::array<uint64_t, 64> remainder{};
    uint64_t p = kPolys[bits];
    uint64_t r = 1;
    for (uint32_t i = 0; i < 64; ++i) {
      remainder[i] = bits == 0 ? 0 : r;
      r <<= 1;
      if (bits != 0 && (r >> bits) & 1) r ^= p;
    }
    // The remainder is linear over GF(2): tabulate it per byte of the block.
    for (uint32_t byte = 0; byte < 8; ++byte)
      for (uint32_t v = 0; v < 256; ++v) {
        uint64_t acc = 0;
        for (uint32_t b = 0; b < 8; ++b)
          if (v >> b & 1) acc ^= remainder[byte * 8 + b];
        out[byte][v] = static_cast<uint32_t>(acc);
      }
  }
  const ByteTable& by_byte_;
};

// IPOLY for a bucket count that is not a power of two (A100's 80 and H100's
// 160 L2 slices): block = stripe x N + r. Each stripe of N consecutive blocks
// still covers every bucket once (consecutive lines on consecutive slices, and
// a slice's lines differ in their stripe number, as the L2 set index and the
// DRAM address map assume), but is rotated by the IPOLY remainder of its
// stripe number (degree 16), so strides that are multiples of N, or resonate
// with it, no longer land on the same few buckets at once.
class RotatedIpolyHash : public IndexHash {
 public:
  explicit RotatedIpolyHash(uint32_t buckets) : buckets_(buckets), stripe_hash_(1u << 16) {}
  uint32_t map(uint64_t block) const override {
    uint64_t stripe = block / buckets_;
    uint64_t r = block - stripe * buckets_;
    return static_cast<uint32_t>((r + stripe_hash_.map(stripe)) % buckets_);
  }

 private:
  uint32_t buckets_;
  IpolyHash stripe_hash_;
};

std::unique_ptr<IndexHash> make_ipoly(uint32_t n) {
  if (is_pow2(n)) return std::make_unique<IpolyHash>(n);
  return std::make_unique<RotatedIpolyHash>(n);
}

const PluginRegistrar<IndexHash, uint32_t> kLinearReg{
    "linear", "block modulo bucket count", [](uint32_t n) { return std::make_unique<LinearHash>(n); }};
const PluginRegistrar<IndexHash, uint32_t> kXorReg{
    "xor", "XOR-fold of all block-number bits", [](uint32_t n) { return std::make_unique<XorHash>(n); }};
const PluginRegistrar<IndexHash, uint32_t> kIpolyReg{
    "ipoly",
    "irreducible-polynomial modulus (any other count: stripes of N blocks rotated by the IPOLY hash of the stripe)",
    make_ipoly};

}  // namespace

std::unique_ptr<IndexHash> make_index_hash(const std::string& param, const std::string& name, uint32_t buckets) {
  if (buckets == 0) throw ConfigError(param, "needs at least one bucket");
  if (name == "xor" && !is_pow2(buckets))
    throw ConfigError(param, "'" + name + "' needs a power-of-two bucket count, got " + std::to_string(buckets));
  if (name == "ipoly" && buckets > (1u << 16)) throw ConfigError(param, "ipoly supports at most 65536 buckets");
  return IndexHashRegistry::instance().create(param, name, buckets);
}

}  // namespace ws::timing
