// Per-warp register scoreboard: the registers with a write still in flight
// and the cycle each write completes (kPending while a memory reply is
// awaited). Kept as a short list rather than a 256-entry table: a warp rarely
// has more than a few writes in flight. The first six entries live inside
// the warp (no pointer to chase on every issue check); more spill to the heap.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/small_vec.h"
#include "common/types.h"
#include "timing/core/stall_reasons.h"

namespace ws::timing {

inline constexpr Cycle kPending = ~Cycle{0};  // register waits on a memory reply

// The write an instruction's operands waited for last (stall attribution):
// its ready cycle and what produced it. Reset at each issue.
struct RegDep {
  Cycle ready = 0;
  RegSource source = RegSource::Fixed;
  uint8_t counters = 0;  // bit c: a look found counter c in flight and waited for (kept until issue)
};

// The pipe a fixed-latency result forwards from (core.cross_pipe_cycles).
inline constexpr uint8_t kNoPipe = 0, kAluPipe = 1, kFmaPipe = 2;
// What an instruction reading registers is: an LD/ST-unit one
// (core.lsu_operand_latency), and the pipe it executes in (kNoPipe: neither).
struct RegReader {
  bool lsu = false;
  uint8_t pipe = kNoPipe;
};

class Scoreboard {
 public:
  void clear() {
    list_.clear();
    counted_ = 0;
  }
  bool empty() const { return list_.empty(); }

  // Records that `reg` is written at cycle `ready` (kPending: unknown yet)
  // by a `source` unit, counting on dependency counter `counter` (1-7; 0:
  // none): whoever waits for a register on a counter waits for every write
  // in flight on it (ptx/scoreboards.h). An LD/ST-unit reader of the
  // register waits `lsu_extra` cycles more (core.lsu_operand_latency).
  // `pipe` (kNoPipe, or the ALU or FMA pipe a fixed-latency result forwards
  // from): a reader in the other pipe waits `cross` cycles more
  // (core.cross_pipe_cycles).
  void set(uint16_t reg, Cycle ready, RegSource source, uint8_t counter = 0, uint8_t lsu_extra = 0,
           uint8_t pipe = kNoPipe, uint8_t cross = 0) {
    Entry& e = entry(reg);
    e.ready = ready;
    e.source = source;
    counted_ += (counter != 0) - (e.counter != 0);
    e.counter = counter;
    e.lsu_extra = lsu_extra;
    e.pipe = pipe;
    e.cross = pipe == kNoPipe ? 0 : cross;
  }
  // The same, keeping the source an existing entry has (a memory reply
  // completing its load's pending write).
  void set(uint16_t reg, Cycle ready) { entry(reg).ready = ready; }

  // The cycle by which every write in flight completes (0 if none).
  Cycle all_done(Cycle now) {
    RegDep ignored;
    return ready_at(nullptr, -1, now, ignored);
  }

  // The cycle by which every register in `regs` is written (n < 0: every
  // register) (0 if none is in flight). Drops entries that completed by `now`.
  // `dep` learns the latest write among them, completed ones included
  // (see latest_of).
  Cycle ready_at(const uint16_t* regs, int n, Cycle now, RegDep& dep) {
    return latest_of(now, dep, [&](uint16_t r) {
      return n < 0 || std::find(regs, regs + n, r) != regs + n ? kRead : kNotNeeded;
    });
  }
  Cycle ready_at(const uint16_t* regs, int n, Cycle now) {
    RegDep ignored;
    return ready_at(regs, n, now, ignored);
  }
  // The same for two register lists at once (an instruction's sources and
  // destinations), without gathering them first. An LD/ST-unit reader
  // (`reader.lsu`) reads its sources `a` only once their writes' lsu_extra
  // has passed too, and a reader in one ALU pipe a result of the other once
  // its cross cycles have; rewriting a register (`b`) waits for neither.
  Cycle ready_at(const uint16_t* a, int na, const uint16_t* b, int nb, Cycle now, RegDep& dep,
                 RegReader reader = {}) {
    return latest_of(
        now, dep,
        [&](uint16_t r) {
          if (std::find(a, a + na, r) != a + na) return reader.lsu ? kLsuRead : kRead;
          return std::find(b, b + nb, r) != b + nb ? kRewrite : kNotNeeded;
        },
        reader.pipe);
  }
  Cycle ready_at(const uint16_t* a, int na, const uint16_t* b, int nb, Cycle now) {
    RegDep ignored;
    return ready_at(a, na, b, nb, now, ignored);
  }

 private:
  // How an instruction needs a register (what `counts` returns in latest_of).
  enum Need : uint8_t { kNotNeeded = 0, kRead = 1, kLsuRead = 2, kRewrite = 3 };
  struct Entry {
    uint16_t reg = 0;
    RegSource source = RegSource::Fixed;  // (these fit the padding before `ready`)
    uint8_t counter = 0;
    uint8_t lsu_extra = 0;
    uint8_t pipe = kNoPipe;
    uint8_t cross = 0;
    Cycle ready = 0;
    // When an LD/ST-unit instruction may read it.
    Cycle lsu_ready() const { return ready == kPending ? kPending : ready + lsu_extra; }
    // When no reader waits for it any more.
    Cycle last_ready() const { return ready == kPending ? kPending : ready + std::max(lsu_extra, cross); }
  };

  // The latest write in flight to a register `counts`, dropping completed
  // ones. An entry is dropped on the first look after it completed, so a
  // completed write the instruction needed is seen once, here: `dep` keeps
  // the latest such write across the looks an instruction gets before it
  // issues. A pending (kPending) write seen earlier gives way to what this
  // look finds, as its reply has set its real cycle since.
  //
  // A register written on a dependency counter also waits for every write
  // in flight on that counter, so a completed write on a counter stays
  // listed while its counter has any in flight: the consumer that reads it
  // later still waits for the counter, as the hardware's wait on it does.
  template <class Counts>
  Cycle latest_of(Cycle now, RegDep& dep, Counts&& counts, uint8_t reader_pipe = kNoPipe) {
    uint8_t in_flight = 0, waits = 0;  // bit c: counter c has a write in flight / is waited for
    for (uint32_t i = 0; counted_ != 0 && i < list_.size(); ++i) {
      const Entry& e = list_[i];
      if (e.counter == 0) continue;
      if (e.ready > now) in_flight |= uint8_t(1u << e.counter);
      if (counts(e.reg) != kNotNeeded) waits |= uint8_t(1u << e.counter);
    }
    waits &= in_flight;
    // What the instruction waited for includes the writes on a counter an
    // earlier look found it waiting for, though that counter has drained by
    // this look (the stall is theirs: stall_reasons.cpp reads `dep`).
    uint8_t waited = waits | dep.counters;
    Cycle latest = 0;
    RegDep seen;
    for (uint32_t i = 0; i < list_.size();) {
      const Entry& e = list_[i];
      Need need = counts(e.reg);
      if (need == kNotNeeded && (waits >> e.counter & 1u)) need = kRewrite;  // its counter (bit 0 is never set)
      Cycle ready = need == kLsuRead ? e.lsu_ready() : e.ready;
      if (need == kRead && e.cross != 0 && reader_pipe != kNoPipe && e.pipe != reader_pipe && ready != kPending)
        ready += e.cross;
      bool waited_for = need != kNotNeeded || (waited >> e.counter & 1u);
      if (waited_for && ready >= seen.ready) seen = RegDep{ready, e.source};
      if (e.last_ready() <= now) {  // no reader waits for it any more
        if (in_flight >> e.counter & 1u) {
          ++i;
        } else {
          remove(i);
        }
        continue;
      }
      if (need != kNotNeeded && ready > now) latest = std::max(latest, ready);
      ++i;
    }
    if (seen.ready != 0 && (dep.ready == kPending || seen.ready > dep.ready)) dep = RegDep{seen.ready, seen.source, dep.counters};
    dep.counters |= waits;
    return latest;
  }

  Entry& entry(uint16_t reg) {
    for (uint32_t i = 0; i < list_.size(); ++i)
      if (list_[i].reg == reg) return list_[i];
    list_.push_back(Entry{reg});
    return list_.back();
  }

  // Moves the last entry into slot i (the list is unordered).
  void remove(uint32_t i) {
    counted_ -= list_[i].counter != 0;
    list_[i] = list_.back();
    list_.pop_back();
  }

  SmallVec<Entry, 6> list_;
  uint32_t counted_ = 0;  // entries on a counter (none: the counter pass is skipped)
};

}  // namespace ws::timing
