// Numeric literals, variable declarations (module and body scope) and their
// initialisers.
#include <bit>
#include <charconv>
#include <cstring>

#include "frontend/ptx/parser_impl.h"

namespace ws::ptx::detail {

// ---------------------------------------------------------------- literals

namespace {

// Value of `digits` in `base`; false on a bad digit or overflow.
bool parse_digits(std::string_view digits, int base, uint64_t& out) {
  if (digits.empty()) return false;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), out, base);
  return r.ec == std::errc() && r.ptr == digits.data() + digits.size();
}

bool parse_hex_bits(std::string_view t, uint64_t& out) { return parse_digits(t.substr(2), 16, out); }

}  // namespace

uint64_t Parser::int_literal(const Token& t) const {
  if (t.kind != TokKind::Int) fail(t, "expected an integer");
  std::string_view s = t.text;
  if (s.back() == 'U') s.remove_suffix(1);
  int base = 10;
  if (s.size() > 1 && s[0] == '0') {
    char b = s[1];
    if (b == 'x' || b == 'X') base = 16, s.remove_prefix(2);
    else if (b == 'b' || b == 'B') base = 2, s.remove_prefix(2);
    else base = 8, s.remove_prefix(1);
  }
  uint64_t v = 0;
  if (!parse_digits(s, base, v)) fail(t, "malformed or out-of-range integer");
  return v;
}

int64_t Parser::signed_int(const char* context) {
  bool neg = accept('-');
  if (peek().kind != TokKind::Int) fail(peek(), std::string("expected an integer ") + context);
  uint64_t v = int_literal(next());
  return static_cast<int64_t>(neg ? 0 - v : v);
}

Constant Parser::constant(const char* context) {
  Constant c;
  bool neg = accept('-');
  Token t = peek();
  if (t.kind == TokKind::Int) {
    uint64_t v = int_literal(next());
    c.i = static_cast<int64_t>(neg ? 0 - v : v);
    return c;
  }
  if (t.kind != TokKind::Float) fail(t, std::string("expected a number ") + context);
  next();
  char k = t.text.size() > 1 ? t.text[1] : '\0';
  if (k == 'f' || k == 'F' || k == 'd' || k == 'D') {
    if (!parse_hex_bits(t.text, c.bits)) fail(t, "malformed float literal");
    bool f32 = k == 'f' || k == 'F';
    c.kind = f32 ? Constant::Kind::F32Bits : Constant::Kind::F64Bits;
    if (neg) c.bits ^= f32 ? 0x80000000ull : 0x8000000000000000ull;
    return c;
  }
  c.kind = Constant::Kind::Decimal;
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), c.d);
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) fail(t, "malformed float literal");
  if (neg) c.d = -c.d;
  return c;
}

// ---------------------------------------------------------------- variables

bool Parser::is_space_directive(std::string_view d) { return space_from_directive(d) != StateSpace::None; }

StateSpace Parser::space_from_directive(std::string_view d) {
  if (d == ".global") return StateSpace::Global;
  if (d == ".const") return StateSpace::Const;
  if (d == ".shared" || d.starts_with(".shared::")) return StateSpace::Shared;
  if (d == ".local") return StateSpace::Local;
  if (d == ".param") return StateSpace::Param;
  if (d == ".tex") return StateSpace::Tex;
  return StateSpace::None;
}

// `.global .align 4 .b8 a[20] = {...}, b;` -> one Variable per name.
std::vector<std::string_view> Parser::variable_decl(const Linkage& link, std::vector<Variable>& out) {
  std::vector<std::string_view> names;
  Variable proto;
  proto.line = peek().line;
  proto.space = space_from_directive(next().text);
  proto.is_extern = link.is_extern;
  proto.is_visible = link.is_visible;
  variable_attrs(proto);
  do {
    Variable v = proto;
    v.line = peek().line;
    names.push_back(expect_ident("for the variable").text);
    v.name = std::string(names.back());
    bool unsized = false;
    uint64_t count = 1;
    array_dims(v, unsized, count);
    v.size = uint64_t{type_size(v.type)} * v.vec * count;
    if (v.type == Type::None) v.size = 8 * count;  // .texref / .samplerref / .surfref handles
    if (accept('=')) {
      initialiser(v, unsized);
    } else if (unsized) {
      v.is_unsized_array = true;
      v.size = 0;
    }
    out.push_back(std::move(v));
  } while (accept(','));
  expect(';', "after the variable declaration");
  return names;
}

void Parser::variable_attrs(Variable& v) {
  bool typed = false;
  while (peek().kind == TokKind::Directive) {
    Token d = next();
    std::string_view s = d.text;
    if (s == ".align") {
      v.align = static_cast<uint32_t>(int_literal(next()));
      if (v.align == 0 || (v.align & (v.align - 1)) != 0) fail(lex_.prev(), "alignment must be a power of two");
    } else if (s == ".v2" || s == ".v4" || s == ".v8") {
      v.vec = static_cast<unsigned>(s[2] - '0');
    } else if (s == ".attribute") {
      expect('(', "after .attribute");
      do {
        Token a = next();
        if (a.text == ".managed") v.is_managed = true;
        else if (a.text != ".unified") fail(a, "unknown variable attribute");
      } while (accept(','));
      expect(')', "after the attribute list");
    } else if (s == ".texref" || s == ".samplerref" || s == ".surfref") {
      typed = true;
    } else if (Type t = type_from_name(std::string(s)); t != Type::None) {
      v.type = t;
      typed = true;
    } else if (s != ".ptr") {
      fail(d, "unexpected attribute in a variable declaration");
    }
  }
  if (!typed) fail(peek(), "variable declaration without a type");
}

void Parser::array_dims(Variable& v, bool& unsized, uint64_t& count) {
  bool first = true;
  while (accept('[')) {
    if (first && accept(']')) {
      unsized = true;
    } else {
      uint64_t n = int_literal(lex_.peek());
      if (n == 0 || n > (uint64_t{1} << 32) || count > (uint64_t{1} << 40) / n) fail(peek(), "array size out of range");
      next();
      count *= n;
      expect(']', "after the array size");
    }
    first = false;
  }
}

// ---------------------------------------------------------------- initialisers

void Parser::initialiser(Variable& v, bool unsized) {
  Token at = peek();
  if (v.size > (uint64_t{1} << 30)) fail(at, "initialised variable larger than 1 GiB");
  std::vector<uint8_t> bytes;
  bytes.reserve(v.size);
  init_elements(v, bytes, 0);
  if (unsized) {
    uint64_t elem = uint64_t{type_size(v.type)} * v.vec;
    v.size = elem ? (bytes.size() + elem - 1) / elem * elem : bytes.size();
  }
  if (bytes.size() > v.size) fail(at, "initialiser larger than the variable " + v.name);
  bytes.resize(v.size, 0);
  v.init = std::move(bytes);
}

void Parser::init_elements(Variable& v, std::vector<uint8_t>& bytes, int depth) {
  if (!peek().is('{')) return init_element(v, bytes);
  if (depth == 8) fail(peek(), "initialiser nested too deeply");
  next();
  if (accept('}')) return;
  do {
    init_elements(v, bytes, depth + 1);
  } while (accept(','));
  expect('}', "to close the initialiser list");
}

// A number, a symbol (`gvar`, `fn`), `generic(gvar)`, optionally `+ offset`.
// A symbol's slot keeps the offset; the loader adds the symbol's address.
void Parser::init_element(Variable& v, std::vector<uint8_t>& bytes) {
  Token at = peek();
  if (at.kind != TokKind::Ident) {
    encode_constant(v.type, constant("in the initialiser"), at, bytes);
    return;
  }
  next();
  std::string_view name = at.text;
  int64_t addend = 0;
  if (name == "generic" && accept('(')) {  // generic(sym), generic(sym+4), generic(sym)+4
    name = expect_ident("inside generic( )").text;
    if (accept('+')) addend = signed_int("after '+'");
    expect(')', "after generic(");
  }
  if (accept('+')) addend += signed_int("after '+'");
  if (!module_names_.count(name)) fail(at, "initialiser names an undeclared symbol");
  v.init_symbols.emplace_back(bytes.size(), std::string(name));
  Constant c;
  c.i = addend;
  encode_constant(type_size(v.type) == 4 ? Type::U32 : Type::U64, c, at, bytes);
}

void Parser::encode_constant(Type type, const Constant& c, const Token& at, std::vector<uint8_t>& bytes) const {
  unsigned size = type_size(type);
  uint64_t raw = 0;
  bool is_float = type == Type::F32 || type == Type::F64;
  if (is_float) {
    double d = c.kind == Constant::Kind::Int       ? static_cast<double>(c.i)
               : c.kind == Constant::Kind::Decimal ? c.d
               : c.kind == Constant::Kind::F64Bits ? std::bit_cast<double>(c.bits)
                                                   : static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(c.bits)));
    bool exact_f32 = c.kind == Constant::Kind::F32Bits && type == Type::F32;
    bool exact_f64 = c.kind == Constant::Kind::F64Bits && type == Type::F64;
    if (exact_f32 || exact_f64) raw = c.bits;
    else if (type == Type::F32) raw = std::bit_cast<uint32_t>(static_cast<float>(d));
    else raw = std::bit_cast<uint64_t>(d);
  } else if (c.kind == Constant::Kind::Int) {
    raw = static_cast<uint64_t>(c.i);
  } else if (c.kind == Constant::Kind::F32Bits || c.kind == Constant::Kind::F64Bits) {
    raw = c.bits;  // raw bits into a .b32/.b64 (or .f16 as .b16) slot
  } else {
    fail(at, "decimal float initialiser for a non-float type");
  }
  if (size == 0 || size > 8) fail(at, "cannot initialise a variable of this type");
  for (unsigned i = 0; i < size; ++i) bytes.push_back(static_cast<uint8_t>(raw >> (8 * i)));
}

}  // namespace ws::ptx::detail
