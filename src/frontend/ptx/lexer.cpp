#include "frontend/ptx/lexer.h"

#include <array>

#include "common/error.h"

namespace ws::ptx {
namespace {

// Character classes, built once: a table lookup per character keeps the
// scanner branch-light.
enum CharClass : uint8_t { kIdentStart = 1, kIdentCont = 2, kDigit = 4, kHex = 8, kSpace = 16, kPunct = 32 };

constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> c{};
  for (int ch = 'a'; ch <= 'z'; ++ch) c[ch] |= kIdentStart | kIdentCont;
  for (int ch = 'A'; ch <= 'Z'; ++ch) c[ch] |= kIdentStart | kIdentCont;
  for (int ch = '0'; ch <= '9'; ++ch) c[ch] |= kIdentCont | kDigit | kHex;
  for (int ch = 'a'; ch <= 'f'; ++ch) c[ch] |= kHex;
  for (int ch = 'A'; ch <= 'F'; ++ch) c[ch] |= kHex;
  for (char ch : {'_', '$', '%'}) c[static_cast<uint8_t>(ch)] |= kIdentStart | kIdentCont;
  c['%'] &= static_cast<uint8_t>(~kIdentCont);  // '%' only starts a name
  for (char ch : {' ', '\t', '\r', '\n', '\f', '\v'}) c[static_cast<uint8_t>(ch)] |= kSpace;
  for (char ch : {',', ';', ':', '{', '}', '[', ']', '(', ')', '+', '-', '=', '!', '@', '|', '<', '>', '*', '~', '&', '^', '?'})
    c[static_cast<uint8_t>(ch)] |= kPunct;
  return c;
}
constexpr std::array<uint8_t, 256> kClasses = make_classes();

bool has(char ch, uint8_t cls) { return (kClasses[static_cast<uint8_t>(ch)] & cls) != 0; }

}  // namespace

void Lexer::fill() {
  Token t = skip_space_and_comments() ? scan() : Token{std::string_view(), line_, TokKind::End};
  ring_[(head_ + count_) % kRing] = t;
  ++count_;
}

[[noreturn]] void Lexer::fail(int line, std::string_view field, const std::string& what) const {
  throw InputError(file_, static_cast<uint64_t>(line), std::string(field), what);
}

// Returns false at end of input.
bool Lexer::skip_space_and_comments() {
  while (i_ < s_.size()) {
    char c = s_[i_];
    if (c == '\n') {
      ++line_;
      ++i_;
    } else if (has(c, kSpace)) {
      ++i_;
    } else if (c == '/' && at(i_ + 1) == '/') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '/' && at(i_ + 1) == '*') {
      skip_block_comment();
    } else {
      return true;
    }
  }
  return false;
}

void Lexer::skip_block_comment() {
  int start = line_;
  size_t end = s_.find("*/", i_ + 2);
  if (end == std::string_view::npos) fail(start, "/*", "unterminated comment");
  for (size_t k = i_; k < end; ++k) line_ += s_[k] == '\n';
  i_ = end + 2;
}

void Lexer::take_ident_chars() {
  while (i_ < s_.size() && has(s_[i_], kIdentCont)) ++i_;
}

// Dotted continuations (".global", ".x") and "::" qualifiers ("shared::cta").
void Lexer::take_dotted_parts() {
  for (;;) {
    if (at(i_) == '.' && has(at(i_ + 1), kIdentCont)) {
      ++i_;
    } else if (at(i_) == ':' && at(i_ + 1) == ':' && has(at(i_ + 2), kIdentCont)) {
      i_ += 2;
    } else {
      return;
    }
    take_ident_chars();
  }
}

Token Lexer::scan() {
  size_t start = i_;
  char c = s_[i_];
  if (has(c, kIdentStart)) {
    ++i_;
    take_ident_chars();
    take_dotted_parts();
    return make(start, TokKind::Ident);
  }
  if (c == '.' && has(at(i_ + 1), kIdentStart)) {
    ++i_;
    take_ident_chars();
    // Qualified spaces in declarations: ".shared::cta".
    while (at(i_) == ':' && at(i_ + 1) == ':' && has(at(i_ + 2), kIdentCont)) {
      i_ += 2;
      take_ident_chars();
    }
    return make(start, TokKind::Directive);
  }
  if (has(c, kDigit)) return number(start);
  if (c == '"') return string_literal(start);
  if (has(c, kPunct)) {
    ++i_;
    return make(start, TokKind::Punct);
  }
  fail(line_, s_.substr(start, 1), "unexpected character");
}

Token Lexer::number(size_t start) {
  char c1 = at(i_ + 1);
  if (s_[i_] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
    size_t digits = (c1 == 'f' || c1 == 'F') ? 8 : 16;
    i_ += 2;
    size_t n = 0;
    while (has(at(i_), kHex)) ++i_, ++n;
    if (n != digits) fail(line_, s_.substr(start, i_ - start), "float literal needs exactly " + std::to_string(digits) + " hex digits");
    return make(start, TokKind::Float);
  }
  if (s_[i_] == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'b' || c1 == 'B')) {
    i_ += 2;
    while (has(at(i_), kHex)) ++i_;
    if (at(i_) == 'U') ++i_;
    return make(start, TokKind::Int);
  }
  while (has(at(i_), kDigit)) ++i_;
  bool is_float = false;
  if (at(i_) == '.' && !has(at(i_ + 1), kIdentStart)) {
    is_float = true;
    ++i_;
    while (has(at(i_), kDigit)) ++i_;
  }
  if ((at(i_) == 'e' || at(i_) == 'E') &&
      (has(at(i_ + 1), kDigit) || ((at(i_ + 1) == '-' || at(i_ + 1) == '+') && has(at(i_ + 2), kDigit)))) {
    is_float = true;
    i_ += 2;
    while (has(at(i_), kDigit)) ++i_;
  }
  if (!is_float && at(i_) == 'U') ++i_;
  if (has(at(i_), kIdentCont)) {
    take_ident_chars();
    fail(line_, s_.substr(start, i_ - start), "malformed number");
  }
  return make(start, is_float ? TokKind::Float : TokKind::Int);
}

Token Lexer::string_literal(size_t start) {
  int start_line = line_;
  ++i_;
  while (i_ < s_.size() && s_[i_] != '"') {
    if (s_[i_] == '\\') ++i_;
    else if (s_[i_] == '\n') ++line_;
    ++i_;
  }
  if (i_ >= s_.size()) fail(start_line, "\"", "unterminated string");
  ++i_;
  Token t = make(start, TokKind::String);
  t.line = start_line;
  return t;
}

std::string describe(const Token& t) {
  if (t.kind == TokKind::End) return "end of input";
  return std::string(t.text);
}

}  // namespace ws::ptx
