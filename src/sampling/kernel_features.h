// Micro-architecture independent features of a kernel launch, as Principal
// Kernel Analysis groups kernels by them (docs/sampling.md). Each is named by
// the Nsight Compute metric that measures the same on a GPU, so a profile of
// a real run and one of ours read alike.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/source.h"

namespace ws::sampling {

enum class Feature : uint8_t {
  WarpInsts,          // warp instructions executed
  ThreadInsts,        // thread instructions executed (active, predicated-on lanes)
  ThreadsPerInst,     // thread instructions per warp instruction (divergence efficiency x 32)
  GlobalLoadSectors,  // coalesced 32 B sectors of global loads
  GlobalStoreSectors,
  LocalLoadSectors,
  GlobalLoads,        // thread-level accesses
  GlobalStores,
  LocalLoads,
  LocalStores,
  SharedLoads,
  SharedStores,
  GlobalAtomics,      // warp-level global atomic and reduction instructions
  Ctas,               // CTAs launched
  kCount
};
constexpr size_t kFeatureCount = static_cast<size_t>(Feature::kCount);

// The Nsight Compute metric name of a feature.
std::string_view ncu_name(Feature f);

struct KernelFeatures {
  std::string name;
  uint32_t id = 0;  // launch index, 1-based, in program order
  Dim3 grid, block;
  std::array<double, kFeatureCount> values{};
  double& operator[](Feature f) { return values[static_cast<size_t>(f)]; }
  double operator[](Feature f) const { return values[static_cast<size_t>(f)]; }
};

// Runs through every instruction of the kernel (no timing). Warps of a CTA are
// read in turns of a bounded number of instructions, so an execution-driven
// source whose warps meet at barriers is served as it would be on a GPU.
KernelFeatures profile_kernel(ir::KernelSource& kernel, uint32_t launch_index);

// Distinct 32 B sectors the active lanes of a memory instruction touch.
uint32_t sectors_touched(const ir::WarpInst& inst);

}  // namespace ws::sampling
