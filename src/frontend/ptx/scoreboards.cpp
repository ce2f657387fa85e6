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
  size_t consumer = 0;          // first consumer of the loads on it (SIZE_MAX: none in the block)
  std::vector<int32_t> regs;    // the registers those loads write
};

class Assigner {
 public:
  Assigner(Function& f, unsigned counters)
      : f_(f), counters_(std::min(counters, kMaxCounters)), readers_(reg_uses(f).readers),
        pending_(f.regs.size() + 1, -1) {}

  // Assigns the loads of [begin, end), one basic block; returns how many share.
  size_t block(size_t begin, size_t end) {
    for (unsigned c = 0; c < counters_; ++c) free_counter(static_cast<int>(c));
    newest_ = -1;
    // Each issued instruction's registers, once (folded ones issue nothing).
    access_.assign(end - begin, RegAccess{});
    for (size_t i = begin; i < end; ++i)
      if (!f_.body[i].folded) access_[i - begin] = access(f_.body[i]);
    size_t shared = 0;
    for (size_t i = begin; i < end; ++i) {
      Instruction& in = f_.body[i];
      const RegAccess& a = access_[i - begin];
      for (int32_t r : a.reads) release(r);
      for (int32_t r : a.writes) release(r);
      if (in.folded || !counted_load(in) || a.writes.empty() || !result_read(in, a)) continue;
      int c = pick(first_consumer(i - begin, a.writes), shared);
      in.scoreboard = static_cast<uint8_t>(c + 1);
      for (int32_t r : a.writes)
        if (valid(r)) {
          pending_[static_cast<size_t>(r)] = c;
          state_[static_cast<size_t>(c)].regs.push_back(r);
        }
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
    if (valid(r) && pending_[static_cast<size_t>(r)] >= 0) free_counter(pending_[static_cast<size_t>(r)]);
  }

  void free_counter(int c) {
    Counter& k = state_[static_cast<size_t>(c)];
    for (int32_t r : k.regs) pending_[static_cast<size_t>(r)] = -1;
    k = Counter{};
  }

  // The first instruction of the block after its `i`th (block positions)
  // that reads or rewrites one of `regs` (SIZE_MAX if none).
  size_t first_consumer(size_t i, const std::vector<int32_t>& regs) const {
    auto touches = [&](const std::vector<int32_t>& v) {
      return std::any_of(v.begin(), v.end(), [&](int32_t r) { return std::find(regs.begin(), regs.end(), r) != regs.end(); });
    };
    for (size_t j = i + 1; j < access_.size(); ++j)
      if (touches(access_[j].reads) || touches(access_[j].writes)) return j;
    return SIZE_MAX;
  }

  // The counter of an earlier load with the same first consumer, else a
  // free one, else the one taken last.
  int pick(size_t consumer, size_t& shared) {
    for (unsigned c = 0; c < counters_; ++c)
      if (state_[c].busy && state_[c].consumer == consumer) return static_cast<int>(c);
    for (unsigned c = 0; c < counters_; ++c)
      if (!state_[c].busy) {
        state_[c].busy = true;
        state_[c].consumer = consumer;
        newest_ = static_cast<int>(c);
        return newest_;
      }
    ++shared;
    return newest_;
  }

  Function& f_;
  unsigned counters_;
  std::vector<std::vector<size_t>> readers_;  // per register: the instructions reading it
  std::vector<int> pending_;                  // per register: the counter its load is on (-1: none)
  std::array<Counter, kMaxCounters> state_{};
  std::vector<RegAccess> access_;             // the block's instructions' registers
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
