// Texture objects: cudaCreateTextureObject turns a resource descriptor
// (linear buffer, pitch2D, array) and a texture descriptor into an entry of
// the device's TextureTable; the kernel receives the entry's handle.
#include "cudart/runtime.h"

using ws::cudart::api_call;
using ws::cudart::Runtime;
namespace exec = ws::exec;

namespace ws::cudart {

std::optional<exec::TexelFormat> texel_format(const cudaChannelFormatDesc& d) {
  int bits[4] = {d.x, d.y, d.z, d.w};
  int n = 0;
  while (n < 4 && bits[n] > 0) ++n;
  for (int i = n; i < 4; ++i)
    if (bits[i] != 0) return std::nullopt;
  for (int i = 1; i < n; ++i)
    if (bits[i] != bits[0]) return std::nullopt;
  if ((n != 1 && n != 2 && n != 4) || (bits[0] != 8 && bits[0] != 16 && bits[0] != 32)) return std::nullopt;
  exec::TexelFormat f;
  switch (d.f) {
    case cudaChannelFormatKindSigned: f.kind = exec::ChannelKind::Signed; break;
    case cudaChannelFormatKindUnsigned: f.kind = exec::ChannelKind::Unsigned; break;
    case cudaChannelFormatKindFloat:
      if (bits[0] == 8) return std::nullopt;
      f.kind = exec::ChannelKind::Float;
      break;
    default: return std::nullopt;
  }
  f.channels = static_cast<uint8_t>(n);
  f.channel_bytes = static_cast<uint8_t>(bits[0] / 8);
  return f;
}

}  // namespace ws::cudart

namespace {

bool on_device(Runtime& rt, const void* p, uint64_t bytes) {
  return rt.device().memory().find(reinterpret_cast<ws::Addr>(p), bytes ? bytes : 1).has_value();
}

// The texels a resource descriptor names; an error when it names none.
cudaError_t resource_of(Runtime& rt, const cudaResourceDesc& d, exec::TextureResource& r) {
  std::optional<exec::TexelFormat> f;
  switch (d.resType) {
    case cudaResourceTypeArray: {
      const ws::cudart::ArrayRecord* a = rt.array(d.res.array.array);
      if (!a) return cudaErrorInvalidResourceHandle;
      f = ws::cudart::texel_format(a->desc);
      r.base = a->base, r.pitch = a->pitch;
      r.dims = a->extent.height ? 2 : 1;
      r.width = static_cast<uint32_t>(a->extent.width), r.height = static_cast<uint32_t>(a->rows());
      break;
    }
    case cudaResourceTypeLinear: {
      const auto& l = d.res.linear;
      f = ws::cudart::texel_format(l.desc);
      if (!f || !on_device(rt, l.devPtr, l.sizeInBytes)) return cudaErrorInvalidValue;
      r.base = reinterpret_cast<ws::Addr>(l.devPtr);
      r.dims = 1, r.linear = true;
      r.width = static_cast<uint32_t>(l.sizeInBytes / f->texel_bytes());
      break;
    }
    case cudaResourceTypePitch2D: {
      const auto& p = d.res.pitch2D;
      f = ws::cudart::texel_format(p.desc);
      if (!f || p.width == 0 || p.height == 0 || p.pitchInBytes < p.width * f->texel_bytes() ||
          !on_device(rt, p.devPtr, p.pitchInBytes * (p.height - 1) + p.width * f->texel_bytes()))
        return cudaErrorInvalidValue;
      r.base = reinterpret_cast<ws::Addr>(p.devPtr), r.pitch = p.pitchInBytes;
      r.dims = 2, r.width = static_cast<uint32_t>(p.width), r.height = static_cast<uint32_t>(p.height);
      break;
    }
    default: return cudaErrorNotSupported;  // mipmapped arrays
  }
  if (!f) return cudaErrorInvalidChannelDescriptor;
  if (r.width == 0) return cudaErrorInvalidValue;
  r.format = *f;
  r.slice_pitch = r.pitch * r.height;
  return cudaSuccess;
}

exec::AddressMode address_mode(cudaTextureAddressMode m) {
  switch (m) {
    case cudaAddressModeWrap: return exec::AddressMode::Wrap;
    case cudaAddressModeMirror: return exec::AddressMode::Mirror;
    case cudaAddressModeBorder: return exec::AddressMode::Border;
    default: return exec::AddressMode::Clamp;
  }
}

cudaError_t sampler_of(const cudaTextureDesc& d, const exec::TexelFormat& f, exec::Sampler& s) {
  for (int a = 0; a < 3; ++a) s.address[a] = address_mode(d.addressMode[a]);
  s.filter = d.filterMode == cudaFilterModeLinear ? exec::FilterMode::Linear : exec::FilterMode::Point;
  s.normalized_coords = d.normalizedCoords != 0;
  bool int_channels = f.kind != exec::ChannelKind::Float;
  s.normalized_read = d.readMode == cudaReadModeNormalizedFloat && int_channels;
  // Normalized reads exist for 8- and 16-bit integers only; integer results cannot be filtered.
  if (s.normalized_read && f.channel_bytes == 4) return cudaErrorInvalidValue;
  if (s.filter == exec::FilterMode::Linear && int_channels && !s.normalized_read) return cudaErrorInvalidValue;
  for (int c = 0; c < 4; ++c) s.border[c] = d.borderColor[c];
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* tex, const cudaResourceDesc* res,
                                    const cudaTextureDesc* desc, const cudaResourceViewDesc* view) {
  return api_call("cudaCreateTextureObject", [&](Runtime& rt) {
    if (tex == nullptr || res == nullptr || desc == nullptr) return cudaErrorInvalidValue;
    if (view != nullptr) return cudaErrorNotSupported;
    exec::TextureObject t;
    if (cudaError_t e = resource_of(rt, *res, t.resource); e != cudaSuccess) return e;
    if (cudaError_t e = sampler_of(*desc, t.resource.format, t.sampler); e != cudaSuccess) return e;
    *tex = rt.device().textures().create(t);
    rt.textures()[*tex] = ws::cudart::TextureRecord{*res, *desc};
    return cudaSuccess;
  });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  return api_call("cudaDestroyTextureObject", [&](Runtime& rt) {
    if (tex == 0) return cudaSuccess;
    if (!rt.device().textures().destroy(tex)) return cudaErrorInvalidValue;
    rt.textures().erase(tex);
    return cudaSuccess;
  });
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* res, cudaTextureObject_t tex) {
  return api_call("cudaGetTextureObjectResourceDesc", [&](Runtime& rt) {
    auto it = rt.textures().find(tex);
    if (it == rt.textures().end() || res == nullptr) return cudaErrorInvalidValue;
    *res = it->second.resource;
    return cudaSuccess;
  });
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* desc, cudaTextureObject_t tex) {
  return api_call("cudaGetTextureObjectTextureDesc", [&](Runtime& rt) {
    auto it = rt.textures().find(tex);
    if (it == rt.textures().end() || desc == nullptr) return cudaErrorInvalidValue;
    *desc = it->second.texture;
    return cudaSuccess;
  });
}

}  // extern "C"
