// Suite benchmark: blocked LU decomposition without pivoting of a diagonally
// dominant 256 x 256 float matrix, in place (unit lower L below the diagonal,
// U on and above it), block size 16. Each of the 16 steps factors the
// diagonal block in one CTA (`lud_diagonal`), solves the row and column
// blocks beside it (`lud_perimeter`, one CTA per pair of blocks) and updates
// the trailing matrix from shared-memory tiles (`lud_internal`); the last
// step is the diagonal block alone: 46 launches queued back to back.
// Exercises: shrinking grids, a single-CTA serial kernel, shared-memory
// triangular solves and a tiled matrix-multiply update.
#include <vector>

#include "suite.h"

constexpr int kN = 256;
constexpr int kB = 16;
constexpr int kSteps = kN / kB;

// Factors the block at (step, step): one CTA of 16 x 16 threads.
__global__ void lud_diagonal(float* a, int n, int step) {
  __shared__ float s[kB][kB];
  int tx = threadIdx.x, ty = threadIdx.y, o = step * kB;
  s[ty][tx] = a[(o + ty) * n + o + tx];
  __syncthreads();
  for (int p = 0; p < kB - 1; ++p) {
    if (tx == p && ty > p) s[ty][p] /= s[p][p];
    __syncthreads();
    if (tx > p && ty > p) s[ty][tx] -= s[ty][p] * s[p][tx];
    __syncthreads();
  }
  a[(o + ty) * n + o + tx] = s[ty][tx];
}

// CTA b (32 threads) takes the row block (step, step+1+b) and the column block
// (step+1+b, step): threads 0-15 solve L_kk * U = A column by column, threads
// 16-31 solve L * U_kk = A row by row.
__global__ void lud_perimeter(float* a, int n, int step) {
  __shared__ float diag[kB][kB], row[kB][kB], col[kB][kB];
  int t = threadIdx.x, o = step * kB, q = (step + 1 + blockIdx.x) * kB;
  for (int i = 0; i < kB; i += 2) {
    int y = i + t / kB, x = t % kB;
    diag[y][x] = a[(o + y) * n + o + x];
    row[y][x] = a[(o + y) * n + q + x];
    col[y][x] = a[(q + y) * n + o + x];
  }
  __syncthreads();
  if (t < kB) {
    for (int i = 1; i < kB; ++i) {
      float v = row[i][t];
      for (int p = 0; p < i; ++p) v -= diag[i][p] * row[p][t];
      row[i][t] = v;
    }
  } else {
    int c = t - kB;
    for (int j = 0; j < kB; ++j) {
      float v = col[c][j];
      for (int p = 0; p < j; ++p) v -= col[c][p] * diag[p][j];
      col[c][j] = v / diag[j][j];
    }
  }
  __syncthreads();
  for (int i = 0; i < kB; i += 2) {
    int y = i + t / kB, x = t % kB;
    a[(o + y) * n + q + x] = row[y][x];
    a[(q + y) * n + o + x] = col[y][x];
  }
}

// CTA (bx, by) updates the trailing block (step+1+by, step+1+bx) with L * U.
__global__ void lud_internal(float* a, int n, int step) {
  __shared__ float l[kB][kB], u[kB][kB];
  int tx = threadIdx.x, ty = threadIdx.y, o = step * kB;
  int r = (step + 1 + blockIdx.y) * kB, c = (step + 1 + blockIdx.x) * kB;
  l[ty][tx] = a[(r + ty) * n + o + tx];
  u[ty][tx] = a[(o + ty) * n + c + tx];
  __syncthreads();
  float sum = 0;
  for (int p = 0; p < kB; ++p) sum += l[ty][p] * u[p][tx];
  a[(r + ty) * n + c + tx] -= sum;
}

std::vector<float> make_matrix() {
  XorShift32 rng{0x2545f491u};
  std::vector<float> m(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      float v = rng.uniform();  // [0, 1)
      m[i * kN + j] = i == j ? v + float(kN) : v;
    }
  return m;
}

// Plain Doolittle elimination in double, same in-place layout.
std::vector<double> host_lu(const std::vector<float>& m) {
  std::vector<double> a(m.begin(), m.end());
  for (int p = 0; p < kN; ++p)
    for (int i = p + 1; i < kN; ++i) {
      double f = a[i * kN + p] /= a[p * kN + p];
      for (int j = p + 1; j < kN; ++j) a[i * kN + j] -= f * a[p * kN + j];
    }
  return a;
}

int main() {
  std::vector<float> m = make_matrix();
  std::vector<double> want = host_lu(m);
  float* d_a = to_device(m);

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int step = 0; step < kSteps; ++step) {
    lud_diagonal<<<1, dim3(kB, kB)>>>(d_a, kN, step);
    ++launches;
    int rest = kSteps - 1 - step;
    if (rest == 0) break;
    lud_perimeter<<<rest, 2 * kB>>>(d_a, kN, step);
    lud_internal<<<dim3(rest, rest), dim3(kB, kB)>>>(d_a, kN, step);
    launches += 2;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();

  copy_to_host(m, d_a);
  long bad = 0;
  for (int i = 0; i < kN * kN; ++i) bad += !close_enough(m[i], want[i], 1e-3, 1e-5);
  device_free(d_a);
  print_timing(ms, launches, 1);
  return verdict("lud", bad);
}
