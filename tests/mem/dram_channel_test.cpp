#include "timing/dram/dram_channel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <random>

#include "mem/test_driver.h"

namespace ws::timing {
namespace {

constexpr Tick kPs = 1000;

struct DramBench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"dram", ClockPeriod{kPs}};
  std::unique_ptr<DramChannel> ch;
  Port<MemRequest> replies{4096};
  test::TestDriver drv;
  std::deque<MemRequest> backlog;  // fed into the channel as it has room

  explicit DramBench(std::vector<std::string> sets = {}) {
    // One slice per channel and no bank XOR: addresses map straight to bank/row.
    for (const char* s : {"l2.channels=1", "l2.slices_per_channel=1", "dram.bank_xor=false"}) cfg.set_assignment(s);
    for (auto& s : sets) cfg.set_assignment(s);
    ch = std::make_unique<DramChannel>(cfg, stats::Scope(reg, "dram.0"), clk, 0);
    ch->connect_reply(0, &replies);
    ch->record_commands(true);
    drv.add(clk, *ch);
    drv.on_edge([this](Tick t) {
      while (!backlog.empty() && ch->from_l2().can_push(t)) {
        ch->from_l2().push(backlog.front(), t + kPs);
        backlog.pop_front();
      }
    });
  }
  // 2 KB rows = 16 lines; line = (row * banks + bank) * 16 + column line.
  static Addr addr_of(uint32_t bank, uint64_t row, uint32_t col = 0) {
    return (((row * 16 + bank) << 4) + col) * 128;
  }
  void add(AccessType type, Addr a, uint8_t sectors = 0) {
    MemRequest m;
    m.addr = a;
    m.sectors = sectors;
    m.type = type;
    backlog.push_back(m);
  }
  // `n` requests to random banks, columns and rows below `rows`, one in
  // `write_one_in` a write; returns how many are reads.
  size_t add_random(uint32_t seed, int n, uint32_t write_one_in, uint32_t rows) {
    std::mt19937 rng(seed);
    size_t reads = 0;
    for (int i = 0; i < n; ++i) {
      bool w = rng() % write_one_in == 0;
      reads += !w;
      add(w ? AccessType::Write : AccessType::Read, addr_of(rng() % 16, rng() % rows, rng() % 16));
    }
    return reads;
  }
  // Runs until every request is done; returns the cycle of the last command.
  Cycle finish(size_t reads) {
    bool ok = drv.run_while_not([&] { return replies.size() >= reads && ch->next_event() == kNever; },
                                1000000 * kPs);
    EXPECT_TRUE(ok);
    return ch->command_log().empty() ? 0 : ch->command_log().back().at;
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("dram.0." + leaf); }
};

TEST(DramChannel, ClosedRowReadTakesRcdPlusCl) {
  DramBench b;
  EXPECT_EQ(b.ch->next_event(), kNever);
  b.add(AccessType::Read, DramBench::addr_of(3, 7));
  b.finish(1);
  const auto& log = b.ch->command_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].cmd, DramCmd::Act);
  EXPECT_EQ(log[1].cmd, DramCmd::Rd);
  EXPECT_EQ(log[1].at - log[0].at, 12u);  // tRCD
  EXPECT_EQ(log[0].bank, 3u);
  EXPECT_EQ(log[0].row, 7u);
  EXPECT_EQ(b.replies.next_ready(), b.clk.tick_of(log[1].at + 12 + 1));  // CL + one burst
  EXPECT_EQ(b.ch->next_event(), kNever);
  EXPECT_EQ(b.stat("activates"), 1u);
  EXPECT_EQ(b.stat("busy_cycles"), 1u);
}

// Replays the command log against the HBM2 rules, independently of the table.
void check_conformance(const std::vector<DramCommandRecord>& log, const DramTimingParams& p) {
  std::map<uint32_t, Cycle> last_act, last_pre;
  std::map<uint32_t, std::pair<bool, uint64_t>> open;
  std::map<uint32_t, Cycle> bank_ref;  // per-bank refresh: last REF of each bank
  Cycle prev_act = 0, last_ref = 0;
  bool any_act = false, any_ref = false;
  std::deque<Cycle> window;                     // the last four ACTs (tFAW)
  std::map<uint32_t, Cycle> group_act, group_wr;  // by bank group: last ACT, last WR
  for (const auto& c : log) {
    auto& st = open[c.bank];
    uint32_t group = c.bank % p.bank_groups;
    bool row_cmd = c.cmd == DramCmd::Act || c.cmd == DramCmd::Pre || c.cmd == DramCmd::Ref;
    if (row_cmd && any_act && c.at != prev_act) {
      EXPECT_GE(c.at, prev_act + p.act_cycles) << "row command while an ACT holds the bus, at " << c.at;
    }
    if (p.per_bank_refresh && c.cmd == DramCmd::Ref) {
      ASSERT_FALSE(st.first) << "REF of open bank " << c.bank << " at " << c.at;
      if (last_pre.count(c.bank)) {
        EXPECT_GE(c.at, last_pre[c.bank] + p.tRP);
      }
      bank_ref[c.bank] = c.at;
      continue;
    }
    if (p.per_bank_refresh && c.cmd == DramCmd::Act && bank_ref.count(c.bank)) {
      EXPECT_GE(c.at, bank_ref[c.bank] + p.tRFCpb) << "ACT of bank " << c.bank << " inside tRFCpb";
    }
    switch (c.cmd) {
      case DramCmd::Ref:
        for (const auto& [bank, state] : open) ASSERT_FALSE(state.first) << "REF at " << c.at << ", bank " << bank;
        for (const auto& [bank, at] : last_pre) EXPECT_GE(c.at, at + p.tRP) << "REF before tRP, bank " << bank;
        if (any_ref) {
          EXPECT_GE(c.at, last_ref + p.tRFC);
        }
        last_ref = c.at;
        any_ref = true;
        break;
      case DramCmd::Act:
        ASSERT_FALSE(st.first) << "activate of an open bank at " << c.at;
        if (any_ref) {
          EXPECT_GE(c.at, last_ref + p.tRFC) << "activate within tRFC of a refresh";
        }
        if (last_pre.count(c.bank)) {
          EXPECT_GE(c.at, last_pre[c.bank] + p.tRP);
        }
        if (last_act.count(c.bank)) {
          EXPECT_GE(c.at, last_act[c.bank] + p.tRC);
        }
        if (any_act) {
          EXPECT_GE(c.at, prev_act + p.tRRD);
        }
        if (p.tFAW > 0 && window.size() == 4) {
          EXPECT_GE(c.at, window.front() + p.tFAW) << "fifth ACT inside tFAW at " << c.at;
        }
        if (p.tRRDL > 0 && group_act.count(group)) {
          EXPECT_GE(c.at, group_act[group] + p.tRRDL) << "ACT inside tRRD_L of its group at " << c.at;
        }
        window.push_back(c.at);
        if (window.size() > 4) window.pop_front();
        group_act[group] = c.at;
        last_act[c.bank] = prev_act = c.at;
        any_act = true;
        st = {true, c.row};
        break;
      case DramCmd::Pre:
        ASSERT_TRUE(st.first);
        EXPECT_GE(c.at, last_act[c.bank] + p.tRAS);
        last_pre[c.bank] = c.at;
        st.first = false;
        break;
      default:
        ASSERT_TRUE(st.first && st.second == c.row) << "column command to a closed or wrong row";
        EXPECT_GE(c.at, last_act[c.bank] + p.tRCD) << "column command before tRCD";
        if (c.cmd == DramCmd::Wr) group_wr[group] = c.at;
        if (c.cmd == DramCmd::Rd && p.tWTRL > 0 && group_wr.count(group)) {
          EXPECT_GE(c.at, group_wr[group] + p.WL + p.burst_cycles + p.tWTRL) << "RD inside tWTR_L at " << c.at;
        }
    }
  }
}

TEST(DramChannel, RandomMixObeysTiming) {
  for (const char* sched : {"fcfs", "frfcfs"}) {
    DramBench b({std::string("dram.scheduler=") + sched});
    size_t reads = b.add_random(7, 400, 3, 4);
    b.finish(reads);
    check_conformance(b.ch->command_log(), b.ch->timing());
    EXPECT_EQ(b.stat("reads"), reads);
    EXPECT_EQ(b.stat("writes"), 400 - reads);
  }
}

// The HBM2 constraints beyond the Accel-Sim set (four-activate window,
// same-group tRRD_L and tWTR_L, two-cycle ACT) hold on a busy random mix, and
// they cost time: the same requests finish later than without them.
TEST(DramChannel, RandomMixObeysHbm2GroupAndWindowRules) {
  Cycle end[2];
  for (int with = 0; with < 2; ++with) {
    std::vector<std::string> sets = {"dram.write_high=16", "dram.write_low=4"};
    if (with) sets.insert(sets.end(), {"dram.tFAW=14", "dram.tRRDL=6", "dram.tWTRL=8", "dram.act_cycles=2"});
    DramBench b(sets);
    size_t reads = b.add_random(13, 1500, 4, 8);
    end[with] = b.finish(reads);
    check_conformance(b.ch->command_log(), b.ch->timing());
  }
  EXPECT_GT(end[1], end[0]);
}

size_t count(const std::vector<DramCommandRecord>& log, DramCmd cmd) {
  return static_cast<size_t>(std::count_if(log.begin(), log.end(), [&](const auto& c) { return c.cmd == cmd; }));
}

// A busy channel still refreshes every tREFI (closing open rows first), and
// nothing activates during tRFC.
TEST(DramChannel, RefreshRunsOnScheduleWhenBusy) {
  DramBench b({"dram.tREFI=300", "dram.tRFC=60"});
  size_t reads = b.add_random(11, 3000, 4, 8);
  Cycle end = b.finish(reads);
  const auto& log = b.ch->command_log();
  check_conformance(log, b.ch->timing());
  size_t refs = count(log, DramCmd::Ref);
  EXPECT_EQ(b.stat("refreshes"), refs);
  EXPECT_GE(refs + 1, end / 300) << "end " << end;
  EXPECT_LE(refs, end / 300 + 1) << "end " << end;
  EXPECT_GT(b.stat("precharges"), 0u);
}

// Per-bank refresh: each REF names one bank, which must be closed; only that
// bank is kept from activating for tRFCpb, the others keep their rows open.
TEST(DramChannel, PerBankRefreshClosesOnlyItsBank) {
  DramBench b({"dram.tREFI=320", "dram.refresh_per_bank=true", "dram.tRFCpb=30"});
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) b.add(AccessType::Read, DramBench::addr_of(rng() % 16, rng() % 4, rng() % 16));
  Cycle end = b.finish(2000);
  const auto& log = b.ch->command_log();
  std::vector<bool> open(16, false);
  std::vector<Cycle> last_ref(16, 0);
  std::vector<bool> refreshed(16, false);
  size_t refs = 0, refs_with_other_bank_open = 0;
  for (const auto& c : log) {
    if (c.cmd == DramCmd::Act) {
      if (refreshed[c.bank]) {
        EXPECT_GE(c.at, last_ref[c.bank] + 30) << "ACT of bank " << c.bank << " inside tRFCpb";
      }
      open[c.bank] = true;
    } else if (c.cmd == DramCmd::Pre) {
      open[c.bank] = false;
    } else if (c.cmd == DramCmd::Ref) {
      EXPECT_FALSE(open[c.bank]) << "REF of an open bank at " << c.at;
      refs_with_other_bank_open += std::count(open.begin(), open.end(), true) > 0;
      last_ref[c.bank] = c.at;
      refreshed[c.bank] = true;
      ++refs;
    }
  }
  EXPECT_NEAR(double(refs), double(end) / (320 / 16), 2.0);  // one bank every tREFI / banks
  EXPECT_GT(refs_with_other_bank_open, 0u);
  EXPECT_EQ(std::count(refreshed.begin(), refreshed.end(), true), 16);  // every bank in turn
}

// Per-bank refresh holds only the bank it refreshes, picked among those still
// owed one this round, so a busy channel keeps its data bus going: it costs
// far less than all-bank refresh of the same duty.
TEST(DramChannel, PerBankRefreshHidesBehindOtherBanks) {
  auto run = [](std::vector<std::string> sets) {
    DramBench b(std::move(sets));
    std::mt19937 rng(9);
    for (int i = 0; i < 4000; ++i)
      b.add(AccessType::Read, DramBench::addr_of(rng() % 16, rng() % 2, rng() % 16));
    Cycle end = b.finish(4000);
    check_conformance(b.ch->command_log(), b.ch->timing());
    return std::pair{end, b.stat("refresh_stall_cycles")};
  };
  auto [none, none_stall] = run({});
  auto [all_bank, all_stall] = run({"dram.tREFI=640", "dram.tRFC=120"});
  auto [per_bank, pb_stall] = run({"dram.tREFI=640", "dram.refresh_per_bank=true", "dram.tRFCpb=60"});
  EXPECT_EQ(none_stall, 0u);
  EXPECT_GT(all_stall, 0u);
  EXPECT_EQ(pb_stall, 0u);  // nothing waits for the whole channel
  EXPECT_GT(double(all_bank), double(none) * 1.10);
  EXPECT_LT(double(per_bank), double(none) * 1.05);
}

// The occupancy and stall stats add up: a column command or a stall on every
// cycle with queued work, never more stalled cycles than elapsed ones.
TEST(DramChannel, QueueAndStallStatsAddUp) {
  DramBench b({"dram.write_queue_size=32", "dram.write_high=16", "dram.write_low=4"});
  size_t reads = b.add_random(3, 1000, 3, 4);
  Cycle end = b.finish(reads);
  uint64_t cols = b.stat("reads") + b.stat("writes");
  EXPECT_EQ(cols, 1000u);
  EXPECT_LE(b.stat("stalled_cycles") + cols, end + 1);
  EXPECT_GT(b.stat("stalled_cycles"), 0u);
  EXPECT_LE(b.stat("row_stall_cycles"), b.stat("stalled_cycles"));
  EXPECT_GT(b.stat("read_queue_cycles"), 0u);
  EXPECT_GT(b.stat("write_queue_cycles"), 0u);
  EXPECT_GT(b.stat("turnarounds"), 0u);
  EXPECT_LT(b.stat("turnarounds"), b.stat("writes"));  // writes drain in batches
}

TEST(DramChannel, NoRefreshWhenDisabled) {
  DramBench b;
  for (uint32_t i = 0; i < 200; ++i) b.add(AccessType::Read, DramBench::addr_of(i % 16, i % 5));
  b.finish(200);
  EXPECT_EQ(count(b.ch->command_log(), DramCmd::Ref), 0u);
  EXPECT_EQ(b.stat("refreshes"), 0u);
}

// An idle channel is not woken for refresh; it catches up when work arrives,
// back-dating the missed refreshes, so gated and ungated runs agree.
TEST(DramChannel, IdleChannelCatchesUpOnRefresh) {
  for (bool per_bank : {false, true}) {
    SCOPED_TRACE(per_bank ? "per-bank refresh" : "all-bank refresh");
    std::vector<DramCommandRecord> logs[2];
    for (int gated = 0; gated < 2; ++gated) {
      std::vector<std::string> sets = {"dram.tREFI=200", "dram.tRFC=40"};
      if (per_bank) sets.insert(sets.end(), {"dram.refresh_per_bank=true", "dram.tRFCpb=20"});
      DramBench b(sets);
      b.drv.set_gated(gated == 1);
      b.add(AccessType::Read, DramBench::addr_of(1, 3));
      b.finish(1);
      b.drv.run_until(b.drv.now() + 1000 * kPs);
      b.add(AccessType::Read, DramBench::addr_of(2, 4));
      b.finish(2);
      logs[gated] = b.ch->command_log();
      check_conformance(logs[gated], b.ch->timing());
      EXPECT_GE(b.stat("refreshes"), 4u);
    }
    ASSERT_EQ(logs[0].size(), logs[1].size());
    for (size_t i = 0; i < logs[0].size(); ++i) {
      EXPECT_EQ(logs[0][i].at, logs[1][i].at) << i;
      EXPECT_EQ(logs[0][i].cmd, logs[1][i].cmd) << i;
      EXPECT_EQ(logs[0][i].bank, logs[1][i].bank) << i;
    }
  }
}

TEST(DramChannel, RowHitsCostLessThanConflicts) {
  DramBench hits, conflicts;
  for (uint32_t i = 0; i < 16; ++i) {
    hits.add(AccessType::Read, DramBench::addr_of(0, 1, i));
    conflicts.add(AccessType::Read, DramBench::addr_of(0, i, 0));
  }
  Cycle t_hits = hits.finish(16), t_conf = conflicts.finish(16);
  EXPECT_LT(t_hits * 4, t_conf);
  EXPECT_EQ(hits.stat("row_hits"), 15u);
  EXPECT_EQ(conflicts.stat("row_hits"), 0u);
}

TEST(DramChannel, FrFcfsBeatsFcfsOnRowConflicts) {
  Cycle t[2];
  int k = 0;
  for (const char* sched : {"fcfs", "frfcfs"}) {
    DramBench b({std::string("dram.scheduler=") + sched});
    for (uint32_t i = 0; i < 32; ++i) b.add(AccessType::Read, DramBench::addr_of(2, i % 2, i / 2));
    t[k++] = b.finish(32);
  }
  EXPECT_LT(t[1] * 2, t[0]) << "fcfs " << t[0] << " frfcfs " << t[1];
}

TEST(DramChannel, WritesDrainAndNeedNoReply) {
  DramBench b({"dram.write_high=4", "dram.write_low=1"});
  for (uint32_t i = 0; i < 6; ++i) b.add(AccessType::Write, DramBench::addr_of(i, 0));
  b.add(AccessType::Read, DramBench::addr_of(9, 0));
  b.finish(1);
  EXPECT_EQ(b.stat("writes"), 6u);
  EXPECT_EQ(b.replies.size(), 1u);
}

// With one shared queue, four queued row-conflicting writes keep a later read
// out of the queue until one of them completes; a separate write queue lets
// the read in at once, and reads go before writes outside a write drain.
TEST(DramChannel, SeparateWriteQueueLetsReadsPass) {
  Tick read_done[2];
  int k = 0;
  for (const char* wq : {"dram.write_queue_size=0", "dram.write_queue_size=4"}) {
    DramBench b({"dram.queue_size=4", wq, "dram.write_high=8", "dram.write_low=1", "dram.tREFI=0"});
    for (uint32_t i = 0; i < 4; ++i) b.add(AccessType::Write, DramBench::addr_of(0, i));
    b.add(AccessType::Read, DramBench::addr_of(9, 0));
    b.finish(1);
    EXPECT_EQ(b.stat("writes"), 4u);
    read_done[k++] = b.replies.next_ready();
  }
  // Separate queues: ACT at once, RD after tRCD, data after CL + a burst.
  EXPECT_LE(read_done[1], (2 + 12 + 12 + 1) * kPs);
  // Shared queue: the read enters only when the first write issues (after its tRCD).
  EXPECT_GE(read_done[0], read_done[1] + 12 * kPs);
}

// A request for several sectors of a line is one queue entry: its column
// commands are those the same sectors sent one by one would get (ACT, then
// a read per sector tCCDL apart in one bank group), and one reply naming
// them all leaves CL + a burst after the last read.
TEST(DramChannel, LineRequestReadsEachSectorAndRepliesOnce) {
  DramBench line, sectors;
  line.add(AccessType::Read, DramBench::addr_of(3, 7, 2), 0xF);
  line.finish(1);
  for (uint32_t s = 0; s < 4; ++s) sectors.add(AccessType::Read, DramBench::addr_of(3, 7, 2) + s * kSectorBytes);
  sectors.finish(4);
  const auto& log = line.ch->command_log();
  ASSERT_EQ(log.size(), 5u);
  ASSERT_EQ(log.size(), sectors.ch->command_log().size());
  for (size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].cmd, sectors.ch->command_log()[i].cmd) << i;
    EXPECT_EQ(log[i].at, sectors.ch->command_log()[i].at) << i;
  }
  EXPECT_EQ(log[1].at - log[0].at, 12u);  // tRCD
  EXPECT_EQ(log[4].at - log[1].at, 3u * 2u);  // tCCDL
  ASSERT_EQ(line.replies.size(), 1u);
  EXPECT_EQ(line.replies.front().sector_bits(), 0xFu);
  EXPECT_TRUE(line.replies.front().is_reply);
  EXPECT_EQ(line.replies.next_ready(), line.clk.tick_of(log[4].at + 12 + 1));
  EXPECT_EQ(line.stat("reads"), 4u);
  EXPECT_EQ(line.stat("row_hits"), 3u);
  EXPECT_EQ(line.stat("busy_cycles"), 4u);
  EXPECT_EQ(sectors.replies.size(), 4u);
}

// The queue counts sectors: with room for four, a second line waits outside
// until the first line's last read has issued; with room for eight it is
// activated while the first is still reading.
TEST(DramChannel, QueueCapacityCountsSectors) {
  // (bank 2's activate, bank 1's last read) with room for `cap` sectors
  auto run = [](const char* cap) {
    DramBench b({cap, "dram.tREFI=0"});
    b.add(AccessType::Read, DramBench::addr_of(1, 0), 0xF);
    b.add(AccessType::Read, DramBench::addr_of(2, 0), 0xF);
    b.finish(2);
    std::pair<Cycle, Cycle> at{0, 0};
    for (const auto& c : b.ch->command_log()) {
      if (c.bank == 2 && c.cmd == DramCmd::Act) at.first = c.at;
      if (c.bank == 1 && c.cmd == DramCmd::Rd) at.second = c.at;
    }
    return at;
  };
  auto four = run("dram.queue_size=4"), eight = run("dram.queue_size=8");
  EXPECT_GT(four.first, four.second);
  EXPECT_LT(eight.first, eight.second);
}

TEST(DramChannel, TimingTableHasHbm2Rows) {
  DramTimingParams p;
  auto table = dram_timing_table(p);
  bool rcd = false;
  for (const auto& r : table)
    rcd |= r.preceding == DramCmd::Act && r.following == DramCmd::Rd && r.cycles == 12 && r.scope == DramScope::Bank;
  EXPECT_TRUE(rcd);
  config::Config cfg;
  EXPECT_EQ(dram_timing_params(cfg).burst_cycles, 1u);  // 16 B x 2 beats = one sector per clock
}

}  // namespace
}  // namespace ws::timing
