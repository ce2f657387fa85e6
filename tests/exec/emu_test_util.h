// Test helpers for the emulator: a tiny line assembler that builds ptx::
// Functions from PTX-like instruction text (no declarations: registers are
// created on first use, typed by their prefix), and a harness that loads a
// module, allocates buffers and launches.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "exec/device_memory.h"
#include "exec/emulator.h"
#include "exec/program.h"
#include "frontend/ptx/ast.h"

namespace ws::exec::test {

class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name, bool entry = true) {
    f_.name = std::move(name);
    f_.is_entry = entry;
  }
  FunctionBuilder& param(const std::string& name, ptx::Type t, uint64_t size) {
    uint64_t off = (f_.param_bytes + size - 1) / size * size;
    f_.params.push_back({name, t, size, static_cast<uint32_t>(size), off, false, false});
    f_.param_bytes = off + size;
    return *this;
  }
  FunctionBuilder& ret(const std::string& name, ptx::Type t, uint64_t size) {
    f_.returns.push_back({name, t, size, static_cast<uint32_t>(size), 0, false, false});
    return *this;
  }
  FunctionBuilder& var(const std::string& name, ptx::StateSpace sp, uint64_t size, uint32_t align = 4) {
    ptx::Variable v;
    v.name = name, v.space = sp, v.type = ptx::Type::B8, v.size = size, v.align = align;
    f_.locals.push_back(v);
    return *this;
  }
  // One instruction per line (or `;`-separated); `NAME:` lines are labels.
  FunctionBuilder& code(const std::string& text);
  ptx::Function build();

 private:
  ptx::Operand operand(std::string s);
  int32_t reg(const std::string& name);
  ptx::Function f_;
  std::map<std::string, int32_t> regs_;
  std::vector<std::pair<size_t, std::string>> label_uses_;  // (instruction, operand) fixups
  int line_ = 0;
};

// A device, a program and an emulator, with helpers for buffers and launches.
struct Harness {
  DeviceMemory mem;
  Program program{mem};
  Emulator emu{mem, 80};
  const LoadedModule* module = nullptr;

  void load(ptx::Module m) { module = &program.load(std::move(m)); }
  void load(std::vector<ptx::Function> fns, std::vector<ptx::Variable> globals = {}) {
    ptx::Module m;
    m.filename = "test.ptx";
    m.functions = std::move(fns);
    m.globals = std::move(globals);
    load(std::move(m));
  }
  template <class T>
  Addr buffer(const std::vector<T>& data) {
    Addr a = *mem.allocate(data.size() * sizeof(T));
    if (!data.empty()) mem.write(a, data.data(), data.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> read(Addr a, size_t n) {
    std::vector<T> v(n);
    mem.read(a, v.data(), n * sizeof(T));
    return v;
  }
  // Parameters in declaration order, each written at its natural offset.
  template <class... Args>
  LaunchResult launch(const std::string& kernel, Dim3 grid, Dim3 block, Args... args) {
    Launch l;
    l.module = module;
    for (const ptx::Function& f : module->ast.functions)
      if (f.name == kernel) l.kernel = &f;
    l.grid = grid, l.block = block, l.dynamic_shmem = dynamic_shmem;
    (append(l.params, args), ...);
    return emu.run(l);
  }
  uint32_t dynamic_shmem = 0;

 private:
  template <class T>
  static void append(std::vector<uint8_t>& buf, T v) {
    size_t off = (buf.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    buf.resize(off + sizeof(T));
    std::memcpy(buf.data() + off, &v, sizeof(T));
  }
};

inline int32_t FunctionBuilder::reg(const std::string& name) {
  auto it = regs_.find(name);
  if (it != regs_.end()) return it->second;
  ptx::Type t = ptx::Type::B32;
  if (name.rfind("%rd", 0) == 0) t = ptx::Type::B64;
  else if (name.rfind("%rs", 0) == 0 || name.rfind("%h", 0) == 0) t = ptx::Type::B16;
  else if (name.rfind("%p", 0) == 0) t = ptx::Type::Pred;
  else if (name.rfind("%fd", 0) == 0) t = ptx::Type::F64;
  else if (name.rfind("%f", 0) == 0) t = ptx::Type::F32;
  f_.regs.push_back({name, t, 1});
  return regs_[name] = static_cast<int32_t>(f_.regs.size() - 1);
}

inline std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

inline std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char ch : s) {
    if (ch == '{' || ch == '[' || ch == '(') depth++;
    if (ch == '}' || ch == ']' || ch == ')') depth--;
    if (ch == sep && depth == 0) out.push_back(trim(cur)), cur.clear();
    else cur += ch;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

inline ptx::Operand FunctionBuilder::operand(std::string s) {
  static const std::map<std::string, ptx::SpecialReg> kSpecial = {
      {"%tid.x", ptx::SpecialReg::TidX},     {"%tid.y", ptx::SpecialReg::TidY},
      {"%tid.z", ptx::SpecialReg::TidZ},     {"%ntid.x", ptx::SpecialReg::NtidX},
      {"%ntid.y", ptx::SpecialReg::NtidY},   {"%ctaid.x", ptx::SpecialReg::CtaidX},
      {"%ctaid.y", ptx::SpecialReg::CtaidY}, {"%nctaid.x", ptx::SpecialReg::NctaidX},
      {"%laneid", ptx::SpecialReg::LaneId},  {"%warpid", ptx::SpecialReg::WarpId},
      {"%smid", ptx::SpecialReg::SmId},      {"%clock", ptx::SpecialReg::Clock},
      {"%clock64", ptx::SpecialReg::Clock64}, {"%lanemask_lt", ptx::SpecialReg::LaneMaskLt},
      {"%dynamic_smem_size", ptx::SpecialReg::DynamicSmemSize}};
  using K = ptx::Operand::Kind;
  ptx::Operand o;
  s = trim(s);
  if (s == "_") return o.kind = K::Sink, o;
  if (s[0] == '!') {
    o = operand(s.substr(1));
    o.negate = true;
    return o;
  }
  if (s[0] == '{') {
    o.kind = K::Vector;
    for (const std::string& e : split_top(s.substr(1, s.size() - 2), ',')) o.elems.push_back(operand(e));
    return o;
  }
  if (s[0] == '(') {  // call groups become vectors
    o.kind = K::Vector;
    for (const std::string& e : split_top(s.substr(1, s.size() - 2), ',')) o.elems.push_back(operand(e));
    return o;
  }
  if (s[0] == '[') {
    o.kind = K::Address;
    std::string in = trim(s.substr(1, s.size() - 2));
    size_t plus = in.find_first_of("+-", 1);
    std::string base = trim(in.substr(0, plus));
    if (plus != std::string::npos) o.imm = std::stoll(trim(in.substr(plus + 1)), nullptr, 0) * (in[plus] == '-' ? -1 : 1);
    if (base[0] == '%') o.reg = reg(base);
    else if (isdigit(static_cast<unsigned char>(base[0]))) o.imm += std::stoll(base, nullptr, 0);
    else o.symbol = base;
    return o;
  }
  if (auto it = kSpecial.find(s); it != kSpecial.end()) return o.kind = K::Special, o.special = it->second, o;
  if (s[0] == '%') return o.kind = K::Reg, o.reg = reg(s), o;
  if (s.rfind("0f", 0) == 0 && s.size() == 10) return o.kind = K::FImm, o.fbits = std::stoull(s.substr(2), nullptr, 16), o.fwidth = 32, o;
  if (s.rfind("0d", 0) == 0 && s.size() == 18) return o.kind = K::FImm, o.fbits = std::stoull(s.substr(2), nullptr, 16), o.fwidth = 64, o;
  if (isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-') {
    o.kind = K::Imm;
    o.imm = static_cast<int64_t>(std::stoull(s[0] == '-' ? s.substr(1) : s, nullptr, 0));
    if (s[0] == '-') o.imm = -o.imm;
    return o;
  }
  o.kind = K::Symbol;
  o.symbol = s;
  return o;
}

inline FunctionBuilder& FunctionBuilder::code(const std::string& text) {
  std::istringstream lines(text);
  std::string raw;
  while (std::getline(lines, raw)) {
    for (std::string stmt : split_top(raw, ';')) {
      ++line_;
      stmt = trim(stmt);
      if (stmt.empty()) continue;
      if (stmt.back() == ':') {
        f_.labels[stmt.substr(0, stmt.size() - 1)] = static_cast<int32_t>(f_.body.size());
        continue;
      }
      ptx::Instruction in;
      in.line = line_;
      in.text = stmt;
      if (stmt[0] == '@') {
        size_t sp = stmt.find(' ');
        std::string g = stmt.substr(1, sp - 1);
        in.guard_negated = g[0] == '!';
        in.guard = reg(in.guard_negated ? g.substr(1) : g);
        stmt = trim(stmt.substr(sp));
      }
      size_t sp = stmt.find_first_of(" \t");
      std::string name = stmt.substr(0, sp);
      std::string rest = sp == std::string::npos ? "" : stmt.substr(sp);
      size_t dot = name.find('.');
      in.opcode = name.substr(0, dot);
      while (dot != std::string::npos) {
        size_t next = name.find('.', dot + 1);
        in.mods.push_back(name.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1));
        dot = next;
      }
      for (std::string o : split_top(rest, ',')) {
        size_t bar = o.find('|');  // d|p: two destinations
        if (bar != std::string::npos && o[0] != '{') {
          in.ops.push_back(operand(o.substr(0, bar)));
          in.ops.push_back(operand(o.substr(bar + 1)));
          continue;
        }
        ptx::Operand op = operand(o);
        if (op.kind == ptx::Operand::Kind::Symbol) label_uses_.push_back({f_.body.size(), op.symbol});
        in.ops.push_back(op);
      }
      f_.body.push_back(std::move(in));
    }
  }
  return *this;
}

inline ptx::Function FunctionBuilder::build() {
  for (ptx::Instruction& in : f_.body)
    for (ptx::Operand& o : in.ops)
      if (o.kind == ptx::Operand::Kind::Symbol)
        if (auto it = f_.labels.find(o.symbol); it != f_.labels.end()) o.label = it->second;
  return f_;
}

}  // namespace ws::exec::test
