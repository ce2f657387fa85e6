// The ISA-independent instruction every frontend produces and every timing
// model consumes. Kept small and flat: it is copied on the hot path.
#pragma once
#include <array>
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
  Branch,   // control flow (BRA, BSSY, ...): issues on the branch unit
  Exit,     // the warp's last instruction
};

enum class MemSpace : uint8_t { None, Global, Shared, Local, Const, Tex };

inline constexpr uint16_t kNoReg = 0xffff;
inline constexpr int kMaxDst = 4;
inline constexpr int kMaxSrc = 8;

struct WarpInst {
  uint64_t pc = 0;
  uint32_t active_mask = 0;  // lanes that execute (active AND guard predicate)
  OpKind kind = OpKind::Alu;
  MemSpace space = MemSpace::None;
  uint8_t unit = 0;          // index into the KernelSource's unit_names()
  uint8_t access_bytes = 0;  // bytes per lane for memory instructions
  uint8_t n_dst = 0, n_src = 0;
  // General-purpose registers; the zero register is never listed.
  std::array<uint16_t, kMaxDst> dst{};
  std::array<uint16_t, kMaxSrc> src{};
  // Memory instructions: 32 lane-indexed addresses (only active lanes are
  // meaningful). Owned by the CtaSource; valid while it lives.
  const Addr* addrs = nullptr;

  bool is_memory() const { return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Atomic; }
  unsigned active_count() const { return static_cast<unsigned>(__builtin_popcount(active_mask)); }
};

}  // namespace ws::ir
