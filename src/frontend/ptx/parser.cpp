// Module level: directives, function headers, parameter lists and layout.
#include "frontend/ptx/parser.h"

#include <charconv>

#include "common/error.h"
#include "frontend/ptx/parser_impl.h"

namespace ws::ptx {

Module parse_module(std::string_view text, const std::string& filename) {
  return detail::Parser(text, filename).run();
}

namespace detail {

Parser::Parser(std::string_view text, const std::string& filename) : file_(filename), lex_(text, file_) {
  mod_.filename = filename;
}

Module Parser::run() {
  while (peek().kind != TokKind::End) module_statement();
  return std::move(mod_);
}

// ---------------------------------------------------------------- cursor

bool Parser::accept(char c) {
  if (!peek().is(c)) return false;
  next();
  return true;
}

bool Parser::accept_dir(std::string_view d) {
  if (!peek().is_dir(d)) return false;
  next();
  return true;
}

Token Parser::expect(char c, const char* context) {
  if (!peek().is(c)) fail(peek(), std::string("expected '") + c + "' " + context);
  return next();
}

Token Parser::expect_ident(const char* context) {
  if (peek().kind != TokKind::Ident) fail(peek(), std::string("expected a name ") + context);
  return next();
}

void Parser::fail(const Token& t, const std::string& what) const { fail_at(t.line, describe(t), what); }

void Parser::fail_at(int line, std::string_view field, const std::string& what) const {
  throw InputError(file_, static_cast<uint64_t>(line), std::string(field), what);
}

void Parser::skip_line() {
  int line = next().line;
  while (peek().kind != TokKind::End && peek().line == line) next();
}

void Parser::skip_to_semicolon() {
  Token start = peek();
  while (!peek().is(';')) {
    if (peek().kind == TokKind::End) fail(start, "missing ';' after this statement");
    next();
  }
  next();
}

// ---------------------------------------------------------------- module level

void Parser::module_statement() {
  Token t = peek();
  if (t.kind != TokKind::Directive) fail(t, "unexpected token at module scope");
  std::string_view d = t.text;
  if (d == ".version") return parse_version();
  if (d == ".target") return parse_target();
  if (d == ".address_size") {
    next();
    mod_.address_size = static_cast<unsigned>(int_literal(next()));
    if (mod_.address_size != 32 && mod_.address_size != 64) fail(lex_.prev(), "address size must be 32 or 64");
    return;
  }
  if (d == ".file" || d == ".loc") return skip_line();
  if (d == ".section") return skip_section();
  if (d == ".pragma" || d == ".alias") return skip_to_semicolon();
  Linkage link = parse_linkage();
  if (peek().is_dir(".entry") || peek().is_dir(".func")) return parse_function(link);
  if (peek().kind == TokKind::Directive && is_space_directive(peek().text)) {
    int line = peek().line;
    for (std::string_view name : variable_decl(link, mod_.globals))
      if (!module_names_.insert(name).second) fail_at(line, name, "symbol declared twice");
    return;
  }
  fail(peek(), "unexpected directive at module scope");
}

void Parser::parse_version() {
  next();
  Token v = next();
  std::string_view s = v.text;
  size_t dot = s.find('.');
  if (v.kind != TokKind::Float || dot == std::string_view::npos) fail(v, "expected a version like 9.0");
  auto to_uint = [&](std::string_view part) {
    unsigned x = 0;
    auto r = std::from_chars(part.data(), part.data() + part.size(), x);
    if (r.ec != std::errc() || r.ptr != part.data() + part.size()) fail(v, "expected a version like 9.0");
    return x;
  };
  mod_.version_major = to_uint(s.substr(0, dot));
  mod_.version_minor = to_uint(s.substr(dot + 1));
}

void Parser::parse_target() {
  next();
  mod_.target = std::string(expect_ident("after .target").text);
  while (accept(',')) expect_ident("in the .target list");
}

// `.section .debug_info { ... }`: debug data the simulator has no use for.
void Parser::skip_section() {
  next();
  if (peek().kind != TokKind::Directive) fail(peek(), "expected a section name");
  next();
  if (!peek().is('{')) return;
  Token open = next();
  int depth = 1;
  while (depth > 0) {
    Token t = next();
    if (t.kind == TokKind::End) fail_at(open.line, "{", "unterminated .section block");
    depth += t.is('{') ? 1 : t.is('}') ? -1 : 0;
  }
}

Linkage Parser::parse_linkage() {
  Linkage link;
  for (;;) {
    if (accept_dir(".visible")) link.is_visible = true;
    else if (accept_dir(".extern")) link.is_extern = true;
    else if (accept_dir(".weak") || accept_dir(".common")) link.is_visible = true;
    else return link;
  }
}

// ---------------------------------------------------------------- functions

void Parser::parse_function(const Linkage& link) {
  Function f;
  f.line = peek().line;
  f.is_entry = next().text == ".entry";
  f.is_visible = link.is_visible;
  if (!f.is_entry && peek().is('(')) f.returns = param_list("for the return values");
  std::string_view name = expect_ident(f.is_entry ? "after .entry" : "after .func").text;
  f.name = std::string(name);
  module_names_.insert(name);  // before the body, so that recursive calls resolve
  if (peek().is('(')) f.params = param_list("for the parameters");
  f.param_bytes = lay_out(f.params);
  lay_out(f.returns);
  perf_directives(f);
  if (accept(';')) {
    f.is_extern = true;
    add_function(std::move(f), name);
    return;
  }
  if (!peek().is('{')) fail(peek(), "expected '{' or ';' after the function header of " + f.name);
  if (link.is_extern) fail(peek(), "an .extern function has no body");
  function_body(add_function(std::move(f), name));
}

// A declaration followed by the definition keeps one entry, in the place of
// the first declaration.
Function& Parser::add_function(Function f, std::string_view name) {
  auto [it, added] = function_index_.emplace(name, mod_.functions.size());
  if (added) return mod_.functions.emplace_back(std::move(f));
  Function& g = mod_.functions[it->second];
  if (!g.is_extern && !f.is_extern) fail_at(f.line, f.name, "function defined twice");
  if (g.is_extern) g = std::move(f);
  return g;
}

std::vector<Param> Parser::param_list(const char* context) {
  std::vector<Param> out;
  expect('(', context);
  if (accept(')')) return out;
  do {
    out.push_back(param_decl());
  } while (accept(','));
  expect(')', context);
  return out;
}

// `.param .align 8 .b8 p[16]`, `.param .u64 .ptr .global .align 4 p`, `.reg .b32 x`.
Param Parser::param_decl() {
  Param p;
  if (!accept_dir(".param") && !accept_dir(".reg")) fail(peek(), "expected .param in a parameter list");
  unsigned vec = 1;
  while (peek().kind == TokKind::Directive) {
    Token d = next();
    if (d.text == ".align") {
      uint64_t a = int_literal(next());
      if (!p.is_pointer) p.align = static_cast<uint32_t>(a);  // after .ptr it is the pointee's alignment
    } else if (d.text == ".ptr") {
      p.is_pointer = true;
    } else if (d.text == ".v2" || d.text == ".v4" || d.text == ".v8") {
      vec = static_cast<unsigned>(d.text[2] - '0');
    } else if (Type t = type_from_name(std::string(d.text)); t != Type::None) {
      p.type = t;
    } else if (!is_space_directive(d.text)) {
      fail(d, "unexpected attribute in a parameter declaration");
    }
  }
  if (p.type == Type::None) fail(peek(), "parameter without a type");
  p.name = std::string(expect_ident("for the parameter").text);
  uint64_t count = 1;
  while (accept('[')) {
    p.is_array = true;
    count *= int_literal(next());
    expect(']', "after the array size");
  }
  uint64_t elem = uint64_t{type_size(p.type)} * vec;
  p.size = elem * count;
  if (p.align == 0) p.align = static_cast<uint32_t>(elem);
  return p;
}

uint64_t Parser::lay_out(std::vector<Param>& params) {
  uint64_t end = 0;
  for (Param& p : params) {
    uint64_t a = p.align ? p.align : 1;
    p.offset = (end + a - 1) / a * a;
    end = p.offset + p.size;
  }
  return end;
}

// `.maxntid 256, 1, 1`, `.reqntid 128`, `.minnctapersm 2`, `.maxnreg 32`,
// `.pragma "nounroll";` and others between the header and the body.
void Parser::perf_directives(Function& f) {
  static const std::unordered_set<std::string_view> kKnown = {
      ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".pragma", ".noreturn", ".maxclusterrank",
      ".reqnctapercluster", ".explicitcluster", ".blocksareclusters", ".abi_preserve", ".abi_preserve_control"};
  while (peek().kind == TokKind::Directive) {
    if (!kKnown.count(peek().text)) fail(peek(), "unexpected directive after the parameter list");
    Token d = next();
    if (d.text == ".pragma") {
      skip_to_semicolon();
      continue;
    }
    uint32_t vals[3] = {0, 0, 0};
    int n = 0;
    if (peek().kind == TokKind::Int) {
      do {
        if (n == 3) fail(d, "more than three values");
        vals[n++] = static_cast<uint32_t>(int_literal(next()));
      } while (accept(','));
    }
    if (d.text == ".maxntid" || d.text == ".reqntid") {
      uint32_t* dst = d.text == ".maxntid" ? f.maxntid : f.reqntid;
      if (n == 0) fail(d, "expected 1 to 3 thread counts");
      for (int i = 0; i < 3; ++i) dst[i] = i < n ? vals[i] : 1;
    } else if (d.text == ".minnctapersm") {
      f.minnctapersm = vals[0];
    } else if (d.text == ".maxnreg") {
      f.maxnreg = vals[0];
    }
  }
}

}  // namespace detail
}  // namespace ws::ptx
