#include "timing/dram/dram_timing.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {
namespace {

using config::Param;
using P = Param<int64_t>;
// Read by the config layer, not here: setting it loads the part's keys.
const config::PartParam kPart{"dram.part", "", "configs/dram",
                              "DRAM part: loads configs/dram/PART.toml (timing, organisation, clock.dram_mhz) "
                              "beneath the preset's own keys; \"\" = none (defaults are QV100's HBM2-850)"};
// QV100 HBM2 (gpu-facts): 16 banks in 4 groups; cycles of the 850 MHz DRAM clock.
const P kBanks{"dram.banks", 16, "banks", "banks per channel", {1, 1024}};
const P kGroups{"dram.bank_groups", 4, "groups", "bank groups per channel (banks interleave over groups)", {1, 1024}};
const P kCCD{"dram.tCCD", 1, "cycles", "column to column, different bank group", {1, 1000}};
const P kCCDL{"dram.tCCDL", 2, "cycles", "column to column, same bank group", {1, 1000}};
const P kRRD{"dram.tRRD", 3, "cycles", "activate to activate, different banks (tRRD_S when dram.tRRDL is set)",
            {1, 1000}};
const P kRCD{"dram.tRCD", 12, "cycles", "activate to column command", {1, 1000}};
const P kRAS{"dram.tRAS", 28, "cycles", "activate to precharge", {1, 1000}};
const P kRP{"dram.tRP", 12, "cycles", "precharge to activate", {1, 1000}};
const P kRC{"dram.tRC", 40, "cycles", "activate to activate, same bank", {1, 1000}};
// Not in the Accel-Sim QV100 set; the HBM parts set them. 0 = not modelled
// (tRRDL / tWTRL then fall back to tRRD / tWTR).
const P kRRDL{"dram.tRRDL", 0, "cycles", "activate to activate, same bank group (0: dram.tRRD)", {0, 1000}};
const P kFAW{"dram.tFAW", 0, "cycles", "four-activate window: at most four ACTs per channel in any tFAW (0: none)",
             {0, 10000}};
const P kActCycles{"dram.act_cycles", 1, "cycles",
                   "command-bus cycles an ACT occupies (HBM: 2, its row address goes over two clocks)", {1, 8}};
const P kCL{"dram.CL", 12, "cycles", "read command to data", {1, 1000}};
const P kWL{"dram.WL", 2, "cycles", "write command to data", {0, 1000}};
const P kWTR{"dram.tWTR", 3, "cycles", "end of write data to read command, different bank group (tCDLR, tWTR_S)",
            {0, 1000}};
const P kWTRL{"dram.tWTRL", 0, "cycles", "end of write data to read command, same bank group (tWTR_L; 0: dram.tWTR)",
              {0, 1000}};
const P kWR{"dram.tWR", 10, "cycles", "end of write data to precharge", {0, 1000}};
const P kRTP{"dram.tRTP", 3, "cycles", "read to precharge", {1, 1000}};
// All-bank refresh; the parts set them (HBM2: tREFI 3.9 us, tRFC 350 ns).
const P kREFI{"dram.tREFI", 0, "cycles", "average interval between all-bank refreshes (0 = no refresh)", {0, 10000000}};
const P kRFC{"dram.tRFC", 0, "cycles", "refresh to activate (all banks busy refreshing)", {0, 1000000}};
// Per-bank refresh (HBM REFSB): one bank at a time, every tREFI / banks, that
// bank alone unavailable for tRFCpb while the others keep serving.
const config::Param<bool> kPerBank{"dram.refresh_per_bank", false, "",
                                   "refresh one bank at a time (HBM single-bank refresh) instead of all banks"};
const P kRFCpb{"dram.tRFCpb", 0, "cycles", "single-bank refresh to activate of that bank", {0, 1000000}};
// 128-bit bus, double data rate: 32 B per clock, so a sector is one clock and a
// channel moves 27.2 GB/s at 850 MHz (x32 channels ~= 870 GB/s).
const P kBusBytes{"dram.bus_bytes", 16, "bytes", "data bus width", {1, 1024}};
const P kBurst{"dram.burst_length", 2, "beats", "beats per burst (two beats per clock)", {1, 64}};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Refresh must leave the banks free most of the time: with a refresh (and
// the precharge before it) taking more than half of every tREFI, reads
// starve and a run never ends. Real parts spend under 10% (HBM2: 350 ns of
// every 3.9 us).
void check_refresh(const DramTimingParams& p) {
  if (p.tREFI == 0) return;
  auto cycles = [](uint32_t v) { return std::to_string(v); };
  if (!p.per_bank_refresh) {
    if (p.tRFC == 0) throw ConfigError(kRFC.name(), "must be above 0 when refresh is on (dram.tREFI > 0)");
    if (uint64_t{p.tRFC} + p.tRP > p.tREFI / 2)
      throw ConfigError(kREFI.name(), cycles(p.tREFI) + " cycles is infeasible: an all-bank refresh (dram.tRFC " +
                                          cycles(p.tRFC) + " + dram.tRP " + cycles(p.tRP) +
                                          " cycles) must take at most half of dram.tREFI");
    return;
  }
  if (p.tRFCpb == 0) throw ConfigError(kRFCpb.name(), "must be above 0 for per-bank refresh (dram.refresh_per_bank)");
  if (uint64_t{p.tRFCpb} + p.tRP > p.tREFI / 2)
    throw ConfigError(kREFI.name(), cycles(p.tREFI) + " cycles is infeasible: each bank's refresh (dram.tRFCpb " +
                                        cycles(p.tRFCpb) + " + dram.tRP " + cycles(p.tRP) +
                                        " cycles) must take at most half of dram.tREFI");
  if (p.tREFI / p.banks < std::max(p.tRRD, 1u))
    throw ConfigError(kREFI.name(), cycles(p.tREFI) + " cycles is infeasible: per-bank refreshes of dram.banks " +
                                        cycles(p.banks) + " banks must be at least dram.tRRD " + cycles(p.tRRD) +
                                        " cycles apart");
}

}  // namespace

const char* dram_cmd_name(DramCmd c) {
  static const char* names[] = {"ACT", "PRE", "RD", "WR", "REF"};
  return names[static_cast<size_t>(c)];
}

DramTimingParams dram_timing_params(const config::Config& cfg) {
  DramTimingParams p;
  p.banks = u32(kBanks.get(cfg));
  p.bank_groups = u32(kGroups.get(cfg));
  if (p.banks % p.bank_groups != 0) throw ConfigError(kGroups.name(), "must divide dram.banks");
  p.tCCD = u32(kCCD.get(cfg)), p.tCCDL = u32(kCCDL.get(cfg)), p.tRRD = u32(kRRD.get(cfg));
  p.tRCD = u32(kRCD.get(cfg)), p.tRAS = u32(kRAS.get(cfg)), p.tRP = u32(kRP.get(cfg)), p.tRC = u32(kRC.get(cfg));
  p.CL = u32(kCL.get(cfg)), p.WL = u32(kWL.get(cfg)), p.tWTR = u32(kWTR.get(cfg)), p.tWR = u32(kWR.get(cfg));
  p.tRTP = u32(kRTP.get(cfg));
  p.tRRDL = u32(kRRDL.get(cfg)), p.tWTRL = u32(kWTRL.get(cfg)), p.tFAW = u32(kFAW.get(cfg));
  p.act_cycles = u32(kActCycles.get(cfg));
  p.dual_bus = cfg.get<bool>("dram.dual_command_bus");  // declared by the channel, which owns the buses
  p.tREFI = u32(kREFI.get(cfg)), p.tRFC = u32(kRFC.get(cfg));
  p.per_bank_refresh = kPerBank.get(cfg), p.tRFCpb = u32(kRFCpb.get(cfg));
  check_refresh(p);
  uint32_t bytes_per_clock = u32(kBusBytes.get(cfg)) * 2;
  uint32_t burst_bytes = u32(kBusBytes.get(cfg) * kBurst.get(cfg));
  // A sector takes whole bursts; each burst takes burst_length / 2 clocks.
  uint32_t bursts = (32 + burst_bytes - 1) / burst_bytes;
  p.burst_cycles = std::max(1u, bursts * burst_bytes / bytes_per_clock);
  return p;
}

std::vector<DramTimingRow> dram_timing_table(const DramTimingParams& p) {
  using C = DramCmd;
  using S = DramScope;
  uint32_t col = std::max(p.tCCD, p.burst_cycles);     // data bus stays busy for one burst
  uint32_t col_l = std::max(p.tCCDL, p.burst_cycles);
  // Read-to-write: the read data must clear the bus, plus one turnaround cycle.
  uint32_t rd_to_wr = p.CL + p.burst_cycles + 1 > p.WL ? p.CL + p.burst_cycles + 1 - p.WL : 1;
  std::vector<DramTimingRow> rows = {
      {C::Act, C::Act, S::Bank, p.tRC},
      {C::Act, C::Act, S::Channel, p.tRRD},
      {C::Act, C::Rd, S::Bank, p.tRCD},
      {C::Act, C::Wr, S::Bank, p.tRCD},
      {C::Act, C::Pre, S::Bank, p.tRAS},
      {C::Pre, C::Act, S::Bank, p.tRP},
      {C::Rd, C::Rd, S::Channel, col},
      {C::Rd, C::Rd, S::BankGroup, col_l},
      {C::Wr, C::Wr, S::Channel, col},
      {C::Wr, C::Wr, S::BankGroup, col_l},
      {C::Rd, C::Wr, S::Channel, rd_to_wr},
      {C::Wr, C::Rd, S::Channel, p.WL + p.burst_cycles + p.tWTR},
      {C::Rd, C::Pre, S::Bank, p.tRTP},
      {C::Wr, C::Pre, S::Bank, p.WL + p.burst_cycles + p.tWR},
  };
  if (p.tRRDL > 0) rows.push_back({C::Act, C::Act, S::BankGroup, p.tRRDL});
  if (p.tWTRL > 0) rows.push_back({C::Wr, C::Rd, S::BankGroup, p.WL + p.burst_cycles + p.tWTRL});
  // A multi-cycle ACT keeps the next row command (and, on a single command
  // bus, any command) off the bus until it has been sent.
  if (p.act_cycles > 1) {
    for (C next : {C::Act, C::Pre, C::Ref}) rows.push_back({C::Act, next, S::Channel, p.act_cycles});
    if (!p.dual_bus)
      for (C next : {C::Rd, C::Wr}) rows.push_back({C::Act, next, S::Channel, p.act_cycles});
  }
  // REF needs every bank precharged (the channel closes them first); these
  // rows add the precharge time and keep activates out for tRFC.
  if (p.tREFI > 0 && p.per_bank_refresh) {
    // REF here is a single-bank refresh of the bank it names.
    rows.push_back({C::Pre, C::Ref, S::Bank, p.tRP});
    rows.push_back({C::Ref, C::Act, S::Bank, p.tRFCpb});
    rows.push_back({C::Ref, C::Ref, S::Channel, p.tRRD});
  } else if (p.tREFI > 0) {
    rows.push_back({C::Pre, C::Ref, S::Channel, p.tRP});
    rows.push_back({C::Ref, C::Act, S::Channel, p.tRFC});
    rows.push_back({C::Ref, C::Ref, S::Channel, p.tRFC});
  }
  return rows;
}

DramTimingTracker::DramTimingTracker(std::vector<DramTimingRow> table, uint32_t banks, uint32_t bank_groups,
                                     uint32_t tFAW)
    : table_(std::move(table)), groups_(bank_groups), faw_(tFAW), bank_(banks, Last{}) {
  for (const DramTimingRow& r : table_) {
    Effects& e = by_preceding_[static_cast<size_t>(r.preceding)];
    auto& list = r.scope == DramScope::Bank ? e.bank : r.scope == DramScope::BankGroup ? e.group : e.channel;
    list.emplace_back(static_cast<uint8_t>(r.following), r.cycles);
  }
}

// Applying the table when a command issues keeps the scheduler's question
// ("earliest cycle for command C at bank b") to two reads: the bound on the
// bank (its own rows and its group's) and the bound on the channel.
void DramTimingTracker::issued(DramCmd cmd, uint32_t bank, Cycle at) {
  const Effects& e = by_preceding_[static_cast<size_t>(cmd)];
  for (auto [f, cycles] : e.channel) channel_[f] = std::max(channel_[f], at + cycles);
  Last& own = bank_[bank];
  for (auto [f, cycles] : e.bank) own[f] = std::max(own[f], at + cycles);
  for (auto [f, cycles] : e.group)
    for (size_t b = group_of(bank); b < bank_.size(); b += groups_) bank_[b][f] = std::max(bank_[b][f], at + cycles);
  if (cmd == DramCmd::Act && faw_ > 0) note_activate(at);
}

// Four-activate window: once four ACTs are recorded, the next may not issue
// before the oldest of them is tFAW old (the channel-wide ACT bound).
void DramTimingTracker::note_activate(Cycle at) {
  acts_[act_next_] = at;
  act_next_ = (act_next_ + 1) % acts_.size();
  acts_seen_ = std::min<uint32_t>(acts_seen_ + 1, acts_.size());
  if (acts_seen_ < acts_.size()) return;
  auto& act = channel_[static_cast<size_t>(DramCmd::Act)];
  act = std::max(act, acts_[act_next_] + faw_);  // act_next_ now names the oldest
}

}  // namespace ws::timing
