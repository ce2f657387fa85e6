// Texture sampling per the CUDA programming guide's texture-fetching rules:
// coordinates are scaled to texels when normalized, point sampling takes
// floor(u), linear filtering blends the 2^dims texels around u - 0.5 with
// 9-bit fixed-point weights (per axis, and again for each texel's product of
// them), and each texel index goes through the address
// mode of its axis (wrap and mirror need normalized coordinates; otherwise
// they clamp, as on the hardware).
#include "exec/texture.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "exec/device_memory.h"
#include "exec/half.h"

namespace ws::exec {

uint64_t TextureTable::create(const TextureObject& t) {
  uint64_t h = next_++;
  objects_.emplace(h, t);
  return h;
}

bool TextureTable::destroy(uint64_t handle) { return objects_.erase(handle) > 0; }

const TextureObject* TextureTable::find(uint64_t handle) const {
  auto it = objects_.find(handle);
  return it == objects_.end() ? nullptr : &it->second;
}

int64_t texel_index(int64_t i, uint32_t n, AddressMode mode) {
  int64_t len = n;
  switch (mode) {
    case AddressMode::Wrap: return ((i % len) + len) % len;
    case AddressMode::Mirror: {
      int64_t j = ((i % (2 * len)) + 2 * len) % (2 * len);
      return j < len ? j : 2 * len - 1 - j;
    }
    case AddressMode::Border: return i >= 0 && i < len ? i : -1;
    default: return std::clamp<int64_t>(i, 0, len - 1);
  }
}

float filter_weight(float frac) { return std::nearbyint(frac * 256.0f) / 256.0f; }

// Texel weights in 1/256 steps, as an H100 forms them (an impulse texture
// sampled at 1,261 points matches exactly): per-axis weights A are rounded to
// 1/256; then, from the highest axis down, the weight W of the texels not yet
// split goes round-half-down(A * W) to the upper texel and the rest, W minus
// that, to the lower one, so every split sums exactly. (Measured in 2D; 3D
// follows the same rule.)
uint32_t split_upper(uint32_t w, uint32_t a) { return (a * w + 127) >> 8; }

namespace {

constexpr int kAxes = 3;

uint32_t axis_size(const TextureResource& r, int axis) {
  return axis == 0 ? r.width : axis == 1 ? r.height : r.depth;
}

Addr texel_address(const TextureResource& r, const int64_t idx[kAxes]) {
  return r.base + static_cast<uint64_t>(idx[2]) * r.slice_pitch + static_cast<uint64_t>(idx[1]) * r.pitch +
         static_cast<uint64_t>(idx[0]) * r.format.texel_bytes();
}

// The texel's channels: floats (when the texture returns floats) or
// integers extended to 32 bits, as raw bits. Missing channels read 0.
void decode_texel(const TextureObject& t, const uint8_t* p, uint32_t out[4]) {
  const TexelFormat& f = t.resource.format;
  bool as_float = t.returns_float();
  for (unsigned c = 0; c < 4; ++c) {
    out[c] = 0;
    if (c >= f.channels) continue;
    uint32_t raw = 0;
    std::memcpy(&raw, p + c * f.channel_bytes, f.channel_bytes);
    unsigned bits = 8u * f.channel_bytes;
    bool sign = f.kind == ChannelKind::Signed;
    int64_t value = raw;
    if (sign && bits < 32 && (raw >> (bits - 1) & 1)) value -= int64_t{1} << bits;
    if (sign && bits == 32) value = static_cast<int32_t>(raw);
    if (!as_float) {
      out[c] = static_cast<uint32_t>(value);
      continue;
    }
    float x;
    if (f.kind == ChannelKind::Float) {
      x = bits == 16 ? emu::f16_to_f32(static_cast<uint16_t>(raw)) : std::bit_cast<float>(raw);
    } else if (bits < 32) {
      double top = double((uint64_t{1} << (sign ? bits - 1 : bits)) - 1);
      x = static_cast<float>(std::max(double(value) / top, -1.0));
    } else {
      x = static_cast<float>(value);
    }
    out[c] = std::bit_cast<uint32_t>(x);
  }
}

// Reads the texel at already-addressed indices (-1 on an axis: the border colour).
void read_texel(const TextureObject& t, const DeviceMemory& mem, const int64_t idx[kAxes], uint32_t out[4],
                Addr* addr) {
  if (std::any_of(idx, idx + kAxes, [](int64_t i) { return i < 0; })) {
    for (unsigned c = 0; c < 4; ++c) {
      float b = t.sampler.border[c];
      out[c] = t.returns_float() ? std::bit_cast<uint32_t>(b) : static_cast<uint32_t>(static_cast<int32_t>(b));
    }
    return;
  }
  uint8_t buf[16] = {};
  Addr a = texel_address(t.resource, idx);
  mem.read(a, buf, t.resource.format.texel_bytes());
  if (addr && *addr == 0) *addr = a;
  decode_texel(t, buf, out);
}

AddressMode effective_mode(const Sampler& s, int axis) {
  AddressMode m = s.address[axis];
  if (!s.normalized_coords && (m == AddressMode::Wrap || m == AddressMode::Mirror)) return AddressMode::Clamp;
  return m;
}

// u in texels, made finite and kept well inside int64 range.
double texel_coord(const TextureObject& t, int axis, float coord) {
  double u = coord;
  if (t.sampler.normalized_coords) u *= axis_size(t.resource, axis);
  if (std::isnan(u)) u = 0;
  return std::clamp(u, -1e12, 1e12);
}

// The first texel read by a sample that reads only border texels is still
// some address: the texture's base, so the timing model sees one access.
TexelResult finish(TexelResult r, const TextureObject& t) {
  if (r.first_texel == 0) r.first_texel = t.resource.base;
  return r;
}

}  // namespace

TexelResult sample(const TextureObject& t, const DeviceMemory& mem, const float coords[3]) {
  const TextureResource& r = t.resource;
  TexelResult res;
  int dims = static_cast<int>(r.dims);
  if (t.sampler.filter == FilterMode::Point || !t.returns_float()) {
    int64_t idx[kAxes] = {0, 0, 0};
    for (int a = 0; a < dims; ++a)
      idx[a] = texel_index(static_cast<int64_t>(std::floor(texel_coord(t, a, coords[a]))), axis_size(r, a),
                           effective_mode(t.sampler, a));
    read_texel(t, mem, idx, res.v, &res.first_texel);
    return finish(res, t);
  }
  int64_t lo[kAxes] = {0, 0, 0};
  uint32_t w[kAxes] = {0, 0, 0};  // in 1/256
  for (int a = 0; a < dims; ++a) {
    double ub = texel_coord(t, a, coords[a]) - 0.5;
    double fl = std::floor(ub);
    lo[a] = static_cast<int64_t>(fl);
    w[a] = static_cast<uint32_t>(std::nearbyint(static_cast<float>(ub - fl) * 256.0f));
  }
  float acc[4] = {0, 0, 0, 0};
  for (unsigned corner = 0; corner < (1u << dims); ++corner) {
    int64_t idx[kAxes] = {0, 0, 0};
    uint32_t weight = 256;
    for (int a = dims - 1; a >= 0; --a) {
      bool hi = corner >> a & 1;
      idx[a] = texel_index(lo[a] + hi, axis_size(r, a), effective_mode(t.sampler, a));
      uint32_t upper = split_upper(weight, w[a]);
      weight = hi ? upper : weight - upper;
    }
    uint32_t v[4];
    read_texel(t, mem, idx, v, &res.first_texel);
    for (unsigned c = 0; c < 4; ++c) acc[c] += static_cast<float>(weight) / 256.0f * std::bit_cast<float>(v[c]);
  }
  for (unsigned c = 0; c < 4; ++c) res.v[c] = std::bit_cast<uint32_t>(acc[c]);
  return finish(res, t);
}

TexelResult fetch(const TextureObject& t, const DeviceMemory& mem, const int32_t coords[3]) {
  const TextureResource& r = t.resource;
  TexelResult res;
  int64_t idx[kAxes] = {0, 0, 0};
  for (int a = 0; a < static_cast<int>(r.dims); ++a) {
    uint32_t n = axis_size(r, a);
    if (r.linear && (coords[a] < 0 || static_cast<uint32_t>(coords[a]) >= n)) return finish(res, t);
    AddressMode m = t.sampler.address[a];
    idx[a] = texel_index(coords[a], n, m == AddressMode::Border ? m : AddressMode::Clamp);
  }
  read_texel(t, mem, idx, res.v, &res.first_texel);
  return finish(res, t);
}

}  // namespace ws::exec
