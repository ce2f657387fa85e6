// Sparse device memory and a bump allocator that never reuses addresses, so
// that a stale pointer into freed memory faults instead of aliasing new data.
#include "exec/device_memory.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "exec/memory_windows.h"

namespace ws::exec {

struct DeviceMemory::Impl {
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages;

  uint8_t* page(uint64_t number) {
    auto& p = pages[number];
    if (!p) {
      p = std::make_unique<uint8_t[]>(kPageBytes);
      std::memset(p.get(), 0, kPageBytes);
    }
    return p.get();
  }
  const uint8_t* find_page(uint64_t number) const {
    auto it = pages.find(number);
    return it == pages.end() ? nullptr : it->second.get();
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

bool DeviceMemory::release(Addr addr) {
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  uint64_t size = it->second;
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
