#include "timing/core/operand_collector.h"

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kBanks{"core.regfile.banks", 2, "banks",
                                    "register-file banks per sub-core, a power of two (register r is in bank r mod "
                                    "banks); 0 turns the bank and collector model off",
                                    {0, kMaxRegBanks}};
const config::Param<int64_t> kReads{"core.regfile.reads_per_bank", 2, "registers/cycle",
                                    "register reads (32 lanes x 32 bit each) one bank serves per cycle",
                                    {1, 7}};
const config::Param<int64_t> kUnits{"core.collector.units", 1, "units",
                                    "operand collector units per sub-core: instructions gathering operands at once; "
                                    "issue stalls while all are busy",
                                    {1, 64}};
const config::Param<bool> kReuse{"core.regfile.reuse", true, "",
                                 "approximate the operand reuse cache: a warp issuing twice in a row on its sub-core "
                                 "does not re-read a register in the same source position that the first did not "
                                 "write (traces carry no reuse flags)"};
}  // namespace

RegFileSpec read_regfile_spec(const config::Config& cfg) {
  return RegFileSpec{static_cast<uint32_t>(kBanks.get(cfg)), static_cast<uint32_t>(kReads.get(cfg)),
                     static_cast<uint32_t>(kUnits.get(cfg)), kReuse.get(cfg)};
}

OperandCollector::OperandCollector(const RegFileSpec& spec) : spec_(spec), units_free_(std::max(spec.units, 1u), 0) {
  if (spec_.banks > kMaxRegBanks) throw ConfigError(kBanks.name(), "at most " + std::to_string(kMaxRegBanks));
  if (spec_.reads_per_bank == 0 || spec_.reads_per_bank > 7) throw ConfigError(kReads.name(), "must be 1 to 7");
  if (spec_.banks & (spec_.banks - 1)) throw ConfigError(kBanks.name(), "must be a power of two (or 0)");
  if (spec_.banks) bank_mask_ = spec_.banks - 1;
  over_ = (7 - spec_.reads_per_bank) * 0x1111'1111'1111'1111ull;
}

void OperandCollector::take_unit(Cycle until) {
  units_free_[earliest_] = until;
  for (uint32_t u = 0; u < units_free_.size(); ++u)
    if (units_free_[u] < units_free_[earliest_]) earliest_ = u;
}

uint64_t OperandCollector::bank_counts(const ir::WarpInst& in, uint32_t slot) const {
  bool same_warp = spec_.reuse && slot == last_slot_;
  uint64_t counts = 0;
  for (int k = 0; k < in.n_src; ++k) {
    uint16_t r = in.src[k];
    bool skip = false;
    for (int j = 0; j < k; ++j) skip |= in.src[j] == r;  // named twice: read once
    if (same_warp && k < last_n_ && last_src_[k] == r) {
      bool written = false;
      for (int d = 0; d < last_nd_; ++d) written |= last_dst_[d] == r;
      skip |= !written;  // in the reuse cache, unless the last instruction rewrote it
    }
    if (!skip) counts += uint64_t{1} << (4 * (r & bank_mask_));
  }
  return counts;
}

// Each bank serves its reads in issue order, after those already booked:
// k reads take ceil(k / reads_per_bank) cycles.
OperandCollector::Collected OperandCollector::time(uint64_t counts, Cycle now) const {
  Collected c{now + 1, 0};
  if (quick(counts, now)) return c;
  uint32_t reads = spec_.reads_per_bank;
  for (uint64_t m = counts; m;) {
    uint32_t bank = static_cast<uint32_t>(std::countr_zero(m)) / 4;
    m &= ~(uint64_t{0xf} << (4 * bank));
    uint32_t cycles = (static_cast<uint32_t>(counts >> (4 * bank) & 0xf) + reads - 1) / reads;
    c.dispatch = std::max(c.dispatch, std::max(now, bank_free_[bank]) + cycles);
    c.conflicts += cycles - 1;
  }
  return c;
}

void OperandCollector::book(uint64_t counts, Cycle now) {
  uint32_t reads = spec_.reads_per_bank;
  for (uint64_t m = counts; m;) {
    uint32_t bank = static_cast<uint32_t>(std::countr_zero(m)) / 4;
    m &= ~(uint64_t{0xf} << (4 * bank));
    uint32_t cycles = (static_cast<uint32_t>(counts >> (4 * bank) & 0xf) + reads - 1) / reads;
    bank_free_[bank] = std::max(now, bank_free_[bank]) + cycles;
    banks_busy_until_ = std::max(banks_busy_until_, bank_free_[bank]);
  }
}

OperandCollector::Collected OperandCollector::collect(const ir::WarpInst& in, uint32_t slot, Cycle now, uint64_t raw) {
  Collected c{now + 1, 0};
  if (!quick(raw, now)) {
    uint64_t counts = bank_counts(in, slot);
    c = time(counts, now);
    if (!quick(counts, now)) book(counts, now);
  }
  if (spec_.reuse) {
    last_slot_ = slot;
    last_n_ = in.n_src;
    last_nd_ = in.n_dst;
    last_src_ = in.src;
    std::copy_n(in.dst.begin(), ir::kMaxDst, last_dst_.begin());
  }
  take_unit(c.dispatch);
  return c;
}

}  // namespace ws::timing
