// Per-generation SASS opcode tables, loaded from isa/sm_<v>.toml so that a new
// GPU generation is a data file, not a recompile.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/warp_inst.h"

namespace ws::frontend {

// Where a memory opcode's addresses live. Generic is resolved per access by
// the trace header's shared/local address windows.
enum class IsaSpace : uint8_t { None, Global, Shared, Local, Const, Tex, Generic };

struct OpInfo {
  ir::OpKind kind = ir::OpKind::Alu;
  IsaSpace space = IsaSpace::None;
  uint8_t unit = 0;  // index into IsaTable::unit_names()
  // The table's [branch_predicate] lists: sets a predicate a branch may
  // test; is a branch that tests one (ir::WarpInst's flags of those names).
  bool sets_branch_pred = false, tests_branch_pred = false;
  // The table's [fma_pipe] list: the result forwards from the FMA pipe (IMAD,
  // FFMA...), not the ALU pipe (core.cross_pipe_cycles).
  bool fma_pipe = false;
  void mark(ir::WarpInst& w) const {
    w.sets_branch_pred = sets_branch_pred;
    w.tests_branch_pred = tests_branch_pred;
    w.fma_pipe = fma_pipe;
  }
};

class IsaTable {
 public:
  // Reads <data_dir>/isa/sm_<v>.toml (following `base = "sm_x"` chains).
  static IsaTable load(uint32_t binary_version);
  // Same, from an explicit isa/ folder (tests, fuzzing).
  static IsaTable load_from(const std::string& isa_dir, uint32_t binary_version);

  // `opcode` may carry modifiers ("LDG.E.128"); only the base is looked up.
  // Throws InputError naming the opcode if this generation lacks it.
  const OpInfo& lookup(std::string_view opcode) const;
  // nullptr if unknown (no throw), for callers that report errors themselves.
  const OpInfo* find(std::string_view opcode) const;

  const std::vector<std::string>& unit_names() const { return units_; }
  uint32_t binary_version() const { return version_; }
  size_t size() const { return ops_.size(); }
  std::vector<std::string> opcodes() const;

  // The fixed execution-unit vocabulary tables may use.
  static const std::vector<std::string>& unit_vocabulary();
  static uint8_t unit_index(std::string_view name);  // 0xff if unknown

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void load_file(const std::string& dir, const std::string& name, int depth);

  uint32_t version_ = 0;
  std::vector<std::string> units_;
  std::unordered_map<std::string, OpInfo, Hash, std::equal_to<>> ops_;
};

// The text before the first '.'.
inline std::string_view base_opcode(std::string_view op) { return op.substr(0, op.find('.')); }

}  // namespace ws::frontend
