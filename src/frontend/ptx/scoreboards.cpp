#include "frontend/ptx/scoreboards.h"

#include <algorithm>
#include <array>
#include <vector>

#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

constexpr unsigned kMaxCounters = 6;  // SB0-SB5

// A load whose data may return out of issue order (the LD/ST path's global,
// local and texture accesses, generic ones included): shared-memory,
// parameter and constant loads return in order and are left alone.
bool counted_load(const Instruction& in) {
  const std::string& op = in.opcode;
  if (op == "tex" || op == "tld4" || op == "suld") return true;
  if (op != "ld" && op != "ldu" && op != "atom") return false;
  for (const std::string& m : in.mods)
    if (m.starts_with("shared") || m == "param" || m == "const") return false;
  return true;
}

struct Counter {
  bool busy = false;
  size_t consumer = 0;  // first consumer of the loads on it (SIZE_MAX: none in the block)
};

class Assigner {
 public:
  Assigner(Function& f, unsigned counters) : f_(f), counters_(std::min(counters, kMaxCounters)) {
    pending_.assign(f.regs.size() + 1, -1);
    readers_ = reg_uses(f).readers;
  }

  // Assigns the loads of [begin, end), one basic block; returns how many share.
  size_t block(size_t begin, size_t end) {
    std::fill(pending_.begin(), pending_.end(), -1);
    counters_state_.fill(Counter{});
    newest_ = -1;
    size_t shared = 0;
    for (size_t i = begin; i < end; ++i) {
      Instruction& in = f_.body[i];
      if (in.folded) continue;
      RegAccess a = access(in);
      for (int32_t r : a.reads) release(r);
      for (int32_t r : a.writes) release(r);
      if (!counted_load(in) || a.writes.empty() || !result_read(in, a)) continue;
      size_t consumer = first_consumer(i, end, a.writes);
      int c = pick(consumer, shared);
      in.scoreboard = static_cast<uint8_t>(c + 1);
      for (int32_t r : a.writes)
        if (valid(r)) pending_[static_cast<size_t>(r)] = c;
    }
    return shared;
  }

 private:
  bool valid(int32_t r) const { return r >= 0 && static_cast<size_t>(r) < pending_.size(); }

  // What the instruction reads (its folded producers' reads included) and writes.
  RegAccess access(const Instruction& in) const {
    RegAccess a = reg_access(in, f_, static_cast<int32_t>(f_.regs.size()));
    a.reads.insert(a.reads.end(), in.fused_reads.begin(), in.fused_reads.end());
    return a;
  }

  // An atomic whose result nothing reads becomes a reduction: no counter.
  bool result_read(const Instruction& in, const RegAccess& a) const {
    if (in.opcode != "atom") return true;
    return std::any_of(a.writes.begin(), a.writes.end(), [&](int32_t r) {
      return r >= 0 && static_cast<size_t>(r) < readers_.size() && !readers_[static_cast<size_t>(r)].empty();
    });
  }

  // A wait on the counter `r` is on frees it: every load on it has arrived.
  void release(int32_t r) {
    if (!valid(r) || pending_[static_cast<size_t>(r)] < 0) return;
    int c = pending_[static_cast<size_t>(r)];
    for (int& p : pending_)
      if (p == c) p = -1;
    counters_state_[static_cast<size_t>(c)].busy = false;
  }

  // The first issued instruction of the block after `i` that reads or
  // rewrites one of `regs` (SIZE_MAX if none).
  size_t first_consumer(size_t i, size_t end, const std::vector<int32_t>& regs) const {
    for (size_t j = i + 1; j < end; ++j) {
      if (f_.body[j].folded) continue;
      RegAccess a = access(f_.body[j]);
      auto touches = [&](const std::vector<int32_t>& v) {
        return std::any_of(v.begin(), v.end(), [&](int32_t r) { return std::find(regs.begin(), regs.end(), r) != regs.end(); });
      };
      if (touches(a.reads) || touches(a.writes)) return j;
    }
    return SIZE_MAX;
  }

  // The counter of an earlier load with the same first consumer, else a
  // free one, else the one taken last.
  int pick(size_t consumer, size_t& shared) {
    for (unsigned c = 0; c < counters_; ++c)
      if (counters_state_[c].busy && counters_state_[c].consumer == consumer) return static_cast<int>(c);
    for (unsigned c = 0; c < counters_; ++c)
      if (!counters_state_[c].busy) {
        counters_state_[c] = Counter{true, consumer};
        newest_ = static_cast<int>(c);
        return newest_;
      }
    ++shared;
    return newest_;
  }

  Function& f_;
  unsigned counters_;
  std::vector<std::vector<size_t>> readers_;  // per register: the instructions reading it
  std::vector<int> pending_;  // per register: the counter its load is on (-1: none)
  std::array<Counter, kMaxCounters> counters_state_{};
  int newest_ = -1;
};

}  // namespace

size_t assign_scoreboards_function(Function& f, unsigned counters) {
  for (Instruction& in : f.body) in.scoreboard = 0;
  if (counters == 0 || f.body.empty()) return 0;
  std::vector<bool> leader = labelled_instructions(f);
  Assigner assign(f, counters);
  size_t shared = 0, begin = 0, n = f.body.size();
  for (size_t i = 0; i < n; ++i) {
    bool last = i + 1 == n || leader[i + 1] || ends_block(f.body[i]);
    if (!last) continue;
    shared += assign.block(begin, i + 1);
    begin = i + 1;
  }
  return shared;
}

size_t assign_scoreboards_module(Module& m, unsigned counters) {
  size_t shared = 0;
  for (Function& f : m.functions)
    if (!f.is_extern) shared += assign_scoreboards_function(f, counters);
  return shared;
}

}  // namespace ws::ptx
