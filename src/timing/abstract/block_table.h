// Pre-characterised basic blocks for the abstract model (docs/abstract-model.md,
// "Blocks"). A block is a run of a warp's instructions that ends after the
// first branch, exit, barrier, fence or memory instruction, or at
// abstract.block_max instructions; its last instruction (the "terminal") is
// issued by the dynamic model like any instruction, the ones before it (the
// "body") are timed once, here: one warp alone on one sub-core, its operands
// ready at the start, perfect memory and instruction fetch, the preset's
// unit table (the UnitPool the detailed core uses). Blocks that differ only
// in addresses, active lanes or PCs share an entry.
//
// Entries are kept in memory and, unless abstract.block_cache = off, in one
// file per core configuration in a cache folder; a file from another format,
// another unit table or a damaged one is ignored and its entries rebuilt.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.h"
#include "ir/warp_inst.h"
#include "timing/core/operand_collector.h"
#include "timing/core/exec_units.h"

namespace ws::timing::abstract {

// The cache file's first word ("WSWSBLK1") and format; bump the format when
// BlockTiming, characterise() or the layout change (older files are then ignored).
inline constexpr uint64_t kBlockFileMagic = 0x314b4c4253575357ull;
inline constexpr uint32_t kBlockFormat = 2;  // 2: operand-read cycles (`collect`)
inline constexpr int16_t kLdstUnit = -1;  // a unit index: the LD/ST unit (not in the unit table)

// A register and a time offset from the block's start, in cycles.
struct RegAt {
  uint16_t reg = 0;
  uint32_t at = 0;
  bool operator==(const RegAt&) const = default;
};

// Body busy time on one kind of execution unit, in pipeline-cycles.
struct UnitDemand {
  uint32_t kind = 0;  // index into the unit table (read_unit_specs order)
  uint32_t busy = 0;
  bool operator==(const UnitDemand&) const = default;
};

struct BlockTiming {
  std::vector<uint32_t> issue;    // issue offset of each instruction, the terminal last
  std::vector<RegAt> needs;       // registers read or rewritten before the block writes them: first such offset
  std::vector<RegAt> writes;      // registers the body writes: when the last such write is done
  std::vector<UnitDemand> demand; // the body's busy time per unit kind
  uint32_t collect = 0;           // the body's operand-read cycles in the sub-core's collectors (0: not modelled)
  uint32_t size() const { return static_cast<uint32_t>(issue.size()); }
  uint32_t last() const { return issue.back(); }
  bool operator==(const BlockTiming&) const = default;
};

// What characterisation needs of the preset, read through the detailed
// core's parameter names.
struct CoreTimingParams {
  std::vector<UnitSpec> units;
  uint32_t const_latency = 0;
  RegFileSpec regfile;  // register banks and operand collectors (core.regfile.*, core.collector.*)
  static CoreTimingParams from(const config::Config& cfg);
  // A hash of exactly these values and the entry format: the cache key's
  // configuration half (SM count, scheduler, caches and DRAM do not enter it).
  uint64_t hash() const;
};

// Times `n` instructions (`unit_of[i]`: unit-table index of instruction i,
// or kLdstUnit) as one warp alone on a sub-core would issue them.
BlockTiming characterise(const ir::WarpInst* insts, const int16_t* unit_of, uint32_t n, const CoreTimingParams& p);

// The code half of the key: what the timing of the instructions depends on
// (kind, unit, registers, tensor work), not their PCs, lanes or addresses.
uint64_t mix_inst(uint64_t h, const ir::WarpInst& in, int16_t unit);
inline constexpr uint64_t kBlockHashSeed = 0x9e3779b97f4a7c15ull;

class BlockTable {
 public:
  enum class Load { Off, Missing, Loaded, Rejected };
  struct Counts {
    uint64_t lookups = 0, characterised = 0, loaded = 0;
    double characterise_seconds = 0;
  };

  // `cache` is abstract.block_cache: "off", "" (the default folder) or a folder.
  BlockTable(CoreTimingParams params, const std::string& cache);
  // From the preset: its unit table and abstract.block_cache.
  explicit BlockTable(const config::Config& cfg);
  // The entry for a block of `n` instructions whose code hashes to `key`;
  // characterised on first use.
  const BlockTiming& get(uint64_t key, const ir::WarpInst* insts, const int16_t* unit_of, uint32_t n);
  // Writes the entries to the cache file when some were added (atomically:
  // a temporary file renamed over it). Failures leave the cache as it was.
  void save();
  Load load_result() const { return load_; }
  const std::string& file() const { return file_; }
  const Counts& counts() const { return counts_; }
  static std::string default_folder();

 private:
  Load load();

  CoreTimingParams params_;
  uint64_t params_hash_;
  std::string file_;  // "" when the disk cache is off
  std::unordered_map<uint64_t, BlockTiming> entries_;
  bool dirty_ = false;
  Load load_ = Load::Off;
  Counts counts_;
};

}  // namespace ws::timing::abstract
