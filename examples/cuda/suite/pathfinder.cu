// Suite benchmark: PathFinder-style dynamic programming over a grid of
// 100 rows x 65536 columns of int weights. The cost of a cell is its weight
// plus the smallest cost among the three cells above it (left, straight,
// right); the answer is the last row of costs. Each launch of
// `pathfinder_rows` advances 20 rows in shared memory: a CTA of 256 threads
// loads 256 columns, of which a 20-column halo on either side goes stale one
// column per row ("pyramid"), and writes back the 216 in the middle. The 99
// rows after the first take 5 launches, ping-ponging two cost rows with no
// host synchronisation. Exercises 1-D shared-memory tiles, integer min
// chains, __syncthreads in a loop and a shrinking set of active threads.
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kRows = 100, kCols = 65536;
constexpr int kThreads = 256;                 // CTA size, columns per tile
constexpr int kPyramid = 20;                  // rows per launch, and halo width
constexpr int kOut = kThreads - 2 * kPyramid; // columns each CTA writes

__global__ void pathfinder_rows(const int* wall, const int* src, int* dst, int cols, int first_row, int rows,
                                int halo) {
  __shared__ int prev[kThreads];
  __shared__ int cur[kThreads];
  int tx = threadIdx.x;
  int col = blockIdx.x * (kThreads - 2 * halo) - halo + tx;
  bool inside = col >= 0 && col < cols;
  if (inside) prev[tx] = src[col];
  __syncthreads();
  // At the grid's edge a cell stands in for its missing neighbour.
  int left = col == 0 ? tx : tx - 1, right = col == cols - 1 ? tx : tx + 1;
  for (int i = 0; i < rows; ++i) {
    // After row i only columns at least i + 1 from the tile edge are still valid.
    bool computed = inside && tx > i && tx < kThreads - 1 - i;
    if (computed) {
      int best = min(prev[left], min(prev[tx], prev[right]));
      cur[tx] = best + wall[(first_row + i) * cols + col];
    }
    __syncthreads();
    if (computed) prev[tx] = cur[tx];
    __syncthreads();
  }
  if (inside && tx >= halo && tx < kThreads - halo) dst[col] = prev[tx];
}

std::vector<int> make_wall() {
  std::vector<int> wall(size_t(kRows) * kCols);
  XorShift32 rng{0x2545F491u};
  for (int& w : wall) w = int(rng.next() % 10);
  return wall;
}

std::vector<int> host_path(const std::vector<int>& wall) {
  std::vector<int> prev(wall.begin(), wall.begin() + kCols), cur(kCols);
  for (int r = 1; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      int best = prev[c];
      if (c > 0 && prev[c - 1] < best) best = prev[c - 1];
      if (c < kCols - 1 && prev[c + 1] < best) best = prev[c + 1];
      cur[c] = best + wall[size_t(r) * kCols + c];
    }
    prev.swap(cur);
  }
  return prev;
}

int main() {
  std::vector<int> wall = make_wall();
  int* d_wall = to_device(wall);
  int* d_a = to_device(wall.data(), kCols);  // row 0 costs its weights
  int* d_b = device_alloc<int>(kCols);

  EventTimer timer;
  int grid = (kCols + kOut - 1) / kOut, launches = 0;
  timer.start();
  for (int r = 1; r < kRows; r += kPyramid) {
    int rows = kRows - r < kPyramid ? kRows - r : kPyramid;
    pathfinder_rows<<<grid, kThreads>>>(d_wall, d_a, d_b, kCols, r, rows, kPyramid);
    CHECK(cudaGetLastError());
    ++launches;
    std::swap(d_a, d_b);
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<int> result(kCols);
  copy_to_host(result, d_a);

  std::vector<int> want = host_path(wall);
  long bad = 0;
  for (int c = 0; c < kCols; ++c) bad += result[c] != want[c];

  print_timing(ms, launches);
  device_free(d_wall, d_a, d_b);
  return verdict("pathfinder", bad);
}
