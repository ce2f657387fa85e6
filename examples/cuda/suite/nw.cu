// Suite benchmark: Needleman-Wunsch global alignment of two sequences of
// length 512 (score matrix of 513 x 513 ints, gap penalty 10). The matrix is
// cut into 16 x 16 tiles; each CTA of 16 threads copies one tile and its
// top/left borders into shared memory and sweeps the tile as a wavefront of
// anti-diagonals with __syncthreads between them. Tiles are processed by
// anti-diagonals of tiles: `nw_upper` for the growing diagonals, `nw_lower`
// for the shrinking ones, 63 small launches queued back to back.
// Exercises: many short dependent launches, tiny CTAs, barrier-heavy loops,
// shared-memory reuse.
#include <vector>

#include "suite.h"

constexpr int kLen = 512;           // sequence length
constexpr int kDim = kLen + 1;      // score matrix side, with the gap row/column
constexpr int kTile = 16;           // tile side and threads per CTA
constexpr int kTiles = kLen / kTile;
constexpr int kGap = 10;
constexpr int kAlphabet = 24;

__device__ __host__ inline int best_of(int diag, int up, int left) {
  int m = diag > up ? diag : up;
  return m > left ? m : left;
}

// Fills tile (tile_row, tile_col): cells rows/cols 1 + tile * 16 ... 16 + tile * 16.
__device__ void align_tile(int* score, const int* ref, int tile_row, int tile_col) {
  __shared__ int s[kTile + 1][kTile + 1];  // [0][*] and [*][0] hold the borders
  __shared__ int r[kTile][kTile];
  int t = threadIdx.x;
  int row0 = tile_row * kTile, col0 = tile_col * kTile;  // matrix index of the border row/column

  if (t == 0) s[0][0] = score[row0 * kDim + col0];
  s[0][t + 1] = score[row0 * kDim + col0 + 1 + t];
  s[t + 1][0] = score[(row0 + 1 + t) * kDim + col0];
  for (int i = 0; i < kTile; ++i) r[i][t] = ref[(row0 + 1 + i) * kDim + col0 + 1 + t];
  __syncthreads();

  // Thread t owns column t + 1; on wave w it fills row w - t + 1.
  for (int w = 0; w < 2 * kTile - 1; ++w) {
    int i = w - t;
    if (i >= 0 && i < kTile) {
      int y = i + 1, x = t + 1;
      s[y][x] = best_of(s[y - 1][x - 1] + r[i][t], s[y - 1][x] - kGap, s[y][x - 1] - kGap);
    }
    __syncthreads();
  }

  for (int i = 0; i < kTile; ++i) score[(row0 + 1 + i) * kDim + col0 + 1 + t] = s[i + 1][t + 1];
}

// Tile diagonal `diag` (0 .. kTiles-1): block b takes tile (b, diag - b).
__global__ void nw_upper(int* score, const int* ref, int diag) {
  int b = blockIdx.x;
  align_tile(score, ref, b, diag - b);
}

// Tile diagonal `diag` (kTiles .. 2*kTiles-2): block b takes tile (diag-kTiles+1+b, kTiles-1-b).
__global__ void nw_lower(int* score, const int* ref, int diag) {
  int b = blockIdx.x;
  int tile_row = diag - kTiles + 1 + b;
  align_tile(score, ref, tile_row, diag - tile_row);
}

// Random symmetric substitution table, values in [-4, 11] with a bonus on the diagonal.
std::vector<int> make_substitution(XorShift32& rng) {
  std::vector<int> table(kAlphabet * kAlphabet);
  for (int a = 0; a < kAlphabet; ++a)
    for (int b = 0; b <= a; ++b) {
      int v = a == b ? 4 + int(rng.next() % 8) : -4 + int(rng.next() % 7);
      table[a * kAlphabet + b] = table[b * kAlphabet + a] = v;
    }
  return table;
}

// The score matrix with its gap row and column set, plus the per-cell similarity.
void make_inputs(std::vector<int>& score, std::vector<int>& ref) {
  XorShift32 rng{0x9e3779b9u};
  std::vector<int> table = make_substitution(rng);
  std::vector<int> seq_a(kDim), seq_b(kDim);
  for (int i = 1; i < kDim; ++i) seq_a[i] = int(rng.next() % kAlphabet);
  for (int j = 1; j < kDim; ++j) seq_b[j] = int(rng.next() % kAlphabet);
  score.assign(kDim * kDim, 0);
  ref.assign(kDim * kDim, 0);
  for (int i = 1; i < kDim; ++i)
    for (int j = 1; j < kDim; ++j) ref[i * kDim + j] = table[seq_a[i] * kAlphabet + seq_b[j]];
  for (int i = 0; i < kDim; ++i) {
    score[i * kDim] = -kGap * i;
    score[i] = -kGap * i;
  }
}

void host_align(std::vector<int>& score, const std::vector<int>& ref) {
  for (int i = 1; i < kDim; ++i)
    for (int j = 1; j < kDim; ++j)
      score[i * kDim + j] = best_of(score[(i - 1) * kDim + j - 1] + ref[i * kDim + j],
                                    score[(i - 1) * kDim + j] - kGap, score[i * kDim + j - 1] - kGap);
}

int main() {
  std::vector<int> score, ref;
  make_inputs(score, ref);
  std::vector<int> want = score;
  host_align(want, ref);

  int *d_score = to_device(score), *d_ref = to_device(ref);

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int diag = 0; diag < kTiles; ++diag, ++launches) nw_upper<<<diag + 1, kTile>>>(d_score, d_ref, diag);
  for (int diag = kTiles; diag < 2 * kTiles - 1; ++diag, ++launches)
    nw_lower<<<2 * kTiles - 1 - diag, kTile>>>(d_score, d_ref, diag);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();

  copy_to_host(score, d_score);
  long bad = 0;
  for (int i = 0; i < kDim * kDim; ++i) bad += score[i] != want[i];
  device_free(d_score, d_ref);
  print_timing(ms, launches, 1);
  return verdict("nw", bad);
}
