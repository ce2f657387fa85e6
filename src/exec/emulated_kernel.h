// A kernel launch as the timing model and trace writer see it: CTAs are
// emulated when the dispatcher asks for them, and each CTA's warp
// instructions are handed over as the same ir::WarpInst stream an NVBit trace
// of the program would give (SASS opcode classes via isa/ptx.toml).
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/emulator.h"
#include "exec/ptx_op_names.h"
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

// Per launch: what the SASS view of each PTX instruction is (cached).
class StepTranslator {
 public:
  StepTranslator(const PtxOpNames& names, std::shared_ptr<const frontend::IsaTable> isa, const Launch& launch);
  // The instruction template (no mask or addresses) and its SASS name.
  struct Entry {
    ir::WarpInst inst;
    std::string sass;
  };
  const Entry& entry(const WarpStep& step);
  // Lane addresses as the timing model sees them (local memory interleaved).
  void timing_addrs(const WarpStep& step, uint64_t warp_uid, Addr* out) const;
  const frontend::IsaTable& isa() const { return *isa_; }

 private:
  Entry make(const WarpStep& step) const;
  const PtxOpNames& names_;
  std::shared_ptr<const frontend::IsaTable> isa_;
  const Launch& launch_;
  std::unordered_map<uint64_t, Entry> cache_;  // (instruction address, space)
};

// Records one CTA's execution: per-warp instruction lists (for timing) and,
// optionally, the trace lines.
class CtaRecording : public ir::CtaSource, public WarpObserver {
 public:
  CtaRecording(StepTranslator& tr, Dim3 cta, uint64_t first_warp_uid, uint32_t num_warps, bool keep_trace);
  void on_step(const WarpStep& step) override;
  // Fixes address pointers once the CTA has run; call before next().
  void finish();
  // Writes the CTA to `w` (begin_cta .. end_cta).
  void write_trace(frontend::TraceWriter& w) const;

  Dim3 cta_id() const override { return cta_; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  const ir::WarpInst* next(uint32_t w) override;

 private:
  struct Warp {
    std::vector<ir::WarpInst> insts;
    std::vector<uint32_t> addr_index;  // per inst: offset into addrs_ (or ~0u)
    std::vector<const std::string*> sass;
    size_t pos = 0;
  };
  StepTranslator& tr_;
  Dim3 cta_;
  uint64_t first_warp_uid_;
  bool keep_trace_;
  std::vector<Warp> warps_;
  std::vector<Addr> addrs_;
};

// The KernelSource for a launch (timing mode).
class EmulatedKernel : public ir::KernelSource {
 public:
  EmulatedKernel(Emulator& emu, const Launch& launch, ir::KernelInfo info, StepTranslator& tr,
                 frontend::TraceWriter* trace);
  const ir::KernelInfo& info() const override { return info_; }
  const std::vector<std::string>& unit_names() const override;
  std::unique_ptr<ir::CtaSource> next_cta() override;
  const LaunchResult& result() const { return result_; }

 private:
  Emulator& emu_;
  const Launch& launch_;
  ir::KernelInfo info_;
  StepTranslator& tr_;
  frontend::TraceWriter* trace_;
  uint64_t next_ = 0;
  LaunchResult result_;
};

// The CTA at linear index `i` of `grid` (x fastest).
Dim3 cta_at(Dim3 grid, uint64_t i);

}  // namespace ws::exec
