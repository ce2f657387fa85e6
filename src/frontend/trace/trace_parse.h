// Line-level parsers of the NVBit/Accel-Sim trace format. Pure functions of
// their input (no I/O) so that tests and the fuzzer can drive them directly.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/trace/isa_table.h"
#include "ir/source.h"

namespace ws::frontend {

// Generic addresses within [base, base + window) of the header's shared/local
// bases are shared/local. 16 MiB covers any CTA's shared memory (<= 228 KiB)
// and a thread's local window with room to spare, and stays below the 32 MiB
// gap NVBit leaves between the two bases.
inline constexpr Addr kSharedWindow = Addr{16} << 20;
inline constexpr Addr kLocalWindow = Addr{16} << 20;

// Where a parse error is reported: file name and 1-based line number.
struct LineCtx {
  std::string_view file;
  uint64_t line = 0;
};

struct TraceHeader {
  ir::KernelInfo info;
  Addr shmem_base = 0, local_base = 0;
  uint32_t tracer_version = 0;  // 0 = key absent: the pre-3 format
  bool lineinfo = false;
  std::string nvbit_version;
  uint32_t seen = 0;  // bit set of the keys read (see trace_parse.cpp)
};

// Parses one `-key = value` line into `h`; unknown keys are ignored.
void parse_header_line(std::string_view line, TraceHeader& h, const LineCtx& ctx);
// Checks that the keys a reader needs (grid, block, binary version) were present.
void check_header(const TraceHeader& h, const LineCtx& ctx);

// How instruction lines of one kernel are laid out.
struct LineFormat {
  uint32_t tracer_version = 4;
  bool lineinfo = false;
  Addr shmem_base = 0, local_base = 0;
  static LineFormat from(const TraceHeader& h);
};

struct ParsedInst {
  ir::WarpInst inst;
  std::array<Addr, 32> addrs{};  // lane-indexed; inactive lanes are 0
  bool has_addrs = false;        // a memory access with addresses attached
  uint32_t line_num = 0;         // lineinfo traces only
  uint32_t tb[3] = {0, 0, 0};    // tracer version < 3 only
  uint32_t warp = 0;             // tracer version < 3 only
  int64_t immediate = 0;         // tracer version 5 only
  // Where in the line the base address of a base-and-stride access (address
  // mode 1) was written, if it was (base_len 0: not); LineMemo rebases lines
  // that differ only there.
  uint32_t base_at = 0, base_len = 0;
  Addr base = 0;
  bool space_from_address = false;  // a generic access: its space depends on its addresses
};

// Parses instruction lines; caches per-opcode facts, so keep one per kernel.
class InstParser {
 public:
  InstParser(const IsaTable& isa, LineFormat fmt) : isa_(&isa), fmt_(fmt) {}
  void parse(std::string_view line, ParsedInst& out, const LineCtx& ctx);
  const LineFormat& format() const { return fmt_; }

 private:
  struct Resolved {
    OpInfo op;
    uint8_t access_bytes = 4;
    ir::CacheOp cache_op = ir::CacheOp::Default;
    uint8_t tensor_work = 0;
    ir::MemSpace fence_scope = ir::MemSpace::Global;
  };
  // Opcode text -> Resolved, by open addressing: looked up once per trace
  // line, where std::unordered_map's hashing and node walk showed up.
  class OpcodeCache {
   public:
    const Resolved* find(std::string_view op) const;
    const Resolved& add(std::string_view op, const Resolved& r);

   private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Entry {
      std::string op;
      Resolved r;
    };
    void insert_slot(uint32_t entry);
    std::vector<Entry> entries_;
    std::vector<uint32_t> slots_ = std::vector<uint32_t>(64, kEmpty);  // a power of two
  };
  const Resolved& resolve(std::string_view opcode, const LineCtx& ctx);
  void fill_kind(const Resolved& r, bool traced, ParsedInst& out) const;

  const IsaTable* isa_;
  LineFormat fmt_;
  OpcodeCache cache_;
};

// The value of a hex token as instruction lines write it (optional 0x/0X,
// at most 64 bits), or nullopt.
std::optional<uint64_t> hex_value(std::string_view token);

// Bytes per lane implied by an opcode's modifiers (.128 -> 16, .64 -> 8, ...).
uint8_t access_bytes_of(std::string_view opcode);

// The cache operator an opcode's modifiers carry: pre-Volta CA/CG/CS/LU/CV/
// CI/WB/WT, Volta and later EF (evict first), LU, CONSTANT (the read-only
// path) and STRONG.SM/.GPU/.SYS (coherent at SM, GPU or system scope, so
// L1, L2 or neither may serve it). Modifiers naming no operator (E, SYS,
// widths, EL, ...) leave it Default.
ir::CacheOp cache_op_of(std::string_view opcode);
// A fence's scope from its modifiers (MEMBAR.CTA, MEMBAR.SC.GPU,
// MEMBAR.ALL.SYS ...): Shared for CTA, System for SYS, Global otherwise.
// The other fence-class opcodes (ERRBAR, CGAERRBAR, CCTL.*, FENCE.VIEW.*)
// are SM-local: Shared.
ir::MemSpace fence_scope_of(std::string_view opcode);
// The suffix (".EF", ".CG", ...; "" for Default) a trace writer appends for
// `op` on SASS binary version `binary_version`; cache_op_of reads it back.
const char* cache_op_suffix(ir::CacheOp op, uint32_t binary_version);

// Shared/local/global for a generic address under the header's windows.
ir::MemSpace classify_generic(Addr a, const LineFormat& fmt);
// Same for a whole warp access (by its first active lane).
ir::MemSpace generic_space(const ir::WarpInst& w, const LineFormat& fmt);

}  // namespace ws::frontend
