// Device assert(): nvcc calls __assertfail(message, file, line, function, 1)
// when the condition is false.
#include <cassert>

__global__ void check_below(int* out, int limit) {
  int i = threadIdx.x;
  assert(i < limit);
  out[i] = i;
}
