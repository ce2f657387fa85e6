// The emulator's internal form: functions decoded once into flat arrays of
// DecodedInst (a handler pointer plus register offsets), and the per-warp /
// per-CTA state the handlers work on. Not part of the public interface.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/types.h"
#include "exec/emulator.h"
#include "frontend/ptx/ast.h"
#include "ir/warp_inst.h"

namespace ws::exec {
class DeviceMemory;
class TextureTable;
}

namespace ws::exec::emu {

inline constexpr unsigned kLanes = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;
inline constexpr uint32_t kNoPc = 0xffffffffu;
inline constexpr uint32_t kNoGuard = 0xffffffffu;

struct Ctx;
struct DecodedInst;
// `mask`: the lanes that execute (active and guard true).
using ExecFn = void (*)(Ctx& c, const DecodedInst& in, uint32_t mask);

enum class Rounding : uint8_t { Rn, Rz, Rm, Rp, Rna };

// Flag bits of DecodedInst::flags.
enum : uint16_t {
  kFtz = 1, kSat = 2, kFrameLocal = 4, kIntRound = 8, kSigned = 16, kHasPred = 32, kNeg = 64, kCc = 128,
  kFrameParam = 256, kRelu = 512, kSatFinite = 1024,
  kClockRead = 2048,  // a mov from %clock/%clock64/%globaltimer (timed runs defer it to its issue)
};

struct DecodedInst {
  ExecFn fn = nullptr;
  ExecFn inner = nullptr;         // wrapped handler (rounding, clock refresh)
  // Register operands as offsets into the frame's register array (slot * 32).
  uint32_t d[4] = {0, 0, 0, 0};
  uint32_t s[5] = {0, 0, 0, 0, 0};
  uint32_t guard = kNoGuard;
  bool guard_neg = false;
  uint8_t nd = 0, ns = 0;
  uint8_t bytes = 0;              // memory access / element size
  uint8_t vec = 1;
  uint8_t sub = 0;                // handler-specific selector (comparison, shuffle mode, ...)
  Rounding rnd = Rounding::Rn;
  ptx::StateSpace space = ptx::StateSpace::None;
  ir::CacheOp cache = ir::CacheOp::Default;  // memory accesses: what they ask of the caches (timing only)
  uint16_t flags = 0;
  int64_t imm = 0;                // address offset, constant
  uint32_t target = 0;            // branch target / callee index / barrier id
  uint32_t reconv = kNoPc;        // branches: immediate post-dominator
  uint32_t aux = 0;               // call-site index, second selector
  const ptx::Instruction* src = nullptr;
};

// Byte copies a call performs between the caller's and the callee's param frames.
struct ParamCopy {
  uint32_t from, to, bytes;
};
struct CallSite {
  uint32_t callee = 0;
  std::vector<ParamCopy> args;  // caller frame -> callee frame
  std::vector<ParamCopy> rets;  // callee frame -> caller frame
};

struct DecodedFunction {
  const ptx::Function* fn = nullptr;
  std::vector<DecodedInst> code;  // body plus a final implicit `ret`
  uint32_t nslots = 0;
  std::vector<std::pair<uint32_t, uint64_t>> consts;            // offset, value for every lane
  struct SpecialSlot {
    uint32_t offset;
    ptx::SpecialReg reg;
    uint8_t index;  // N of %envregN
  };
  std::vector<SpecialSlot> specials;
  uint32_t param_frame_bytes = 0;  // per lane: inputs, returns, call-site .param variables
  uint32_t local_bytes = 0;        // this function's .local variables (per lane)
  uint32_t stack_bytes = 0;        // local_bytes plus the deepest callee chain
  std::vector<CallSite> calls;
  // Register offsets of operands longer than DecodedInst's arrays (tensor
  // fragments); an instruction keeps the index of its first one.
  std::vector<uint32_t> reg_lists;
};

// A kernel with every function it can call, decoded for one module.
struct DecodedKernel {
  const LoadedModule* module = nullptr;
  std::vector<std::unique_ptr<DecodedFunction>> funcs;  // [0] is the kernel
  uint32_t static_shared = 0;      // bytes before the dynamic shared array
  uint32_t dynamic_shared_offset = 0;
  bool reserved_shared = false;    // reads %reserved_smem_offset_*: its CTAs get the reserved region
};

// The CTA's reserved shared memory (sm_80+, where cooperative groups keep
// multi-warp tiles' barriers and exchange slots): warpsim places it after
// the kernel's own shared memory, only for kernels that read its offsets
// (so that other kernels' out-of-bounds shared accesses still fault). Its
// two regions (%reserved_smem_offset_0 and _1) are 512 bytes each; CUDA's
// cooperative groups need 288.
inline constexpr uint32_t kReservedSharedBytes = 1024;
inline constexpr uint32_t kReservedRegionBytes = 512;
// Shared bytes of a CTA without the reserved region (aligned to 16, where the region starts).
inline size_t cta_shared_bytes(const DecodedKernel& k, uint32_t dynamic) {
  return std::max<size_t>(k.static_shared, size_t{k.dynamic_shared_offset} + dynamic);
}
inline size_t reserved_shared_base(const DecodedKernel& k, uint32_t dynamic) {
  return (cta_shared_bytes(k, dynamic) + 15) / 16 * 16;
}

// --- run-time state ---

struct StackEntry {
  uint32_t pc, rpc, mask;
};
struct Frame {
  const DecodedFunction* fn;
  uint32_t reg_base, param_base, local_base;
  uint32_t stack_depth;            // stack size right after the call pushed its return entry
  const CallSite* site;
};

enum class WarpState : uint8_t { Ready, AtBarrier, Done };

struct Warp {
  uint32_t index = 0, nthreads = 0;
  uint32_t live = 0;               // lanes that have not exited
  std::vector<uint64_t> regs;      // frames of nslots*32 values, register-major
  std::vector<uint8_t> params;     // param frames: 32 lanes x frame bytes each
  std::vector<uint8_t> local;      // per lane: local_stride bytes
  std::vector<StackEntry> stack;
  std::vector<Frame> frames;
  // The function (and register base) whose constants sit at each call depth.
  std::vector<std::pair<const DecodedFunction*, uint32_t>> filled;
  uint64_t clock = 0;
  // Timed runs: a clock-reading mov handed to the timing model but not yet
  // executed; it runs when the warp's next instruction is asked for (the
  // cycle the SM issues it), before anything else of the warp.
  const DecodedInst* deferred = nullptr;
  uint32_t deferred_mask = 0;
  WarpState state = WarpState::Ready;
  uint32_t bar_dst = kNoGuard;     // bar.red destination (register offset) while waiting
  uint8_t bar_kind = 0;
  uint32_t bar_mask = 0;
  uint8_t bar_id = 0;
};

struct Barrier {
  uint32_t arrived = 0;            // warps
  uint32_t expected_threads = 0;   // 0: every live warp
  uint32_t popc = 0, any = 0, all_count = 0, participants = 0;
  std::vector<uint32_t> waiters;
};

struct Cta {
  Dim3 id;
  uint64_t linear = 0;
  std::vector<uint8_t> shared;
  std::vector<Warp>* warps = nullptr;
  uint32_t nwarps = 0, nthreads = 0;
  Barrier bars[16];
};

// A cached range of global memory known to be valid, and the last page touched.
struct GlobalCache {
  uint64_t lo = 1, hi = 0;
  uint64_t page = ~uint64_t{0};
  uint8_t* page_ptr = nullptr;
};

struct Ctx {
  DeviceMemory* mem = nullptr;
  const TextureTable* textures = nullptr;  // texture objects `tex` looks handles up in
  const Launch* launch = nullptr;
  const DecodedKernel* kernel = nullptr;
  uint32_t num_sms = 1;
  uint32_t local_stride = 0;
  Cta* cta = nullptr;
  Warp* w = nullptr;
  uint64_t* R = nullptr;           // register array of the current frame
  bool yield = false;              // stop running this warp (barrier, done, fault)
  bool faulted = false;
  bool assert_fault = false;       // the fault is a failed device assert()
  std::string fault;
  GlobalCache gcache;
  const std::function<uint64_t()>* clock = nullptr;  // simulated time for %clock (timing mode)
  const PrintSink* print = nullptr;  // device printf output
  // Filled by memory instructions for the observer.
  ptx::StateSpace step_space = ptx::StateSpace::None;
  uint32_t step_bytes = 0;
  uint64_t addrs[kLanes] = {};
};

// --- helpers for handlers ---

template <class T>
inline T get(const uint64_t* r, unsigned lane) {
  T v;
  std::memcpy(&v, &r[lane], sizeof(T));
  return v;
}
template <class T>
inline void put(uint64_t* r, unsigned lane, T v) {
  if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
    r[lane] = static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    r[lane] = bits;
  }
}
template <class F>
inline void each_lane(uint32_t m, F&& f) {
  if (m == kFullMask) {
    for (unsigned l = 0; l < kLanes; ++l) f(l);
  } else {
    while (m) {
      unsigned l = static_cast<unsigned>(__builtin_ctz(m));
      m &= m - 1;
      f(l);
    }
  }
}

// Stops the launch with a fault message naming the instruction and lane.
void fault(Ctx& c, const DecodedInst& in, unsigned lane, const std::string& what);
// Makes `f`'s constants and special registers ready in the register frame at `reg_base`
// (call depth `depth`), growing the warp's register array when needed.
void prepare_frame(Ctx& c, const DecodedFunction& f, uint32_t reg_base, size_t depth);
// Host pointer to `bytes` at generic address `addr` for `lane`; nullptr after reporting a fault.
const uint8_t* generic_ptr(Ctx& c, const DecodedInst& in, uint64_t addr, unsigned bytes, unsigned lane);
// Writable host pointer to `bytes` at `addr` in space `sp` for `lane`; a generic
// (or None) space is resolved and `sp`/`addr` updated to where it points.
// nullptr after reporting a fault.
uint8_t* space_ptr(Ctx& c, const DecodedInst& in, ptx::StateSpace& sp, uint64_t& addr, unsigned bytes, unsigned lane);
// Lanes leaving the kernel (exit, or ret from the kernel function).
void finish_lanes(Ctx& c, uint32_t lanes);
// Releases every barrier of the CTA that all its participants have reached.
void release_barriers(Ctx& c);
// The register array of the warp's innermost frame.
inline uint64_t* frame_registers(Warp& w) { return w.regs.data() + w.frames.back().reg_base; }

}  // namespace ws::exec::emu
