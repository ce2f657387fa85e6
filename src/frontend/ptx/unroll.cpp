// Unrolling of small counted PTX loops (see unroll.h for what and why).
#include "frontend/ptx/unroll.h"

#include <optional>
#include <string>
#include <string_view>

#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

// A loop the pass rewrites: body [begin, branch), back edge at `branch`.
struct Loop {
  size_t begin = 0, branch = 0;
  size_t exit_test = 0;          // the setp of the back edge's predicate
  int32_t counter = -1;          // the induction register
  int64_t step = 0;              // added to it once per pass
  bool test_after_step = false;  // the setp reads the counter after the add
  std::string cmp;               // continue while `counter cmp bound`
  std::string type;              // of the comparison ("s32", "u64", ...)
  std::string add_type;          // of the counter's add
  Operand bound;
};

bool is_collective(std::string_view op) {
  return op == "shfl" || op == "vote" || op == "match" || op == "redux" || op == "activemask";
}

bool has_any_mod(const Instruction& in, std::initializer_list<const char*> mods) {
  for (const char* m : mods)
    if (has_mod(in, m)) return true;
  return false;
}

// Instructions a copy may be made of without changing what the loop does.
bool copyable(const Instruction& in) {
  if (in.guard >= 0) return false;
  if (std::any_of(in.ops.begin(), in.ops.end(), reads_clock)) return false;
  const std::string& op = in.opcode;
  if (op == "addc" || op == "subc" || op == "madc" || has_mod(in, "cc")) return false;
  if (op == "ld") return !has_any_mod(in, {"volatile", "relaxed", "acquire", "sc", "mmio"});
  if (op == "st") return !has_any_mod(in, {"volatile", "relaxed", "release", "sc", "mmio"});
  return pure_opcode(op) && !is_collective(op);
}

// The comparison `b cmp a` for `a cmp b`.
std::string swapped(const std::string& c) {
  if (c == "lt") return "gt";
  if (c == "gt") return "lt";
  if (c == "le") return "ge";
  if (c == "ge") return "le";
  if (c == "lo") return "hi";
  if (c == "hi") return "lo";
  if (c == "ls") return "hs";
  if (c == "hs") return "ls";
  return c;  // eq, ne
}

std::string negated(const std::string& c) {
  static const std::pair<const char*, const char*> kPairs[] = {
      {"eq", "ne"}, {"lt", "ge"}, {"le", "gt"}, {"lo", "hs"}, {"ls", "hi"}};
  for (auto [a, b] : kPairs) {
    if (c == a) return b;
    if (c == b) return a;
  }
  return "";
}

bool counts_up(const std::string& c) { return c == "lt" || c == "le" || c == "lo" || c == "ls"; }
bool counts_down(const std::string& c) { return c == "gt" || c == "ge" || c == "hi" || c == "hs"; }

// How many instructions of [begin, end) write register r, and the last one.
std::pair<int, size_t> writers(const Function& f, size_t begin, size_t end, int32_t r) {
  int count = 0;
  size_t at = 0;
  int32_t cc = static_cast<int32_t>(f.regs.size());
  for (size_t i = begin; i < end; ++i)
    for (int32_t w : reg_access(f.body[i], f, cc).writes)
      if (w == r) ++count, at = i;
  return {count, at};
}

bool read_in(const Function& f, size_t begin, size_t end, int32_t r, size_t except) {
  int32_t cc = static_cast<int32_t>(f.regs.size());
  for (size_t i = begin; i < end; ++i)
    if (i != except)
      for (int32_t x : reg_access(f.body[i], f, cc).reads)
        if (x == r) return true;
  return false;
}

// The counter's step when instruction `i` is `add/sub.T r, r, imm`.
std::optional<int64_t> step_of(const Instruction& in, int32_t r) {
  if ((in.opcode != "add" && in.opcode != "sub") || in.ops.size() != 3 || in.mods.size() != 1) return std::nullopt;
  const Operand &d = in.ops[0], &a = in.ops[1], &k = in.ops[2];
  if (d.kind != Operand::Kind::Reg || a.kind != Operand::Kind::Reg || k.kind != Operand::Kind::Imm) return std::nullopt;
  if (d.reg != r || a.reg != r || k.imm == 0) return std::nullopt;
  return in.opcode == "add" ? k.imm : -k.imm;
}

bool is_int_type(const std::string& t) {
  return t == "s32" || t == "u32" || t == "s64" || t == "u64" || t == "b32" || t == "b64";
}

// Fills the counter fields of `loop` from its exit test; false when the test
// is not `counter cmp invariant` with a counter stepped by a constant.
bool find_counter(const Function& f, Loop& loop, const Instruction& test, bool continue_if_true) {
  if (test.opcode != "setp" || test.ops.size() != 3 || test.mods.size() != 2) return false;
  std::string cmp = test.mods[0], type = test.mods[1];
  if (!is_int_type(type)) return false;
  for (int side = 1; side <= 2; ++side) {
    const Operand& x = test.ops[side];
    const Operand& other = test.ops[3 - side];
    if (x.kind != Operand::Kind::Reg) continue;
    auto [count, at] = writers(f, loop.begin, loop.branch, x.reg);
    if (count != 1) continue;
    auto step = step_of(f.body[at], x.reg);
    if (!step) continue;
    bool invariant = other.kind == Operand::Kind::Imm ||
                     (other.kind == Operand::Kind::Reg && writers(f, loop.begin, loop.branch, other.reg).first == 0);
    if (!invariant) continue;
    std::string c = side == 1 ? cmp : swapped(cmp);
    if (!continue_if_true) c = negated(c);
    bool ok = c == "ne" || (*step > 0 && counts_up(c)) || (*step < 0 && counts_down(c));
    if (!ok || type_size(type_from_name(type)) != type_size(type_from_name(f.body[at].mods[0]))) continue;
    loop.counter = x.reg;
    loop.step = *step;
    loop.test_after_step = at < loop.exit_test;
    loop.cmp = c;
    loop.type = type;
    loop.add_type = f.body[at].mods[0];
    loop.bound = other;
    return true;
  }
  return false;
}

// The loop whose body starts at `begin` (a label), if the pass may rewrite it.
std::optional<Loop> loop_at(const Function& f, size_t begin, const std::vector<bool>& leader,
                            const UnrollLimits& limits) {
  size_t n = f.body.size();
  size_t end = begin;
  while (end < n && !(end > begin && leader[end])) {
    const std::string& op = f.body[end].opcode;
    if (op == "bra" || op == "exit" || op == "ret" || op == "trap") break;
    ++end;
  }
  if (end >= n || (end > begin && leader[end]) || end - begin + 1 > limits.max_body || end - begin < 2) return std::nullopt;
  if (std::any_of(f.nounroll.begin(), f.nounroll.end(),
                  [&](int32_t at) { return at >= 0 && static_cast<size_t>(at) >= begin && static_cast<size_t>(at) <= end; }))
    return std::nullopt;  // `#pragma unroll 1`
  const Instruction& br = f.body[end];
  if (br.opcode != "bra" || br.guard < 0 || has_mod(br, "uni") || br.ops.size() != 1 ||
      br.ops[0].kind != Operand::Kind::Symbol || br.ops[0].label != static_cast<int32_t>(begin))
    return std::nullopt;
  Loop loop;
  loop.begin = begin;
  loop.branch = end;
  for (size_t i = begin; i < end; ++i)
    if (!copyable(f.body[i])) return std::nullopt;
  auto [count, at] = writers(f, begin, end, br.guard);
  if (count != 1 || read_in(f, begin, end, br.guard, at)) return std::nullopt;
  loop.exit_test = at;
  if (!find_counter(f, loop, f.body[at], !br.guard_negated)) return std::nullopt;
  return loop;
}

Operand reg_operand(int32_t r) {
  Operand o;
  o.kind = Operand::Kind::Reg;
  o.reg = r;
  return o;
}

Operand imm_operand(int64_t v) {
  Operand o;
  o.kind = Operand::Kind::Imm;
  o.imm = v;
  return o;
}

Operand label_operand(const std::string& name, int32_t at) {
  Operand o;
  o.kind = Operand::Kind::Symbol;
  o.symbol = name;
  o.label = at;
  return o;
}

Instruction make(const Instruction& like, std::string op, std::vector<std::string> mods, std::vector<Operand> ops) {
  Instruction in;
  in.line = like.line;
  in.opcode = std::move(op);
  in.mods = std::move(mods);
  in.ops = std::move(ops);
  in.text = "(unrolled loop's guard) " + in.opcode;
  for (const std::string& m : in.mods) in.text += "." + m;
  // ptxas's unrolled loop has no such block: its back edge tests whether a
  // whole pass remains (the ISETP early in the body, the branch at its end),
  // and its remainder follows it. exec runs the guard, its branch and the
  // branch past the original loop; the timing model sees the back edge.
  in.folded = true;
  return in;
}

int32_t new_reg(Function& f, Type type, const std::string& name) {
  f.regs.push_back(Register{name, type, 1});
  return static_cast<int32_t>(f.regs.size() - 1);
}

// A signed type of the comparison's width, for `b32`/`b64` tests (only
// eq/ne exist for them).
std::string ordered_type(const std::string& t) {
  if (t == "b32") return "s32";
  if (t == "b64") return "s64";
  return t;
}

// The guard: counter + step * (passes tested before the last copy) still
// passes the test, computed without wrapping past the counter.
std::vector<Instruction> guard(Function& f, const Loop& loop, unsigned factor, int32_t ok) {
  const Instruction& at = f.body[loop.begin];
  std::string type = ordered_type(loop.type);
  std::string cmp = loop.cmp == "ne" ? (loop.step > 0 ? "lt" : "gt") : loop.cmp;
  int64_t ahead = loop.step * static_cast<int64_t>(factor - 2 + (loop.test_after_step ? 1 : 0));
  int32_t t = new_reg(f, f.regs[loop.counter].type, "%unroll_t");
  int32_t q1 = new_reg(f, Type::Pred, "%unroll_q1");
  int32_t q2 = new_reg(f, Type::Pred, "%unroll_q2");
  return {make(at, "add", {loop.add_type}, {reg_operand(t), reg_operand(loop.counter), imm_operand(ahead)}),
          make(at, "setp", {cmp, type}, {reg_operand(q1), reg_operand(t), loop.bound}),
          make(at, "setp", {loop.step > 0 ? "gt" : "lt", type}, {reg_operand(q2), reg_operand(t), reg_operand(loop.counter)}),
          make(at, "and", {"pred"}, {reg_operand(ok), reg_operand(q1), reg_operand(q2)})};
}

// Renames the registers of `o`: reads through `current`; a written register
// gets `fresh(r)` (or keeps its name when fresh is null) and becomes current.
template <class Fresh>
void rename(Operand& o, bool written, std::vector<int32_t>& current, Fresh&& fresh) {
  if ((o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Address) && o.reg >= 0) {
    if (written && o.kind == Operand::Kind::Reg) {
      int32_t to = fresh(o.reg);
      current[o.reg] = to;
      o.reg = to;
    } else {
      o.reg = current[o.reg];
    }
  }
  for (Operand& e : o.elems) rename(e, written && o.kind == Operand::Kind::Vector, current, fresh);
}

// Copy `copy` (1-based) of the loop body; the last copy writes the original registers.
void emit_copy(Function& f, const Loop& loop, unsigned copy, unsigned factor, std::vector<int32_t>& current,
               std::vector<Instruction>& out) {
  bool last = copy == factor;
  for (size_t i = loop.begin; i < loop.branch; ++i) {
    if (!last && i == loop.exit_test) continue;
    Instruction in = f.body[i];
    // ptxas steps an induction register once per pass, folding the copies'
    // steps into the offsets they feed: only the last copy's step issues.
    if (!last && !in.ops.empty() && in.ops[0].kind == Operand::Kind::Reg && step_of(in, in.ops[0].reg))
      in.folded = true;
    // Reads first (an instruction may read what it writes), then writes.
    std::vector<bool> dst(in.ops.size(), false);
    for (size_t k = 0; k < in.ops.size(); ++k) dst[k] = writes_operand(f.body[i], f, k);
    auto keep = [](int32_t r) { return r; };
    for (size_t k = 0; k < in.ops.size(); ++k)
      if (!dst[k]) rename(in.ops[k], false, current, keep);
    for (size_t k = 0; k < in.ops.size(); ++k) {
      if (!dst[k]) continue;
      auto fresh = [&](int32_t r) {
        if (last) return r;
        Register reg = f.regs[r];  // a copy: new_reg grows f.regs
        return new_reg(f, reg.type, reg.name + "<unroll " + std::to_string(copy) + ">");
      };
      rename(in.ops[k], true, current, fresh);
    }
    out.push_back(std::move(in));
  }
}

size_t rewritten_size(const Loop& loop, unsigned factor) {
  size_t body = loop.branch - loop.begin;  // without the back edge
  return 5 + (factor - 1) * (body - 1) + body + 1 + 1 + body + 1;
}

}  // namespace

UnrollStats unroll_function(Function& f, const UnrollLimits& limits) {
  UnrollStats st;
  size_t n = f.body.size();
  if (limits.factor < 2 || n == 0) return st;
  std::vector<bool> leader(n + 1, false);
  for (const auto& [name, idx] : f.labels)
    if (idx >= 0 && static_cast<size_t>(idx) <= n) leader[idx] = true;
  std::vector<std::optional<Loop>> loop_from(n);
  for (size_t i = 0; i < n; ++i)
    if (leader[i]) loop_from[i] = loop_at(f, i, leader, limits);
  // New positions of the old instructions (a rewritten loop's label keeps its name).
  std::vector<int32_t> at(n + 1, 0);
  int32_t pos = 0;
  for (size_t i = 0; i < n;) {
    at[i] = pos;
    if (loop_from[i]) {
      size_t end = loop_from[i]->branch;
      for (size_t k = i + 1; k <= end; ++k) at[k] = pos;
      pos += static_cast<int32_t>(rewritten_size(*loop_from[i], limits.factor));
      i = end + 1;
    } else {
      ++pos, ++i;
    }
  }
  at[n] = pos;
  std::vector<Instruction> out;
  out.reserve(static_cast<size_t>(pos));
  auto original = [&](size_t i) {
    Instruction in = f.body[i];
    for (Operand& o : in.ops) remap_labels(o, at);
    return in;
  };
  for (size_t i = 0; i < n;) {
    if (!loop_from[i]) {
      out.push_back(original(i++));
      continue;
    }
    const Loop& loop = *loop_from[i];
    std::string id = std::to_string(st.loops++);
    int32_t single = at[i] + static_cast<int32_t>(rewritten_size(loop, limits.factor) - (loop.branch - loop.begin + 1));
    int32_t exit = at[loop.branch + 1];
    int32_t ok = new_reg(f, Type::Pred, "%unroll_ok");
    for (Instruction& g : guard(f, loop, limits.factor, ok)) out.push_back(std::move(g));
    Instruction skip = make(f.body[i], "bra", {}, {label_operand("$unroll_single_" + id, single)});
    skip.guard = ok;
    skip.guard_negated = true;
    out.push_back(std::move(skip));
    // The name each original register has at this point of the copies.
    std::vector<int32_t> current(f.regs.size());
    for (size_t r = 0; r < current.size(); ++r) current[r] = static_cast<int32_t>(r);
    for (unsigned c = 1; c <= limits.factor; ++c) emit_copy(f, loop, c, limits.factor, current, out);
    out.push_back(original(loop.branch));
    out.push_back(make(f.body[i], "bra", {}, {label_operand("$unroll_exit_" + id, exit)}));
    for (size_t k = loop.begin; k <= loop.branch; ++k) out.push_back(original(k));
    f.labels["$unroll_single_" + id] = single;
    f.labels["$unroll_exit_" + id] = exit;
    i = loop.branch + 1;
  }
  for (auto& [name, idx] : f.labels)
    if (idx >= 0 && static_cast<size_t>(idx) <= n && !name.starts_with("$unroll_")) idx = at[idx];
  f.body = std::move(out);
  return st;
}

UnrollStats unroll_module(Module& m, const UnrollLimits& limits) {
  UnrollStats st;
  for (Function& f : m.functions)
    if (!f.is_extern) st.loops += unroll_function(f, limits).loops;
  return st;
}

}  // namespace ws::ptx
