// Tensor-core instructions: wmma.load/store/mma, mma.sync, ldmatrix and
// stmatrix. Fragment layouts and the arithmetic live in tensor_fragments;
// here are the decoders (which shapes and types exist) and the handlers.
// Fragments are longer than DecodedInst's operand arrays: an instruction's
// registers sit in its function's reg_lists, preceded by their counts.
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "exec/ops_common.h"
#include "exec/tensor_fragments.h"

namespace ws::exec::emu {

namespace {

using namespace tensor;
using Space = ptx::StateSpace;

constexpr unsigned kMaxRegs = 16;  // registers in one fragment operand

Elem elem_of(Decoder& dc, ptx::Type t) {
  switch (t) {
    case ptx::Type::F16: case ptx::Type::F16x2: return Elem::F16;
    case ptx::Type::BF16: case ptx::Type::BF16x2: return Elem::BF16;
    case ptx::Type::TF32: return Elem::TF32;
    case ptx::Type::F32: return Elem::F32;
    case ptx::Type::F64: return Elem::F64;
    case ptx::Type::S8: return Elem::S8;
    case ptx::Type::U8: return Elem::U8;
    case ptx::Type::S32: return Elem::S32;
    default: dc.fail("unsupported element type for a matrix instruction");
  }
}

// Takes the .mMnNkK word; false when there is none.
bool take_shape(Mods& m, unsigned& mm, unsigned& nn, unsigned& kk) {
  for (size_t i = 0; i < m.words.size(); ++i) {
    if (m.used[i]) continue;
    char tail = 0;
    if (std::sscanf(m.words[i].c_str(), "m%un%uk%u%c", &mm, &nn, &kk, &tail) == 3) return m.used[i] = true, true;
  }
  return false;
}

std::string shape_text(unsigned m, unsigned n, unsigned k) {
  return ".m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
}

// Shapes the PTX ISA defines for an input element type.
bool wmma_shape_ok(Elem in, unsigned m, unsigned n, unsigned k) {
  if (in == Elem::TF32) return m == 16 && n == 16 && k == 8;
  if (in == Elem::F64) return m == 8 && n == 8 && k == 4;
  return k == 16 && ((m == 16 && n == 16) || (m == 32 && n == 8) || (m == 8 && n == 32));
}

bool mma_shape_ok(Elem in, unsigned m, unsigned n, unsigned k) {
  if (m == 8) return n == 8 && k == 4 && (in == Elem::F64 || in == Elem::F16);
  if (m != 16 || n != 8) return false;
  switch (in) {
    case Elem::F16: case Elem::BF16: return k == 16 || k == 8;
    case Elem::TF32: return k == 8 || k == 4;
    case Elem::S8: case Elem::U8: return k == 32 || k == 16;
    default: return false;
  }
}

// The registers of operand `i` (a {..} list or one register).
std::vector<uint32_t> operand_regs(Decoder& dc, size_t i, bool dst) {
  const ptx::Operand& o = dc.op(i);
  std::vector<ptx::Operand> elems = o.kind == ptx::Operand::Kind::Vector ? o.elems : std::vector{o};
  if (elems.empty() || elems.size() > kMaxRegs) dc.fail("bad fragment operand " + std::to_string(i + 1));
  std::vector<uint32_t> regs;
  for (const ptx::Operand& e : elems) regs.push_back(dst ? dc.dst_operand(e) : dc.src_operand(e, ptx::Type::B32));
  return regs;
}

// Fragment slots in `regs` registers of `f`, checked against the shape.
unsigned fragment_slots(Decoder& dc, const FragSpec& f, size_t nregs, const char* what) {
  unsigned slots = static_cast<unsigned>(nregs) * elems_per_reg(f.elem), u = f.unique_per_lane();
  bool ok = f.family == Family::MmaSync ? slots == u : slots >= u && slots % u == 0;
  if (!ok) dc.fail(std::string("wrong register count for fragment ") + what);
  return slots;
}

// --- wmma.load / wmma.store ---

uint64_t lane_base(Ctx& c, const DecodedInst& in, unsigned lane) {
  uint64_t a = c.R[in.s[0] + lane] + static_cast<uint64_t>(in.imm);
  if (in.flags & kFrameLocal) a += c.w->frames.back().local_base;
  return a;
}

const uint32_t* reg_list(const Ctx& c, const DecodedInst& in) {
  return c.w->frames.back().fn->reg_lists.data() + in.aux;
}

// The part of the matrix lane `l` stands for in the timing model: the
// footprint cut into 32 equal chunks in memory order, so that the LD/ST
// unit sees every sector the instruction touches.
uint64_t timing_chunk(const FragSpec& f, uint64_t base, uint64_t stride, unsigned lane, unsigned& chunk) {
  unsigned bytes = elem_bits(f.elem) / 8;
  unsigned line_elems = f.col_major ? f.rows() : f.cols();
  unsigned line = line_elems * bytes, total = f.rows() * f.cols() * bytes;
  chunk = total / 32;
  if (chunk == 0 || line % chunk != 0) chunk = bytes;
  uint64_t at = uint64_t{lane} * chunk % total;
  return base + at / line * stride * bytes + at % line;
}

template <bool Store>
void run_wmma_move(Ctx& c, const DecodedInst& in, uint32_t m) {
  FragSpec f = FragSpec::unpack(in.target);
  const uint32_t* list = reg_list(c, in);
  unsigned nregs = list[0], bytes = elem_bits(f.elem) / 8, slots = nregs * elems_per_reg(f.elem);
  uint64_t* regs[kMaxRegs];
  for (unsigned r = 0; r < nregs; ++r) regs[r] = c.R + list[1 + r];
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t base = lane_base(c, in, l), stride = static_cast<uint32_t>(c.R[in.s[1] + l]);
    for (unsigned s = 0; s < slots; ++s) {
      Coord at = coord(f, l, s);
      uint64_t off = f.col_major ? uint64_t{at.col} * stride + at.row : uint64_t{at.row} * stride + at.col;
      uint64_t addr = base + off * bytes;
      Space sp = in.space;
      uint8_t* p = space_ptr(c, in, sp, addr, bytes, l);
      if (!p) return;
      uint64_t bits = 0;
      if constexpr (Store) {
        bits = slot_bits(f.elem, regs, l, s);
        std::memcpy(p, &bits, bytes);
      } else {
        std::memcpy(&bits, p, bytes);
        set_slot_bits(f.elem, regs, l, s, bits);
      }
    }
    unsigned chunk = 0;
    uint64_t addr = timing_chunk(f, base, stride, l, chunk);
    Space sp = in.space;
    if (!space_ptr(c, in, sp, addr, bytes, l)) return;
    c.addrs[l] = addr, c.step_space = sp, c.step_bytes = chunk;
  });
}

template <bool Store>
void decode_wmma_move(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int which = Store ? (m.take("d") ? 2 : -1) : m.take_one({"a", "b", "c"});
  if (which < 0) dc.fail(Store ? "wmma.store needs .d" : "wmma.load needs .a, .b or .c");
  int layout = m.take_one({"row", "col"});
  if (layout < 0) dc.fail("missing .row or .col");
  unsigned mm, nn, kk;
  if (!take_shape(m, mm, nn, kk)) dc.fail("missing shape");
  FragSpec f;
  f.m = uint8_t(mm), f.n = uint8_t(nn), f.k = uint8_t(kk);
  f.op = Operand(which);
  f.elem = elem_of(dc, dc.type());
  f.col_major = layout == 1;
  Elem input = f.op == Operand::C ? (f.elem == Elem::S32 ? Elem::S8 : f.elem == Elem::F64 ? Elem::F64 : Elem::F16) : f.elem;
  if (mm == 16 && nn == 16 && kk == 8 && f.op == Operand::C && f.elem == Elem::F32) input = Elem::TF32;
  if (!wmma_shape_ok(input, mm, nn, kk)) dc.fail("unsupported wmma shape " + shape_text(mm, nn, kk));
  if (dc.nops() < 2 || dc.nops() > 3) dc.fail("expected two or three operands");
  std::vector<uint32_t> regs = operand_regs(dc, Store ? 1 : 0, !Store);
  fragment_slots(dc, f, regs.size(), Store ? "d" : "a/b/c");
  dc.address(Store ? 0 : 1, out, 0);
  // Without a stride operand rows (columns) are packed: the leading dimension is their length.
  out.s[1] = dc.nops() == 3 ? dc.src(2, ptx::Type::U32) : dc.constant(f.col_major ? f.rows() : f.cols());
  regs.insert(regs.begin(), static_cast<uint32_t>(regs.size()));
  out.aux = dc.reg_list(regs);
  out.target = f.pack();
  out.space = m.space == Space::None ? Space::Generic : m.space;
  out.fn = run_wmma_move<Store>;
}

// --- wmma.mma / mma.sync ---

void run_mma(Ctx& c, const DecodedInst& in, uint32_t m) {
  const uint32_t* list = reg_list(c, in);
  MmaOperands o;
  o.a = FragSpec::unpack(static_cast<uint32_t>(in.imm));
  o.b = FragSpec::unpack(static_cast<uint32_t>(static_cast<uint64_t>(in.imm) >> 32));
  o.c = FragSpec::unpack(in.target);
  o.d = o.c;
  o.d.elem = Elem(in.sub);
  o.satfinite = in.flags & kSatFinite;
  const uint64_t* ra[kMaxRegs];
  const uint64_t* rb[kMaxRegs];
  const uint64_t* rc[kMaxRegs];
  uint64_t* rd[kMaxRegs];
  const uint32_t* r = list + 4;
  for (unsigned i = 0; i < list[0]; ++i) ra[i] = c.R + *r++;
  for (unsigned i = 0; i < list[1]; ++i) rb[i] = c.R + *r++;
  for (unsigned i = 0; i < list[2]; ++i) rc[i] = c.R + *r++;
  for (unsigned i = 0; i < list[3]; ++i) rd[i] = c.R + *r++;
  o.ra = ra, o.rb = rb, o.rc = rc, o.rd = rd;
  o.na = list[0] * elems_per_reg(o.a.elem), o.nb = list[1] * elems_per_reg(o.b.elem);
  o.nc = list[2] * elems_per_reg(o.c.elem), o.nd = list[3] * elems_per_reg(o.d.elem);
  warp_mma(o, m);
}

// Both forms: d, a, b, c register lists; `types` is d, a, b, c. `col` says
// which of A and B are column-major (mma.m8n8k4 f16 fragments depend on it).
void finish_mma_decode(Decoder& dc, DecodedInst& out, Family fam, unsigned mm, unsigned nn, unsigned kk,
                       const Elem (&types)[4], std::pair<bool, bool> col = {false, true}) {
  auto spec = [&](Operand op, Elem e) {
    FragSpec f;
    f.m = uint8_t(mm), f.n = uint8_t(nn), f.k = uint8_t(kk), f.op = op, f.elem = e, f.family = fam;
    return f;
  };
  FragSpec a = spec(Operand::A, types[1]), b = spec(Operand::B, types[2]), cs = spec(Operand::C, types[3]);
  a.col_major = col.first, b.col_major = col.second;
  FragSpec d = spec(Operand::C, types[0]);
  if (dc.nops() != 4) dc.fail("expected four operands");
  std::vector<uint32_t> rd = operand_regs(dc, 0, true), ra = operand_regs(dc, 1, false);
  std::vector<uint32_t> rb = operand_regs(dc, 2, false), rc = operand_regs(dc, 3, false);
  fragment_slots(dc, a, ra.size(), "a");
  fragment_slots(dc, b, rb.size(), "b");
  fragment_slots(dc, cs, rc.size(), "c");
  fragment_slots(dc, d, rd.size(), "d");
  std::vector<uint32_t> list = {uint32_t(ra.size()), uint32_t(rb.size()), uint32_t(rc.size()), uint32_t(rd.size())};
  for (const auto* v : {&ra, &rb, &rc, &rd}) list.insert(list.end(), v->begin(), v->end());
  out.aux = dc.reg_list(list);
  out.imm = static_cast<int64_t>(uint64_t{a.pack()} | uint64_t{b.pack()} << 32);
  out.target = cs.pack();
  out.sub = static_cast<uint8_t>(types[0]);
  if (dc.mods().take("satfinite")) out.flags |= kSatFinite;
  out.fn = run_mma;
}

// Float inputs need float accumulators, integer inputs s32 ones.
void check_mma_types(Decoder& dc, const Elem (&t)[4]) {
  bool int_in = is_integer(t[1]);
  if (is_integer(t[2]) != int_in) dc.fail("mixed integer and float inputs");
  for (Elem acc : {t[0], t[3]}) {
    bool ok = int_in ? acc == Elem::S32
                     : (t[1] == Elem::F16 ? acc == Elem::F16 || acc == Elem::F32
                                          : acc == (t[1] == Elem::F64 ? Elem::F64 : Elem::F32));
    if (!ok) dc.fail("unsupported accumulator type for these inputs");
  }
  if (!int_in && t[1] != t[2]) dc.fail("a and b types differ");
}

void decode_wmma_mma(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (m.take_one({"row", "col"}) < 0 || m.take_one({"row", "col"}) < 0) dc.fail("missing .row/.col layouts");
  unsigned mm, nn, kk;
  if (!take_shape(m, mm, nn, kk)) dc.fail("missing shape");
  Elem t[4];
  if (m.types.size() == 2) {  // .dtype.ctype with f16 inputs
    t[0] = elem_of(dc, m.types[0]), t[1] = t[2] = Elem::F16, t[3] = elem_of(dc, m.types[1]);
  } else if (m.types.size() == 4) {
    for (int i = 0; i < 4; ++i) t[i] = elem_of(dc, m.types[i]);
  } else {
    dc.fail("expected two or four types");
  }
  if (!wmma_shape_ok(t[1], mm, nn, kk)) dc.fail("unsupported wmma shape " + shape_text(mm, nn, kk));
  check_mma_types(dc, t);
  finish_mma_decode(dc, out, Family::Wmma, mm, nn, kk, t);
}

void decode_wmma(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  m.take("sync");
  if (m.take("load")) return decode_wmma_move<false>(dc, out);
  if (m.take("store")) return decode_wmma_move<true>(dc, out);
  if (m.take("mma")) return decode_wmma_mma(dc, out);
  dc.fail("unsupported wmma operation");
}

// The .alayout and .blayout words in the order written: true for .col.
std::optional<std::pair<bool, bool>> take_layouts(Mods& m) {
  std::vector<bool> col;
  for (size_t i = 0; i < m.words.size() && col.size() < 2; ++i)
    if (!m.used[i] && (m.words[i] == "row" || m.words[i] == "col")) {
      m.used[i] = true;
      col.push_back(m.words[i] == "col");
    }
  if (col.size() != 2) return std::nullopt;
  return std::pair<bool, bool>{col[0], col[1]};
}

void decode_mma(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (!m.take("sync")) dc.fail("only mma.sync is supported");
  unsigned mm, nn, kk;
  if (!take_shape(m, mm, nn, kk)) dc.fail("missing shape");
  auto layouts = take_layouts(m);
  if (!layouts) dc.fail("missing .alayout/.blayout (.row/.col)");
  if (m.types.size() != 4) dc.fail("expected .dtype.atype.btype.ctype");
  Elem t[4];
  for (int i = 0; i < 4; ++i) t[i] = elem_of(dc, m.types[i]);
  if (!mma_shape_ok(t[1], mm, nn, kk))
    dc.fail("unsupported mma.sync shape " + shape_text(mm, nn, kk) + " for these types");
  // Only Volta's f16 m8n8k4 takes any layout; the others are .row.col.
  bool any_layout = mm == 8 && t[1] == Elem::F16;
  if (!any_layout && *layouts != std::pair<bool, bool>{false, true})
    dc.fail("mma.sync " + shape_text(mm, nn, kk) + " supports the .row.col layouts only");
  check_mma_types(dc, t);
  finish_mma_decode(dc, out, Family::MmaSync, mm, nn, kk, t, *layouts);
}

// --- ldmatrix / stmatrix (m8n8, b16) ---

// Row addresses: lane 8i + r gives row r of matrix i. Lanes past the last
// matrix report a used row again, so the timing model sees no extra sector.
template <bool Store>
void run_matrix_move(Ctx& c, const DecodedInst& in, uint32_t m) {
  const uint32_t* list = reg_list(c, in);
  unsigned num = list[0], providers = 8 * num;
  bool trans = in.sub;
  uint16_t rows[32][8] = {};
  uint8_t* ptrs[32] = {};
  for (unsigned j = 0; j < providers; ++j) {
    if (!(m >> j & 1)) continue;
    uint64_t addr = lane_base(c, in, j);
    Space sp = in.space;
    ptrs[j] = space_ptr(c, in, sp, addr, 16, j);
    if (!ptrs[j]) return;
    if (!Store) std::memcpy(rows[j], ptrs[j], 16);
    c.step_space = sp;
    c.addrs[j] = addr;
  }
  for (unsigned l = 0; l < 32; ++l) c.addrs[l] = c.addrs[l % providers];
  c.step_bytes = 16;
  // Register i of lane l holds row l/4, columns 2(l%4) and +1 of matrix i (transposed with .trans).
  auto element = [&](unsigned i, unsigned l, unsigned half) -> uint16_t& {
    unsigned r = l / 4, col = 2 * (l % 4) + half;
    return trans ? rows[8 * i + col][r] : rows[8 * i + r][col];
  };
  for (unsigned i = 0; i < num; ++i) {
    uint64_t* reg = c.R + list[1 + i];
    each_lane(m, [&](unsigned l) {
      if constexpr (Store) {
        element(i, l, 0) = static_cast<uint16_t>(reg[l]);
        element(i, l, 1) = static_cast<uint16_t>(reg[l] >> 16);
      } else {
        reg[l] = uint64_t{element(i, l, 0)} | uint64_t{element(i, l, 1)} << 16;
      }
    });
  }
  if constexpr (Store)
    for (unsigned j = 0; j < providers; ++j)
      if (ptrs[j]) std::memcpy(ptrs[j], rows[j], 16);
}

template <bool Store>
void decode_matrix_move(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (!m.take("sync")) dc.fail("missing .sync");
  if (!m.take("m8n8")) dc.fail("only the .m8n8 shape is supported");
  int num = m.take_one({"x1", "x2", "x4"});
  if (num < 0) dc.fail("missing .x1, .x2 or .x4");
  out.sub = m.take("trans") ? 1 : 0;
  if (dc.type() != ptx::Type::B16) dc.fail("only .b16 elements are supported");
  if (dc.nops() != 2) dc.fail("expected two operands");
  std::vector<uint32_t> regs = operand_regs(dc, Store ? 1 : 0, !Store);
  if (regs.size() != 1u << num) dc.fail("register count does not match the matrix count");
  dc.address(Store ? 0 : 1, out, 0);
  regs.insert(regs.begin(), static_cast<uint32_t>(regs.size()));
  out.aux = dc.reg_list(regs);
  out.space = m.space == Space::None ? Space::Generic : m.space;
  out.fn = run_matrix_move<Store>;
}

}  // namespace

void register_tensor_ops(DecodeTable& t) {
  t["wmma"] = decode_wmma;
  t["mma"] = decode_mma;
  t["ldmatrix"] = decode_matrix_move<false>;
  t["stmatrix"] = decode_matrix_move<true>;
}

}  // namespace ws::exec::emu
