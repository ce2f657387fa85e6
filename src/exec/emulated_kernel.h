// A kernel launch as the timing model and trace writer see it: CTAs are
// emulated when the dispatcher asks for them, and each CTA's warp
// instructions are handed over as the same ir::WarpInst stream an NVBit trace
// of the program would give (SASS opcode classes via isa/ptx.toml).
#pragma once
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/emulator.h"
#include "exec/ptx_op_names.h"
#include "frontend/ptx/uniform.h"
#include "frontend/trace/isa_table.h"
#include "frontend/trace/trace_writer.h"
#include "ir/source.h"

namespace ws::exec {

// Where the per-thread local memory of the emulated program is placed in the
// timing model's address space: word-interleaved across the 32 lanes of a
// warp, as the hardware lays out local memory (one 4-byte word of each lane
// per 128 B line).
inline constexpr Addr kLocalTimingBase = 0x0000'7e00'0000'0000ull;
inline constexpr uint64_t kLocalBytesPerThread = 1 << 16;
// The shared/local generic windows written into trace headers: where nothing
// else lives, so that a generic opcode (LD/ST/ATOM on older generations) is
// classified the same by the timing run and by a replay of its trace.
inline constexpr Addr kTraceSharedWindow = 0x0000'7a00'0000'0000ull;
inline constexpr Addr kTraceLocalWindow = 0x0000'7b00'0000'0000ull;

// Per launch: what the SASS view of each PTX instruction is (cached).
class StepTranslator {
 public:
  // `param_bank`: a kernel's `ld.param` is an LDC of its launch's constant
  // bank (ir/param_bank.h), as ptxas compiles it; false times it as a MOV.
  StepTranslator(const PtxOpNames& names, std::shared_ptr<const frontend::IsaTable> isa, const Launch& launch,
                 bool param_bank = true);
  // The instruction template (no mask or addresses) and its SASS name.
  struct Entry {
    ir::WarpInst inst;
    std::string sass;
    bool generic = false;  // a generic-space SASS opcode (classified by address)
    bool param = false;    // a kernel parameter read from the launch's constant bank
    // What ptxas issues ahead of it and after it (isa/ptx.toml [expand]),
    // and their names.
    std::vector<ir::WarpInst> before, after;
    std::vector<std::string> before_sass, after_sass;
    bool leader_only = false;  // a warp-aggregated atomic: the highest active lane issues it
  };
  const Entry& entry(const WarpStep& step);
  // Lane addresses as the timing model sees them (local memory interleaved).
  void timing_addrs(const WarpStep& step, const Entry& e, uint64_t warp_uid, Addr* out) const;
  const frontend::IsaTable& isa() const { return *isa_; }

 private:
  Entry make(const WarpStep& step) const;
  // The preset's opcode for `sass`, through [fallback]s; throws naming `in`.
  const frontend::OpInfo& resolve(std::string& sass, const ptx::Instruction& in) const;
  void expand(const ptx::Instruction& in, Entry& e) const;
  static void chain_step(const PtxOpNames::Step& st, const ir::WarpInst& w, ir::WarpInst& b, bool& chained);
  // A warp-aggregated atomic's steps (warp_aggregation.h); false when `in`
  // is not one.
  bool aggregate(const WarpStep& step, bool result_read, Entry& e) const;
  // The table's entry for `sass` or its [fallback]s (renaming `sass`); null when none.
  const frontend::OpInfo* try_resolve(std::string& sass) const;
  void reconvergence(const ptx::Instruction& in, Entry& e) const;
  void prologue(const ptx::Instruction& in, Entry& e) const;
  ir::WarpInst alu_step(const PtxOpNames::Step& st, const ptx::Instruction& in, uint64_t pc, const char* table,
                        std::string& sass) const;
  bool reads_register(const ptx::Function& fn, int32_t reg) const;
  const PtxOpNames& names_;
  std::shared_ptr<const frontend::IsaTable> isa_;
  const Launch& launch_;
  bool param_bank_;
  std::unordered_map<uint64_t, Entry> cache_;  // (instruction address, space)
  // Per function: which PTX registers some instruction reads.
  mutable std::unordered_map<const ptx::Function*, std::vector<bool>> read_regs_;
  // Per function: which registers are provably warp-uniform.
  mutable std::unordered_map<const ptx::Function*, ptx::UniformRegs> uniform_;
};

class EmulatedKernel;

// One CTA's executed warp instructions, per warp, as the timing model and the
// trace writer consume them. In timing mode the CTA is run on demand: a
// warp's next instruction is emulated when the SM asks for it, so %clock and
// the interleaving of memory effects between CTAs follow simulated time.
class CtaRecording : public ir::CtaSource, public WarpObserver {
 public:
  // `alive`: the kernel's liveness token (false once the launch is gone).
  CtaRecording(EmulatedKernel& kernel, uint64_t index, Dim3 cta, uint32_t num_warps, std::shared_ptr<bool> alive);
  // Timing mode: the CTA's on-demand execution, which reports to this object
  // (so it is set after construction). Without one, the caller runs the CTA
  // to completion with this as its observer before handing it out.
  void set_run(std::unique_ptr<CtaRun> run) { run_ = std::move(run); }
  ~CtaRecording() override;  // hands the recording to the kernel's trace writer
  void on_step(const WarpStep& step) override;
  // The instructions an if-converted branch skipped, issued with no lane on.
  void issue_skipped(const WarpStep& branch);

  Dim3 cta_id() const override { return cta_; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  const ir::WarpInst* next(uint32_t w) override;

  // A warp's instructions from the first one the SM has not finished with
  // (all of them when a trace is written) to the last one emulated.
  struct Warp {
    std::deque<ir::WarpInst> insts;            // stable addresses as it grows or shrinks at the front
    std::deque<std::array<Addr, 32>> addrs;    // one per memory instruction
    std::vector<const std::string*> sass;      // trace opcode per instruction
    size_t pos = 0;                            // next to hand to the SM
    void drop_taken();                         // forgets insts[0, pos)
  };
  // Writes the CTA to `w` (begin_cta .. end_cta).
  static void write_trace(frontend::CtaSink& w, Dim3 cta, const std::vector<Warp>& warps);

 private:
  EmulatedKernel& kernel_;
  uint64_t index_;
  Dim3 cta_;
  std::unique_ptr<CtaRun> run_;
  std::shared_ptr<bool> alive_;
  std::vector<Warp> warps_;
};

// The KernelSource for a launch: CTAs in linear order, each emulated on
// demand (timing) or up front (trace-out without timing).
class EmulatedKernel : public ir::KernelSource {
 public:
  EmulatedKernel(Emulator& emu, const Launch& launch, ir::KernelInfo info, StepTranslator& tr,
                 frontend::CtaSink* trace, bool on_demand);
  ~EmulatedKernel() override;
  const ir::KernelInfo& info() const override { return info_; }
  const std::vector<std::string>& unit_names() const override;
  std::unique_ptr<ir::CtaSource> next_cta() override;
  const LaunchResult& result() const { return result_; }

  // Called by CtaRecording.
  StepTranslator& translator() { return tr_; }
  uint64_t warp_uid(uint64_t cta_index, uint32_t warp) const { return cta_index * info_.warps_per_cta() + warp; }
  bool keeps_trace() const { return trace_ != nullptr; }
  void add_counts(const LaunchResult& r);
  [[noreturn]] void fail(const LaunchResult& r);
  // A finished CTA's recording; trace blocks are written in CTA order.
  void cta_finished(uint64_t index, Dim3 cta, std::vector<CtaRecording::Warp> warps);

 private:
  Emulator& emu_;
  const Launch& launch_;
  ir::KernelInfo info_;
  StepTranslator& tr_;
  frontend::CtaSink* trace_;
  bool on_demand_;
  uint64_t next_ = 0, next_to_write_ = 0;
  std::map<uint64_t, std::pair<Dim3, std::vector<CtaRecording::Warp>>> finished_;
  LaunchResult result_;
  std::shared_ptr<bool> alive_;  // false once the launch is over or failed
};

// The CTA at linear index `i` of `grid` (x fastest).
Dim3 cta_at(Dim3 grid, uint64_t i);

}  // namespace ws::exec
