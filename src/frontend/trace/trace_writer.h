// Writes trace folders in the NVBit/Accel-Sim format (tracer version 4, no
// line info) that open_trace_workload() reads back.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ir/source.h"

namespace ws::frontend {

// One warp instruction as the trace spells it.
struct TraceInst {
  uint64_t pc = 0;
  uint32_t mask = 0xffffffff;
  std::string opcode;            // full mnemonic, e.g. "LDG.E.SYS"
  std::vector<uint16_t> dst, src;
  uint32_t mem_width = 0;        // > 0: a memory access; addrs are used
  std::array<Addr, 32> addrs{};  // lane-indexed; only active lanes are written
};

// Whether the k-th active lane's address is base + k*stride for every active
// lane (address mode 1); false without active lanes.
bool active_lane_stride(const TraceInst& i, Addr& base, int64_t& stride);

// The instruction line for `i`: address mode 1 when the active lanes' addresses
// form one stride, mode 0 otherwise.
std::string format_inst_line(const TraceInst& i);

// Where a kernel's thread blocks are written, in order.
class CtaSink {
 public:
  virtual ~CtaSink() = default;
  virtual void begin_cta(Dim3 id) = 0;
  // A warp's block: exactly `count` add() calls must follow.
  virtual void begin_warp(uint32_t warp, uint32_t count) = 0;
  virtual void add(const TraceInst& i) = 0;
  virtual void end_cta() = 0;
};

// One kernel file being written; kernels running at the same time (streams)
// each write their own.
class KernelFile : public CtaSink {
 public:
  // Flushes and closes (the destructor does too, without reporting errors).
  virtual void close() = 0;
};

// The header lines of a kernel file TraceWriter writes (up to the first
// #BEGIN_TB), each ending in '\n'.
std::string kernel_header_text(const ir::KernelInfo& info, Addr shmem_base, Addr local_base);

// A kernel-<n>.traceg.
class KernelTraceFile : public KernelFile {
 public:
  KernelTraceFile(std::string path, const ir::KernelInfo& info, Addr shmem_base, Addr local_base);
  ~KernelTraceFile() override;
  void begin_cta(Dim3 id) override;
  void begin_warp(uint32_t warp, uint32_t count) override;
  void add(const TraceInst& i) override;
  void end_cta() override;
  void close() override;

 private:
  void put(std::string_view s);
  void flush();
  FILE* file_ = nullptr;
  std::string path_, buf_;
  uint32_t pending_ = 0;  // add() calls still owed to the current warp
};

// A kernel-<n>.wst (binary trace, docs/trace-format.md) with the same
// content: converted to text it gives what KernelTraceFile writes.
std::unique_ptr<KernelFile> open_wst_kernel_file(const std::string& path, const ir::KernelInfo& info, Addr shmem_base,
                                                 Addr local_base);

class TraceWriter : public CtaSink {
 public:
  // Creates `out_dir` (and parents) and its kernelslist.g; `binary`: kernel
  // files are written as kernel-<n>.wst instead of kernel-<n>.traceg.
  explicit TraceWriter(const std::string& out_dir, bool binary = false);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void memcpy(Addr dst, uint64_t bytes);
  // A copy on the device (cudaMemcpy device to device): a `MemcpyDtoD` line
  // (warpsim's) for the lines it wrote; the host did not wait.
  void device_copy(Addr dst, uint64_t bytes);
  // The host waited for the device: a `HostSync` line goes before the next
  // kernel (a copy implies one, so none follows a copy).
  void host_sync() { sync_pending_ = true; }
  // `EventRecord,<event>,<stream>` / `StreamWaitEvent,<stream>,<event>`
  // lines (warpsim's, read back as ir::StreamEvent).
  void stream_event(const ir::StreamEvent& e);
  // A host<->device copy on a stream: a `CopyOnStream` line (warpsim's, read
  // back as ir::StreamCopy). A pending HostSync goes before it.
  void stream_copy(const ir::StreamCopy& c);
  // Opens kernel-<n>.traceg or .wst (n counts from 1; info.id is overwritten with
  // n) and lists it; the CtaSink calls below write to it until end_kernel().
  void begin_kernel(ir::KernelInfo info, Addr shmem_base = 0x00007f0000000000ull,
                    Addr local_base = 0x00007effe0000000ull);
  void begin_cta(Dim3 id) override { current().begin_cta(id); }
  void begin_warp(uint32_t warp, uint32_t count) override { current().begin_warp(warp, count); }
  void add(const TraceInst& i) override { current().add(i); }
  void end_cta() override { current().end_cta(); }
  void end_kernel();
  // The same kernel file, written through its own object, so that several
  // may be open at once (kernels listed in the order opened).
  std::unique_ptr<KernelFile> open_kernel(ir::KernelInfo info, Addr shmem_base = 0x00007f0000000000ull,
                                               Addr local_base = 0x00007effe0000000ull);
  // Flushes and closes; called by the destructor too (which cannot report errors).
  void close();

 private:
  KernelFile& current();

  std::string dir_;
  bool binary_ = false;
  FILE* list_ = nullptr;
  std::unique_ptr<KernelFile> kernel_;
  uint32_t kernels_ = 0;
  bool sync_pending_ = false;
};

}  // namespace ws::frontend
