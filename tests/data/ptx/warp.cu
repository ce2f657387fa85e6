// Warp shuffles and votes, inline asm with scoped registers, special registers.
__device__ __forceinline__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned add_via_asm(unsigned a, unsigned b) {
  unsigned r;
  asm("{\n\t.reg .u32 t1;\n\tadd.u32 t1, %1, %2;\n\tmov.u32 %0, t1;\n\t}" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

__global__ void warp_ops(const int* in, int* out, long long* clocks) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  long long start = clock64();
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  int x = __shfl_xor_sync(0xffffffffu, v, 1);
  int y = __shfl_up_sync(0xffffffffu, x, 2);
  int z = __shfl_sync(0xffffffffu, y, 0);
  unsigned ballot = __ballot_sync(0xffffffffu, z > 0);
  int all = __all_sync(0xffffffffu, z != 3);
  int any = __any_sync(0xffffffffu, z == 5);
  unsigned lane = lane_id();
  unsigned s = add_via_asm(lane, ballot);
  if (lane == 0) {
    out[blockIdx.x] = v + s + all + any + __popc(ballot);
    clocks[blockIdx.x] = clock64() - start;
  }
}
