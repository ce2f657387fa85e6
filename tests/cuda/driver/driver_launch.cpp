// A program written against the CUDA driver API, as code that loads its own
// PTX does: it loads kernels.cu's PTX (as an image in memory, as a PTX file,
// and as a fat binary file), launches with both cuLaunchKernel argument forms,
// copies, sets memory, times with events on a stream, and checks every result
// on the CPU. Then the refusals: a module with a PTX syntax error, a function
// that does not exist, and modules holding only SASS.
//   usage: driver_launch KERNELS.ptx KERNELS.fatbin BAD.ptx KERNELS.cubin SASS_ONLY.fatbin
// Prints PASS, or FAIL with the failed check, and exits 0 / 1.
#include <cuda.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what, int line) {
  if (ok) return;
  std::printf("check failed (line %d): %s\n", line, what);
  ++failures;
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

// A driver call that must succeed.
#define DRV(call)                                                                   \
  do {                                                                              \
    CUresult r_ = (call);                                                           \
    if (r_ != CUDA_SUCCESS) {                                                       \
      const char* name_ = "?";                                                      \
      cuGetErrorName(r_, &name_);                                                   \
      std::printf("%s:%d: %s returned %d (%s)\nFAIL\n", __FILE__, __LINE__, #call,  \
                  static_cast<int>(r_), name_);                                     \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr int kN = 1000;

// saxpy with a = 2 and bias 0.5 from y = i over x = 3i: y = 6i + i + 0.5.
bool saxpy_right(const std::vector<float>& y, int rounds) {
  for (int i = 0; i < kN; ++i) {
    float want = static_cast<float>(i);
    for (int r = 0; r < rounds; ++r) want = 2.0f * (3.0f * i) + want + 0.5f;
    if (y[i] != want) {
      std::printf("y[%d] = %g, want %g\n", i, y[i], want);
      return false;
    }
  }
  return true;
}

void device_queries() {
  int version = 0, count = 0, sms = 0;
  CUdevice dev = -1;
  char name[128] = {};
  size_t total = 0;
  DRV(cuDriverGetVersion(&version));
  DRV(cuDeviceGetCount(&count));
  DRV(cuDeviceGet(&dev, 0));
  DRV(cuDeviceGetName(name, sizeof name, dev));
  DRV(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  DRV(cuDeviceTotalMem(&total, dev));
  EXPECT(version >= 12000);
  EXPECT(count == 1);
  EXPECT(dev == 0);
  EXPECT(std::strlen(name) > 0);
  EXPECT(sms > 0);
  EXPECT(total > (1u << 30));
  CUdevice other;
  EXPECT(cuDeviceGet(&other, 1) == CUDA_ERROR_INVALID_DEVICE);
  std::printf("device: %s, %d SMs, %zu MiB\n", name, sms, total >> 20);
}

// The primary context current, and a created context pushed over it.
void contexts(CUcontext* primary) {
  CUcontext current = nullptr, created = nullptr, popped = nullptr;
  DRV(cuDevicePrimaryCtxRetain(primary, 0));
  DRV(cuCtxSetCurrent(*primary));
  DRV(cuCtxGetCurrent(&current));
  EXPECT(current == *primary);
  DRV(cuCtxCreate(&created, nullptr, 0, 0));
  DRV(cuCtxGetCurrent(&current));
  EXPECT(current == created && created != *primary);
  DRV(cuCtxPopCurrent(&popped));
  EXPECT(popped == created);
  DRV(cuCtxDestroy(created));
  DRV(cuCtxGetCurrent(&current));
  EXPECT(current == *primary);
}

// saxpy through kernelParams and through the `extra` buffer: two rounds.
void saxpy_both_forms(CUmodule module) {
  CUfunction saxpy;
  DRV(cuModuleGetFunction(&saxpy, module, "saxpy"));
  CUdeviceptr bias_ptr = 0;
  size_t bias_bytes = 0;
  DRV(cuModuleGetGlobal(&bias_ptr, &bias_bytes, module, "bias"));
  EXPECT(bias_bytes == sizeof(float));
  float bias = 0.5f;
  DRV(cuMemcpyHtoD(bias_ptr, &bias, sizeof bias));

  std::vector<float> x(kN), y(kN);
  for (int i = 0; i < kN; ++i) x[i] = 3.0f * i, y[i] = static_cast<float>(i);
  CUdeviceptr dx, dy;
  DRV(cuMemAlloc(&dx, kN * sizeof(float)));
  DRV(cuMemAlloc(&dy, kN * sizeof(float)));
  DRV(cuMemcpyHtoD(dx, x.data(), kN * sizeof(float)));
  DRV(cuMemcpyHtoD(dy, y.data(), kN * sizeof(float)));
  float a = 2.0f;
  int n = kN;
  void* params[] = {&a, &dx, &dy, &n};
  DRV(cuLaunchKernel(saxpy, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  DRV(cuCtxSynchronize());
  DRV(cuMemcpyDtoH(y.data(), dy, kN * sizeof(float)));
  EXPECT(saxpy_right(y, 1));

  // The same arguments laid out by hand: float at 0, pointers at 8 and 16, int at 24.
  unsigned char buffer[28] = {};
  std::memcpy(buffer + 0, &a, 4);
  std::memcpy(buffer + 8, &dx, 8);
  std::memcpy(buffer + 16, &dy, 8);
  std::memcpy(buffer + 24, &n, 4);
  size_t size = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  DRV(cuLaunchKernel(saxpy, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  DRV(cuMemcpyDtoH(y.data(), dy, kN * sizeof(float)));
  EXPECT(saxpy_right(y, 2));
  // Both forms at once, and a buffer too small for the parameters: refused.
  EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, nullptr, params, extra) == CUDA_ERROR_INVALID_VALUE);
  size = 20;
  EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra) == CUDA_ERROR_INVALID_VALUE);
  DRV(cuMemFree(dx));
  DRV(cuMemFree(dy));
}

// Parameters of five sizes through `extra`: each at its aligned offset.
void mixed_params(CUmodule module) {
  CUfunction mixed;
  DRV(cuModuleGetFunction(&mixed, module, "mixed"));
  CUdeviceptr out;
  DRV(cuMemAlloc(&out, 64 * sizeof(long long)));
  unsigned char buffer[36] = {};
  char c = 7;
  double d = 5.0;
  short s = 3;
  int k = 2;
  std::memcpy(buffer + 0, &c, 1);
  std::memcpy(buffer + 8, &d, 8);
  std::memcpy(buffer + 16, &s, 2);
  std::memcpy(buffer + 24, &out, 8);
  std::memcpy(buffer + 32, &k, 4);
  size_t size = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_END};
  DRV(cuLaunchKernel(mixed, 2, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra));
  std::vector<long long> got(64);
  DRV(cuMemcpyDtoH(got.data(), out, got.size() * sizeof(long long)));
  for (int i = 0; i < 64; ++i) EXPECT(got[i] == 7 + 5000 + 300 + 2 * i);
  DRV(cuMemFree(out));
}

// reverse_block on a stream between two events; its attributes.
void stream_and_events(CUmodule module) {
  CUfunction reverse;
  DRV(cuModuleGetFunction(&reverse, module, "reverse_block"));
  int shared = -1, max_threads = -1;
  DRV(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, reverse));
  DRV(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, reverse));
  EXPECT(shared == 256 * 4);
  EXPECT(max_threads >= 256);
  const int blocks = 8, total = blocks * 256;
  std::vector<float> in(total), out(total, -1.0f);
  for (int i = 0; i < total; ++i) in[i] = static_cast<float>(i);
  CUdeviceptr din, dout;
  DRV(cuMemAlloc(&din, total * sizeof(float)));
  DRV(cuMemAlloc(&dout, total * sizeof(float)));
  CUstream stream;
  CUevent start, stop;
  DRV(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  DRV(cuEventCreate(&start, CU_EVENT_DEFAULT));
  DRV(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  DRV(cuMemcpyHtoDAsync(din, in.data(), total * sizeof(float), stream));
  DRV(cuEventRecord(start, stream));
  void* params[] = {&din, &dout};
  DRV(cuLaunchKernel(reverse, blocks, 1, 1, 256, 1, 1, 0, stream, params, nullptr));
  DRV(cuEventRecord(stop, stream));
  DRV(cuMemcpyDtoHAsync(out.data(), dout, total * sizeof(float), stream));
  DRV(cuStreamSynchronize(stream));
  DRV(cuEventSynchronize(stop));
  float ms = -1;
  DRV(cuEventElapsedTime(&ms, start, stop));
  EXPECT(ms > 0);
  for (int i = 0; i < total; ++i) EXPECT(out[i] == in[(i / 256) * 256 + 255 - i % 256]);
  std::printf("reverse_block: %.6f ms between the events\n", ms);
  DRV(cuEventDestroy(start));
  DRV(cuEventDestroy(stop));
  DRV(cuStreamDestroy(stream));
  DRV(cuMemFree(din));
  DRV(cuMemFree(dout));
}

void memsets() {
  CUdeviceptr p;
  DRV(cuMemAlloc(&p, 64));
  unsigned char got[64];
  DRV(cuMemsetD32(p, 0x11223344u, 16));
  DRV(cuMemsetD16(p + 8, 0xabcd, 4));
  DRV(cuMemsetD8(p + 60, 0x5a, 4));
  DRV(cuMemcpyDtoH(got, p, 64));
  uint32_t w0, w4;
  uint16_t h0;
  std::memcpy(&w0, got, 4);
  std::memcpy(&h0, got + 8, 2);
  std::memcpy(&w4, got + 16, 4);
  EXPECT(w0 == 0x11223344u);
  EXPECT(h0 == 0xabcd && got[15] == 0xab && got[16] == 0x44);
  EXPECT(w4 == 0x11223344u);
  EXPECT(got[59] == 0x11 && got[60] == 0x5a && got[63] == 0x5a);
  DRV(cuMemFree(p));
}

// cuGetProcAddress finds the versioned symbols this program links against.
void proc_addresses() {
  void* f = nullptr;
  CUdriverProcAddressQueryResult status;
  DRV(cuGetProcAddress("cuMemAlloc", &f, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(status == CU_GET_PROC_ADDRESS_SUCCESS && f == dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
  DRV(cuGetProcAddress("cuCtxCreate", &f, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(f != nullptr && f == dlsym(RTLD_DEFAULT, "cuCtxCreate_v3"));
  DRV(cuGetProcAddress("cuLaunchKernel", &f, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT(f != nullptr && f == dlsym(RTLD_DEFAULT, "cuLaunchKernel_ptsz"));
  DRV(cuGetProcAddress("cuNoSuchEntryPoint", &f, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(f == nullptr && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  const char* name = nullptr;
  DRV(cuGetErrorName(CUDA_ERROR_NOT_FOUND, &name));
  EXPECT(name && std::strcmp(name, "CUDA_ERROR_NOT_FOUND") == 0);
}

// Page-locked memory, an event ordering two streams, unified copies and
// managed memory.
void pinned_and_unified() {
  const size_t n = 1024, bytes = n * sizeof(float);
  float *h_in = nullptr, *h_out = nullptr;
  DRV(cuMemAllocHost(reinterpret_cast<void**>(&h_in), bytes));
  DRV(cuMemHostAlloc(reinterpret_cast<void**>(&h_out), bytes, 0));
  for (size_t i = 0; i < n; ++i) h_in[i] = 1.5f * i, h_out[i] = -1;
  CUdeviceptr d;
  DRV(cuMemAlloc(&d, bytes));
  CUstream up, down;
  CUevent uploaded;
  DRV(cuStreamCreate(&up, CU_STREAM_NON_BLOCKING));
  DRV(cuStreamCreate(&down, CU_STREAM_NON_BLOCKING));
  DRV(cuEventCreate(&uploaded, CU_EVENT_DISABLE_TIMING));
  DRV(cuMemcpyHtoDAsync(d, h_in, bytes, up));
  DRV(cuEventRecord(uploaded, up));
  DRV(cuStreamWaitEvent(down, uploaded, 0));
  DRV(cuMemcpyDtoHAsync(h_out, d, bytes, down));
  DRV(cuStreamSynchronize(down));
  for (size_t i = 0; i < n; ++i) EXPECT(h_out[i] == 1.5f * i);
  // cuMemcpy tells host from device by address (unified addressing).
  std::vector<float> back(n, 0);
  DRV(cuMemsetD32(d, 0x3f800000u, n));  // 1.0f
  DRV(cuMemcpy(reinterpret_cast<CUdeviceptr>(back.data()), d, bytes));
  for (size_t i = 0; i < n; ++i) EXPECT(back[i] == 1.0f);
  CUdeviceptr managed;
  DRV(cuMemAllocManaged(&managed, bytes, CU_MEM_ATTACH_GLOBAL));
  DRV(cuMemcpy(managed, d, bytes));
  DRV(cuCtxSynchronize());
  EXPECT(reinterpret_cast<float*>(managed)[n - 1] == 1.0f);
  unsigned flags = 99;
  DRV(cuCtxGetFlags(&flags));
  EXPECT(flags == 0);
  DRV(cuEventDestroy(uploaded));
  DRV(cuStreamDestroy(up));
  DRV(cuStreamDestroy(down));
  DRV(cuMemFree(managed));
  DRV(cuMemFree(d));
  DRV(cuMemFreeHost(h_in));
  DRV(cuMemFreeHost(h_out));
}

// CUDA 12's libraries: the PTX loaded as a library, a kernel launched as a
// function, a variable found in it.
void library_path(const std::string& ptx) {
  CUlibrary library;
  DRV(cuLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  DRV(cuLibraryGetKernel(&kernel, library, "reverse_block"));
  CUfunction reverse;
  DRV(cuKernelGetFunction(&reverse, kernel));
  CUdeviceptr bias_ptr = 0;
  size_t bias_bytes = 0;
  DRV(cuLibraryGetGlobal(&bias_ptr, &bias_bytes, library, "bias"));
  EXPECT(bias_bytes == sizeof(float));
  std::vector<float> in(256), out(256);
  for (int i = 0; i < 256; ++i) in[i] = 0.25f * i;
  CUdeviceptr din, dout;
  DRV(cuMemAlloc(&din, sizeof(float) * 256));
  DRV(cuMemAlloc(&dout, sizeof(float) * 256));
  DRV(cuMemcpyHtoD(din, in.data(), sizeof(float) * 256));
  void* params[] = {&din, &dout};
  DRV(cuLaunchKernel(reverse, 1, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  DRV(cuMemcpyDtoH(out.data(), dout, sizeof(float) * 256));
  for (int i = 0; i < 256; ++i) EXPECT(out[i] == in[255 - i]);
  // Its `bias` is its own (zero), not the 0.5 set in the first module:
  // saxpy here computes 1 * 1 + 0 + 0.
  CUkernel saxpy_kernel;
  DRV(cuLibraryGetKernel(&saxpy_kernel, library, "saxpy"));
  float a = 1.0f, one = 1.0f, zero = 0.0f;
  int n = 1;
  DRV(cuMemcpyHtoD(din, &one, sizeof one));
  DRV(cuMemcpyHtoD(dout, &zero, sizeof zero));
  void* saxpy_params[] = {&a, &din, &dout, &n};
  DRV(cuLaunchKernel(reinterpret_cast<CUfunction>(saxpy_kernel), 1, 1, 1, 32, 1, 1, 0, nullptr, saxpy_params,
                     nullptr));
  float y = -1;
  DRV(cuMemcpyDtoH(&y, dout, sizeof y));
  EXPECT(y == 1.0f);
  DRV(cuMemFree(din));
  DRV(cuMemFree(dout));
  DRV(cuLibraryUnload(library));
}

// The refusals: each returns its code (the messages go to stderr).
void refusals(const char* bad_ptx, const char* cubin, const char* sass_fatbin, CUmodule good) {
  std::string text = read_file(bad_ptx);
  CUmodule m;
  EXPECT(cuModuleLoadData(&m, text.c_str()) == CUDA_ERROR_INVALID_PTX);
  CUfunction f;
  EXPECT(cuModuleGetFunction(&f, good, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
  EXPECT(cuModuleGetGlobal(nullptr, nullptr, good, "no_such_variable") == CUDA_ERROR_NOT_FOUND);
  EXPECT(cuModuleLoad(&m, cubin) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT(cuModuleLoad(&m, sass_fatbin) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT(cuModuleLoad(&m, "/nonexistent/kernels.ptx") == CUDA_ERROR_FILE_NOT_FOUND);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s KERNELS.ptx KERNELS.fatbin BAD.ptx KERNELS.cubin SASS_ONLY.fatbin\n", argv[0]);
    return 2;
  }
  DRV(cuInit(0));
  device_queries();
  CUcontext primary;
  contexts(&primary);

  std::string ptx = read_file(argv[1]);
  CUmodule from_image, from_ptx_file, from_fatbin;
  DRV(cuModuleLoadData(&from_image, ptx.c_str()));
  saxpy_both_forms(from_image);
  DRV(cuModuleLoad(&from_ptx_file, argv[1]));
  mixed_params(from_ptx_file);
  DRV(cuModuleLoad(&from_fatbin, argv[2]));
  stream_and_events(from_fatbin);
  memsets();
  pinned_and_unified();
  library_path(ptx);
  proc_addresses();
  refusals(argv[3], argv[4], argv[5], from_image);

  DRV(cuModuleUnload(from_ptx_file));
  CUfunction gone;
  EXPECT(cuModuleGetFunction(&gone, from_ptx_file, "mixed") == CUDA_ERROR_INVALID_HANDLE);
  DRV(cuDevicePrimaryCtxRelease(0));
  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
