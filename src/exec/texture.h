// Texture objects as the device sees them: what a handle names (texels in
// device memory, their format and layout) and how they are sampled
// (addressing, filtering, read mode), following the texture-fetching rules
// of the CUDA programming guide. The runtime fills the table; `tex`
// instructions look handles up and sample through sample()/fetch().
#pragma once
#include <cstdint>
#include <map>

#include "common/types.h"

namespace ws::exec {

class DeviceMemory;

enum class ChannelKind : uint8_t { Signed, Unsigned, Float };

// Every channel has the same size; 2-byte Float channels are IEEE halves.
struct TexelFormat {
  ChannelKind kind = ChannelKind::Float;
  uint8_t channels = 1;       // 1, 2 or 4
  uint8_t channel_bytes = 4;  // 1, 2 or 4
  uint32_t texel_bytes() const { return uint32_t{channels} * channel_bytes; }
};

enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border };
enum class FilterMode : uint8_t { Point, Linear };

// Texels at base + z * slice_pitch + y * pitch + x * texel_bytes.
struct TextureResource {
  Addr base = 0;
  uint32_t dims = 1;  // 1, 2 or 3
  uint32_t width = 1, height = 1, depth = 1;
  uint64_t pitch = 0, slice_pitch = 0;
  bool linear = false;  // a 1D buffer: integer fetches outside it read zero
  TexelFormat format;
};

struct Sampler {
  AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  FilterMode filter = FilterMode::Point;
  bool normalized_coords = false;
  bool normalized_read = false;  // 8/16-bit integer channels read as floats in [0,1] or [-1,1]
  float border[4] = {0, 0, 0, 0};
};

struct TextureObject {
  TextureResource resource;
  Sampler sampler;
  // Whether fetches return floats (float channels, or the normalized read mode).
  bool returns_float() const {
    return resource.format.kind == ChannelKind::Float || sampler.normalized_read;
  }
};

// One fetch: four 32-bit channels (float bits when the texture returns
// floats; missing channels read 0) and the address of the first texel read,
// which the timing model sees as the lane's access.
struct TexelResult {
  uint32_t v[4] = {0, 0, 0, 0};
  Addr first_texel = 0;
};

// Handles are small integers from 1, never reused (0 is never valid).
class TextureTable {
 public:
  uint64_t create(const TextureObject& t);
  bool destroy(uint64_t handle);
  const TextureObject* find(uint64_t handle) const;
  void clear() { objects_.clear(); }

 private:
  std::map<uint64_t, TextureObject> objects_;
  uint64_t next_ = 1;
};

// Texel index `i` of an axis of `n` texels under `mode`; -1 when it falls
// outside and the mode is Border.
int64_t texel_index(int64_t i, uint32_t n, AddressMode mode);
// A linear-filtering weight as the hardware keeps it: 9-bit fixed point with
// 8 fractional bits (rounded to nearest).
float filter_weight(float frac);
// Samples at float coordinates (normalized or in texels, per the sampler).
TexelResult sample(const TextureObject& t, const DeviceMemory& mem, const float coords[3]);
// Reads the texel at integer coordinates (no filtering, no normalization).
TexelResult fetch(const TextureObject& t, const DeviceMemory& mem, const int32_t coords[3]);

}  // namespace ws::exec
