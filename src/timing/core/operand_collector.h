// Register-file banks and operand collection of one sub-core, between issue
// and dispatch to an execution pipeline.
//
// An issued instruction takes a collector unit and reads each distinct
// source register from bank `reg mod banks` (a power of two); a bank serves `reads_per_bank`
// reads a cycle, in issue order. The instruction dispatches once every bank
// has delivered (at the earliest one cycle after issue: the unit latencies in
// the presets already include one operand-read cycle, so a conflict-free
// instruction is timed exactly as without this model) and frees its unit
// then. With every unit busy the sub-core cannot issue. docs/architecture.md
// ("Register banks and operand collectors") gives the per-generation facts
// behind the preset values.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "config/config.h"
#include "ir/warp_inst.h"

namespace ws::timing {

struct RegFileSpec {
  uint32_t banks = 0;           // 0: not modelled (operands are free, as before)
  uint32_t reads_per_bank = 1;  // register reads (32 lanes x 32 bit) one bank serves per cycle
  uint32_t units = 1;           // instructions that may collect operands at once
  bool reuse = false;           // a warp issuing again re-reads no register it read in the same operand position
                                // (unless that instruction also wrote it)
};

inline constexpr uint32_t kMaxRegBanks = 16;  // a bank's read count takes 4 bits of a 64-bit word

RegFileSpec read_regfile_spec(const config::Config& cfg);

class OperandCollector {
 public:
  explicit OperandCollector(const RegFileSpec& spec);
  bool enabled() const { return spec_.banks != 0; }

  // Whether a collector unit is free at `now`; if not, `wake` is when the
  // first one frees.
  // The cycle the first collector unit frees.
  Cycle unit_free() const { return units_free_[earliest_]; }
  bool has_unit(Cycle now, Cycle& wake) const {
    Cycle first = units_free_[earliest_];
    if (first <= now) return true;
    wake = first;
    return false;
  }

  struct Collected {
    Cycle dispatch;      // cycle the operands are all read (>= now + 1)
    uint32_t conflicts;  // read cycles beyond the first spent on this instruction's own bank conflicts
  };
  // When the sources of `in` would all be read if the warp in `slot` issued
  // it at `now`; changes nothing.
  // `raw` is raw_counts(in), which the SM keeps per warp (computed once at
  // fetch: the scheduler may probe an instruction on many cycles).
  Collected plan(const ir::WarpInst& in, uint32_t slot, Cycle now, uint64_t raw) const {
    if (quick(raw, now)) return Collected{now + 1, 0};
    return time(bank_counts(in, slot), now);
  }
  // Issues: books the reads and a collector unit (requires has_unit(now)).
  Collected collect(const ir::WarpInst& in, uint32_t slot, Cycle now, uint64_t raw);
  Collected collect(const ir::WarpInst& in, uint32_t slot, Cycle now) { return collect(in, slot, now, raw_counts(in)); }

  // The reads of every source named, per bank (4 bits each): an upper bound
  // of the reads (a register named twice, or held by the reuse cache, is
  // read once or not at all), so when it shows no conflict there is none.
  uint64_t raw_counts(const ir::WarpInst& in) const {
    uint64_t counts = 0;
    for (int k = 0; k < in.n_src; ++k) counts += uint64_t{1} << (4 * (in.src[k] & bank_mask_));
    return counts;
  }
  // A new warp takes `slot`: it inherits nothing from the reuse cache.
  void forget_warp(uint32_t slot) {
    if (last_slot_ == slot) last_slot_ = ~0u;
  }

 private:
  // The instruction's reads per bank, 4 bits per bank (at most 8 sources):
  // distinct registers, less those the reuse cache holds.
  uint64_t bank_counts(const ir::WarpInst& in, uint32_t slot) const;
  // Usually no bank is booked past `now` and none is read more than
  // reads_per_bank times: one read cycle, and nothing to book (the
  // sub-core's next issue comes a cycle later at the earliest).
  bool quick(uint64_t counts, Cycle now) const {
    return ((counts + over_) & 0x8888'8888'8888'8888ull) == 0 && banks_busy_until_ <= now;
  }
  Collected time(uint64_t counts, Cycle now) const;
  void book(uint64_t counts, Cycle now);
  void take_unit(Cycle until);

  RegFileSpec spec_;
  uint32_t bank_mask_ = 0;                       // banks - 1 (a power of two)
  uint64_t over_ = 0;                            // added to counts: a field's top bit marks > reads_per_bank
  std::array<Cycle, kMaxRegBanks> bank_free_{};  // first cycle each bank has no read booked
  Cycle banks_busy_until_ = 0;                   // the latest of bank_free_
  std::vector<Cycle> units_free_;                // per collector unit: cycle it frees
  uint32_t earliest_ = 0;                        // the unit that frees first
  // The operand reuse approximation: the last collected instruction.
  uint32_t last_slot_ = ~0u;
  uint8_t last_n_ = 0, last_nd_ = 0;
  std::array<uint16_t, ir::kMaxSrc> last_src_{};
  std::array<uint16_t, ir::kMaxDst> last_dst_{};  // rewritten: the cached value is stale
};

}  // namespace ws::timing
