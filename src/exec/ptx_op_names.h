// Names each emulated PTX instruction by the SASS opcode it mostly becomes
// (data: isa/ptx.toml), so that timing and trace-out reuse the preset's SASS
// opcode table: the same kind/unit/space as an NVBit trace of the program.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::exec {

class PtxOpNames {
 public:
  // <data_dir>/isa/ptx.toml
  static PtxOpNames load();
  static PtxOpNames load_from(const std::string& path);

  // SASS opcode for `inst` when it accessed `space` (the resolved space of a
  // memory instruction; None otherwise). `in_kernel`: a `ret` from the
  // kernel's own body ends the thread (EXIT). Throws InputError naming the
  // PTX line when the table has no entry.
  std::string sass_name(const ptx::Instruction& inst, ptx::StateSpace space, bool in_kernel,
                        const std::string& ptx_file) const;
  // The stand-in for `sass` on generations whose table lacks it ([fallback]);
  // empty when there is none.
  std::string fallback(const std::string& sass) const;

  // The SASS instructions ptxas issues around `inst`'s own ([expand]: a
  // division's reciprocal and correction steps, the fences around ordered
  // accesses), in order; null when none. Each arithmetic step reads the one
  // before (`chained`) or only `inst`'s sources; `after` steps follow `inst`.
  struct Step {
    std::string sass;
    bool chained = true;
    bool after = false;
  };
  const std::vector<Step>* expansion(const ptx::Instruction& inst) const;
  // The steps of a warp-aggregated atomic ([aggregate], keyed by
  // exec/warp_aggregation.h's aggregation_key); null when the table has none.
  const std::vector<Step>* aggregation(const std::string& key) const;
  // What a kernel's SASS issues ahead of its first instruction on SASS
  // generation `binary_version` ([prologue]); null when none.
  const std::vector<Step>* prologue(uint32_t binary_version) const;

 private:
  // The entry of `table` for `inst`: longest modifier prefix, then type
  // classes, then the bare opcode (each tried with `suffix` first).
  template <class V>
  const V* lookup(const std::unordered_map<std::string, V>& table, const ptx::Instruction& inst,
                  ptx::StateSpace space, const std::string& suffix) const;

  std::string path_;
  std::unordered_map<std::string, std::string> map_, fallback_;
  std::unordered_map<std::string, std::vector<Step>> expand_, aggregate_;
  std::map<uint32_t, std::vector<Step>> prologue_;  // by sm_ number
};

}  // namespace ws::exec
