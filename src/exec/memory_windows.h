// Where things live in the simulated 64-bit address space.
//
// Global allocations (cudaMalloc and module variables) start at kGlobalBase.
// Shared and local memory have their own state-space addresses starting at 0
// (a CTA's shared window, a thread's local stack); cvta maps them into the
// generic address space at kSharedWindow / kLocalWindow, far from global
// allocations, so that a generic address tells its space by range alone.
// Unified memory (cudaMallocManaged) is host memory mapped at kUnifiedBase and
// up: the host and the device use the same pointer.
// Function addresses (for `.global .u64 fp = fn` initialisers) are fake,
// distinct values at kFunctionBase.
#pragma once
#include <cstdint>

namespace ws::exec {

inline constexpr uint64_t kGlobalBase = 0x0000'7f00'0000'0000ull;
inline constexpr uint64_t kSharedWindow = 0x0000'7e00'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x0000'7d00'0000'0000ull;
inline constexpr uint64_t kWindowBytes = 1ull << 32;
inline constexpr uint64_t kFunctionBase = 0x0000'7c00'0000'0000ull;
// Unified (managed, mapped) memory: host memory mapped at fixed addresses from
// here, below the device windows and above where Linux puts a program's heap.
inline constexpr uint64_t kUnifiedBase = 0x0000'6000'0000'0000ull;

}  // namespace ws::exec
