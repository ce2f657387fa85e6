// Tokens of PTX text. The whole text is tokenised up front into views of the
// source (no copies), each with its 1-based line; the parser walks the vector.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::ptx {

enum class TokKind : uint8_t {
  Ident,      // name, %reg, $label, dotted opcode "ld.global.f32", "%tid.x"
  Directive,  // ".reg", ".b32", ".align" (one dotted word)
  Int,        // 42, 0x2A, 052, 0b101010, optional U suffix (sign is a separate '-')
  Float,      // 0f3F800000, 0d3FF0000000000000, 1.5, 2e10
  String,     // "text" (text keeps the quotes)
  Punct,      // one character: , ; : { } [ ] ( ) + - = ! @ | < > ...
  End,        // end of input (text empty)
};

struct Token {
  std::string_view text;
  int line = 0;
  TokKind kind = TokKind::End;

  bool is(char c) const { return kind == TokKind::Punct && text[0] == c; }
  bool is_dir(std::string_view d) const { return kind == TokKind::Directive && text == d; }
};

// Produces tokens on demand (comments dropped) with a small lookahead window,
// so memory stays flat however large the text is. Throws InputError(filename,
// line, ...) on a character no token starts with, an unterminated string or an
// unterminated /* comment. After the text ends every token is End.
class Lexer {
 public:
  static constexpr size_t kLookahead = 4;

  Lexer(std::string_view text, const std::string& filename) : s_(text), file_(filename) {}
  // The token k places ahead (k < kLookahead); valid until the window moves
  // kLookahead tokens further.
  const Token& peek(size_t k = 0) {
    while (count_ <= k) fill();
    return ring_[(head_ + k) % kRing];
  }
  Token next() {
    prev_ = peek();
    head_ = (head_ + 1) % kRing;
    --count_;
    return prev_;
  }
  // The token most recently returned by next().
  const Token& prev() const { return prev_; }

 private:
  static constexpr size_t kRing = 2 * kLookahead;
  std::string_view s_;
  const std::string& file_;
  size_t i_ = 0;
  int line_ = 1;
  Token ring_[kRing];
  size_t head_ = 0, count_ = 0;
  Token prev_;

  void fill();
  char at(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }
  [[noreturn]] void fail(int line, std::string_view field, const std::string& what) const;
  bool skip_space_and_comments();
  void skip_block_comment();
  Token make(size_t start, TokKind kind) const { return Token{s_.substr(start, i_ - start), line_, kind}; }
  void take_ident_chars();
  void take_dotted_parts();
  Token scan();
  Token number(size_t start);
  Token string_literal(size_t start);
};

// Token text for messages: "end of input" for End.
std::string describe(const Token& t);

}  // namespace ws::ptx
