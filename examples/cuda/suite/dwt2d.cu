// Suite benchmark: five levels of the 2-D forward wavelet transform of a
// 512 x 512 integer image, with the reversible CDF 5/3 lifting scheme
// (predict odd samples from their even neighbours, update even samples from
// the new details, mirrored at the edges). Each level runs `dwt_rows` (one
// row per CTA in shared memory) and then `dwt_cols` (a 16-column strip of the
// full height per CTA in shared memory) on the low-low quarter left by the
// level before: 10 launches whose grids shrink by 2 or 4 each level.
// Exercises: shared-memory tiles with strided access, ping-pong buffers,
// integer shifts, and kernels that get too small to fill the GPU.
#include <vector>

#include "suite.h"

constexpr int kSize = 512;  // image side and row pitch
constexpr int kLevels = 5;
constexpr int kStrip = 16;  // columns per CTA in dwt_cols

__device__ __host__ inline int predict(int left, int odd, int right) { return odd - ((left + right) >> 1); }
__device__ __host__ inline int update(int even, int d_left, int d_right) {
  return even + ((d_left + d_right + 2) >> 2);
}

// One row of width w per CTA: low half to out[0, w/2), high half to out[w/2, w).
__global__ void dwt_rows(const int* in, int* out, int w) {
  __shared__ int row[kSize];
  const int* src = in + blockIdx.x * kSize;
  int* dst = out + blockIdx.x * kSize;
  int half = w / 2;
  for (int x = threadIdx.x; x < w; x += blockDim.x) row[x] = src[x];
  __syncthreads();
  for (int p = threadIdx.x; p < half; p += blockDim.x) {
    int right = 2 * p + 2 < w ? 2 * p + 2 : 2 * p;
    row[2 * p + 1] = predict(row[2 * p], row[2 * p + 1], row[right]);
  }
  __syncthreads();
  for (int p = threadIdx.x; p < half; p += blockDim.x) {
    int left = p > 0 ? 2 * p - 1 : 1;
    row[2 * p] = update(row[2 * p], row[left], row[2 * p + 1]);
    dst[p] = row[2 * p];
    dst[half + p] = row[2 * p + 1];
  }
}

// A strip of 16 columns of height h per CTA (16 x 16 threads): low rows to
// out rows [0, h/2), high rows to [h/2, h).
__global__ void dwt_cols(const int* in, int* out, int h) {
  __shared__ int strip[kSize][kStrip];
  int tx = threadIdx.x, x = blockIdx.x * kStrip + tx, half = h / 2;
  for (int y = threadIdx.y; y < h; y += blockDim.y) strip[y][tx] = in[y * kSize + x];
  __syncthreads();
  for (int p = threadIdx.y; p < half; p += blockDim.y) {
    int right = 2 * p + 2 < h ? 2 * p + 2 : 2 * p;
    strip[2 * p + 1][tx] = predict(strip[2 * p][tx], strip[2 * p + 1][tx], strip[right][tx]);
  }
  __syncthreads();
  for (int p = threadIdx.y; p < half; p += blockDim.y) {
    int left = p > 0 ? 2 * p - 1 : 1;
    strip[2 * p][tx] = update(strip[2 * p][tx], strip[left][tx], strip[2 * p + 1][tx]);
    out[p * kSize + x] = strip[2 * p][tx];
    out[(half + p) * kSize + x] = strip[2 * p + 1][tx];
  }
}

// The same lifting on the host, n samples `stride` apart, deinterleaved in place.
void host_lift(int* v, int n, int stride) {
  std::vector<int> s(n);
  for (int i = 0; i < n; ++i) s[i] = v[i * stride];
  for (int p = 0; p < n / 2; ++p) s[2 * p + 1] = predict(s[2 * p], s[2 * p + 1], s[2 * p + 2 < n ? 2 * p + 2 : 2 * p]);
  for (int p = 0; p < n / 2; ++p) s[2 * p] = update(s[2 * p], s[p > 0 ? 2 * p - 1 : 1], s[2 * p + 1]);
  for (int p = 0; p < n / 2; ++p) {
    v[p * stride] = s[2 * p];
    v[(n / 2 + p) * stride] = s[2 * p + 1];
  }
}

void host_dwt(std::vector<int>& img) {
  for (int level = 0, n = kSize; level < kLevels; ++level, n /= 2) {
    for (int y = 0; y < n; ++y) host_lift(&img[y * kSize], n, 1);
    for (int x = 0; x < n; ++x) host_lift(&img[x], n, kSize);
  }
}

std::vector<int> make_image() {
  XorShift32 rng{0xdeadbeefu};
  std::vector<int> img(kSize * kSize);
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      int smooth = ((x * 3 + y * 5) / 7 + (x * y) / 97) & 0xff;  // gradients plus some noise
      img[y * kSize + x] = (smooth + int(rng.next() % 32)) & 0xff;
    }
  return img;
}

int main() {
  std::vector<int> img = make_image();
  std::vector<int> want = img;
  host_dwt(want);

  int *d_img = to_device(img), *d_tmp = device_zeros<int>(img.size());

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int level = 0, n = kSize; level < kLevels; ++level, n /= 2) {
    int row_threads = n / 2 < 128 ? n / 2 : 128;
    dwt_rows<<<n, row_threads>>>(d_img, d_tmp, n);
    dwt_cols<<<n / kStrip, dim3(kStrip, 16)>>>(d_tmp, d_img, n);
    launches += 2;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();

  copy_to_host(img, d_img);
  long bad = 0;
  for (int i = 0; i < kSize * kSize; ++i) bad += img[i] != want[i];
  device_free(d_img, d_tmp);
  print_timing(ms, launches, 1);
  return verdict("dwt2d", bad);
}
