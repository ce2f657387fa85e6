// The interfaces every workload frontend implements (traces, binary traces,
// PTX emulation) and every timing model consumes.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/types.h"
#include "ir/warp_inst.h"

namespace ws::ir {

struct KernelInfo {
  std::string name;
  uint32_t id = 0;
  Dim3 grid, block;
  uint32_t shmem_bytes = 0;     // static + dynamic shared memory per CTA
  uint32_t nregs = 0;           // registers per thread
  uint32_t binary_version = 0;  // e.g. 70 for sm_70
  int64_t stream = 0;
  uint32_t warps_per_cta() const { return static_cast<uint32_t>((block.count() + 31) / 32); }
};

// One CTA's instructions, per warp, in program order.
class CtaSource {
 public:
  virtual ~CtaSource() = default;
  virtual Dim3 cta_id() const = 0;
  virtual uint32_t num_warps() const = 0;
  // Next instruction of warp `w` (0-based within the CTA), or nullptr when the
  // warp has no more. The pointee and its lane addresses stay valid until the
  // next call for the same warp (callers copy it and read the addresses at
  // issue): an execution-driven source may then forget what it handed out.
  virtual const WarpInst* next(uint32_t w) = 0;
  // The same, copied into `out`; false (and `out` unchanged) when the warp
  // has no more. A source that builds instructions on the fly overrides it
  // to build straight into `out`.
  virtual bool next_into(uint32_t w, WarpInst& out) {
    const WarpInst* i = next(w);
    if (!i) return false;
    out = *i;
    return true;
  }
};

class KernelSource {
 public:
  virtual ~KernelSource() = default;
  virtual const KernelInfo& info() const = 0;
  // Execution-unit names that WarpInst::unit indexes ("sp", "int", "dp", ...).
  virtual const std::vector<std::string>& unit_names() const = 0;
  // The next CTA in launch order, or nullptr when all were handed out.
  virtual std::unique_ptr<CtaSource> next_cta() = 0;
  // Whether different CTAs of this kernel may be read (CtaSource::next) on
  // different threads at once. next_cta() and the CTAs' destruction are
  // never concurrent with anything. A source that executes the program as
  // it is read (exec) shares its memory between CTAs and says no.
  virtual bool ctas_read_concurrently() const { return false; }
};

struct MemcpyHtoD {
  Addr dst = 0;
  uint64_t bytes = 0;
  // false: lines a copy on the device wrote (a `MemcpyDtoD` line): in the
  // L2 like an upload's, but the host did not wait for the GPU.
  bool host_sync = true;
};

// The host waited for the GPU (cudaDeviceSynchronize and the like) before
// what follows: the next launch is not queued behind a running kernel.
struct HostSync {};

// An event recorded on a stream, or a stream made to wait for an event's
// last record (cudaEventRecord, cudaStreamWaitEvent); or the note that a
// stream was created with cudaStreamNonBlocking (NonBlocking, before its
// first use: it does not synchronise with the legacy stream; `event` unused).
struct StreamEvent {
  enum class Kind : uint8_t { Record, Wait, NonBlocking } kind = Kind::Record;
  int64_t stream = 0;
  uint64_t event = 0;
};

// A host<->device copy on a stream, for the copy engines (warpsim's
// CopyOnStream lines): ordered with its stream's other work.
struct StreamCopy {
  bool to_device = true;  // host to device; else device to host
  int64_t stream = 0;
  Addr device_addr = 0;
  uint64_t bytes = 0;
};

using Command = std::variant<MemcpyHtoD, HostSync, StreamEvent, StreamCopy, std::unique_ptr<KernelSource>>;

// A whole workload: memcpys and kernel launches in program order.
class WorkloadSource {
 public:
  virtual ~WorkloadSource() = default;
  // Next command, or nullopt at the end. Kernels are opened lazily.
  virtual std::optional<Command> next() = 0;
  // Number of kernel launches in the workload, if known up front (for progress).
  virtual std::optional<uint32_t> kernel_count() const { return std::nullopt; }
  virtual std::string description() const = 0;
};

}  // namespace ws::ir
