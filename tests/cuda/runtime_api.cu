// Runtime API behaviour a program can observe, as on a real GPU: error codes
// and the last-error state, device properties and attributes, kernel
// attributes and occupancy, pointer attributes, host callbacks, events, and a
// launch through cudaLaunchKernel (the path clang-compiled code takes).
#include <cstring>
#include <vector>

#include "check.h"

// Blocks of at most 128 threads: each writes value + its index reversed.
__global__ void fill(int* out, int value) {
  __shared__ int stage[128];
  stage[threadIdx.x] = value + threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = stage[blockDim.x - 1 - threadIdx.x];
}

void host_callback(void* flag) { *static_cast<int*>(flag) = 42; }

#define EXPECT(cond)                                              \
  do {                                                            \
    if (!(cond)) {                                                \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++bad;                                                      \
    }                                                             \
  } while (0)

int main() {
  long bad = 0;
  int* d;
  CHECK(cudaMalloc(&d, 256 * sizeof(int)));

  // Errors are returned and remembered until cudaGetLastError.
  fill<<<1, 2048>>>(d, 0);
  EXPECT(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  EXPECT(cudaGetLastError() == cudaSuccess);
  int host_value = 0;
  EXPECT(cudaMemcpy(&host_value, reinterpret_cast<void*>(0x10), 4, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  void* huge = nullptr;
  EXPECT(cudaMalloc(&huge, size_t(1) << 52) == cudaErrorMemoryAllocation);
  EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation);
  EXPECT(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
  EXPECT(std::strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);

  // Device description.
  int count = 0, runtime_version = 0, driver_version = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1);
  CHECK(cudaRuntimeGetVersion(&runtime_version));
  CHECK(cudaDriverGetVersion(&driver_version));
  EXPECT(runtime_version >= 13000 && driver_version >= 13000);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int warp = 0, major = 0, sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  EXPECT(warp == 32 && prop.warpSize == 32);
  EXPECT(major == prop.major && major >= 7);
  EXPECT(sms == prop.multiProcessorCount && sms > 0);
  EXPECT(clock_khz > 100000);
  EXPECT(prop.maxThreadsPerBlock == 1024 && prop.sharedMemPerBlock == 48 * 1024);
  EXPECT(prop.totalGlobalMem > (size_t(1) << 30));
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT(free_bytes > 0 && free_bytes <= total_bytes);

  // Kernel attributes and occupancy.
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, fill));
  EXPECT(attr.sharedSizeBytes == 128 * sizeof(int));
  EXPECT(attr.maxThreadsPerBlock >= 256);
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, 0));
  EXPECT(blocks >= 1 && blocks * 256 <= prop.maxThreadsPerMultiProcessor);

  // Pointer attributes.
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, d + 5));
  EXPECT(pa.type == cudaMemoryTypeDevice);

  // cudaLaunchKernel with an argument array, on a stream, then a host callback.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int value = 1000;
  void* args[] = {&d, &value};
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(fill), dim3(2), dim3(128), args, 0, stream));
  int flag = 0;
  CHECK(cudaLaunchHostFunc(stream, host_callback, &flag));
  CHECK(cudaStreamSynchronize(stream));
  EXPECT(flag == 42);
  int out[256];
  CHECK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < 256; ++i) wrong += out[i] != 1000 + 127 - i % 128;
  EXPECT(wrong == 0);

  // Events: elapsed time needs both recorded.
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float ms = 0;
  CHECK(cudaEventRecord(a, stream));
  EXPECT(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle);
  EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  CHECK(cudaEventRecord(b, stream));
  CHECK(cudaEventSynchronize(b));
  CHECK(cudaEventElapsedTime(&ms, a, b));
  EXPECT(ms >= 0.0f);

  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d));

  // cudaMemset2D sets `width` bytes of each row of a pitched allocation and
  // leaves the padding; a width beyond the pitch is an error.
  unsigned char* rows;
  size_t pitch = 0;
  const size_t width = 100, height = 5;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&rows), &pitch, width, height));
  EXPECT(pitch >= width);
  CHECK(cudaMemset(rows, 0x11, pitch * height));
  CHECK(cudaMemset2D(rows, pitch, 0x7f, width - 10, height));
  EXPECT(cudaMemset2D(rows, pitch, 0, pitch + 1, 1) == cudaErrorInvalidPitchValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidPitchValue);
  std::vector<unsigned char> back(pitch * height);
  CHECK(cudaMemcpy(back.data(), rows, back.size(), cudaMemcpyDeviceToHost));
  for (size_t r = 0; r < height; ++r)
    for (size_t c = 0; c < pitch; ++c) EXPECT(back[r * pitch + c] == (c < width - 10 ? 0x7f : 0x11));
  CHECK(cudaFree(rows));

  // cudaMalloc3D / cudaMemcpy3D / cudaMemset3D on pitched linear memory: a
  // 5 x 4 x 3 box of a host volume copied to the device at an offset and back.
  const size_t nx = 7, ny = 6, nz = 4;
  std::vector<float> vol(nx * ny * nz), got3d(nx * ny * nz, -1.0f);
  for (size_t i = 0; i < vol.size(); ++i) vol[i] = static_cast<float>(i);
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, make_cudaExtent(nx * sizeof(float), ny, nz)));
  EXPECT(dev.pitch >= nx * sizeof(float) && dev.ysize == ny);
  CHECK(cudaMemset3D(dev, 0, make_cudaExtent(nx * sizeof(float), ny, nz)));
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(vol.data(), nx * sizeof(float), nx, ny);
  up.srcPos = make_cudaPos(1 * sizeof(float), 1, 1);
  up.dstPtr = dev;
  up.dstPos = make_cudaPos(2 * sizeof(float), 0, 0);
  up.extent = make_cudaExtent(5 * sizeof(float), 4, 3);
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  cudaMemcpy3DParms down = {};
  down.srcPtr = dev;
  down.dstPtr = make_cudaPitchedPtr(got3d.data(), nx * sizeof(float), nx, ny);
  down.extent = make_cudaExtent(nx * sizeof(float), ny, nz);
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  for (size_t z = 0; z < nz; ++z)
    for (size_t y = 0; y < ny; ++y)
      for (size_t x = 0; x < nx; ++x) {
        bool inside = x >= 2 && x < 7 && y < 4 && z < 3;
        float want = inside ? vol[((z + 1) * ny + (y + 1)) * nx + (x - 1)] : 0.0f;
        EXPECT(got3d[(z * ny + y) * nx + x] == want);
      }
  CHECK(cudaFree(dev.ptr));
  return verdict("runtime_api", bad);
}
