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

// Splits `text` into tokens; comments are dropped. The last token is End.
// Throws InputError(filename, line, ...) on a character no token starts with,
// an unterminated string or an unterminated /* comment.
std::vector<Token> tokenize(std::string_view text, const std::string& filename);

// Token text for messages: "end of input" for End.
std::string describe(const Token& t);

}  // namespace ws::ptx
