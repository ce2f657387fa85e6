// The parsed form of a PTX module: what the parser produces and the emulator
// decodes. Names are resolved here (registers to per-function indices, labels
// to instruction indices) so that later stages never look strings up.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws::ptx {

// Scalar types of PTX (.b32, .f16x2, .pred, ...). `None` where none applies.
enum class Type : uint8_t {
  None, Pred,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64,
};
// Size in bytes (Pred: 1, None: 0).
unsigned type_size(Type t);
// "u32" -> Type::U32; Type::None when `s` names no type.
Type type_from_name(const std::string& s);
const char* type_name(Type t);

enum class StateSpace : uint8_t { None, Reg, Sreg, Const, Global, Local, Param, Shared, Tex, Generic };
const char* space_name(StateSpace s);

// Special registers (%tid.x, %laneid, %clock64, ...).
enum class SpecialReg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ,
  CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, GridId,
  LaneMaskEq, LaneMaskLe, LaneMaskLt, LaneMaskGe, LaneMaskGt,
  Clock, Clock64, GlobalTimer, DynamicSmemSize, TotalSmemSize,
  EnvReg,  // %envregN, N in Operand::imm: what the driver passes a launch (grid workspace), else 0
  // %reserved_smem_offset_{begin,end,cap,0,1}: Operand::imm 0..4 (the CTA's reserved shared memory)
  ReservedSmem,
};

struct Operand {
  enum class Kind : uint8_t {
    Reg,      // `reg`; `negate` for `!%p` in predicate position
    Special,  // `special`
    Imm,      // integer immediate in `imm` (two's complement in 64 bits)
    FImm,     // float immediate: `fbits` holds the raw bits, `fwidth` is 32 or 64 (0f.../0d... or decimal)
    Symbol,   // a variable, function or label name: `symbol`, resolved in `label` when a label
              // (`sym+4` keeps 4 in `imm`)
    Address,  // [base + offset]: base is `reg` (>= 0) or `symbol` (non-empty) or neither (absolute); `imm` offset.
              // Texture/surface forms `[tex, {x, y}]` list the operands after the first in `elems`.
    Vector,   // {a, b, c, d}: `elems` (each Reg, Imm, FImm or Sink); also the ( ) lists of `call`
    Sink,     // `_`
  };
  Kind kind = Kind::Imm;
  bool negate = false;
  int32_t reg = -1;                 // index into Function::regs (Reg, Address with a register base)
  SpecialReg special = SpecialReg::TidX;
  int64_t imm = 0;
  uint64_t fbits = 0;
  uint8_t fwidth = 0;
  std::string symbol;
  int32_t label = -1;               // Symbol naming a label: index of the instruction it precedes
  int32_t local = -1;               // Symbol or Address naming a body variable (.param/.shared/.local
                                    // declared in the function): index into Function::locals, innermost
                                    // scope first; -1 for parameters and module-scope symbols
  std::vector<Operand> elems;
};

struct Instruction {
  int line = 0;                 // line in the PTX text (1-based)
  int32_t guard = -1;           // guard predicate register, or -1
  bool guard_negated = false;   // @!%p
  std::string opcode;           // base opcode: "add", "ld", "setp", "shfl", ...
  std::vector<std::string> mods;  // modifiers in source order without dots: {"global","nc","f32"}
  // Instructions with a second destination written `d|p` (shfl.sync, setp with
  // two outputs) list it as a separate operand right after the first.
  // `call` always has ops = {returns, callee, args[, prototype]}: returns and
  // args are Vectors (empty when absent) of Symbols naming .param variables
  // (or registers); callee is a Symbol (direct) or Reg (indirect); the optional
  // fourth is the Symbol of a .callprototype label or a target list.
  std::vector<Operand> ops;
  // The text of the instruction for error messages ("ld.global.nc.f32 %f12, [%rd5]").
  std::string text;
  // Executed but not issued to the timing model: an induction update in an
  // unrolled copy, which ptxas makes once per pass (unroll.h).
  bool folded = false;
  // Registers read by folded instructions (fuse.h) whose results this one
  // reads: its dependences in the timing model, in their stead.
  std::vector<int32_t> fused_reads;
  // A forward `@p bra` that ptxas turns into predication (fuse.h): the
  // instructions [this + 1, if_converted_end) issue predicated in every warp
  // that reaches the branch, and the branch itself does not issue. -1: none.
  int32_t if_converted_end = -1;
  // A forward `@p bra` around a region ptxas branches around (fuse.h,
  // mark_reconvergence_function): a BSSY issues ahead of the branch.
  bool bssy = false;
  // The reconvergence point of this many such branches: a BSYNC each
  // issues ahead of this instruction.
  uint8_t bsync = 0;
  // A shared load ptxas merges with its neighbours into one vector load
  // (vectorize.h): the merged access's bytes (0: not merged), how far below
  // this load's own address it starts, and the registers of the merged
  // loads (folded) that it writes too.
  uint8_t merged_bytes = 0;
  uint8_t merged_below = 0;
  std::vector<int32_t> merged_dsts;
  // The dependency counter (1-6) a global load counts on (scoreboards.h);
  // 0: none, the timing model waits for its registers alone.
  uint8_t scoreboard = 0;
};

// A variable: module scope (global/const/shared/extern shared) or function
// scope (shared/local; registers are in Function::regs instead).
struct Variable {
  std::string name;
  StateSpace space = StateSpace::None;
  Type type = Type::None;
  unsigned vec = 1;             // .v2/.v4
  uint32_t align = 0;           // 0: natural alignment of type*vec
  uint64_t size = 0;            // bytes; 0 with is_unsized_array for `extern .shared x[]`
  bool is_unsized_array = false;
  bool is_extern = false;
  bool is_visible = false;
  bool is_managed = false;      // .attribute(.managed): unified memory the host also sees
  std::vector<uint8_t> init;    // initial bytes (empty: zero); size() == size when present
  // Initialisers that name other variables' addresses ({gvar, fn}): byte
  // offset within `init` and the symbol; filled in when addresses are known.
  std::vector<std::pair<uint64_t, std::string>> init_symbols;
  int line = 0;
};

struct Register {
  std::string name;             // "%r3", "%p1", or a user name
  Type type = Type::None;
  unsigned vec = 1;
};

struct Param {
  std::string name;
  Type type = Type::None;
  uint64_t size = 0;            // bytes (arrays: element size * count)
  uint32_t align = 0;           // effective alignment (natural when not given)
  uint64_t offset = 0;          // byte offset in the parameter buffer (aligned)
  bool is_array = false;
  bool is_pointer = false;      // .ptr attribute
};

struct Function {
  std::string name;
  bool is_entry = false;        // .entry (kernel) vs .func
  bool is_extern = false;       // declaration only (prototype)
  bool is_visible = false;
  std::vector<Param> params;    // .entry: kernel parameters; .func: inputs
  std::vector<Param> returns;   // .func return values
  uint64_t param_bytes = 0;     // size of the parameter buffer (last offset + size)
  std::vector<Register> regs;   // every register declared in the body (all scopes; an inner
                                // scope's redeclaration of a name is a separate register)
  std::vector<Variable> locals; // .shared, .local and .param variables declared in the body
  std::vector<Instruction> body;
  std::map<std::string, int32_t> labels;  // label -> index of the instruction it precedes (== body.size() at end)
  // Where a `.pragma "nounroll";` stands in the body (the index of the
  // instruction after it): the loop around it stays rolled (unroll.h).
  std::vector<int32_t> nounroll;
  // Performance directives, 0 when absent.
  uint32_t maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0}, minnctapersm = 0, maxnreg = 0;
  // Registers per thread ptxas allocates for this kernel (exec/ptxas.h); 0: not known.
  uint32_t allocated_regs = 0;
  int line = 0;
};

struct Module {
  std::string filename;         // for messages; may be "<fatbin entry N>"
  unsigned version_major = 0, version_minor = 0;
  std::string target;           // "sm_80" (first target name)
  unsigned address_size = 64;
  std::vector<Variable> globals;   // module-scope variables, in order
  std::vector<Function> functions; // .entry and .func, in order
  const Function* find_function(const std::string& name) const;
  const Variable* find_global(const std::string& name) const;
};

}  // namespace ws::ptx
