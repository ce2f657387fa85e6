#include "frontend/ptx/liveness.h"

#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

// Where control may go after the block ending at `last`: its branch target
// (block index), the next block, or (an indirect branch) anywhere.
struct Exits {
  bool fallthrough = true;
  bool anywhere = false;
  int32_t target = -1;  // instruction index of a direct branch's label
};

Exits exits_of(const Instruction& last) {
  Exits e;
  if (!ends_block(last)) return e;
  e.fallthrough = last.guard >= 0;  // a guarded branch or exit may not be taken
  if (last.opcode == "brx") {
    e.anywhere = true;
  } else if (last.opcode == "bra") {
    if (!last.ops.empty() && last.ops[0].kind == Operand::Kind::Symbol && last.ops[0].label >= 0)
      e.target = last.ops[0].label;
    else
      e.anywhere = true;
  }
  return e;
}

}  // namespace

std::vector<bool> guard_local_registers(const Function& f) {
  const auto cc = static_cast<int32_t>(f.regs.size());
  constexpr int64_t kUnseen = -2, kMixed = -3;
  std::vector<int64_t> guard(f.regs.size(), kUnseen);  // guard * 2 + negated, -1 unguarded
  for (const Instruction& in : f.body) {
    int64_t g = in.guard >= 0 ? int64_t{in.guard} * 2 + in.guard_negated : -1;
    RegAccess a = reg_access(in, f, cc);
    for (const auto* regs : {&a.reads, &a.writes})
      for (int32_t r : *regs) {
        if (r < 0 || r >= cc || r == in.guard) continue;
        int64_t& seen = guard[static_cast<size_t>(r)];
        seen = seen == kUnseen || seen == g ? g : kMixed;
      }
  }
  std::vector<bool> out(f.regs.size());
  for (size_t r = 0; r < out.size(); ++r) out[r] = guard[r] >= 0;
  return out;
}

bool RegSet::merge(const RegSet& other) {
  bool grew = false;
  for (size_t w = 0; w < words_.size(); ++w) {
    uint64_t next = words_[w] | other.words_[w];
    grew |= next != words_[w];
    words_[w] = next;
  }
  return grew;
}

void Liveness::step_back(size_t i, RegSet& live) const {
  const Instruction& in = f_.body[i];
  RegAccess a = reg_access(in, f_, static_cast<int32_t>(f_.regs.size()));
  for (int32_t r : a.writes)
    if (r >= 0 && write_ends_value(in, r, guard_local_)) live.remove(r);
  for (int32_t r : a.reads)
    if (r >= 0) live.add(r);
  for (int32_t r : in.fused_reads)
    if (r >= 0) live.add(r);
}

Liveness::Liveness(const Function& f) : f_(f), guard_local_(guard_local_registers(f)) {
  const size_t n = f.body.size(), regs = f.regs.size() + 1;
  std::vector<bool> leader = labelled_instructions(f);
  leader[0] = true;
  for (size_t i = 0; i + 1 < n; ++i)
    if (ends_block(f.body[i])) leader[i + 1] = true;
  block_of_.assign(n, 0);
  std::vector<size_t> first;
  for (size_t i = 0; i < n; ++i) {
    if (leader[i]) {
      if (!first.empty()) block_end_.push_back(i);
      first.push_back(i);
    }
    block_of_[i] = first.size() - 1;
  }
  if (!first.empty()) block_end_.push_back(n);
  const size_t blocks = first.size();
  live_out_.assign(blocks, RegSet(regs));
  std::vector<RegSet> live_in(blocks, RegSet(regs));
  auto block_at = [&](int32_t instr) -> int64_t {
    return instr >= 0 && static_cast<size_t>(instr) < n ? static_cast<int64_t>(block_of_[instr]) : -1;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = blocks; b-- > 0;) {
      Exits e = exits_of(f.body[block_end_[b] - 1]);
      RegSet out(regs);
      if (e.anywhere)
        for (const RegSet& in : live_in) out.merge(in);
      if (e.fallthrough && b + 1 < blocks) out.merge(live_in[b + 1]);
      if (int64_t t = block_at(e.target); t >= 0) out.merge(live_in[static_cast<size_t>(t)]);
      live_out_[b] = out;
      for (size_t i = block_end_[b]; i-- > first[b];) step_back(i, out);
      changed |= live_in[b].merge(out);
    }
  }
}

RegSet Liveness::live_before(size_t i) const {
  if (i >= block_of_.size()) return RegSet(f_.regs.size() + 1);
  size_t b = block_of_[i];
  RegSet live = live_out_[b];
  for (size_t k = block_end_[b]; k-- > i;) step_back(k, live);
  return live;
}

}  // namespace ws::ptx
