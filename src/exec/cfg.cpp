// Immediate post-dominators of a PTX function's basic blocks: where a warp
// that diverged at a branch reconverges. Cooper-Harvey-Kennedy's iterative
// dominator algorithm run on the reversed control-flow graph.
#include <algorithm>

#include "exec/decode.h"

namespace ws::exec::emu {

namespace {

bool ends_block(const ptx::Instruction& in) {
  return in.opcode == "bra" || in.opcode == "exit" || in.opcode == "ret" || in.opcode == "trap";
}

struct Cfg {
  std::vector<uint32_t> block_of;              // instruction -> block
  std::vector<uint32_t> start;                 // block -> first instruction
  std::vector<std::vector<uint32_t>> succ, pred;
  uint32_t exit = 0;                           // the virtual exit node
};

Cfg build_cfg(const ptx::Function& f) {
  size_t n = f.body.size();
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (const auto& [name, idx] : f.labels)
    if (idx >= 0 && static_cast<size_t>(idx) <= n) leader[idx] = true;
  for (size_t i = 0; i < n; ++i)
    if (ends_block(f.body[i])) leader[i + 1] = true;
  Cfg g;
  g.block_of.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (leader[i]) g.start.push_back(static_cast<uint32_t>(i));
    g.block_of[i] = static_cast<uint32_t>(g.start.size() - 1);
  }
  g.exit = static_cast<uint32_t>(g.start.size());
  g.block_of[n] = g.exit;  // falling off the end, or a label at the end
  g.succ.assign(g.exit + 1, {});
  g.pred.assign(g.exit + 1, {});
  auto edge = [&](uint32_t a, uint32_t b) {
    if (std::find(g.succ[a].begin(), g.succ[a].end(), b) != g.succ[a].end()) return;
    g.succ[a].push_back(b);
    g.pred[b].push_back(a);
  };
  for (uint32_t b = 0; b < g.exit; ++b) {
    uint32_t last = (b + 1 < g.exit ? g.start[b + 1] : static_cast<uint32_t>(n)) - 1;
    const ptx::Instruction& in = f.body[last];
    bool conditional = in.guard >= 0;
    if (in.opcode == "bra") {
      int32_t target = in.ops.empty() ? -1 : in.ops[0].label;
      edge(b, target >= 0 && static_cast<size_t>(target) <= n ? g.block_of[target] : g.exit);
      if (conditional) edge(b, g.block_of[last + 1]);
    } else if (ends_block(in)) {
      edge(b, g.exit);
      if (conditional) edge(b, g.block_of[last + 1]);
    } else {
      edge(b, g.block_of[last + 1]);
    }
  }
  return g;
}

}  // namespace

std::vector<uint32_t> immediate_post_dominators(const ptx::Function& f) {
  size_t n = f.body.size();
  std::vector<uint32_t> result(n, kNoPc);
  if (n == 0) return result;
  Cfg g = build_cfg(f);
  const uint32_t kUnset = kNoPc;
  // Post-order of the reversed graph from the exit (walking predecessors).
  std::vector<uint32_t> order, number(g.exit + 1, kUnset);
  std::vector<std::pair<uint32_t, size_t>> stack{{g.exit, 0}};
  std::vector<bool> seen(g.exit + 1, false);
  seen[g.exit] = true;
  while (!stack.empty()) {
    auto& [v, i] = stack.back();
    if (i < g.pred[v].size()) {
      uint32_t p = g.pred[v][i++];
      if (!seen[p]) seen[p] = true, stack.push_back({p, 0});
    } else {
      number[v] = static_cast<uint32_t>(order.size());
      order.push_back(v);
      stack.pop_back();
    }
  }
  std::vector<uint32_t> ipdom(g.exit + 1, kUnset);
  ipdom[g.exit] = g.exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b]) a = ipdom[a];
      while (number[b] < number[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = order.size(); k-- > 0;) {
      uint32_t v = order[k];
      if (v == g.exit) continue;
      uint32_t best = kUnset;
      for (uint32_t s : g.succ[v]) {
        if (ipdom[s] == kUnset) continue;
        best = best == kUnset ? s : intersect(s, best);
      }
      if (best != ipdom[v]) ipdom[v] = best, changed = true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t p = ipdom[g.block_of[i]];
    if (p == kUnset) continue;
    result[i] = p == g.exit ? static_cast<uint32_t>(n) : g.start[p];
  }
  return result;
}

}  // namespace ws::exec::emu
