// One simulated GPU as a CUDA runtime sees it: device memory, loaded PTX,
// kernel launches (functional, or through the detailed timing model), the
// simulated clock, and the facts cudaGetDeviceProperties reports. The
// runtime library (src/cudart) is a thin C ABI over this class.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/types.h"
#include "exec/device_memory.h"
#include "exec/emulator.h"
#include "exec/program.h"
#include "exec/texture.h"
#include "ir/source.h"

namespace ws::config { class Config; }
namespace ws::timing {
struct KernelResult;
struct SyncPoint;
class KernelStopped;
}

namespace ws::exec {

// Figures of the simulated GPU preset, for device properties and attributes.
class EmulatedKernel;

struct DeviceFacts {
  std::string name;                 // e.g. "Tesla V100-SXM2-32GB (warpsim qv100)"
  int cc_major = 7, cc_minor = 0;   // compute capability
  int sms = 80;
  double core_mhz = 1132, dram_mhz = 850;
  int dram_bus_bits = 4096;
  uint64_t global_mem_bytes = 32ull << 30;
  uint64_t l2_bytes = 6ull << 20;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_ctas_per_sm = 32;
  int regs_per_sm = 65536, regs_per_block = 65536;
  uint64_t shmem_per_block = 48 << 10;         // without opt-in
  uint64_t shmem_per_block_optin = 96 << 10;
  uint64_t shmem_per_sm = 96 << 10;
  uint64_t const_mem_bytes = 64 << 10;
  int warp_size = 32;
  int regs_per_thread = 32;         // assumed for PTX kernels (exec.regs_per_thread)
  int copy_engines = 2;             // copy.engines (asyncEngineCount)
};

// What a kernel asks of an SM, by the rules the timing model applies (and the
// runtime reports through cudaFuncGetAttributes and the occupancy API):
// static shared memory, and registers per thread (the assumption, capped by
// the kernel's .maxnreg).
uint64_t static_shared_bytes(const LoadedModule& m, const ptx::Function& k);
uint32_t regs_per_thread(const DeviceFacts& f, const ptx::Function& k);

struct DeviceOptions {
  std::string preset = "qv100";     // GPU preset (configs/gpus/<preset>.toml)
  std::vector<std::string> sets;    // "key=value" overrides
  bool timing = false;              // run kernels through the cycle-level model
  std::string out_dir;              // stats.json/config.toml when timing ("" = none)
  std::string trace_out;            // Accel-Sim trace folder to write ("" = none)
  bool trace_binary = false;        // ... with binary kernel files (.wst) instead of text
  bool print_summary = true;        // timing: a summary table on stderr at finish()
  std::string plan;                 // timing: sampling plan; only its representatives are timed
  std::string profile_out;          // functional: per-launch features CSV (warpsim profile)
  uint32_t profile_full = 0;        // profile: features of the first N launches only (0: all), the rest cheaply
};

// A stream as the timing model sees it: its number (0: the legacy default
// stream) and whether it synchronises with the legacy stream.
struct StreamRef {
  int64_t id = 0;
  bool blocking = true;
  // The program has a live cudaStreamNonBlocking stream: a timed kernel on
  // the legacy stream is then queued (it may overlap that stream's work)
  // rather than run to its end at launch.
  bool nonblocking_live = false;
};

// What the host waits for around a host<->device copy (docs/exec.md,
// "Copy engines").
enum class CopyWait : uint8_t {
  Host,    // cudaMemcpy: on the legacy stream, and the host waits for it
  Stream,  // cudaMemcpyAsync of pageable host memory: on its stream, and the host waits for it
  None,    // cudaMemcpyAsync of page-locked host memory: queued on its stream
};

class Device {
 public:
  explicit Device(const DeviceOptions& opts);
  ~Device();

  DeviceMemory& memory() { return memory_; }
  Program& program() { return program_; }
  TextureTable& textures() { return textures_; }
  const DeviceFacts& facts() const { return facts_; }

  // Functional mode (and trace-out without timing): runs the kernel to
  // completion. Timing mode: queues it on its stream and returns at once;
  // it runs (functionally too) at the next synchronisation point that needs
  // it, and a failure then comes back through take_fault().
  LaunchResult launch(const Launch& launch, StreamRef stream = {});
  // Events in timing mode (functional mode times events by now_ns()).
  void record_event(uint64_t event, StreamRef stream);
  void wait_event(StreamRef stream, uint64_t event);
  void synchronize_stream(StreamRef stream);
  // `host_waits`: false for cudaEventElapsedTime, which reads the events'
  // times without the host waiting for the GPU.
  void synchronize_event(uint64_t event, bool host_waits = true);
  // When the event's last record completed, in simulated ns (timing mode,
  // once complete; nullopt otherwise).
  std::optional<double> event_ns(uint64_t event) const;
  // A queued kernel that failed (timing mode), reported once.
  struct Fault {
    enum class Kind : uint8_t { Program, Stopped, Model } kind = Kind::Program;
    LaunchFailure failure = LaunchFailure::Fault;  // Program
    std::string what;
  };
  std::optional<Fault> take_fault() { return std::exchange(fault_, std::nullopt); }
  // Host<->device copies and memsets as the runtime performs them; the
  // device records them for timing (copy engine) and for trace-out.
  // With timing, host<->device copies run on the model's copy engines in
  // their stream's order; the data moves when the copy starts there (with
  // CopyWait::None, the host memory must stay as it is until then, as CUDA
  // requires of page-locked memory).
  void copy_to_device(Addr dst, const void* src, uint64_t bytes, StreamRef stream = {},
                      CopyWait wait = CopyWait::Host);
  void copy_to_host(void* dst, Addr src, uint64_t bytes, StreamRef stream = {}, CopyWait wait = CopyWait::Host);
  // The same for any data movement between host and device (`perform`; a 2D
  // copy's rows): `bytes` from `device_addr` on the device side.
  void host_copy(bool to_device, Addr device_addr, uint64_t bytes, std::function<void()> perform, StreamRef stream,
                 CopyWait wait);
  void copy_on_device(Addr dst, Addr src, uint64_t bytes);
  void set(Addr dst, uint8_t value, uint64_t bytes);
  // The host waited for the device (cudaDeviceSynchronize and the like): the
  // next launch is not queued behind a running kernel.
  void synchronize();
  // Runs the queued kernels (timing mode) to their end without it counting
  // as a host synchronisation: what cudaFree and device-side copies wait for.
  void drain();

  // Simulated time since the device was created, in nanoseconds (timing
  // mode: from simulated cycles; functional mode: an estimate from
  // instruction counts, documented in docs/exec.md).
  double now_ns() const { return now_ns_; }
  // Writes the results (stats.json, trace kernelslist, profile CSV) so far;
  // called at exit. Throws sampling::PlanMismatch (after writing stats.json)
  // when the program launched fewer kernels than its plan says.
  void finish();

 private:
  struct Timing;
  struct Queued;  // a launch queued in the timing model
  ir::KernelInfo kernel_info(const Launch& l);  // numbers the launch
  uint32_t queue_timed(const Launch& l, const ir::KernelInfo& info, StreamRef stream);  // its kernel id
  LaunchResult run_legacy(uint32_t id);
  // `rethrow`: a stop or a model error is thrown on (after being reported).
  void run_gpu(const timing::SyncPoint& until, bool rethrow = false);
  void take_ended(std::vector<timing::KernelResult> ended);
  void stopped(timing::KernelStopped& stop);
  void resolve_events(Cycle base_cycle, double base_ns);
  uint64_t event_number(uint64_t handle);
  void note_stream(StreamRef stream);
  double estimated_ns(const LaunchResult& r) const;
  bool timed_under_plan(const ir::KernelInfo& info);
  bool full_profile(uint32_t launch) const;
  LaunchResult run_emulated(const Launch& l, const ir::KernelInfo& info);
  void finish_sampling();
  void write_stats();

  DeviceOptions opts_;
  std::unique_ptr<Timing> timing_;  // config, and the timing model / trace writer when asked for
  DeviceFacts facts_;
  DeviceMemory memory_;
  TextureTable textures_;
  Program program_;
  Emulator emulator_;
  double now_ns_ = 0;
  bool finished_ = false;  // finish() ran: stats.json may say complete
  std::map<uint32_t, std::unique_ptr<Queued>> queued_;  // by kernel id
  std::map<uint64_t, double> event_ns_;                 // completed events (timing mode), by handle
  std::map<uint64_t, uint64_t> event_numbers_;          // handle -> number (the model's and the trace's)
  std::set<int64_t> nonblocking_noted_;                  // streams the trace was told are non-blocking
  std::vector<uint64_t> unresolved_events_;
  std::optional<Fault> fault_;
  bool gpu_broken_ = false;  // a fault or stop left the timing model unusable
  uint32_t held_ = 0;        // a kernel run_legacy() reads after it has ended
};

}  // namespace ws::exec
