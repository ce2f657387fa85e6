// Decoding PTX functions into DecodedInst arrays: modifiers are parsed once,
// operands become register offsets (immediates, special registers and symbol
// addresses get constant slots of their own), and each opcode's decoder picks
// a handler. Unsupported combinations throw InputError naming file and line.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exec/emu_internal.h"

namespace ws::exec::emu {

// The modifiers of one instruction, sorted into what handlers care about.
// Words no generic category claims stay in `words` for the opcode's decoder
// to take(); any left over makes the instruction unsupported.
struct Mods {
  std::vector<ptx::Type> types;
  Rounding rnd = Rounding::Rn;
  bool has_rnd = false, int_rnd = false;
  bool ftz = false, sat = false, approx = false, full = false;
  bool hi = false, lo = false, wide = false, cc = false;
  ptx::StateSpace space = ptx::StateSpace::None;
  unsigned vec = 1;
  // Cache operator and memory-model scope words, for the timing model
  // (ld/st/cp.async use it; elsewhere the words have no meaning and are ignored).
  ir::CacheOp cache = ir::CacheOp::Default;
  std::vector<std::string> words;
  std::vector<bool> used;

  bool take(std::string_view w);
  // Index into `options` of the first word found and taken, or -1.
  int take_one(std::initializer_list<const char*> options);
};

// An instruction's modifier words sorted as the decoder sorts them.
Mods parse_mods(const std::vector<std::string>& words);
ptx::Type parse_type(std::string_view s);
unsigned type_bytes(ptx::Type t);
bool is_float(ptx::Type t);
bool is_signed_int(ptx::Type t);
const char* space_text(ptx::StateSpace s);

// Per-lane param frame and local frame of one function.
struct FrameLayout {
  std::map<std::string, uint32_t> params;   // inputs, returns and .param locals -> frame offset
  std::vector<uint32_t> inputs, returns;    // offsets in declaration order
  uint32_t param_bytes = 0;
  std::map<std::string, uint32_t> locals;   // .local variables -> offset in the local frame
  std::vector<uint32_t> local_offsets;      // per Function::locals entry: its param or local frame offset
  uint32_t local_bytes = 0;
};

// Shared-memory and function layout of one kernel, fixed before its functions are decoded.
struct KernelLayout {
  std::map<const ptx::Function*, FrameLayout> frames;
  std::map<std::string, uint32_t> module_shared;                            // module-scope .shared
  std::map<const ptx::Function*, std::map<std::string, uint32_t>> local_shared;
  std::map<std::string, uint32_t> function_index;                           // name -> DecodedKernel::funcs
  std::vector<const ptx::Function*> functions;
};

class Decoder {
 public:
  Decoder(const LoadedModule& module, const KernelLayout& layout, DecodedFunction& out);
  // `errors`: collect each instruction's decode error and go on (a coverage
  // check); without it the first error throws.
  void decode_all(std::vector<std::string>* errors = nullptr);

  // --- for opcode decoders ---
  const ptx::Instruction& inst() const { return *inst_; }
  Mods& mods() { return mods_; }
  const ptx::Function& function() const { return *fn_; }
  size_t nops() const { return inst_->ops.size(); }
  const ptx::Operand& op(size_t i) const;
  // Register offset holding operand `i` read as type `t` (immediates become constants).
  uint32_t src(size_t i, ptx::Type t);
  uint32_t src_operand(const ptx::Operand& o, ptx::Type t);
  uint32_t dst(size_t i);
  uint32_t dst_operand(const ptx::Operand& o);
  // A .b128 register is two 64-bit slots: the operand's own (low half) and
  // this one (high half). Fails when `o` is not a .b128 register.
  uint32_t high_half(const ptx::Operand& o);
  uint32_t constant(uint64_t value);
  // A register slot of the decoder's own (a sink, the carry flag), per id.
  uint32_t private_slot(unsigned id);
  // [base + offset] into out.s[slot] and out.imm; param/local symbols set flags.
  void address(size_t i, DecodedInst& out, unsigned slot);
  // Value of a symbol operand as an address in `space` (None: the symbol's own).
  // `local`: the operand's index into Function::locals (-1: look the name up).
  uint64_t symbol_address(const std::string& name, ptx::StateSpace& space, uint16_t& flags, int32_t local = -1);
  ptx::Type type(size_t i = 0);
  uint32_t label(size_t i);
  CallSite& new_call_site(uint32_t& index);
  // Stores `regs` in the function's reg_lists; returns the index of the first.
  uint32_t reg_list(const std::vector<uint32_t>& regs);
  const KernelLayout& layout() const { return layout_; }
  [[noreturn]] void fail(const std::string& why) const;
  ExecFn need(ExecFn f, const char* what = "type") const;

 private:
  void decode_one(size_t index);
  uint32_t special(ptx::SpecialReg r, uint8_t index = 0);  // index: N of %envregN

  const LoadedModule& module_;
  const KernelLayout& layout_;
  DecodedFunction& out_;
  const ptx::Function* fn_;
  const ptx::Instruction* inst_ = nullptr;
  Mods mods_;
  uint32_t next_slot_ = 0;
  std::unordered_map<uint64_t, uint32_t> const_slots_;
  std::map<std::pair<ptx::SpecialReg, uint8_t>, uint32_t> special_slots_;
  std::map<unsigned, uint32_t> private_slots_;
  std::vector<uint32_t> high_halves_;  // per register: its .b128 high-half offset, 0 for other types
  const FrameLayout& frame_;
};

enum PrivateSlot : unsigned { kSinkSlot, kCarrySlot, kScratchSlot };

using DecodeFn = void (*)(Decoder& dc, DecodedInst& out);
using DecodeTable = std::unordered_map<std::string, DecodeFn>;

void register_int_ops(DecodeTable& t);
void register_video_ops(DecodeTable& t);
void register_float_ops(DecodeTable& t);
void register_half_ops(DecodeTable& t);
void register_convert_ops(DecodeTable& t);
void register_memory_ops(DecodeTable& t);
void register_mbarrier_ops(DecodeTable& t);  // mbarrier.*
// cp.async.mbarrier.arrive and cp.async.bulk (decode_cp hands them over).
void decode_cp_async_mbarrier_arrive(Decoder& dc, DecodedInst& out);
void decode_cp_async_bulk(Decoder& dc, DecodedInst& out);
void register_control_ops(DecodeTable& t);
void register_warp_ops(DecodeTable& t);
void register_texture_ops(DecodeTable& t);
void register_tensor_ops(DecodeTable& t);  // wmma, mma, ldmatrix, stmatrix
// Calls to runtime functions the emulator provides (vprintf); false when `dc`'s call is not one.
bool decode_builtin_call(Decoder& dc, DecodedInst& out);
// bar.warp.sync membermask (warps run in lockstep: only checks the executing lanes are in it).
void decode_warp_sync(Decoder& dc, DecodedInst& out);
// The handler of the `ret` appended to every function (falling off the end).
ExecFn implicit_return();
// Wraps in.inner, refreshing %clock-like registers first.
void h_refresh_clock(Ctx& c, const DecodedInst& in, uint32_t m);

// Decodes `kernel` and every function it calls. `errors`: as Decoder::decode_all
// (the kernel then must not run).
std::unique_ptr<DecodedKernel> decode_kernel(const LoadedModule& module, const ptx::Function& kernel,
                                             std::vector<std::string>* errors = nullptr);

// For each instruction of `f`, the index of the first instruction of the
// immediate post-dominator of its basic block (kNoPc when it has none,
// e.g. in a loop that never exits). Indices equal to body.size() mean the end.
std::vector<uint32_t> immediate_post_dominators(const ptx::Function& f);

}  // namespace ws::exec::emu
