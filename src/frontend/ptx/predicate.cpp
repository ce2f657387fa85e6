// Predication of short forward branches (see predicate.h).
#include "frontend/ptx/predicate.h"

#include <algorithm>
#include <vector>

#include "frontend/ptx/fuse.h"
#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

void count_label_uses(const Operand& o, std::vector<uint32_t>& uses) {
  if (o.kind == Operand::Kind::Symbol && o.label >= 0 && static_cast<size_t>(o.label) < uses.size()) ++uses[o.label];
  for (const Operand& e : o.elems) count_label_uses(e, uses);
}

// Whether an instruction of the region writes the branch's predicate (its
// later instructions would then test the new value).
bool writes_reg(const Function& f, const Instruction& in, int32_t reg) {
  RegAccess a = reg_access(in, f, static_cast<int32_t>(f.regs.size()));
  return std::find(a.writes.begin(), a.writes.end(), reg) != a.writes.end();
}

}  // namespace

size_t predicate_regions_function(Function& f, unsigned max_region) {
  const size_t n = f.body.size();
  std::vector<bool> labelled = labelled_instructions(f);
  std::vector<bool> removed(n, false);
  std::vector<uint32_t> uses(n + 1, 0), removed_uses(n + 1, 0);
  for (const Instruction& in : f.body)
    for (const Operand& o : in.ops) count_label_uses(o, uses);
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    int32_t end = predicable_region_end(f, i, labelled, max_region);
    if (end < 0) continue;
    const Instruction& br = f.body[i];
    auto last = static_cast<size_t>(end);
    bool clobbers = false;
    for (size_t k = i + 1; k < last && !clobbers; ++k) clobbers = writes_reg(f, f.body[k], br.guard);
    if (clobbers) continue;
    for (size_t k = i + 1; k < last; ++k) {
      f.body[k].guard = br.guard;
      f.body[k].guard_negated = !br.guard_negated;
    }
    removed[i] = true;
    ++removed_uses[last];
    ++count;
  }
  if (count == 0) return 0;
  // New positions: a removed branch's slot goes to the instruction after it.
  std::vector<int32_t> at(n + 1, 0);
  int32_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    at[i] = pos;
    pos += removed[i] ? 0 : 1;
  }
  at[n] = pos;
  std::vector<Instruction> out;
  out.reserve(static_cast<size_t>(pos));
  for (size_t i = 0; i < n; ++i) {
    if (removed[i]) continue;
    out.push_back(std::move(f.body[i]));
    for (Operand& o : out.back().ops) remap_labels(o, at);
  }
  // A label only the removed branches jumped to no longer starts a block.
  for (auto it = f.labels.begin(); it != f.labels.end();) {
    auto idx = it->second;
    bool valid = idx >= 0 && static_cast<size_t>(idx) <= n;
    if (valid && removed_uses[static_cast<size_t>(idx)] > 0 &&
        uses[static_cast<size_t>(idx)] == removed_uses[static_cast<size_t>(idx)]) {
      it = f.labels.erase(it);
      continue;
    }
    if (valid) it->second = at[static_cast<size_t>(idx)];
    ++it;
  }
  f.body = std::move(out);
  return count;
}

size_t predicate_regions_module(Module& m, unsigned max_region) {
  size_t n = 0;
  for (Function& f : m.functions)
    if (!f.is_extern) n += predicate_regions_function(f, max_region);
  return n;
}

}  // namespace ws::ptx
