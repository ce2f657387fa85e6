// Sparse device memory and a bump allocator that never reuses addresses, so
// that a stale pointer into freed memory faults instead of aliasing new data.
#include "exec/device_memory.h"

#include <algorithm>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>

#include "exec/memory_windows.h"

namespace ws::exec {

// A page is device-owned storage, or a window onto a unified allocation's
// host buffer (not owned).
struct Page {
  uint8_t* data = nullptr;
  std::unique_ptr<uint8_t[]> owned;
};

// Host memory mapped at a fixed, deterministic address (so that runs, and
// the timing model's view of addresses, do not depend on ASLR).
// A registered buffer (map_host) is the program's own memory: not unmapped.
struct UnifiedBuffer {
  void* host = nullptr;
  uint64_t bytes = 0;
  bool managed = true;
  bool owned = true;
  ~UnifiedBuffer() {
    if (host && owned) munmap(host, bytes);
  }
};

struct DeviceMemory::Impl {
  std::unordered_map<uint64_t, Page> pages;
  std::map<Addr, std::unique_ptr<UnifiedBuffer>> unified;
  std::map<Addr, Addr> registered;  // map_host buffers: host address -> device address

  uint8_t* page(uint64_t number) {
    Page& p = pages[number];
    if (!p.data) {
      p.owned = std::make_unique<uint8_t[]>(kPageBytes);
      std::memset(p.owned.get(), 0, kPageBytes);
      p.data = p.owned.get();
    }
    return p.data;
  }
  const uint8_t* find_page(uint64_t number) const {
    auto it = pages.find(number);
    return it == pages.end() ? nullptr : it->second.data;
  }
};

DeviceMemory::DeviceMemory() : impl_(std::make_unique<Impl>()), next_(kGlobalBase), capacity_(32ull << 30) {}
DeviceMemory::~DeviceMemory() = default;

std::optional<Addr> DeviceMemory::allocate(uint64_t bytes) {
  uint64_t rounded = (std::max<uint64_t>(bytes, 1) + 255) & ~uint64_t{255};
  if (used_ + rounded > capacity_ || rounded < bytes) return std::nullopt;
  Addr a = next_;
  next_ += rounded;
  live_[a] = rounded;
  used_ += rounded;
  return a;
}

// Page-aligned host memory, mapped page by page; its addresses must not meet
// device allocations or the generic shared/local windows.
std::optional<Addr> DeviceMemory::allocate_unified(uint64_t bytes) { return allocate_unified(bytes, true); }

std::optional<Addr> DeviceMemory::allocate_unified(uint64_t bytes, bool managed) {
  uint64_t rounded = (std::max<uint64_t>(bytes, 1) + kPageBytes - 1) / kPageBytes * kPageBytes;
  if (rounded < bytes || (managed && used_ + rounded > capacity_)) return std::nullopt;
  // Place it at the next unified address; skip ranges the process already uses.
  for (int attempt = 0; attempt < 64; ++attempt) {
    Addr a = next_unified_;
    void* p = mmap(reinterpret_cast<void*>(a), rounded, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || p != reinterpret_cast<void*>(a)) {
      if (p != MAP_FAILED) munmap(p, rounded);  // an old kernel ignored the flag and moved it
      next_unified_ += uint64_t{1} << 32;
      continue;
    }
    next_unified_ += rounded;
    auto buf = std::make_unique<UnifiedBuffer>();
    buf->host = p;
    buf->bytes = rounded;
    buf->managed = managed;
    for (uint64_t off = 0; off < rounded; off += kPageBytes)
      impl_->pages[(a + off) / kPageBytes].data = static_cast<uint8_t*>(p) + off;
    impl_->unified.emplace(a, std::move(buf));
    live_[a] = rounded;
    if (managed) used_ += rounded;  // page-locked host memory is not the device's
    return a;
  }
  return std::nullopt;
}

// The device range starts at the same offset within a page as the host
// buffer, so that each device page is a window onto one host page's worth
// of addresses; the range's pages are its own (the next range starts on a
// new page). Accesses are checked against the range before they touch a
// page, so the windows' bytes outside the buffer are never read.
std::optional<Addr> DeviceMemory::map_host(void* host, uint64_t bytes) {
  if (host == nullptr || bytes == 0) return std::nullopt;
  auto h = reinterpret_cast<uint64_t>(host);
  Addr a = (next_unified_ + kPageBytes - 1) / kPageBytes * kPageBytes + h % kPageBytes;
  uint64_t first = a / kPageBytes, last = (a + bytes - 1) / kPageBytes;
  for (uint64_t n = first; n <= last; ++n)
    impl_->pages[n].data = reinterpret_cast<uint8_t*>(h - h % kPageBytes + (n - first) * kPageBytes);
  next_unified_ = (last + 1) * kPageBytes;
  auto buf = std::make_unique<UnifiedBuffer>();
  buf->host = host;
  buf->bytes = bytes;
  buf->managed = false;
  buf->owned = false;
  impl_->unified.emplace(a, std::move(buf));
  impl_->registered[h] = a;
  live_[a] = bytes;
  return a;
}

bool DeviceMemory::is_unified(Addr addr) const {
  auto a = find(addr);
  return a && impl_->unified.count(a->first) > 0;
}

bool DeviceMemory::is_host(Addr addr) const {
  auto a = find(addr);
  if (!a) return false;
  auto u = impl_->unified.find(a->first);
  return u != impl_->unified.end() && !u->second->managed;
}

std::optional<Addr> DeviceMemory::device_address(const void* host) const {
  auto h = reinterpret_cast<Addr>(host);
  if (is_unified(h)) return h;
  auto it = impl_->registered.upper_bound(h);
  if (it == impl_->registered.begin()) return std::nullopt;
  --it;
  if (h - it->first >= live_.at(it->second)) return std::nullopt;
  return it->second + (h - it->first);
}

bool DeviceMemory::pinned(const void* host, uint64_t bytes) const {
  auto a = device_address(host);
  return a && is_host(*a) && find(*a, std::max<uint64_t>(bytes, 1));
}

void* DeviceMemory::registered_host(Addr addr) const {
  auto u = impl_->unified.find(addr);
  return u != impl_->unified.end() && !u->second->owned ? u->second->host : nullptr;
}

bool DeviceMemory::release(Addr addr) {
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  uint64_t size = it->second;
  if (auto u = impl_->unified.find(addr); u != impl_->unified.end()) {
    for (uint64_t n = addr / kPageBytes; n <= (addr + size - 1) / kPageBytes; ++n) impl_->pages.erase(n);
    if (u->second->managed) used_ -= size;
    if (!u->second->owned) impl_->registered.erase(reinterpret_cast<Addr>(u->second->host));
    impl_->unified.erase(u);
    live_.erase(it);
    return true;
  }
  // Drop the pages the allocation covers entirely; zero the partial ones.
  for (Addr p = addr; p < addr + size;) {
    uint64_t number = p / kPageBytes;
    Addr page_end = (number + 1) * kPageBytes;
    Addr end = std::min(page_end, addr + size);
    if (p % kPageBytes == 0 && end == page_end) {
      impl_->pages.erase(number);
    } else if (impl_->find_page(number)) {
      std::memset(impl_->page(number) + p % kPageBytes, 0, end - p);
    }
    p = end;
  }
  used_ -= size;
  live_.erase(it);
  return true;
}

std::optional<std::pair<Addr, uint64_t>> DeviceMemory::find(Addr addr, uint64_t bytes) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return std::nullopt;
  --it;
  if (addr - it->first + bytes > it->second) return std::nullopt;
  return std::make_pair(it->first, it->second);
}

void DeviceMemory::read(Addr addr, void* dst, uint64_t bytes) const {
  auto* out = static_cast<uint8_t*>(dst);
  while (bytes > 0) {
    uint64_t off = addr % kPageBytes, n = std::min(bytes, kPageBytes - off);
    const uint8_t* p = impl_->find_page(addr / kPageBytes);
    if (p) std::memcpy(out, p + off, n);
    else std::memset(out, 0, n);
    addr += n, out += n, bytes -= n;
  }
}

void DeviceMemory::write(Addr addr, const void* src, uint64_t bytes) {
  auto* in = static_cast<const uint8_t*>(src);
  while (bytes > 0) {
    uint64_t off = addr % kPageBytes, n = std::min(bytes, kPageBytes - off);
    std::memcpy(impl_->page(addr / kPageBytes) + off, in, n);
    addr += n, in += n, bytes -= n;
  }
}

void DeviceMemory::fill(Addr addr, uint8_t value, uint64_t bytes) {
  while (bytes > 0) {
    uint64_t off = addr % kPageBytes, n = std::min(bytes, kPageBytes - off);
    std::memset(impl_->page(addr / kPageBytes) + off, value, n);
    addr += n, bytes -= n;
  }
}

uint8_t* DeviceMemory::host_ptr(Addr addr) { return impl_->page(addr / kPageBytes) + addr % kPageBytes; }

}  // namespace ws::exec
