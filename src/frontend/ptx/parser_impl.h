// The recursive-descent PTX parser's state, shared by parser.cpp (module
// level, functions, parameters), declarations.cpp (variables, initialisers)
// and body.cpp (statements, instructions, operands, name resolution).
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/ptx/ast.h"
#include "frontend/ptx/lexer.h"

namespace ws::ptx::detail {

// `.visible`, `.extern`, `.weak`, `.common` in front of a declaration.
struct Linkage {
  bool is_visible = false;
  bool is_extern = false;
};

// `.reg .b32 %r<22>`: names prefix0..prefix(count-1) starting at regs[first].
struct RegRange {
  int32_t first = 0;
  int32_t count = 0;
};

// One `{ }` level of a function body: the names it declares.
struct Scope {
  int open_line = 0;
  std::unordered_map<std::string_view, int32_t> regs;
  std::unordered_map<std::string_view, RegRange> ranges;
  std::unordered_map<std::string_view, int32_t> locals;  // index into Function::locals
};

// Parsed scalar constant of an initialiser or an operand.
struct Constant {
  enum class Kind : uint8_t { Int, F32Bits, F64Bits, Decimal } kind = Kind::Int;
  int64_t i = 0;     // Int
  uint64_t bits = 0; // F32Bits / F64Bits
  double d = 0;      // Decimal
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& filename);
  Module run();

 private:
  std::string file_;
  Lexer lex_;
  Module mod_;
  std::unordered_set<std::string_view> module_names_;  // globals and functions so far
  std::unordered_map<std::string_view, size_t> function_index_;  // name -> index in mod_.functions

  // Per-function state while a body is parsed.
  Function* fn_ = nullptr;
  std::vector<Scope> scopes_;
  std::unordered_set<std::string_view> prototypes_;  // callprototype / branchtargets labels

  // --- cursor (parser.cpp)
  const Token& peek(size_t k = 0) { return lex_.peek(k); }
  Token next() { return lex_.next(); }
  bool accept(char c);
  bool accept_dir(std::string_view d);
  Token expect(char c, const char* context);
  Token expect_ident(const char* context);
  [[noreturn]] void fail(const Token& t, const std::string& what) const;
  [[noreturn]] void fail_at(int line, std::string_view field, const std::string& what) const;
  void skip_line();
  void skip_to_semicolon();

  // --- module level (parser.cpp)
  void module_statement();
  void parse_version();
  void parse_target();
  void skip_section();
  Linkage parse_linkage();
  void parse_function(const Linkage& link);
  std::vector<Param> param_list(const char* context);
  Param param_decl();
  static uint64_t lay_out(std::vector<Param>& params);
  void perf_directives(Function& f);
  Function& add_function(Function f, std::string_view name);

  // --- constants and declarations (declarations.cpp)
  uint64_t int_literal(const Token& t) const;
  int64_t signed_int(const char* context);
  Constant constant(const char* context);
  static bool is_space_directive(std::string_view d);
  static StateSpace space_from_directive(std::string_view d);
  // Appends one Variable per declared name; returns the names as views of the source.
  std::vector<std::string_view> variable_decl(const Linkage& link, std::vector<Variable>& out);
  void variable_attrs(Variable& v);
  void array_dims(Variable& v, bool& unsized, uint64_t& count);
  void initialiser(Variable& v, bool unsized);
  void init_elements(Variable& v, std::vector<uint8_t>& bytes, int depth);
  void init_element(Variable& v, std::vector<uint8_t>& bytes);
  void encode_constant(Type type, const Constant& c, const Token& at, std::vector<uint8_t>& bytes) const;

  // --- bodies (body.cpp)
  void function_body(Function& f);
  bool body_statement();
  bool body_directive(const Token& t);
  void reg_decl();
  void add_register(const Token& name, Type type, unsigned vec, int32_t count);
  void local_decl();
  void label_statement();
  void instruction();
  void split_opcode(std::string_view dotted, Instruction& inst) const;
  void operand_list(Instruction& inst);
  Operand operand();
  Operand name_operand(const Token& t);
  Operand list_operand(char open, char close);
  Operand address_operand();
  Operand number_operand();
  int32_t find_reg(std::string_view name) const;
  int32_t find_local(std::string_view name) const;
  void normalise_call(Instruction& inst) const;
  void resolve_names();
  void resolve_name(Operand& o, const Instruction& inst) const;
  bool is_known_symbol(std::string_view name) const;
};

// "ld.global.f32 \t%f1,\n [%rd2]" -> "ld.global.f32 %f1, [%rd2]".
std::string squeeze_spaces(std::string_view s);

}  // namespace ws::ptx::detail
