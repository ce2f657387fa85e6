// The simulated device's global memory: sparse (pages materialise on first
// touch), with an allocator whose addresses look like a real GPU's and a
// record of live allocations so that stray accesses are caught.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/types.h"
#include "exec/memory_windows.h"

namespace ws::exec {

class DeviceMemory {
 public:
  DeviceMemory();
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Allocates `bytes` (rounded up to 256 B alignment, as cudaMalloc); contents zero.
  // nullopt when the configured capacity would be exceeded.
  std::optional<Addr> allocate(uint64_t bytes);
  // Unified (managed / mapped) memory: host memory the device sees at the same
  // address, so host code and kernels share it without copies. The host
  // pointer is the returned address; contents zero.
  std::optional<Addr> allocate_unified(uint64_t bytes);
  // `managed` false: page-locked host memory mapped for the device
  // (cudaHostAlloc), which copies treat as host memory (is_host).
  std::optional<Addr> allocate_unified(uint64_t bytes, bool managed);
  // Host memory the process already owns (cudaHostRegister), made visible to
  // kernels at a device address of its own in the unified range (the host
  // pointer may lie among device addresses). Its pages alias the host
  // buffer: nothing is copied, and release() leaves the buffer alone.
  std::optional<Addr> map_host(void* host, uint64_t bytes);
  // Whether `addr` lies in a unified allocation (managed, mapped or registered).
  bool is_unified(Addr addr) const;
  // Whether `addr` lies in page-locked host memory (allocate_unified with
  // managed false, or map_host), as opposed to managed or device memory.
  bool is_host(Addr addr) const;
  // The device address of host memory mapped with map_host or allocated
  // unified (there the pointer itself); nullopt for other host memory.
  std::optional<Addr> device_address(const void* host) const;
  // The live map_host range starting at device address `addr`, as its host pointer.
  void* registered_host(Addr addr) const;
  // Whether the host bytes [host, host+bytes) lie in one page-locked buffer.
  bool pinned(const void* host, uint64_t bytes) const;
  // false when `addr` is not the start of a live allocation.
  bool release(Addr addr);
  // The live allocation containing [addr, addr+bytes), as {start, size}; nullopt if none.
  std::optional<std::pair<Addr, uint64_t>> find(Addr addr, uint64_t bytes = 1) const;
  uint64_t capacity() const { return capacity_; }
  void set_capacity(uint64_t bytes) { capacity_ = bytes; }
  uint64_t used() const { return used_; }

  // Raw access; callers check validity with find() first (the emulator does
  // so per access). Unwritten bytes read as zero.
  void read(Addr addr, void* dst, uint64_t bytes) const;
  void write(Addr addr, const void* src, uint64_t bytes);
  void fill(Addr addr, uint8_t value, uint64_t bytes);
  // Direct pointer to the byte at `addr` (materialising its page), valid up to
  // the end of that page (kPageBytes aligned). For fast paths.
  uint8_t* host_ptr(Addr addr);
  static constexpr uint64_t kPageBytes = 1 << 16;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::map<Addr, uint64_t> live_;  // start -> size
  Addr next_ = 0;
  Addr next_unified_ = kUnifiedBase;
  uint64_t capacity_ = 0, used_ = 0;
};

}  // namespace ws::exec
