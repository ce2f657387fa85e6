// Texture fetches through texture objects (bindless): `tex.{1d,2d,3d}.v4.
// {f32,s32,u32}.{f32,s32} d, [handle, {coords}]`. The handle register names
// an entry of the device's TextureTable; sampling is exec/texture.cpp. Each
// lane's first texel address goes to the observer (space Tex) so the timing
// model sees the memory traffic.
#include "exec/device_memory.h"
#include "exec/ops_common.h"
#include "exec/texture.h"

namespace ws::exec::emu {

namespace {

// d[0..3] results (kSigned: sign-extended); s[0] handle; s[1..3] coordinates
// (aux 1: integer texel coordinates); sub = number of coordinates.
void run_tex(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t handle = c.R[in.s[0] + l];
    const TextureObject* t = c.textures ? c.textures->find(handle) : nullptr;
    if (!t) return fault(c, in, l, "invalid texture object " + std::to_string(handle));
    TexelResult r;
    if (in.aux) {
      int32_t xyz[3] = {0, 0, 0};
      for (unsigned a = 0; a < in.sub; ++a) xyz[a] = get<int32_t>(c.R + in.s[1 + a], l);
      r = fetch(*t, *c.mem, xyz);
    } else {
      float xyz[3] = {0, 0, 0};
      for (unsigned a = 0; a < in.sub; ++a) xyz[a] = get<float>(c.R + in.s[1 + a], l);
      r = sample(*t, *c.mem, xyz);
    }
    for (unsigned v = 0; v < 4; ++v) {
      if (in.flags & kSigned) put<int32_t>(c.R + in.d[v], l, static_cast<int32_t>(r.v[v]));
      else put<uint32_t>(c.R + in.d[v], l, r.v[v]);
    }
    // Only a fetch that runs is a memory access (none: the step is an ALU op, as for ld).
    c.addrs[l] = r.first_texel;
    c.step_space = ptx::StateSpace::Tex;
    c.step_bytes = t->resource.format.texel_bytes();
  });
}

void decode_tex(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int dims = m.take_one({"1d", "2d", "3d"});
  if (dims < 0) dc.fail("only tex.1d, tex.2d and tex.3d are supported (no arrays, cubes, level or grad)");
  if (m.vec != 4) dc.fail("only .v4 texture results are supported");
  if (m.types.size() != 2) dc.fail("expected a result and a coordinate type");
  ptx::Type result = m.types[0], coord = m.types[1];
  if (result != ptx::Type::F32 && result != ptx::Type::S32 && result != ptx::Type::U32)
    dc.fail("texture results must be .f32, .s32 or .u32");
  if (coord != ptx::Type::F32 && coord != ptx::Type::S32) dc.fail("texture coordinates must be .f32 or .s32");
  if (dc.nops() != 2) dc.fail("expected `d, [tex, {coords}]`");
  const ptx::Operand& d = dc.op(0);
  if (d.kind != ptx::Operand::Kind::Vector || d.elems.size() != 4) dc.fail("expected four destinations");
  const ptx::Operand& a = dc.op(1);
  if (a.kind != ptx::Operand::Kind::Address || a.reg < 0 || a.imm != 0)
    dc.fail("the texture must be a texture-object register (no .texref variables)");
  // The parser keeps `{x, y}` as one Vector operand after the texture.
  const std::vector<ptx::Operand>& coords =
      a.elems.size() == 1 && a.elems[0].kind == ptx::Operand::Kind::Vector ? a.elems[0].elems : a.elems;
  unsigned ncoords = static_cast<unsigned>(dims) + 1;
  size_t want = ncoords == 3 ? 4 : ncoords;  // 3D coordinates are a .v4 with the last ignored
  if (coords.size() != want) dc.fail("expected " + std::to_string(want) + " coordinates");
  ptx::Operand handle;
  handle.kind = ptx::Operand::Kind::Reg;
  handle.reg = a.reg;
  out.s[0] = dc.src_operand(handle, ptx::Type::U64);
  for (unsigned i = 0; i < ncoords; ++i) out.s[1 + i] = dc.src_operand(coords[i], coord);
  for (unsigned v = 0; v < 4; ++v) out.d[v] = dc.dst_operand(d.elems[v]);
  out.ns = static_cast<uint8_t>(1 + ncoords);
  out.nd = 4;
  out.sub = static_cast<uint8_t>(ncoords);
  out.vec = 4;
  out.space = ptx::StateSpace::Tex;
  out.aux = coord == ptx::Type::S32;
  if (result == ptx::Type::S32) out.flags |= kSigned;
  out.fn = run_tex;
}

}  // namespace

void register_texture_ops(DecodeTable& t) { t["tex"] = decode_tex; }

}  // namespace ws::exec::emu
