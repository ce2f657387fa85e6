// List scheduling of PTX basic blocks (see schedule.h for why).
//
// Each block is cut into regions at its ordering points (fences), which stay
// where they are; CTA barriers are not fences here but ordered with every
// memory access, so register-only instructions may cross them. Inside a region an instruction depends on an earlier one
// when they share a register one of them writes (read-after-write,
// write-after-read, write-after-write; the carry flag counts as a register),
// or when both may touch the same memory and one of them is not a plain load
// (explicit state spaces other than each other's cannot alias; a generic
// address may be anything). Loads may pass loads. The scheduler then
// repeatedly takes, among the instructions whose predecessors are placed, the
// one with the longest latency path to the region's end (source order breaks
// ties): loads first, with the address arithmetic that feeds them. The
// instruction that sets the predicate of the branch ending the region counts
// the branch's wait for it (ptxas hoists it: a branch issues 12-13 cycles
// after the ISETP it tests, docs/architecture.md "Branches"). With a register
// budget, the live registers (liveness.h) stay within it where the ready
// instructions allow (docs/exec.md, "Register pressure").
#include "frontend/ptx/schedule.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "frontend/ptx/liveness.h"
#include "frontend/ptx/reg_access.h"
#include "frontend/ptx/uniform.h"

namespace ws::ptx {

namespace {

// How an instruction may move.
enum class Kind : uint8_t {
  Pure,     // registers only: moves past anything it does not share a register with
  Load,     // reads memory: may also pass other loads
  Ordered,  // writes memory, or is ordered with it (volatile/acquire loads, atomics)
  Fence,    // nothing moves past it (fences, calls, clock reads, control flow, unknown)
};

Kind classify(const Instruction& in) {
  if (std::any_of(in.ops.begin(), in.ops.end(), reads_clock)) return Kind::Fence;
  const std::string& op = in.opcode;
  if (op == "ld") {
    for (const char* m : {"volatile", "relaxed", "acquire", "sc", "mmio"})
      if (has_mod(in, m)) return Kind::Ordered;
    return Kind::Load;
  }
  if (op == "ldu" || op == "tex" || op == "tld4" || op == "txq" || op == "suq" || op == "suld" ||
      op == "ldmatrix" || op == "prefetch" || op == "prefetchu")
    return Kind::Load;
  if (op == "wmma") return has_mod(in, "load") ? Kind::Load : has_mod(in, "mma") ? Kind::Pure : Kind::Ordered;
  if (op == "st" || op == "atom" || op == "red" || op == "sust" || op == "sured" || op == "stmatrix" ||
      op == "cp")
    return Kind::Ordered;
  // A CTA barrier orders memory, not registers: ptxas computes a later
  // branch's ISETP before the BAR.SYNC (srad_reduce's H100 SASS), so
  // register-only instructions may cross it; no memory access does (it is
  // ordered with every space).
  if (op == "bar" || op == "barrier") return Kind::Ordered;
  return pure_opcode(op) ? Kind::Pure : Kind::Fence;
}

// The memory an instruction may touch, for ordering: accesses in different
// explicit state spaces cannot alias.
enum Space : uint8_t { kGlobal, kShared, kLocal, kParam, kConst, kGeneric, kSpaces };

bool conflict(uint8_t a, uint8_t b) { return a == kGeneric || b == kGeneric || a == b; }

uint8_t space_of(const Instruction& in) {
  // Ordering semantics (and asynchronous copies, which touch two spaces)
  // order an access with every other.
  for (const char* m : {"volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio"})
    if (has_mod(in, m)) return kGeneric;
  if (in.opcode == "cp") return kGeneric;
  if (in.opcode == "tex" || in.opcode == "tld4" || in.opcode == "txq") return kConst;  // read-only
  for (const std::string& m : in.mods) {
    std::string_view w(m);
    if (w == "global") return kGlobal;
    if (w.starts_with("shared")) return kShared;
    if (w == "local") return kLocal;
    if (w == "param") return kParam;
    if (w == "const") return kConst;
  }
  return kGeneric;
}

// Relative latency for the priority only (not the timing model's figures):
// what makes a compiler start one instruction before another.
int64_t priority_latency(const Instruction& in, Kind kind) {
  const std::string& op = in.opcode;
  if (kind == Kind::Load) {
    // A kernel parameter is an LDC of the launch's constant bank (ir/param_bank.h).
    if (has_mod(in, "shared") || has_mod(in, "const") || has_mod(in, "param") || op == "ldmatrix") return 30;
    return 400;  // global, local, generic, texture: a trip past the L1
  }
  if (op == "atom") {  // its result comes back from the L2 (ptxas issues a loop's atomics together)
    if (has_mod(in, "shared") || has_mod(in, "shared::cta")) return 30;
    return 400;
  }
  if (op == "mma" || op == "wmma") return 32;
  if (op == "div" || op == "rem") return 40;  // expanded into a sequence
  if (op == "rcp" || op == "sqrt" || op == "rsqrt" || op == "sin" || op == "cos" || op == "lg2" ||
      op == "ex2" || op == "tanh")
    return 20;
  if (has_mod(in, "f64")) return 8;
  return 4;
}

// Priority latency of setting the predicate the region's closing branch tests.
constexpr int64_t kBranchPredicateLatency = 13;

struct Node {
  Kind kind = Kind::Pure;
  int64_t latency = 4;
  int64_t height = 0;
  uint32_t preds = 0;
  std::vector<uint32_t> succ;
};

// Dependence edges of the region [begin, end) of `f.body`, indices relative
// to begin; `branch_guard` is the predicate the branch after it tests (-1: none).
std::vector<Node> build_region(const Function& f, size_t begin, size_t end, int32_t branch_guard) {
  size_t n = end - begin;
  std::vector<Node> nodes(n);
  int32_t cc = static_cast<int32_t>(f.regs.size());
  std::vector<int64_t> last_writer(f.regs.size() + 1, -1);
  std::vector<std::vector<uint32_t>> readers(f.regs.size() + 1);
  // Ordered instructions stay in order among themselves; per space, the
  // last one and the loads since it.
  int64_t last_ordered = -1;
  int64_t last_ordered_in[kSpaces];
  std::fill(std::begin(last_ordered_in), std::end(last_ordered_in), -1);
  std::vector<uint32_t> loads_since[kSpaces];
  auto edge = [&](int64_t from, uint32_t to) {
    if (from < 0 || static_cast<uint32_t>(from) == to) return;
    nodes[from].succ.push_back(to);
    ++nodes[to].preds;
  };
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = f.body[begin + i];
    nodes[i].kind = classify(in);
    nodes[i].latency = priority_latency(in, nodes[i].kind);
    RegAccess a = reg_access(in, f, cc);
    if (branch_guard >= 0 && std::find(a.writes.begin(), a.writes.end(), branch_guard) != a.writes.end())
      nodes[i].latency = std::max(nodes[i].latency, kBranchPredicateLatency);
    for (int32_t r : a.reads) edge(last_writer[r], i);
    for (int32_t r : a.writes) {
      edge(last_writer[r], i);
      for (uint32_t rd : readers[r]) edge(rd, i);
      readers[r].clear();
    }
    for (int32_t r : a.reads) readers[r].push_back(i);
    for (int32_t r : a.writes) last_writer[r] = i;
    Kind kind = nodes[i].kind;
    if (kind != Kind::Load && kind != Kind::Ordered) continue;
    uint8_t sp = space_of(in);
    int64_t after = kind == Kind::Ordered ? last_ordered : -1;
    for (uint8_t t = 0; t < kSpaces; ++t) {
      if (!conflict(sp, t)) continue;
      after = std::max(after, last_ordered_in[t]);
      if (kind == Kind::Ordered) {
        for (uint32_t l : loads_since[t]) edge(l, i);
        loads_since[t].clear();
      }
    }
    edge(after, i);
    if (kind == Kind::Load) {
      loads_since[sp].push_back(i);
    } else {
      last_ordered = last_ordered_in[sp] = i;
    }
  }
  for (size_t i = n; i-- > 0;) {
    int64_t below = 0;
    for (uint32_t s : nodes[i].succ) below = std::max(below, nodes[s].height);
    nodes[i].height = nodes[i].latency + below;
  }
  return nodes;
}

// Registers one value of `r` takes in the SASS: predicates have a file of
// their own, a 64-bit value takes two 32-bit registers, and `costless` ones
// (kernel parameters, uniform values) none.
int64_t reg_weight(const Function& f, const std::vector<bool>& costless, int32_t r) {
  if (r < 0 || static_cast<size_t>(r) >= f.regs.size() || costless[static_cast<size_t>(r)]) return 0;
  const Register& reg = f.regs[static_cast<size_t>(r)];
  if (reg.type == Type::Pred) return 0;
  return std::max<int64_t>(1, (type_size(reg.type) + 3) / 4) * std::max(1u, reg.vec);
}

// Registers whose values take no register of the thread's own in ptxas's
// code: a kernel parameter is read from the constant bank where it is used
// (`FFMA R0, R1, c[0x0][0x180], R2`), and with `uniform` (the uniform
// datapath of compute capability 7.5 on) a value every thread of the warp
// shares sits in a uniform register (gemm's sm_90 loop keeps its A pointer
// and trip count in UR4-UR9).
std::vector<bool> costless_registers(const Function& f, bool uniform) {
  std::vector<bool> out(f.regs.size(), false);
  RegUses uses = reg_uses(f);
  for (size_t r = 0; r < f.regs.size(); ++r) {
    int32_t d = uses.def[r];
    out[r] = f.is_entry && d >= 0 && f.body[static_cast<size_t>(d)].opcode == "ld" &&
             has_mod(f.body[static_cast<size_t>(d)], "param");
  }
  if (uniform) {
    UniformRegs u = UniformRegs::through_control(f);
    for (size_t r = 0; r < f.regs.size(); ++r) out[r] = out[r] || u.reg(static_cast<int32_t>(r));
  }
  return out;
}

// The values a region's registers hold while it is scheduled: which each
// instruction reads and defines, and how many readers each still awaits. A
// value is live from its definition (or the region's start) until its last
// reader is placed, or to the end when the region's successors read it.
class Pressure {
 public:
  Pressure(const Function& f, const std::vector<bool>& costless, const std::vector<bool>& guard_local, size_t begin,
           size_t end, const RegSet& live_in, const RegSet& live_out)
      : reads_(end - begin), defs_(end - begin) {
    const auto cc = static_cast<int32_t>(f.regs.size());
    for (int32_t r = 0; r < cc; ++r)
      if (live_in.has(r)) pressure_ += reg_weight(f, costless, r);
    std::vector<int32_t> current(f.regs.size() + 1, -1);
    auto value_of = [&](int32_t r) {
      if (current[r] < 0) {  // the value the region starts with
        current[r] = static_cast<int32_t>(values_.size());
        values_.push_back({reg_weight(f, costless, r), 0, false, live_in.has(r)});
      }
      return static_cast<uint32_t>(current[r]);
    };
    for (size_t i = begin; i < end; ++i) {
      const Instruction& in = f.body[i];
      RegAccess a = reg_access(in, f, cc);
      std::vector<uint32_t>& reads = reads_[i - begin];
      auto read = [&](int32_t r) {
        uint32_t v = value_of(r);
        if (std::find(reads.begin(), reads.end(), v) != reads.end()) return;
        reads.push_back(v);
        ++values_[v].readers_left;
      };
      for (int32_t r : a.reads)
        if (r >= 0) read(r);
      for (int32_t r : a.writes)  // a write that may not happen reads the value it may leave
        if (r >= 0 && !write_ends_value(in, r, guard_local)) read(r);
      for (int32_t r : a.writes) {
        if (r < 0) continue;
        current[r] = static_cast<int32_t>(values_.size());
        defs_[i - begin].push_back(current[r]);
        values_.push_back({reg_weight(f, costless, r), 0, false, false});
      }
    }
    for (int32_t r = 0; r <= cc; ++r)
      if (current[r] >= 0 && live_out.has(r)) values_[current[r]].live_out = true;
    for (Value& v : values_)  // live on entry, read by nothing here or after
      if (v.live && v.readers_left == 0 && !v.live_out) {
        v.live = false;
        pressure_ -= v.weight;
      }
  }

  int64_t pressure() const { return pressure_; }

  // How the pressure changes if region instruction `i` goes next.
  int64_t delta(uint32_t i) const {
    int64_t d = 0;
    for (uint32_t v : defs_[i]) d += values_[v].readers_left || values_[v].live_out ? values_[v].weight : 0;
    for (uint32_t v : reads_[i]) {
      const Value& x = values_[v];
      if (x.live && x.readers_left == 1 && !x.live_out) d -= x.weight;
    }
    return d;
  }

  void place(uint32_t i) {
    for (uint32_t v : reads_[i]) {
      Value& x = values_[v];
      if (--x.readers_left == 0 && !x.live_out && x.live) {
        x.live = false;
        pressure_ -= x.weight;
      }
    }
    for (uint32_t v : defs_[i]) {
      Value& x = values_[v];
      if (x.readers_left || x.live_out) {
        x.live = true;
        pressure_ += x.weight;
      }
    }
  }

 private:
  struct Value {
    int64_t weight;
    uint32_t readers_left;
    bool live_out;
    bool live;
  };
  std::vector<Value> values_;
  std::vector<std::vector<uint32_t>> reads_, defs_;
  int64_t pressure_ = 0;
};

// Schedules [begin, end) in place; returns how many instructions moved. With
// `pressure`, an instruction that would take the live registers past
// `budget` gives way to a ready one that adds none, else to the one that adds
// fewest (ptxas keeps a block within the kernel's registers: loads rise only
// as far as registers allow).
size_t schedule_region(Function& f, size_t begin, size_t end, Pressure* pressure, int64_t budget) {
  if (end - begin < 2) return 0;
  bool branch = end < f.body.size() && ends_block(f.body[end]);
  std::vector<Node> nodes = build_region(f, begin, end, branch ? f.body[end].guard : -1);
  auto before = [&](uint32_t a, uint32_t b) {  // a goes before b by priority
    if (nodes[a].height != nodes[b].height) return nodes[a].height > nodes[b].height;
    return a < b;
  };
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].preds == 0) ready.push_back(i);
  std::vector<uint32_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    size_t pick = 0;
    for (size_t k = 1; k < ready.size(); ++k)
      if (before(ready[k], ready[pick])) pick = k;
    if (pressure && pressure->pressure() + pressure->delta(ready[pick]) > budget) {
      // Any instruction that adds no register, by priority; else the one
      // that adds fewest, preferring one that lets an instruction that frees
      // registers go next (the load an fma still waits for).
      auto frees_next = [&](uint32_t i) {
        return std::any_of(nodes[i].succ.begin(), nodes[i].succ.end(),
                           [&](uint32_t s) { return nodes[s].preds == 1 && pressure->delta(s) < 0; });
      };
      auto key = [&](uint32_t i) {
        int64_t d = pressure->delta(i);
        return d <= 0 ? std::pair<int64_t, bool>(0, false) : std::pair(d, !frees_next(i));
      };
      auto best = key(ready[pick]);
      for (size_t k = 0; k < ready.size(); ++k) {
        auto kk = key(ready[k]);
        if (kk < best || (kk == best && before(ready[k], ready[pick]))) {
          pick = k;
          best = kk;
        }
      }
    }
    uint32_t i = ready[pick];
    ready[pick] = ready.back();
    ready.pop_back();
    order.push_back(i);
    if (pressure) pressure->place(i);
    for (uint32_t s : nodes[i].succ)
      if (--nodes[s].preds == 0) ready.push_back(s);
  }
  std::vector<Instruction> region(std::make_move_iterator(f.body.begin() + begin),
                                  std::make_move_iterator(f.body.begin() + end));
  size_t moved = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    moved += order[k] != k;
    f.body[begin + k] = std::move(region[order[k]]);
  }
  return moved;
}

// Registers ptxas has for `f`'s values: what it allocated, or `fallback`
// (both capped by .maxnreg), less the two a SASS instruction cannot name
// (ptxas reports the highest register used plus three: REG:32 kernels of the
// H100 SASS use R0-R29). 0: no limit.
int64_t register_budget(const Function& f, uint32_t fallback) {
  uint32_t regs = f.allocated_regs ? f.allocated_regs : fallback;
  if (f.maxnreg && (regs == 0 || f.maxnreg < regs)) regs = f.maxnreg;
  return regs ? std::max<int64_t>(1, int64_t{regs} - 2) : 0;
}

}  // namespace

ScheduleStats schedule_function(Function& f, const ScheduleOptions& opt) {
  ScheduleStats st;
  size_t n = f.body.size();
  std::vector<bool> leader(n + 1, false);
  for (const auto& [name, idx] : f.labels)
    if (idx >= 0 && static_cast<size_t>(idx) <= n) leader[idx] = true;
  const int64_t budget = opt.register_pressure ? register_budget(f, opt.fallback_regs) : 0;
  std::optional<Liveness> live;
  std::vector<bool> costless;
  if (budget > 0) {
    live.emplace(f);
    costless = costless_registers(f, opt.uniform_registers);
  }
  size_t begin = 0;
  for (size_t i = 0; i <= n; ++i) {
    // A region ends before a label, at a fence or terminator (which stays), and at the end.
    bool cut = i == n || leader[i];
    bool fixed = i < n && (ends_block(f.body[i]) || classify(f.body[i]) == Kind::Fence);
    if (cut || fixed) {
      if (i > begin) {
        ++st.blocks;
        std::optional<Pressure> p;
        if (live && i - begin > 1)
          p.emplace(f, costless, live->guard_local(), begin, i, live->live_before(begin), live->live_before(i));
        st.moved += schedule_region(f, begin, i, p ? &*p : nullptr, budget);
      }
      begin = fixed ? i + 1 : i;
    }
  }
  return st;
}

ScheduleStats schedule_module(Module& m, const ScheduleOptions& opt) {
  ScheduleStats st;
  for (Function& f : m.functions) {
    if (f.is_extern) continue;
    ScheduleStats s = schedule_function(f, opt);
    st.blocks += s.blocks;
    st.moved += s.moved;
  }
  return st;
}

}  // namespace ws::ptx
