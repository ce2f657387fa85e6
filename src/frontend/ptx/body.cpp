// Function bodies: scopes, register and variable declarations, labels,
// instructions and their operands, and name resolution at the end of a body.
#include <array>
#include <bit>

#include "frontend/ptx/parser_impl.h"

namespace ws::ptx::detail {
namespace {

struct SpecialName {
  std::string_view name;
  SpecialReg reg;
};

constexpr std::array<SpecialName, 28> kSpecials = {{
    {"%tid.x", SpecialReg::TidX},         {"%tid.y", SpecialReg::TidY},
    {"%tid.z", SpecialReg::TidZ},         {"%ntid.x", SpecialReg::NtidX},
    {"%ntid.y", SpecialReg::NtidY},       {"%ntid.z", SpecialReg::NtidZ},
    {"%ctaid.x", SpecialReg::CtaidX},     {"%ctaid.y", SpecialReg::CtaidY},
    {"%ctaid.z", SpecialReg::CtaidZ},     {"%nctaid.x", SpecialReg::NctaidX},
    {"%nctaid.y", SpecialReg::NctaidY},   {"%nctaid.z", SpecialReg::NctaidZ},
    {"%laneid", SpecialReg::LaneId},      {"%warpid", SpecialReg::WarpId},
    {"%nwarpid", SpecialReg::NWarpId},    {"%smid", SpecialReg::SmId},
    {"%nsmid", SpecialReg::NSmId},        {"%gridid", SpecialReg::GridId},
    {"%lanemask_eq", SpecialReg::LaneMaskEq}, {"%lanemask_le", SpecialReg::LaneMaskLe},
    {"%lanemask_lt", SpecialReg::LaneMaskLt}, {"%lanemask_ge", SpecialReg::LaneMaskGe},
    {"%lanemask_gt", SpecialReg::LaneMaskGt}, {"%clock", SpecialReg::Clock},
    {"%clock64", SpecialReg::Clock64},    {"%globaltimer", SpecialReg::GlobalTimer},
    {"%dynamic_smem_size", SpecialReg::DynamicSmemSize}, {"%total_smem_size", SpecialReg::TotalSmemSize},
}};

// %reserved_smem_offset_{begin,end,cap,0,1} -> 0..4; -1 for other names.
int reserved_smem_index(std::string_view name) {
  constexpr std::string_view kPrefix = "%reserved_smem_offset_";
  constexpr std::string_view kWhich[] = {"begin", "end", "cap", "0", "1"};
  if (!name.starts_with(kPrefix)) return -1;
  for (int i = 0; i < 5; ++i)
    if (name.substr(kPrefix.size()) == kWhich[i]) return i;
  return -1;
}

bool find_special(std::string_view name, SpecialReg& out) {
  if (reserved_smem_index(name) >= 0) return out = SpecialReg::ReservedSmem, true;
  for (const SpecialName& s : kSpecials) {
    if (s.name == name) {
      out = s.reg;
      return true;
    }
  }
  // %envreg0 .. %envreg31
  std::string_view digits = name.substr(std::min<size_t>(name.size(), 7));
  if (!name.starts_with("%envreg") || digits.empty() || digits.size() > 2) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  out = SpecialReg::EnvReg;
  return true;
}

// "%r15" -> {"%r", 15}; false when the name does not end in a canonical number.
bool split_numbered(std::string_view name, std::string_view& prefix, uint32_t& index) {
  size_t p = name.size();
  while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9') --p;
  size_t digits = name.size() - p;
  if (digits == 0 || p == 0 || digits > 9 || (digits > 1 && name[p] == '0')) return false;
  prefix = name.substr(0, p);
  index = 0;
  for (size_t k = p; k < name.size(); ++k) index = index * 10 + static_cast<uint32_t>(name[k] - '0');
  return true;
}

bool is_module_directive(std::string_view d) {
  return d == ".entry" || d == ".func" || d == ".visible" || d == ".extern" || d == ".weak" || d == ".version" ||
         d == ".target" || d == ".address_size" || d == ".section";
}

}  // namespace

std::string squeeze_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    bool glue = c == ',' || c == ')' || c == '}' || c == ']' || c == ';' || c == '|';
    char prev = out.empty() ? '\0' : out.back();
    if (space && !glue && prev != '(' && prev != '{' && prev != '[' && prev != '|') out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// ---------------------------------------------------------------- statements

void Parser::function_body(Function& f) {
  fn_ = &f;
  scopes_.clear();
  prototypes_.clear();
  scopes_.push_back(Scope{next().line, {}, {}, {}});
  while (body_statement()) {
  }
  resolve_names();
  fn_ = nullptr;
}

// Returns false after the '}' that closes the function.
bool Parser::body_statement() {
  Token t = peek();
  switch (t.kind) {
    case TokKind::Ident:
      if (peek(1).is(':')) label_statement();
      else instruction();
      return true;
    case TokKind::Directive:
      return body_directive(t);
    case TokKind::End:
      fail_at(scopes_.back().open_line, "{", "unterminated block: end of input before its '}'");
    default:
      break;
  }
  if (t.is('@')) {
    instruction();
  } else if (t.is('{')) {
    next();
    scopes_.push_back(Scope{t.line, {}, {}, {}});
  } else if (t.is('}')) {
    next();
    scopes_.pop_back();
    return !scopes_.empty();
  } else {
    fail(t, "unexpected token in a function body");
  }
  return true;
}

bool Parser::body_directive(const Token& t) {
  std::string_view d = t.text;
  if (d == ".reg") {
    reg_decl();
  } else if (is_space_directive(d)) {
    size_t first = fn_->locals.size();
    std::vector<std::string_view> names = variable_decl(Linkage{}, fn_->locals);
    for (size_t i = 0; i < names.size(); ++i)
      scopes_.back().locals[names[i]] = static_cast<int32_t>(first + i);
  } else if (d == ".loc" || d == ".file") {
    skip_line();
  } else if (d == ".pragma") {
    // `#pragma unroll 1`: ptxas keeps the loop around this point rolled.
    if (peek(1).kind == TokKind::String && peek(1).text == "\"nounroll\"")
      fn_->nounroll.push_back(static_cast<int32_t>(fn_->body.size()));
    skip_to_semicolon();
  } else if (is_module_directive(d)) {
    fail_at(scopes_.back().open_line, "{",
            "unterminated block: no '}' before " + describe(t) + " at line " + std::to_string(t.line));
  } else {
    fail(t, "unexpected directive in a function body");
  }
  return true;
}

// `.reg .b32 %r<22>, %x;`, `.reg .v2 .f32 v;`, `.reg .pred p;`
void Parser::reg_decl() {
  next();
  Type type = Type::None;
  unsigned vec = 1;
  while (peek().kind == TokKind::Directive) {
    Token d = next();
    if (d.text == ".v2" || d.text == ".v4" || d.text == ".v8") vec = static_cast<unsigned>(d.text[2] - '0');
    else if (Type t = type_from_name(std::string(d.text)); t != Type::None) type = t;
    else fail(d, "unexpected attribute in a .reg declaration");
  }
  if (type == Type::None) fail(peek(), "register declaration without a type");
  do {
    Token name = expect_ident("for the register");
    if (name.text.find('.') != std::string_view::npos) fail(name, "register names contain no '.'");
    int32_t count = -1;
    if (accept('<')) {
      uint64_t n = int_literal(next());
      if (n == 0 || n > (1u << 24)) fail(lex_.prev(), "register count out of range");
      count = static_cast<int32_t>(n);
      expect('>', "after the register count");
    }
    add_register(name, type, vec, count);
  } while (accept(','));
  expect(';', "after the .reg declaration");
}

// count < 0: the single register `name`; otherwise name0..name(count-1).
void Parser::add_register(const Token& name, Type type, unsigned vec, int32_t count) {
  Scope& scope = scopes_.back();
  auto first = static_cast<int32_t>(fn_->regs.size());
  if (count < 0) {
    if (!scope.regs.emplace(name.text, first).second) fail(name, "register declared twice in one scope");
    fn_->regs.push_back(Register{std::string(name.text), type, vec});
    return;
  }
  if (!scope.ranges.emplace(name.text, RegRange{first, count}).second)
    fail(name, "register range declared twice in one scope");
  fn_->regs.reserve(fn_->regs.size() + static_cast<size_t>(count));
  std::string base(name.text);
  for (int32_t i = 0; i < count; ++i) fn_->regs.push_back(Register{base + std::to_string(i), type, vec});
}

// `name:`; `name: .callprototype ...;` and `name: .branchtargets ...;` declare
// names that call / brx.idx refer to rather than positions in the body.
void Parser::label_statement() {
  Token name = next();
  next();
  if (peek().is_dir(".callprototype") || peek().is_dir(".branchtargets")) {
    prototypes_.insert(name.text);
    skip_to_semicolon();
    return;
  }
  auto index = static_cast<int32_t>(fn_->body.size());
  if (!fn_->labels.emplace(std::string(name.text), index).second) fail(name, "label defined twice");
}

// ---------------------------------------------------------------- instructions

void Parser::instruction() {
  Instruction inst;
  Token first = peek();
  inst.line = first.line;
  if (accept('@')) {
    inst.guard_negated = accept('!');
    Token g = expect_ident("after '@'");
    inst.guard = find_reg(g.text);
    if (inst.guard < 0) fail(g, "undeclared predicate register");
  }
  Token opcode = peek();
  if (opcode.kind != TokKind::Ident) fail(opcode, "expected an instruction");
  next();
  split_opcode(opcode.text, inst);
  operand_list(inst);
  Token last = lex_.prev();
  expect(';', "after the instruction");
  const char* end = last.text.data() + last.text.size();
  inst.text = squeeze_spaces(std::string_view(first.text.data(), static_cast<size_t>(end - first.text.data())));
  if (inst.opcode == "call") normalise_call(inst);
  fn_->body.push_back(std::move(inst));
}

void Parser::split_opcode(std::string_view dotted, Instruction& inst) const {
  size_t dot = dotted.find('.');
  inst.opcode = std::string(dotted.substr(0, dot));
  while (dot != std::string_view::npos) {
    size_t start = dot + 1;
    dot = dotted.find('.', start);
    inst.mods.emplace_back(dotted.substr(start, dot == std::string_view::npos ? dot : dot - start));
  }
}

void Parser::operand_list(Instruction& inst) {
  if (peek().is(';')) return;
  do {
    inst.ops.push_back(operand());
    if (accept('|')) inst.ops.push_back(operand());
  } while (accept(','));
  if (!peek().is(';')) fail(peek(), "expected ',' or ';' after an operand");
}

// {returns}, callee, {args}, prototype: the same four slots for every call form.
void Parser::normalise_call(Instruction& inst) const {
  std::vector<Operand> ops = std::move(inst.ops);
  inst.ops.clear();
  size_t i = 0;
  Operand empty;
  empty.kind = Operand::Kind::Vector;
  bool has_returns = ops.size() > 1 && ops[0].kind == Operand::Kind::Vector;
  inst.ops.push_back(has_returns ? std::move(ops[i++]) : empty);
  if (i >= ops.size() || (ops[i].kind != Operand::Kind::Symbol && ops[i].kind != Operand::Kind::Reg))
    fail_at(inst.line, inst.text, "call needs a function name or register");
  inst.ops.push_back(std::move(ops[i++]));
  bool has_args = i < ops.size() && ops[i].kind == Operand::Kind::Vector;
  inst.ops.push_back(has_args ? std::move(ops[i++]) : empty);
  if (i < ops.size() && ops[i].kind == Operand::Kind::Symbol) inst.ops.push_back(std::move(ops[i++]));
  if (i < ops.size()) fail_at(inst.line, inst.text, "unexpected operands in call");
}

// ---------------------------------------------------------------- operands

Operand Parser::operand() {
  Token t = peek();
  if (t.kind == TokKind::Ident) return name_operand(next());
  if (t.kind == TokKind::Int || t.kind == TokKind::Float || t.is('-')) return number_operand();
  if (t.is('[')) return address_operand();
  if (t.is('{')) return list_operand('{', '}');
  if (t.is('(')) return list_operand('(', ')');
  if (t.is('!')) {
    next();
    Token p = peek();
    if (p.kind != TokKind::Ident) fail(p, "'!' applies to a predicate register");
    Operand o = name_operand(next());
    if (o.kind != Operand::Kind::Reg) fail(p, "'!' applies to a predicate register");
    o.negate = true;
    return o;
  }
  fail(t, "expected an operand");
}

Operand Parser::name_operand(const Token& t) {
  Operand o;
  if (t.text == "_") {
    o.kind = Operand::Kind::Sink;
    return o;
  }
  o.reg = find_reg(t.text);
  if (o.reg >= 0) {
    o.kind = Operand::Kind::Reg;
    return o;
  }
  if (t.text[0] == '%') {
    if (!find_special(t.text, o.special)) fail(t, "undeclared register");
    o.kind = Operand::Kind::Special;
    if (o.special == SpecialReg::EnvReg) o.imm = std::stoi(std::string(t.text.substr(7)));
    if (o.special == SpecialReg::ReservedSmem) o.imm = reserved_smem_index(t.text);
    return o;
  }
  o.kind = Operand::Kind::Symbol;
  o.symbol = std::string(t.text);
  o.local = find_local(t.text);
  if (accept('+')) o.imm = signed_int("after '+'");
  return o;
}

Operand Parser::number_operand() {
  Operand o;
  Constant c = constant("as an operand");
  switch (c.kind) {
    case Constant::Kind::Int:
      o.kind = Operand::Kind::Imm;
      o.imm = c.i;
      break;
    case Constant::Kind::F32Bits:
    case Constant::Kind::F64Bits:
      o.kind = Operand::Kind::FImm;
      o.fbits = c.bits;
      o.fwidth = c.kind == Constant::Kind::F32Bits ? 32 : 64;
      break;
    case Constant::Kind::Decimal:
      o.kind = Operand::Kind::FImm;
      o.fbits = std::bit_cast<uint64_t>(c.d);
      o.fwidth = 64;
      break;
  }
  return o;
}

Operand Parser::list_operand(char open, char close) {
  next();
  Operand v;
  v.kind = Operand::Kind::Vector;
  if (accept(close)) return v;
  do {
    Token at = peek();
    if (at.is('{') || at.is('(') || at.is('[')) fail(at, "lists hold registers, names or numbers");
    v.elems.push_back(operand());
  } while (accept(','));
  expect(close, open == '{' ? "to close the vector operand" : "to close the list");
  return v;
}

// [%rd1], [%rd1+8], [%rd1+-8], [%rd1-8], [sym], [sym+4], [0x100], [tex, {%f1, %f2}]
Operand Parser::address_operand() {
  next();
  Operand a;
  a.kind = Operand::Kind::Address;
  Token t = peek();
  if (t.kind == TokKind::Ident) {
    next();
    a.reg = find_reg(t.text);
    if (a.reg < 0) {
      if (t.text[0] == '%') fail(t, "undeclared register");
      a.symbol = std::string(t.text);
      a.local = find_local(t.text);
    }
    if (accept('+')) a.imm = signed_int("after '+' in an address");
    else if (accept('-')) a.imm = static_cast<int64_t>(0 - int_literal(next()));
  } else {
    a.imm = signed_int("as an address");
  }
  while (accept(',')) {
    if (peek().is('[')) fail(peek(), "nested address");
    a.elems.push_back(operand());
  }
  expect(']', "to close the address");
  return a;
}

// ---------------------------------------------------------------- names

int32_t Parser::find_reg(std::string_view name) const {
  std::string_view prefix;
  uint32_t index = 0;
  bool numbered = split_numbered(name, prefix, index);
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (!s->regs.empty()) {
      auto it = s->regs.find(name);
      if (it != s->regs.end()) return it->second;
    }
    if (numbered && !s->ranges.empty()) {
      auto it = s->ranges.find(prefix);
      if (it != s->ranges.end() && index < static_cast<uint32_t>(it->second.count)) return it->second.first + static_cast<int32_t>(index);
    }
  }
  return -1;
}

int32_t Parser::find_local(std::string_view name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (s->locals.empty()) continue;
    auto it = s->locals.find(name);
    if (it != s->locals.end()) return it->second;
  }
  return -1;
}

// Labels may be used before they are defined, so names are checked once the
// body is complete.
void Parser::resolve_names() {
  for (Instruction& inst : fn_->body) {
    for (Operand& o : inst.ops) {
      resolve_name(o, inst);
      for (Operand& e : o.elems) resolve_name(e, inst);
    }
  }
}

void Parser::resolve_name(Operand& o, const Instruction& inst) const {
  bool named = o.kind == Operand::Kind::Symbol || (o.kind == Operand::Kind::Address && !o.symbol.empty());
  if (!named || o.local >= 0) return;
  if (o.kind == Operand::Kind::Symbol) {
    auto it = fn_->labels.find(o.symbol);
    if (it != fn_->labels.end()) {
      o.label = it->second;
      return;
    }
  }
  if (is_known_symbol(o.symbol)) return;
  bool branch = inst.opcode == "bra" || inst.opcode == "brx";
  fail_at(inst.line, o.symbol, branch ? "undefined label" : "undefined symbol");
}

bool Parser::is_known_symbol(std::string_view name) const {
  if (module_names_.count(name) || prototypes_.count(name)) return true;
  for (const Param& p : fn_->params)
    if (p.name == name) return true;
  for (const Param& p : fn_->returns)
    if (p.name == name) return true;
  return false;
}

}  // namespace ws::ptx::detail
