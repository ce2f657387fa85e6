// The ISA-independent instruction every frontend produces and every timing
// model consumes. Kept small and flat: it is copied on the hot path.
#pragma once
#include <array>
#include <climits>
#include <cstdint>

#include "common/types.h"

namespace ws::ir {

enum class OpKind : uint8_t {
  Alu,      // any non-memory, non-control instruction; timing from its unit
  Load,
  Store,
  Atomic,   // read-modify-write (ATOM, RED)
  Barrier,  // CTA-wide barrier (BAR.SYNC)
  MemBar,   // memory fence
  Branch,   // control flow (BRA, BSYNC, ...): issues on the branch unit
  Exit,     // the warp's last instruction
};

// System is only a fence's scope (below).
enum class MemSpace : uint8_t { None, Global, Shared, Local, Const, Tex, System };

// What a memory instruction asks of the caches (PTX cache operators, and the
// SASS suffixes they become; docs/memory-system.md says what each does in
// the model). Default: no operator given.
enum class CacheOp : uint8_t {
  Default,
  CacheAll,      // ld.ca: L1 and L2
  CacheGlobal,   // ld/st.cg, relaxed/acquire at GPU scope: L2 only
  Streaming,     // ld/st.cs (evict first): replaced first in L1 and L2
  LastUse,       // ld.lu: streaming for global, a local line is dropped after the read
  Volatile,      // ld.cv, ld/st.volatile, system scope: never served by L1
  NonCoherent,   // ld.global.nc (read-only / texture path): cached in L1
  WriteBack,     // st.wb (the default store)
  WriteThrough,  // st.wt: written through L2 to DRAM
};
inline constexpr int kCacheOps = 9;
// "ca", "cg", ... as PTX spells the operator ("" for Default).
inline const char* cache_op_name(CacheOp op) {
  static constexpr const char* kNames[kCacheOps] = {"", "ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt"};
  return kNames[static_cast<int>(op)];
}

inline constexpr uint16_t kNoReg = 0xffff;
// Multiply-adds per unit of WarpInst::tensor_work.
inline constexpr unsigned kTensorWorkUnit = 64;
inline constexpr int kMaxDst = 4;
inline constexpr int kMaxSrc = 8;

struct WarpInst {
  uint64_t pc = 0;
  uint32_t active_mask = 0;  // lanes that execute (active AND guard predicate)
  OpKind kind = OpKind::Alu;
  // A memory instruction's space; a MemBar's scope: Shared = its CTA,
  // Global (or None) = the GPU, System = the system.
  MemSpace space = MemSpace::None;
  uint8_t unit = 0;          // index into the KernelSource's unit_names()
  uint8_t access_bytes = 0;  // bytes per lane for memory instructions
  uint8_t n_dst : 4 = 0, n_src : 4 = 0;  // at most kMaxDst, kMaxSrc
  // Tensor-core (MMA) instructions: the warp's multiply-adds in units of 64
  // at the f16 rate (tensor_work_of() in frontend/trace/tensor_work.h); the
  // unit's fma_per_clk turns it into cycles. 0 for every other instruction.
  uint8_t tensor_work = 0;
  // General-purpose registers; the zero register is never listed.
  std::array<uint16_t, kMaxDst> dst{};
  std::array<uint16_t, kMaxSrc> src{};
  // Memory instructions carry their lane addresses (only active lanes are
  // meaningful) in one of two forms: `addrs`, 32 lane-indexed addresses
  // owned by the CtaSource (valid while it lives); or, when `strided` is set
  // and `addrs` is null, lane l's address is base + l * stride (modulo 2^64)
  // and nothing is stored per lane. Read them through lane_addrs().
  bool strided : 1 = false;
  // A branch waits for the predicate an instruction like ISETP sets
  // (core.branch_predicate_latency): the instruction sets one a branch may
  // test; the branch (BRA, EXIT...) tests one. From the ISA tables'
  // [branch_predicate] lists, so that a trace replays as it ran.
  bool sets_branch_pred : 1 = false;
  bool tests_branch_pred : 1 = false;
  // The dependency counter (1-6, the SASS write barrier) a load counts on: a
  // consumer of any load on it waits for all of them. 0: none (it waits for
  // its own registers); from the PTX frontend (ptx/scoreboards.h).
  uint8_t write_barrier : 3 = 0;
  // Its result forwards from the FMA pipe (IMAD, FFMA...), not the ALU pipe:
  // the ISA tables' [fma_pipe] list (core.cross_pipe_cycles).
  bool fma_pipe : 1 = false;
  CacheOp cache_op = CacheOp::Default;  // memory instructions (fits the padding before `stride`)
  int32_t stride = 0;
  const Addr* addrs = nullptr;
  Addr base = 0;

  bool is_memory() const { return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Atomic; }
  // A local, global or texture access (and a global atomic): it waits for
  // room in the LD/ST unit's queue of L1 accesses, the LG queue of ncu's
  // lg_throttle. Shared-memory and constant accesses (LDS/STS/ATOMS, LDC)
  // go through the MIO queue instead and never wait behind global ones.
  bool uses_lg_queue() const {
    return is_memory() && space != MemSpace::Shared && space != MemSpace::Const && space != MemSpace::None;
  }
  // A shared-memory access: it waits for room in the MIO queue (core.mio_queue).
  bool uses_mio_queue() const { return is_memory() && space == MemSpace::Shared; }
  bool has_addrs() const { return addrs != nullptr || strided; }
  // One lane's address (meaningful for active lanes of a memory instruction).
  Addr lane_addr(uint32_t lane) const {
    return addrs ? addrs[lane] : base + static_cast<uint64_t>(static_cast<int64_t>(stride)) * lane;
  }
  unsigned active_count() const { return static_cast<unsigned>(__builtin_popcount(active_mask)); }
};
// One host cache line: the SM copies it at every fetch.
static_assert(sizeof(WarpInst) == 64, "WarpInst grew past 64 bytes");

using LaneAddrs = std::array<Addr, 32>;

// The instruction's 32 lane addresses: `addrs` itself, or the strided form
// expanded into `scratch`. nullptr when it has none.
inline const Addr* lane_addrs(const WarpInst& i, LaneAddrs& scratch) {
  if (i.addrs || !i.strided) return i.addrs;
  Addr a = i.base;
  for (Addr& lane : scratch) {
    lane = a;
    a += static_cast<uint64_t>(static_cast<int64_t>(i.stride));
  }
  return scratch.data();
}

// If the active lanes' addresses in `a` are base + lane * stride with a
// stride that fits 32 bits, stores that form in `i` (clearing `addrs`) and
// returns true.
inline bool make_strided(const LaneAddrs& a, WarpInst& i) {
  uint32_t mask = i.active_mask;
  int64_t stride = 0;
  uint32_t first = mask ? static_cast<uint32_t>(__builtin_ctz(mask)) : 0;
  if (uint32_t rest = mask & (mask - 1)) {
    uint32_t second = static_cast<uint32_t>(__builtin_ctz(rest));
    auto delta = static_cast<int64_t>(a[second] - a[first]);
    int64_t gap = second - first;
    if (delta % gap != 0) return false;
    stride = delta / gap;
    if (stride < INT32_MIN || stride > INT32_MAX) return false;
  }
  Addr base = a[first] - static_cast<uint64_t>(stride) * first;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    if (a[lane] != base + static_cast<uint64_t>(stride) * lane) return false;
  }
  i.strided = true;
  i.stride = static_cast<int32_t>(stride);
  i.base = base;
  i.addrs = nullptr;
  return true;
}

}  // namespace ws::ir
