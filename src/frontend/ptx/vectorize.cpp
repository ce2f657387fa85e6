#include "frontend/ptx/vectorize.h"

#include <algorithm>
#include <bit>
#include <map>
#include <string_view>
#include <unordered_set>

#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

constexpr uint32_t kMaxAlign = 256;

uint32_t imm_alignment(int64_t v) {
  if (v == 0) return kMaxAlign;
  return std::min<uint32_t>(kMaxAlign, uint32_t{1} << std::min(std::countr_zero(static_cast<uint64_t>(v)), 8));
}

uint32_t times(uint32_t a, uint32_t b) { return static_cast<uint32_t>(std::min<uint64_t>(kMaxAlign, uint64_t{a} * b)); }

bool integer_op(const Instruction& in) {
  for (const std::string& m : in.mods) {
    Type t = type_from_name(m);
    if (t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 || t == Type::TF32 ||
        t == Type::F32 || t == Type::F64 || t == Type::Pred)
      return false;
  }
  return true;
}

const Variable* variable_of(const Operand& o, const Function& f, const Module& m) {
  if (o.local >= 0 && static_cast<size_t>(o.local) < f.locals.size()) return &f.locals[static_cast<size_t>(o.local)];
  if (o.symbol.empty()) return nullptr;
  return m.find_global(o.symbol);
}

class Alignment {
 public:
  Alignment(const Function& f, const Module& m) : f_(f), m_(m), al_(f.regs.size(), 1) {}

  std::vector<uint32_t> run() {
    // Optimistic start for every register something writes; each definition
    // can only lower it, so the iteration ends (loops: a pointer stepped by
    // 16 from an aligned start stays aligned).
    const auto cc = static_cast<int32_t>(f_.regs.size());
    std::vector<std::vector<int32_t>> writes(f_.body.size());
    for (size_t i = 0; i < f_.body.size(); ++i) {
      writes[i] = reg_access(f_.body[i], f_, cc).writes;
      for (int32_t r : writes[i])
        if (r >= 0 && r < cc) al_[static_cast<size_t>(r)] = kMaxAlign;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < f_.body.size(); ++i) {
        uint32_t v = writes[i].size() == 1 ? value(f_.body[i]) : 1;
        for (int32_t r : writes[i]) {
          if (r < 0 || r >= cc || al_[static_cast<size_t>(r)] <= v) continue;
          al_[static_cast<size_t>(r)] = v;
          changed = true;
        }
      }
    }
    return al_;
  }

 private:
  uint32_t of(const Operand& o) const {
    switch (o.kind) {
      case Operand::Kind::Imm: return imm_alignment(o.imm);
      case Operand::Kind::Reg:
        return o.reg >= 0 && static_cast<size_t>(o.reg) < al_.size() ? al_[static_cast<size_t>(o.reg)] : 1;
      case Operand::Kind::Symbol: {
        const Variable* v = variable_of(o, f_, m_);
        return v ? std::min(variable_alignment(*v), imm_alignment(o.imm)) : 1;
      }
      default: return 1;
    }
  }

  // What one definition guarantees about its destination.
  uint32_t value(const Instruction& in) const {
    const std::string& op = in.opcode;
    const auto& o = in.ops;
    if (!integer_op(in) || has_mod(in, "cc")) return 1;
    if ((op == "mov" || op == "cvta" || op == "cvt") && o.size() == 2) return of(o[1]);
    if (o.size() < 3) return 1;
    if (op == "add" || op == "sub" || op == "or" || op == "xor") return std::min(of(o[1]), of(o[2]));
    if (op == "and") return std::max(of(o[1]), of(o[2]));
    if (op == "shl")
      return o[2].kind == Operand::Kind::Imm && o[2].imm >= 0 && o[2].imm < 9
                 ? times(of(o[1]), uint32_t{1} << o[2].imm)
                 : of(o[1]);
    if (op == "mul" && !has_mod(in, "hi")) return times(of(o[1]), of(o[2]));
    if (op == "mad" && !has_mod(in, "hi") && o.size() == 4) return std::min(times(of(o[1]), of(o[2])), of(o[3]));
    return 1;
  }

  const Function& f_;
  const Module& m_;
  std::vector<uint32_t> al_;
};

// A scalar 4- or 8-byte shared load a vector load can take: its element
// size, or 0.
unsigned mergeable_load(const Instruction& in, const Function& f) {
  if (in.opcode != "ld" || in.guard >= 0 || in.folded || in.ops.size() != 2) return 0;
  if (!(has_mod(in, "shared") || has_mod(in, "shared::cta"))) return 0;
  for (std::string_view m : {"volatile", "relaxed", "acquire", "v2", "v4", "v8", "mmio"})
    if (has_mod(in, m)) return 0;
  const Operand& d = in.ops[0];
  const Operand& a = in.ops[1];
  if (d.kind != Operand::Kind::Reg || d.reg < 0 || static_cast<size_t>(d.reg) >= f.regs.size()) return 0;
  if (a.kind != Operand::Kind::Address || (a.reg < 0 && a.symbol.empty())) return 0;
  unsigned bytes = type_size(type_of(in));
  return bytes == 4 || bytes == 8 ? bytes : 0;
}

// Instructions no load moves across: they write shared memory, order it,
// or leave the straight line.
bool stops_merging(const Instruction& in) {
  static const std::unordered_set<std::string_view> kStops = {
      "bra", "brx", "call", "ret", "exit", "trap", "bar", "barrier", "membar", "fence", "atom", "red",
      "mbarrier", "cp", "st", "stmatrix", "wmma", "mma", "nanosleep", "sust", "sured"};
  return kStops.count(in.opcode) != 0;
}

struct Candidate {
  int64_t offset;
  size_t index;
  unsigned bytes;
};

class Vectorizer {
 public:
  Vectorizer(Function& f, const Module& m)
      : f_(f), m_(m), al_(register_alignment(f, m)), labelled_(labelled_instructions(f)) {}

  size_t run() {
    size_t merged = 0;
    size_t start = 0;
    for (size_t i = 0; i <= f_.body.size(); ++i) {
      bool end = i == f_.body.size() || labelled_[i] || stops_merging(f_.body[i]);
      if (!end) continue;
      if (i > start) merged += stretch(start, i);
      start = i == f_.body.size() ? i : (labelled_[i] && !stops_merging(f_.body[i]) ? i : i + 1);
    }
    return merged;
  }

 private:
  // Groups the loads of [begin, end), a stretch with no label inside and
  // nothing that stops merging. A base register written inside the stretch
  // starts a new key (its version).
  size_t stretch(size_t begin, size_t end) {
    const auto cc = static_cast<int32_t>(f_.regs.size());
    std::map<int32_t, unsigned> version;
    std::map<std::tuple<int32_t, std::string, unsigned, unsigned>, std::vector<Candidate>> groups;
    for (size_t i = begin; i < end; ++i) {
      const Instruction& in = f_.body[i];
      if (unsigned bytes = mergeable_load(in, f_)) {
        const Operand& a = in.ops[1];
        groups[{a.reg, a.symbol, a.reg >= 0 ? version[a.reg] : 0, bytes}].push_back(Candidate{a.imm, i, bytes});
      }
      for (int32_t r : reg_access(in, f_, cc).writes) ++version[r];
    }
    size_t merged = 0;
    for (auto& [key, cands] : groups) merged += merge(std::get<0>(key), cands, begin, end);
    return merged;
  }

  uint32_t base_alignment(int32_t reg, size_t at) const {
    if (reg >= 0) return static_cast<size_t>(reg) < al_.size() ? al_[static_cast<size_t>(reg)] : 1;
    const Operand& a = f_.body[at].ops[1];
    const Variable* v = variable_of(a, f_, m_);
    return v ? variable_alignment(*v) : 1;
  }

  size_t merge(int32_t reg, std::vector<Candidate>& cands, size_t begin, size_t end) {
    if (cands.size() < 2) return 0;
    std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
      return a.offset != b.offset ? a.offset < b.offset : a.index < b.index;
    });
    uint32_t align = base_alignment(reg, cands[0].index);
    std::vector<bool> used(cands.size(), false);
    size_t merged = 0;
    for (size_t k = 0; k < cands.size(); ++k) {
      if (used[k]) continue;
      unsigned elem = cands[k].bytes;
      for (unsigned width : {16u, 8u}) {
        if (width <= elem || align < width || cands[k].offset % width != 0) continue;
        std::vector<size_t> members{k};
        for (int64_t o = cands[k].offset + elem; o < cands[k].offset + width; o += elem) {
          size_t j = find(cands, used, o);
          if (j == SIZE_MAX) break;
          members.push_back(j);
        }
        if (members.size() != width / elem || !independent(cands, members, begin, end)) continue;
        mark(cands, members, width);
        for (size_t j : members) used[j] = true;
        merged += members.size() - 1;
        break;
      }
    }
    return merged;
  }

  static size_t find(const std::vector<Candidate>& cands, const std::vector<bool>& used, int64_t offset) {
    for (size_t j = 0; j < cands.size(); ++j)
      if (!used[j] && cands[j].offset == offset) return j;
    return SIZE_MAX;
  }

  // The vector load writes every member's register where the first member
  // stands: no instruction in between may read or write them, and the
  // members write distinct registers.
  bool independent(const std::vector<Candidate>& cands, const std::vector<size_t>& members, size_t begin,
                   size_t end) const {
    const auto cc = static_cast<int32_t>(f_.regs.size());
    size_t first = end, last = begin;
    std::vector<int32_t> dsts;
    for (size_t j : members) {
      first = std::min(first, cands[j].index);
      last = std::max(last, cands[j].index);
      int32_t d = f_.body[cands[j].index].ops[0].reg;
      if (std::find(dsts.begin(), dsts.end(), d) != dsts.end()) return false;
      dsts.push_back(d);
    }
    // Before its own load, nothing may touch a member's register: the
    // vector load (at `first`) already writes it.
    for (size_t i = first; i < last; ++i) {
      RegAccess a = reg_access(f_.body[i], f_, cc);
      for (size_t j : members) {
        if (i >= cands[j].index) continue;
        int32_t d = f_.body[cands[j].index].ops[0].reg;
        if (std::find(a.reads.begin(), a.reads.end(), d) != a.reads.end() ||
            std::find(a.writes.begin(), a.writes.end(), d) != a.writes.end())
          return false;
      }
    }
    return true;
  }

  void mark(const std::vector<Candidate>& cands, const std::vector<size_t>& members, unsigned width) {
    size_t head = members[0];
    for (size_t j : members)
      if (cands[j].index < cands[head].index) head = j;
    Instruction& h = f_.body[cands[head].index];
    h.merged_bytes = static_cast<uint8_t>(width);
    h.merged_below = static_cast<uint8_t>(cands[head].offset - cands[members[0]].offset);
    for (size_t j : members) {
      if (j == head) continue;
      Instruction& in = f_.body[cands[j].index];
      in.folded = true;
      h.merged_dsts.push_back(in.ops[0].reg);
    }
  }

  Function& f_;
  const Module& m_;
  std::vector<uint32_t> al_;
  std::vector<bool> labelled_;
};

}  // namespace

uint32_t variable_alignment(const Variable& v) {
  uint32_t declared = v.align ? v.align : std::max(1u, type_size(v.type) * v.vec);
  if (v.space != StateSpace::Shared || v.size < 16) return declared;
  return std::max(declared, 16u);
}

std::vector<uint32_t> register_alignment(const Function& f, const Module& m) { return Alignment(f, m).run(); }

size_t vectorize_shared_loads(Function& f, const Module& m) { return Vectorizer(f, m).run(); }

size_t vectorize_shared_loads_module(Module& m) {
  size_t n = 0;
  for (Function& f : m.functions) n += vectorize_shared_loads(f, m);
  return n;
}

}  // namespace ws::ptx
