// Functional execution of PTX kernels: SIMT warps with divergence and
// reconvergence, over a sparse device memory. Timing models observe the
// execution through WarpObserver; they never change what is computed.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"
#include "exec/program.h"
#include "frontend/ptx/ast.h"
#include "ir/warp_inst.h"

namespace ws::exec {

class DeviceMemory;  // exec/device_memory.h
class TextureTable;  // exec/texture.h

// A kernel launch as the runtime hands it over.
struct Launch {
  const LoadedModule* module = nullptr;  // where `kernel` and the symbols it names live
  const ptx::Function* kernel = nullptr;
  Dim3 grid, block;
  uint32_t dynamic_shmem = 0;
  std::vector<uint8_t> params;  // the parameter buffer, laid out per kernel->params
  // Cooperative launches: device address of the grid workspace
  // ({u32 size, u32 barrier}, CUDA's driver ABI) that %envreg1 (high half) and
  // %envreg2 (low half) hand
  // to cg::this_grid(); 0 otherwise (grid.is_valid() is false, sync traps).
  Addr grid_workspace = 0;
  // What the launch's buffers need kept (the grid workspace): copies of the
  // launch share it, so a launch queued on a stream holds it until its kernel
  // has ended and the caller's copy may go when the launch call returns.
  std::shared_ptr<const void> keep_alive;
};

// Why a launch stopped early: the runtime reports each as a different CUDA error.
enum class LaunchFailure : uint8_t {
  Fault,            // a bad access or an unsupported operation
  Assertion,        // a failed device assert()
  BarrierDeadlock,  // warps wait at a barrier that the others never reach
  Watchdog,         // ran past the instruction watchdog (exec.watchdog_warp_insts)
};

// What a launch did. On a fault the kernel stops; `error` says where:
// kernel, block, thread, PTX line, address.
struct LaunchResult {
  bool ok = true;
  std::string error;
  LaunchFailure failure = LaunchFailure::Fault;  // when !ok
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
};

// One executed warp instruction, for timing models and trace writers.
struct WarpStep {
  uint32_t warp = 0;                    // warp index within the CTA
  const ptx::Instruction* inst = nullptr;
  uint32_t pc = 0;                      // index of `inst` in its function's body
  const ptx::Function* function = nullptr;
  uint32_t active_mask = 0;             // lanes that executed (guard applied)
  uint32_t warp_mask = 0;               // the warp's lanes that reached it (before the guard)
  // Memory instructions: the state space actually accessed (generic resolved
  // to global/shared/local), bytes per lane, and 32 lane addresses (only active
  // lanes meaningful; shared addresses are offsets in the CTA's window).
  ptx::StateSpace space = ptx::StateSpace::None;
  uint32_t access_bytes = 0;
  ir::CacheOp cache_op = ir::CacheOp::Default;  // the instruction's cache operator (ld.cg, st.cs, ...)
  const uint64_t* addrs = nullptr;
};

class WarpObserver {
 public:
  virtual ~WarpObserver() = default;
  virtual void on_step(const WarpStep& step) = 0;
};

// A CTA run on demand by a timing model: a warp advances when the model asks
// for its next instruction; warps the asked-for one waits for at a barrier
// run ahead. Every executed instruction goes to the observer given at start.
class CtaRun {
 public:
  enum class Status : uint8_t { Stepped, Done, Fault };
  virtual ~CtaRun() = default;
  // Executes warp `w`'s next instruction (Stepped), or says it has none (Done)
  // or that the CTA faulted (result().error says where).
  virtual Status step(uint32_t w) = 0;
  virtual const LaunchResult& result() const = 0;
};

// Receives device printf output, one string per printing lane.
using PrintSink = std::function<void(std::string_view)>;

class Emulator {
 public:
  Emulator(DeviceMemory& mem, uint32_t num_sms);
  ~Emulator();
  // Runs every CTA of the launch: as many at a time as the GPU holds
  // (num_sms x threads_per_sm / block threads), interleaved, in launch order.
  LaunchResult run(const Launch& launch);
  // Resident threads per SM, for run()'s interleaving (default 2048).
  void set_threads_per_sm(uint32_t threads);
  // run() stops a kernel after this many warp instructions, failing it with
  // LaunchFailure::Watchdog (0: never); run_cta() applies the limit to the CTA.
  void set_watchdog(uint64_t warp_insts);
  // Runs one CTA (for timing models that pull CTAs as they dispatch them);
  // `observer` (may be null) sees every warp instruction.
  LaunchResult run_cta(const Launch& launch, Dim3 cta, WarpObserver* observer);
  // Starts a CTA for timing-driven execution (several may be in progress).
  // Throws InputError for unsupported PTX, as run() reports it.
  std::unique_ptr<CtaRun> start_cta(const Launch& launch, Dim3 cta, WarpObserver* observer);
  // Where %clock, %clock64 and %globaltimer read from (timing mode: the
  // simulated core cycle); unset, they count the warp's instructions.
  void set_clock(std::function<uint64_t()> clock);
  // The texture objects kernels' `tex` instructions name (none: every handle is invalid).
  void set_textures(const TextureTable* textures);

  struct Impl;
  // Where device printf writes; the default appends to the process's stdout.
  void set_print_sink(PrintSink sink);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ws::exec
