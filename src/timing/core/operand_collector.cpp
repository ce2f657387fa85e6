#include "timing/core/operand_collector.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kBanks{"core.regfile.banks", 2, "banks",
                                    "register-file banks per sub-core (register r is in bank r mod banks); 0 turns "
                                    "the bank and collector model off",
                                    {0, kMaxRegBanks}};
const config::Param<int64_t> kReads{"core.regfile.reads_per_bank", 2, "registers/cycle",
                                    "register reads (32 lanes x 32 bit each) one bank serves per cycle",
                                    {1, 8}};
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
  if (spec_.reads_per_bank == 0) throw ConfigError(kReads.name(), "must be at least 1");
}

void OperandCollector::take_unit(Cycle until) {
  units_free_[earliest_] = until;
  for (uint32_t u = 0; u < units_free_.size(); ++u)
    if (units_free_[u] < units_free_[earliest_]) earliest_ = u;
}

// Distinct source registers (less those the reuse cache holds), grouped by
// bank: k reads of one bank take ceil(k / reads_per_bank) cycles.
OperandCollector::Reads OperandCollector::gather(const ir::WarpInst& in, uint32_t slot) const {
  std::array<uint16_t, ir::kMaxSrc> regs;
  int n = 0;
  bool same_warp = spec_.reuse && slot == last_slot_;
  for (int k = 0; k < in.n_src; ++k) {
    uint16_t r = in.src[k];
    if (same_warp && k < last_n_ && last_src_[k] == r &&
        std::find(last_dst_.begin(), last_dst_.begin() + last_nd_, r) == last_dst_.begin() + last_nd_)
      continue;  // from the reuse cache
    if (std::find(regs.begin(), regs.begin() + n, r) == regs.begin() + n) regs[n++] = r;
  }
  Reads out;
  std::array<uint8_t, ir::kMaxSrc> count{};
  for (int i = 0; i < n; ++i) {
    auto bank = static_cast<uint8_t>(regs[i] % spec_.banks);
    int j = 0;
    while (j < out.n && out.bank[j] != bank) ++j;
    if (j == out.n) out.bank[out.n++] = bank;
    ++count[j];
  }
  for (int j = 0; j < out.n; ++j)
    out.cycles[j] = static_cast<uint8_t>((count[j] + spec_.reads_per_bank - 1) / spec_.reads_per_bank);
  return out;
}

// Each bank serves its reads in issue order, after those already booked.
OperandCollector::Collected OperandCollector::time(const Reads& r, Cycle now) const {
  Collected c{now + 1, 0};
  for (int j = 0; j < r.n; ++j) {
    c.dispatch = std::max(c.dispatch, std::max(now, bank_free_[r.bank[j]]) + r.cycles[j]);
    c.conflicts += r.cycles[j] - 1u;
  }
  return c;
}

OperandCollector::Collected OperandCollector::plan(const ir::WarpInst& in, uint32_t slot, Cycle now) const {
  return time(gather(in, slot), now);
}

OperandCollector::Collected OperandCollector::collect(const ir::WarpInst& in, uint32_t slot, Cycle now) {
  Reads r = gather(in, slot);
  Collected c = time(r, now);
  for (int j = 0; j < r.n; ++j) bank_free_[r.bank[j]] = std::max(now, bank_free_[r.bank[j]]) + r.cycles[j];
  last_slot_ = slot;
  last_n_ = in.n_src;
  last_nd_ = in.n_dst;
  std::copy_n(in.src.begin(), in.n_src, last_src_.begin());
  std::copy_n(in.dst.begin(), in.n_dst, last_dst_.begin());
  take_unit(c.dispatch);
  return c;
}

}  // namespace ws::timing
