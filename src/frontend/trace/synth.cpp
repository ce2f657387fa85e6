#include "frontend/trace/synth.h"

#include "common/error.h"
#include "frontend/trace/trace_writer.h"

namespace ws::frontend {

namespace {

constexpr uint32_t kInstBytes = 16;  // Volta+ SASS instruction size

[[noreturn]] void bad(const char* field, const std::string& what) { throw InputError("synthetic spec", 0, field, what); }

void validate(const SynthSpec& s) {
  if (s.kind != "stream" && s.kind != "chase" && s.kind != "compute")
    bad("kind", "unknown kind '" + s.kind + "' (known: stream, chase, compute)");
  if (s.binary_version < 70) bad("binary_version", "must be 70 or later (the generator emits Volta+ opcodes)");
  if (s.ctas == 0) bad("ctas", "must be at least 1");
  if (s.threads_per_cta == 0 || s.threads_per_cta > 1024) bad("threads_per_cta", "must be in 1..1024");
  if (s.iterations == 0) bad("iterations", "must be at least 1");
  if (s.kind == "compute" && (s.chains == 0 || s.chains > 64)) bad("chains", "must be in 1..64");
  if (s.kind == "stream" && s.footprint_bytes < 128) bad("footprint_bytes", "must be at least 128");
  if (s.kind == "chase" && (s.stride_bytes < 8 || s.stride_bytes % 8 != 0))
    bad("stride_bytes", "must be a positive multiple of 8 (pointer size)");
  if (s.kind == "chase" && s.footprint_bytes < s.stride_bytes) bad("footprint_bytes", "must be at least stride_bytes");
}

// Instructions per warp: prologue + loop body * iterations + EXIT.
uint64_t per_warp(const SynthSpec& s) {
  if (s.kind == "stream") return 5 + 7ull * s.iterations + 1;
  if (s.kind == "chase") return 2 + 4ull * s.iterations + 1;
  return 2 + (s.chains + 3ull) * s.iterations + 1;
}

// Emits one warp's instructions with sequential PCs.
class Emitter {
 public:
  Emitter(TraceWriter& w, uint32_t mask) : w_(w) { i_.mask = mask; }
  uint64_t pc() const { return pc_; }
  void jump(uint64_t pc) { pc_ = pc; }
  void alu(const char* op, std::vector<uint16_t> dst, std::vector<uint16_t> src) {
    i_.opcode = op, i_.dst = std::move(dst), i_.src = std::move(src), i_.mem_width = 0;
    emit();
  }
  // Per-lane addresses from `addr(lane)`.
  template <class F>
  void mem(const char* op, uint32_t width, std::vector<uint16_t> dst, std::vector<uint16_t> src, F addr) {
    i_.opcode = op, i_.dst = std::move(dst), i_.src = std::move(src), i_.mem_width = width;
    for (uint32_t lane = 0; lane < 32; ++lane) i_.addrs[lane] = (i_.mask >> lane & 1) ? addr(lane) : 0;
    emit();
  }

 private:
  void emit() {
    i_.pc = pc_;
    pc_ += kInstBytes;
    w_.add(i_);
  }
  TraceWriter& w_;
  TraceInst i_;
  uint64_t pc_ = 0;
};

// Loop overhead shared by every kind: index update, compare, back branch.
void loop_tail(Emitter& e) {
  e.alu("IADD3", {0}, {0});
  e.alu("ISETP.GE.AND", {}, {0});
  e.alu("BRA", {}, {});
}

// Grid-stride copy: thread g copies element it*N + g (wrapping in the buffer).
void emit_stream(Emitter& e, const SynthSpec& s, uint64_t first_thread) {
  uint64_t n = uint64_t{s.ctas} * s.threads_per_cta, elems = s.footprint_bytes / 4;
  e.alu("S2R", {0}, {});
  e.alu("S2R", {2}, {});
  e.alu("IMAD", {0}, {2, 0});
  e.alu("IMAD.WIDE", {4}, {0});
  e.alu("IMAD.WIDE", {8}, {0});
  uint64_t loop = e.pc();
  for (uint32_t it = 0; it < s.iterations; ++it) {
    e.jump(loop);
    auto off = [&](uint32_t lane) { return ((it * n + first_thread + lane) % elems) * 4; };
    e.mem("LDG.E.SYS", 4, {6}, {4}, [&](uint32_t l) { return kSynthSrcBase + off(l); });
    e.mem("STG.E.SYS", 4, {}, {8, 6}, [&](uint32_t l) { return kSynthDstBase + off(l); });
    e.alu("IADD3", {4}, {4});
    e.alu("IADD3", {8}, {8});
    loop_tail(e);
  }
  e.alu("EXIT", {}, {});
}

// Dependent chase: every lane of warp g follows the same pointer, starting at
// slot g; the loaded register is the next load's address register.
void emit_chase(Emitter& e, const SynthSpec& s, uint64_t warp) {
  uint64_t slots = s.footprint_bytes / s.stride_bytes;
  e.alu("S2R", {0}, {});
  e.alu("IMAD.WIDE", {2}, {0});
  uint64_t loop = e.pc();
  for (uint32_t it = 0; it < s.iterations; ++it) {
    e.jump(loop);
    uint16_t from = it % 2 ? 4 : 2, to = it % 2 ? 2 : 4;
    Addr a = kSynthSrcBase + ((warp + it) % slots) * s.stride_bytes;
    e.mem("LDG.E.64.SYS", 8, {to}, {from}, [&](uint32_t) { return a; });
    loop_tail(e);
  }
  e.alu("EXIT", {}, {});
}

// FFMA chains R8.. are independent of each other, so a scheduler can overlap them.
void emit_compute(Emitter& e, const SynthSpec& s) {
  e.alu("S2R", {0}, {});
  e.alu("MOV", {2}, {});
  uint64_t loop = e.pc();
  for (uint32_t it = 0; it < s.iterations; ++it) {
    e.jump(loop);
    for (uint16_t c = 0; c < s.chains; ++c) e.alu("FFMA", {uint16_t(8 + c)}, {uint16_t(8 + c), 2, 3});
    loop_tail(e);
  }
  e.alu("EXIT", {}, {});
}

void emit_warp(TraceWriter& w, const SynthSpec& s, uint32_t cta, uint32_t warp) {
  uint32_t first = warp * 32, active = std::min<uint32_t>(32, s.threads_per_cta - first);
  uint32_t mask = active == 32 ? 0xffffffffu : (1u << active) - 1;
  w.begin_warp(warp, static_cast<uint32_t>(per_warp(s)));
  Emitter e(w, mask);
  uint64_t warps_per_cta = (s.threads_per_cta + 31) / 32;
  if (s.kind == "stream") emit_stream(e, s, uint64_t{cta} * s.threads_per_cta + first);
  else if (s.kind == "chase") emit_chase(e, s, cta * warps_per_cta + warp);
  else emit_compute(e, s);
}

}  // namespace

uint64_t synth_instruction_count(const SynthSpec& s) {
  validate(s);
  return per_warp(s) * ((s.threads_per_cta + 31) / 32) * s.ctas;
}

void write_synthetic(const SynthSpec& s, const std::string& out_dir) {
  validate(s);
  TraceWriter w(out_dir);
  if (s.kind == "stream") w.memcpy(kSynthSrcBase, s.footprint_bytes);
  if (s.kind == "chase") w.memcpy(kSynthSrcBase, s.footprint_bytes);
  ir::KernelInfo k;
  k.name = "warpsim_synth_" + s.kind;
  k.grid = Dim3{s.ctas, 1, 1};
  k.block = Dim3{s.threads_per_cta, 1, 1};
  k.nregs = s.kind == "compute" ? 8 + s.chains : 16;
  k.binary_version = s.binary_version;
  w.begin_kernel(k);
  uint32_t warps = (s.threads_per_cta + 31) / 32;
  for (uint32_t c = 0; c < s.ctas; ++c) {
    w.begin_cta(Dim3{c, 0, 0});
    for (uint32_t wi = 0; wi < warps; ++wi) emit_warp(w, s, c, wi);
    w.end_cta();
  }
  w.close();
}

}  // namespace ws::frontend
