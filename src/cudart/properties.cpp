#include "cudart/properties.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "timing/gpu/occupancy.h"

namespace ws::cudart {
namespace {

int clamp_int(uint64_t v) { return static_cast<int>(std::min<uint64_t>(v, INT32_MAX)); }

// Texture and surface limits are not modelled; these are the values of
// current NVIDIA GPUs, so that programs sizing textures get sane numbers.
void fill_texture_limits(cudaDeviceProp& p) {
  p.maxTexture1D = p.maxSurface1D = 131072;
  p.maxTexture1DMipmap = 32768;
  p.maxTexture2D[0] = 131072, p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = p.maxTexture2DMipmap[1] = 32768;
  p.maxTexture2DLinear[0] = p.maxTexture2DLinear[1] = 131072, p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = p.maxTexture2DGather[1] = 32768;
  std::fill(p.maxTexture3D, p.maxTexture3D + 3, 16384);
  p.maxTexture3DAlt[0] = p.maxTexture3DAlt[1] = 8192, p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = p.maxSurfaceCubemap = 32768;
  p.maxTexture1DLayered[0] = p.maxSurface1DLayered[0] = 32768;
  p.maxTexture1DLayered[1] = p.maxSurface1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768;
  p.maxTexture2DLayered[2] = p.maxSurface2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = p.maxSurfaceCubemapLayered[0] = 32768;
  p.maxTextureCubemapLayered[1] = p.maxSurfaceCubemapLayered[1] = 2046;
  p.maxSurface2D[0] = 131072, p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.surfaceAlignment = 512;
}

}  // namespace

void fill_properties(const exec::DeviceFacts& f, cudaDeviceProp& p) {
  std::memset(&p, 0, sizeof p);
  std::strncpy(p.name, f.name.c_str(), sizeof p.name - 1);
  std::memcpy(p.uuid.bytes, "warpsim-device-0", sizeof p.uuid.bytes);
  p.totalGlobalMem = f.global_mem_bytes;
  p.sharedMemPerBlock = f.shmem_per_block;
  p.regsPerBlock = f.regs_per_block;
  p.warpSize = f.warp_size;
  p.memPitch = INT32_MAX;
  p.maxThreadsPerBlock = f.max_threads_per_block;
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = 1024, p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = INT32_MAX, p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.totalConstMem = f.const_mem_bytes;
  p.major = f.cc_major;
  p.minor = f.cc_minor;
  p.multiProcessorCount = f.sms;
  p.canMapHostMemory = 1;  // mapped page-locked memory is unified memory
  p.managedMemory = 1;     // cudaMallocManaged (host memory the device addresses directly)
  fill_texture_limits(p);
  p.concurrentKernels = 1;
  p.pciBusID = 1;
  p.asyncEngineCount = f.copy_engines;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = f.dram_bus_bits;
  p.l2CacheSize = clamp_int(f.l2_bytes);
  p.maxThreadsPerMultiProcessor = f.max_threads_per_sm;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = f.shmem_per_sm;
  p.regsPerMultiprocessor = f.regs_per_sm;
  p.computePreemptionSupported = 1;
  p.sharedMemPerBlockOptin = f.shmem_per_block_optin;
  p.maxBlocksPerMultiProcessor = f.max_ctas_per_sm;
  p.cooperativeLaunch = 1;  // cudaLaunchCooperativeKernel: grid.sync() across co-resident CTAs
  p.hostNumaId = -1;
  p.deviceNumaId = -1;
}

std::optional<int> device_attribute(const exec::DeviceFacts& f, cudaDeviceAttr attr) {
  cudaDeviceProp p;
  fill_properties(f, p);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return clamp_int(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return clamp_int(p.totalConstMem);
    case cudaDevAttrWarpSize: return p.warpSize;
    case cudaDevAttrMaxPitch: return clamp_int(p.memPitch);
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrClockRate: return static_cast<int>(f.core_mhz * 1000);  // kHz
    case cudaDevAttrMemoryClockRate: return static_cast<int>(f.dram_mhz * 1000);
    case cudaDevAttrTextureAlignment: return clamp_int(p.textureAlignment);
    case cudaDevAttrTexturePitchAlignment: return clamp_int(p.texturePitchAlignment);
    case cudaDevAttrSurfaceAlignment: return clamp_int(p.surfaceAlignment);
    case cudaDevAttrGpuOverlap: return 1;
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrComputeMode: return 0;  // cudaComputeModeDefault
    case cudaDevAttrConcurrentKernels: return p.concurrentKernels;
    case cudaDevAttrPciBusId: return p.pciBusID;
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount: return p.asyncEngineCount;
    case cudaDevAttrUnifiedAddressing: return p.unifiedAddressing;
    case cudaDevAttrCanMapHostMemory: return p.canMapHostMemory;
    case cudaDevAttrManagedMemory: return p.managedMemory;
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrStreamPrioritiesSupported: return p.streamPrioritiesSupported;
    case cudaDevAttrGlobalL1CacheSupported: return p.globalL1CacheSupported;
    case cudaDevAttrLocalL1CacheSupported: return p.localL1CacheSupported;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return clamp_int(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: return 2;
    case cudaDevAttrComputePreemptionSupported: return p.computePreemptionSupported;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return clamp_int(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrCooperativeLaunch: return p.cooperativeLaunch;
    case cudaDevAttrMaxTexture1DWidth: return p.maxTexture1D;
    case cudaDevAttrMaxTexture2DWidth: return p.maxTexture2D[0];
    case cudaDevAttrMaxTexture2DHeight: return p.maxTexture2D[1];
    case cudaDevAttrMaxTexture3DWidth: return p.maxTexture3D[0];
    case cudaDevAttrMaxTexture3DHeight: return p.maxTexture3D[1];
    case cudaDevAttrMaxTexture3DDepth: return p.maxTexture3D[2];
    case cudaDevAttrHostNumaId: return p.hostNumaId;
    case cudaDevAttrNumaId: return p.deviceNumaId;
    default: break;
  }
  // Every other attribute is a capability this simulated device lacks
  // (concurrent managed access, IPC, NUMA, RDMA, ...) or reports as 0 on real parts.
  if (attr >= 1 && attr <= cudaDevAttrOnlyPartialHostNativeAtomicSupported) return 0;
  return std::nullopt;
}

int occupancy(const exec::DeviceFacts& f, int threads, uint32_t regs, uint64_t shmem) {
  timing::SmLimits sm;
  sm.max_ctas = static_cast<uint32_t>(f.max_ctas_per_sm);
  sm.max_threads = static_cast<uint32_t>(f.max_threads_per_sm);
  sm.max_warps = sm.max_threads / static_cast<uint32_t>(f.warp_size);
  sm.registers = static_cast<uint32_t>(f.regs_per_sm);
  sm.unified_kb = static_cast<uint32_t>(f.shmem_per_sm / 1024);
  sm.carveout_kb = {static_cast<int64_t>(sm.unified_kb)};
  ir::KernelInfo k;
  k.name = "occupancy query";
  k.block = Dim3{static_cast<uint32_t>(threads), 1, 1};
  k.nregs = regs;
  k.shmem_bytes = static_cast<uint32_t>(shmem);
  try {
    return static_cast<int>(timing::plan_occupancy(sm, k).ctas_per_sm);
  } catch (const Error&) {
    return 0;  // one CTA does not fit
  }
}

}  // namespace ws::cudart
