// A program that calls a driver API entry point warpsim does not implement
// (CUDA arrays through the driver: cuArrayCreate). cuInit works; the array
// call must be refused with a message naming the caller and the entry point,
// and return CUDA_ERROR_NOT_SUPPORTED. Exits 1 when refused, as the test expects.
#include <cuda.h>

#include <cstdio>

int main() {
  CUresult init = cuInit(0);
  std::printf("cuInit returned %d\n", static_cast<int>(init));
  if (init != CUDA_SUCCESS) return 2;
  CUDA_ARRAY_DESCRIPTOR desc{};
  desc.Width = 16;
  desc.Height = 1;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  CUarray array;
  CUresult r = cuArrayCreate(&array, &desc);
  std::printf("cuArrayCreate returned %d (%s)\n", static_cast<int>(r),
              r == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED" : "?");
  return r == CUDA_ERROR_NOT_SUPPORTED ? 1 : 0;
}
