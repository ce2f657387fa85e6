// Per-warp and per-CTA state held by an SM.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/types.h"
#include "ir/source.h"

namespace ws::timing {

inline constexpr Cycle kPending = ~Cycle{0};  // register waits on a memory reply
inline constexpr Cycle kWaitLdst = kPending - 1;  // warp waits for LD/ST queue space
inline constexpr uint32_t kNumRegs = 256;

struct Warp {
  bool live = false;
  bool at_barrier = false;
  uint32_t cta_slot = 0;
  uint32_t warp_in_cta = 0;
  uint32_t pending_loads = 0;    // memory instructions whose results are outstanding
  Cycle busy_until = 0;          // a fence holds the warp until this cycle
  // Lower bound on the next cycle the warp could issue (kPending: a memory
  // reply must come first). Lets the scheduler skip sleeping warps cheaply.
  Cycle wake_at = 0;
  // Next instruction to issue; nullptr once the warp's stream has ended (the
  // warp then finishes as soon as its outstanding loads have returned).
  const ir::WarpInst* inst = nullptr;
  // Scoreboard: the cycle each register's pending write completes.
  std::array<Cycle, kNumRegs> reg_ready{};

  bool regs_ready(const ir::WarpInst& i, Cycle now, Cycle& wake) const {
    Cycle latest = 0;
    for (int k = 0; k < i.n_src; ++k) latest = std::max(latest, reg_ready[i.src[k]]);
    for (int k = 0; k < i.n_dst; ++k) latest = std::max(latest, reg_ready[i.dst[k]]);
    wake = latest;
    return latest <= now;
  }
};

struct CtaSlot {
  bool live = false;
  std::unique_ptr<ir::CtaSource> source;
  uint32_t num_warps = 0;
  uint32_t warps_done = 0;
  uint32_t warps_at_barrier = 0;
  std::vector<uint32_t> warp_slots;  // SM warp slot of each warp of the CTA
};

}  // namespace ws::timing
