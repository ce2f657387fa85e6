#include "frontend/ptx/fuse.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "frontend/ptx/reg_access.h"
#include "frontend/ptx/uniform.h"

namespace ws::ptx {

namespace {

bool has_imm(const Instruction& in) {
  return std::any_of(in.ops.begin() + (in.ops.empty() ? 0 : 1), in.ops.end(), [](const Operand& o) {
    return o.kind == Operand::Kind::Imm || o.kind == Operand::Kind::FImm;
  });
}

bool wide_add(const Instruction& in) {
  Type t = type_of(in);
  return in.opcode == "add" && (t == Type::S64 || t == Type::U64 || t == Type::B64);
}

bool word_type(Type t) { return t == Type::S32 || t == Type::U32 || t == Type::B32; }

bool word_add(const Instruction& in) { return in.opcode == "add" && word_type(type_of(in)); }

// A 32-bit add or subtract: IMAD takes a product as its addend's partner
// (a subtracted product is a negated multiplier).
bool word_add_or_sub(const Instruction& in) {
  return (in.opcode == "add" || in.opcode == "sub") && word_type(type_of(in)) && !has_mod(in, "sat") &&
         !has_mod(in, "cc");
}

bool float_type(Type t) { return t == Type::F32 || t == Type::F64; }

bool rounds_explicitly(const Instruction& in) {
  return has_mod(in, "rn") || has_mod(in, "rz") || has_mod(in, "rm") || has_mod(in, "rp") || has_mod(in, "sat");
}

// A float add or subtract that names no rounding: PTX lets the assembler
// contract a multiply into it (FFMA, DFMA).
bool contractible_add(const Instruction& in) {
  return (in.opcode == "add" || in.opcode == "sub") && float_type(type_of(in)) && !rounds_explicitly(in);
}

// A 32-bit integer min or max (VIADDMNMX takes an add before it).
bool word_min_max(const Instruction& in) {
  return (in.opcode == "min" || in.opcode == "max") && (type_of(in) == Type::S32 || type_of(in) == Type::U32) &&
         in.ops.size() == 3 && !has_mod(in, "relu");
}

// A 32-bit max with 0 (VIMNMX.RELU's clamp at zero).
bool max_with_zero(const Instruction& in) {
  return in.opcode == "max" && type_of(in) == Type::S32 && in.ops.size() == 3 &&
         in.ops[2].kind == Operand::Kind::Imm && in.ops[2].imm == 0;
}

// An arithmetic instruction that can take an immediate in place of a
// register it reads (it has none of its own).
bool takes_immediate(const Instruction& in) {
  std::string_view op = in.opcode;
  if (warp_collective(op) || op == "mma" || op == "cvt" || op == "prmt") return false;
  return pure_opcode(op) && !has_imm(in);
}

class Fuser {
 public:
  Fuser(Function& f, const FuseOptions& o)
      : f_(f),
        o_(o),
        u_(reg_uses(f)),
        combined_(f.body.size(), false),
        took_product_(f.body.size(), false),
        took_add_(f.body.size(), false) {}

  FuseStats run() {
    FuseStats s;
    // Merges into a reader (IMAD.WIDE, LEA) come last: they need a reader
    // that is itself issued.
    for (bool into_reader : {false, true})
      for (size_t i = 0; i < f_.body.size(); ++i)
        if (foldable(i, into_reader)) {
          f_.body[i].folded = true;
          ++s.folded;
        }
    if (s.folded) give_sources();
    return s;
  }

 private:
  // The one register instruction `i` writes, when it is that register's
  // only definition; -1 otherwise.
  int32_t sole_dst(size_t i) const {
    RegAccess a = reg_access(f_.body[i], f_, static_cast<int32_t>(f_.regs.size()));
    if (a.writes.size() != 1) return -1;
    int32_t d = a.writes[0];
    if (d < 0 || static_cast<size_t>(d) >= f_.regs.size() || u_.def[static_cast<size_t>(d)] != static_cast<int32_t>(i))
      return -1;
    return d;
  }

  // Every reader of `d` passes `ok` and is issued.
  bool all_readers(int32_t d, bool (*ok)(const Instruction&)) const {
    const auto& rs = u_.readers[static_cast<size_t>(d)];
    return !rs.empty() &&
           std::all_of(rs.begin(), rs.end(), [&](size_t r) { return ok(f_.body[r]) && !f_.body[r].folded; });
  }

  // Every reader of `d` uses it only as the base register of an address.
  bool only_addresses(int32_t d) const {
    const auto& rs = u_.readers[static_cast<size_t>(d)];
    auto as_value = [&](const Operand& o, auto& self) -> bool {
      if (o.kind == Operand::Kind::Reg && o.reg == d) return true;
      return std::any_of(o.elems.begin(), o.elems.end(), [&](const Operand& e) { return self(e, self); });
    };
    return !rs.empty() && std::all_of(rs.begin(), rs.end(), [&](size_t r) {
      const Instruction& in = f_.body[r];
      return in.guard != d && std::none_of(in.ops.begin(), in.ops.end(), [&](const Operand& o) { return as_value(o, as_value); });
    });
  }

  // Every reader of `d` has the type and flush-to-zero mode of `in`.
  bool readers_alike(int32_t d, const Instruction& in) const {
    const auto& rs = u_.readers[static_cast<size_t>(d)];
    return std::all_of(rs.begin(), rs.end(), [&](size_t r) {
      return type_of(f_.body[r]) == type_of(in) && has_mod(f_.body[r], "ftz") == has_mod(in, "ftz");
    });
  }

  // Each reader of `d` takes it into its merged form, if it has not taken
  // another of the kind (`took`): an add of two products is one IMAD and
  // one IMUL, a max of two sums one VIADDMNMX and one add.
  bool readers_take(int32_t d, std::vector<bool>& took) {
    const auto& rs = u_.readers[static_cast<size_t>(d)];
    if (std::any_of(rs.begin(), rs.end(), [&](size_t r) { return took[r]; })) return false;
    for (size_t r : rs) took[r] = true;
    return true;
  }

  // A `setp` with a single destination, read by instruction `i` alone,
  // takes `i`'s predicate combination (ISETP's third predicate).
  bool absorbs_setp(const Operand& o, size_t i) {
    if (o.kind != Operand::Kind::Reg || o.reg < 0) return false;
    int32_t d = u_.def[static_cast<size_t>(o.reg)];
    if (d < 0 || combined_[static_cast<size_t>(d)]) return false;
    const Instruction& s = f_.body[static_cast<size_t>(d)];
    if (s.opcode != "setp" || s.guard >= 0 || s.folded || s.ops.size() != 3) return false;
    const auto& rs = u_.readers[static_cast<size_t>(o.reg)];
    if (rs.size() != 1 || rs[0] != i) return false;
    combined_[static_cast<size_t>(d)] = true;
    return true;
  }

  // Every reader of `d` is guarded as instruction `i` is (a predicated
  // region, predicate.h: the merged SASS instruction takes the guard).
  bool readers_guarded_alike(int32_t d, const Instruction& in) const {
    const auto& rs = u_.readers[static_cast<size_t>(d)];
    return std::all_of(rs.begin(), rs.end(), [&](size_t r) {
      return f_.body[r].guard == in.guard && f_.body[r].guard_negated == in.guard_negated;
    });
  }

  bool foldable(size_t i, bool into_reader) {
    const Instruction& in = f_.body[i];
    if (in.folded) return false;
    int32_t d = sole_dst(i);
    if (d < 0) return false;
    if (in.guard >= 0 && (in.guard == d || !readers_guarded_alike(d, in))) return false;
    Type t = type_of(in);
    const std::string& op = in.opcode;
    if (t == Type::Pred) {
      if (op == "not") return true;  // a negated predicate operand
      if ((op == "and" || op == "or" || op == "xor") && in.ops.size() == 3)
        return absorbs_setp(in.ops[1], i) || absorbs_setp(in.ops[2], i);
      return false;
    }
    if (op == "cvta" && has_mod(in, "global")) return true;  // the same address
    if (op == "mul" && has_mod(in, "wide") && type_size(t) == 4)
      return into_reader && all_readers(d, wide_add);  // IMAD.WIDE
    if (op == "mul" && float_type(t) && !rounds_explicitly(in) && in.ops.size() == 3)
      return into_reader && all_readers(d, contractible_add) && readers_alike(d, in) &&
             readers_take(d, took_product_);  // FFMA, DFMA
    if (o_.imad && op == "mul" && (has_mod(in, "lo") || has_mod(in, "wide")) && in.ops.size() == 3)
      return into_reader && all_readers(d, word_add_or_sub) && readers_take(d, took_product_);  // IMAD
    if (op == "shl" && word_type(t) && in.ops.size() == 3 &&
        in.ops[2].kind == Operand::Kind::Imm)
      return into_reader && all_readers(d, word_add);  // LEA
    if (into_reader) return false;
    if (o_.add_min_max && op == "add" && word_type(t) && in.ops.size() == 3 && all_readers(d, word_min_max))
      return readers_take(d, took_add_);  // VIADDMNMX
    if (o_.add_min_max && op == "min" && word_min_max(in) && all_readers(d, max_with_zero))
      return true;  // VIMNMX.RELU (VIADDMNMX.RELU with an add folded before it)
    if (op == "add" && in.ops.size() == 3 && in.ops[2].kind == Operand::Kind::Imm && t != Type::None &&
        type_size(t) >= 4)
      return only_addresses(d);  // an immediate offset of the accesses: [R+imm]
    if (op == "mov" && in.ops.size() == 2 &&
        (in.ops[1].kind == Operand::Kind::Imm || in.ops[1].kind == Operand::Kind::FImm))
      return all_readers(d, takes_immediate);
    return false;
  }

  // The registers a folded instruction's result stands for: its own reads,
  // through other folded producers.
  void sources_of(size_t i, std::vector<int32_t>& out, int depth) const {
    RegAccess a = reg_access(f_.body[i], f_, static_cast<int32_t>(f_.regs.size()));
    for (int32_t r : a.reads) {
      if (r < 0 || static_cast<size_t>(r) >= f_.regs.size() || f_.regs[static_cast<size_t>(r)].type == Type::Pred)
        continue;
      int32_t d = u_.def[static_cast<size_t>(r)];
      if (d >= 0 && f_.body[static_cast<size_t>(d)].folded && depth < 8) {
        sources_of(static_cast<size_t>(d), out, depth + 1);
      } else if (std::find(out.begin(), out.end(), r) == out.end()) {
        out.push_back(r);
      }
    }
  }

  void give_sources() {
    for (size_t i = 0; i < f_.body.size(); ++i) {
      Instruction& in = f_.body[i];
      if (in.folded) continue;
      std::vector<int32_t> extra;
      for (int32_t r : reg_access(in, f_, static_cast<int32_t>(f_.regs.size())).reads) {
        if (r < 0 || static_cast<size_t>(r) >= f_.regs.size()) continue;
        int32_t d = u_.def[static_cast<size_t>(r)];
        if (d >= 0 && f_.body[static_cast<size_t>(d)].folded) sources_of(static_cast<size_t>(d), extra, 0);
      }
      for (int32_t r : extra)
        if (std::find(in.fused_reads.begin(), in.fused_reads.end(), r) == in.fused_reads.end())
          in.fused_reads.push_back(r);
    }
  }

  Function& f_;
  FuseOptions o_;
  RegUses u_;
  std::vector<bool> combined_;       // setps that already took a combination
  std::vector<bool> took_product_;   // adds that already took a folded product (IMAD)
  std::vector<bool> took_add_;       // mins and maxes that already took a folded add (VIADDMNMX)
};

bool reads_clock_any(const Instruction& in) {
  return std::any_of(in.ops.begin(), in.ops.end(), [](const Operand& o) { return reads_clock(o); });
}

}  // namespace

FuseStats fuse_function(Function& f, const FuseOptions& o) { return Fuser(f, o).run(); }

int32_t predicable_region_end(const Function& f, size_t i, const std::vector<bool>& labelled, unsigned max_region) {
  static const std::unordered_set<std::string_view> kStops = {
      "bra", "brx", "call", "ret", "exit", "trap", "bar", "barrier", "membar", "fence", "atom", "red",
      "nanosleep", "mbarrier", "cp", "wmma", "mma",
      "tex", "tld4", "txq", "suld", "sust", "sured", "suq", "ldmatrix", "stmatrix", "isspacep"};
  const Instruction& br = f.body[i];
  if (conditional_branch_target(br) <= static_cast<int32_t>(i) + 1) return -1;
  auto end = static_cast<size_t>(br.ops[0].label);
  // A branch to the end is `@P EXIT` in the SASS: it issues, as here.
  if (end >= f.body.size() || f.body[end].opcode == "ret" || f.body[end].opcode == "exit") return -1;
  unsigned issued = 0;
  for (size_t k = i + 1; k < end; ++k) {
    const Instruction& in = f.body[k];
    if (labelled[k] || in.guard >= 0 || kStops.count(in.opcode) != 0 || warp_collective(in.opcode) ||
        reads_clock_any(in))
      return -1;
    issued += in.folded ? 0 : 1;
  }
  return issued == 0 || issued > max_region ? -1 : static_cast<int32_t>(end);
}

size_t if_convert_function(Function& f, unsigned max_region) {
  std::vector<bool> labelled = labelled_instructions(f);
  size_t marked = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    int32_t end = predicable_region_end(f, i, labelled, max_region);
    if (end < 0) continue;
    f.body[i].if_converted_end = end;
    ++marked;
  }
  return marked;
}

size_t mark_reconvergence_function(Function& f) {
  UniformRegs uniform = UniformRegs::through_control(f);
  size_t marked = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    Instruction& br = f.body[i];
    if (conditional_branch_target(br) <= static_cast<int32_t>(i) + 1 || br.if_converted_end >= 0 ||
        uniform.reg(br.guard))
      continue;
    auto end = static_cast<size_t>(br.ops[0].label);
    if (end >= f.body.size() || f.body[end].opcode == "ret" || f.body[end].opcode == "exit") continue;
    const Instruction& first = f.body[i + 1];
    if (end == i + 2 && first.opcode == "bra" && first.guard < 0) continue;  // an if/else's skeleton
    br.bssy = true;
    if (f.body[end].bsync < UINT8_MAX) ++f.body[end].bsync;
    ++marked;
  }
  return marked;
}

size_t mark_reconvergence_module(Module& m) {
  size_t n = 0;
  for (Function& f : m.functions) n += mark_reconvergence_function(f);
  return n;
}

size_t if_convert_module(Module& m, unsigned max_region) {
  size_t n = 0;
  for (Function& f : m.functions) n += if_convert_function(f, max_region);
  return n;
}

FuseStats fuse_module(Module& m, const FuseOptions& o) {
  FuseStats s;
  for (Function& f : m.functions) s.folded += fuse_function(f, o).folded;
  return s;
}

}  // namespace ws::ptx
