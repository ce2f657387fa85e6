// Suite benchmark: template tracking of points through a short video, in the
// style of Rodinia's heartwall. 32 tracking points on a 192 x 192 textured
// video of 5 frames; every frame moves the whole texture by a known integer
// displacement and adds fresh noise. The parameters live in one large
// __constant__ struct (frame size, template size, pointers to the current
// frame, the templates and the point positions, per-point start positions
// and search radii: 448 bytes), rewritten with cudaMemcpyToSymbol before
// every frame as the original does with its "common_change" struct.
// `hw_templates` (one CTA per point) cuts a 17 x 17 template around every
// start point of frame 0. `hw_track` (one CTA of 128 threads per point, one
// launch per later frame) stages the template and a sample window of up to
// 33 x 33 pixels in shared memory (coordinates clamped at the frame edge),
// reduces the template mean and variance in shared memory, computes the
// normalized cross-correlation (sqrtf) of every displacement within the
// point's search radius (6..8, so 169 to 289 of them, several per thread),
// picks the best with an argmax tree in shared memory (ties to the lower
// index) and moves the point. 5 launches. Checked against the same
// algorithm on the host: positions exactly, correlation values with a
// tolerance, and the tracked motion against the known displacements.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kFH = 192, kFW = 192, kFrames = 5;
constexpr int kPoints = 32, kThreads = 128;
constexpr int kT = 17, kHalf = kT / 2, kTT = kT * kT;  // template side, half side, pixels
constexpr int kMaxR = 8, kMaxS = kT + 2 * kMaxR;        // search radius, sample window side
// The displacement of the texture in frame f relative to frame f - 1.
constexpr int kShiftY[kFrames] = {0, 2, -1, 3, -2}, kShiftX[kFrames] = {0, 1, 3, -2, -1};

struct Params {
  int frame_rows, frame_cols, t_size, points;
  const float* frame;  // the frame being tracked (changed every frame)
  float* templates;    // kPoints x kTT
  int* py;             // current positions
  int* px;
  float* best_ncc;     // kFrames x kPoints
  int frame_no;
  int init_y[kPoints], init_x[kPoints];
  int radius[kPoints];
};
__constant__ Params c_p;
static_assert(sizeof(Params) >= 400, "a large constant struct");

// ---- shared by the kernels and the host ----

__host__ __device__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// ---- kernels ----

__global__ void hw_templates() {
  int p = blockIdx.x;
  int cy = c_p.init_y[p], cx = c_p.init_x[p];
  for (int k = threadIdx.x; k < kTT; k += blockDim.x) {
    int r = k / kT, c = k % kT;
    int y = clampi(cy - kHalf + r, 0, c_p.frame_rows - 1), x = clampi(cx - kHalf + c, 0, c_p.frame_cols - 1);
    c_p.templates[p * kTT + k] = c_p.frame[y * c_p.frame_cols + x];
  }
  if (threadIdx.x == 0) {
    c_p.py[p] = cy;
    c_p.px[p] = cx;
  }
}

__global__ void hw_track() {
  __shared__ float s_tmpl[kTT];
  __shared__ float s_win[kMaxS * kMaxS];
  __shared__ float s_red[kThreads];
  __shared__ float s_val[kThreads];
  __shared__ int s_idx[kThreads];
  __shared__ float s_mean, s_tss;
  int p = blockIdx.x, t = threadIdx.x;
  int r = c_p.radius[p], side = kT + 2 * r, npos = (2 * r + 1) * (2 * r + 1);
  int cy = c_p.py[p], cx = c_p.px[p];
  // Template and sample window into shared memory.
  float part = 0.0f;
  for (int k = t; k < kTT; k += kThreads) {
    float v = c_p.templates[p * kTT + k];
    s_tmpl[k] = v;
    part += v;
  }
  for (int k = t; k < side * side; k += kThreads) {
    int wr = k / side, wc = k % side;
    int y = clampi(cy - kHalf - r + wr, 0, c_p.frame_rows - 1);
    int x = clampi(cx - kHalf - r + wc, 0, c_p.frame_cols - 1);
    s_win[k] = c_p.frame[y * c_p.frame_cols + x];
  }
  // Template mean, then its centred sum of squares.
  s_red[t] = part;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (t < h) s_red[t] += s_red[t + h];
    __syncthreads();
  }
  if (t == 0) s_mean = s_red[0] / kTT;
  __syncthreads();
  float mt = s_mean;
  part = 0.0f;
  for (int k = t; k < kTT; k += kThreads) {
    float d = s_tmpl[k] - mt;
    s_tmpl[k] = d;
    part += d * d;
  }
  s_red[t] = part;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (t < h) s_red[t] += s_red[t + h];
    __syncthreads();
  }
  if (t == 0) s_tss = s_red[0];
  __syncthreads();
  float tss = s_tss;
  // The correlation of every displacement this thread owns; keep its best.
  float best = -2.0f;
  int best_i = 0x7fffffff;
  for (int pos = t; pos < npos; pos += kThreads) {
    int oy = pos / (2 * r + 1), ox = pos % (2 * r + 1);
    float sum = 0.0f, sum2 = 0.0f, cross = 0.0f;
    for (int i = 0; i < kT; ++i)
      for (int j = 0; j < kT; ++j) {
        float s = s_win[(oy + i) * side + ox + j];
        sum += s;
        sum2 += s * s;
        cross += s_tmpl[i * kT + j] * s;
      }
    float ms = sum / kTT;
    float sss = sum2 - kTT * ms * ms;
    float ncc = cross / sqrtf(tss * sss + 1e-12f);
    if (ncc > best) {
      best = ncc;
      best_i = pos;
    }
  }
  // Argmax over the CTA.
  s_val[t] = best;
  s_idx[t] = best_i;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (t < h) {
      float vo = s_val[t + h];
      int io = s_idx[t + h];
      if (vo > s_val[t] || (vo == s_val[t] && io < s_idx[t])) {
        s_val[t] = vo;
        s_idx[t] = io;
      }
    }
    __syncthreads();
  }
  if (t == 0) {
    int bi = s_idx[0];
    c_p.py[p] = cy + bi / (2 * r + 1) - r;
    c_p.px[p] = cx + bi % (2 * r + 1) - r;
    c_p.best_ncc[c_p.frame_no * kPoints + p] = s_val[0];
  }
}

// ---- host side ----

// The video: a smoothed random texture, moved by the cumulative shift and
// with fresh noise in every frame.
std::vector<float> make_video() {
  const int big = 256;  // texture larger than the frame, so shifts never run out
  std::vector<float> raw(big * big), tex(big * big);
  XorShift32 rng{0xC0FFEE11u};
  for (float& v : raw) v = rng.uniform();
  for (int y = 0; y < big; ++y)
    for (int x = 0; x < big; ++x) {
      float s = 0.0f;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += raw[clampi(y + dy, 0, big - 1) * big + clampi(x + dx, 0, big - 1)];
      tex[y * big + x] = 100.0f * s / 9.0f;
    }
  std::vector<float> video(size_t(kFrames) * kFH * kFW);
  int sy = 0, sx = 0;
  for (int f = 0; f < kFrames; ++f) {
    sy += kShiftY[f];
    sx += kShiftX[f];
    for (int y = 0; y < kFH; ++y)
      for (int x = 0; x < kFW; ++x)
        video[(size_t(f) * kFH + y) * kFW + x] = tex[(y - sy + 32) * big + (x - sx + 32)] + 4.0f * rng.uniform_pm1();
  }
  return video;
}

// The tracker on the host: the same sums in the same order per displacement.
void host_track(const float* frame, const std::vector<float>& tmpl_raw, int r, int& cy, int& cx, float& best_out) {
  float mt_sum = 0.0f;
  // The kernel sums the template in a strided-then-tree order; the mean only
  // needs to be close, so a plain sum is compared with a tolerance later.
  for (float v : tmpl_raw) mt_sum += v;
  float mt = mt_sum / kTT;
  std::vector<float> tm(kTT);
  float tss = 0.0f;
  for (int k = 0; k < kTT; ++k) tm[k] = tmpl_raw[k] - mt, tss += tm[k] * tm[k];
  float best = -2.0f;
  int best_i = 0;
  for (int oy = 0; oy <= 2 * r; ++oy)
    for (int ox = 0; ox <= 2 * r; ++ox) {
      float sum = 0.0f, sum2 = 0.0f, cross = 0.0f;
      for (int i = 0; i < kT; ++i)
        for (int j = 0; j < kT; ++j) {
          int y = clampi(cy - kHalf - r + oy + i, 0, kFH - 1), x = clampi(cx - kHalf - r + ox + j, 0, kFW - 1);
          float s = frame[y * kFW + x];
          sum += s;
          sum2 += s * s;
          cross += tm[i * kT + j] * s;
        }
      float ms = sum / kTT;
      float ncc = cross / std::sqrt(tss * (sum2 - kTT * ms * ms) + 1e-12f);
      if (ncc > best) best = ncc, best_i = oy * (2 * r + 1) + ox;
    }
  cy += best_i / (2 * r + 1) - r;
  cx += best_i % (2 * r + 1) - r;
  best_out = best;
}

int main() {
  std::vector<float> video = make_video();
  float* d_video = to_device(video);
  float* d_templates = device_zeros<float>(kPoints * kTT);
  int *d_py = device_zeros<int>(kPoints), *d_px = device_zeros<int>(kPoints);
  float* d_ncc = device_zeros<float>(kFrames * kPoints);

  Params p{};
  p.frame_rows = kFH;
  p.frame_cols = kFW;
  p.t_size = kT;
  p.points = kPoints;
  p.templates = d_templates;
  p.py = d_py;
  p.px = d_px;
  p.best_ncc = d_ncc;
  for (int i = 0; i < kPoints; ++i) {
    p.init_y[i] = 24 + (i / 8) * 44 + (i % 3) * 3;
    p.init_x[i] = 20 + (i % 8) * 21;
    p.radius[i] = 6 + i % 3;
  }

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int f = 0; f < kFrames; ++f) {
    p.frame = d_video + size_t(f) * kFH * kFW;
    p.frame_no = f;
    CHECK(cudaMemcpyToSymbol(c_p, &p, sizeof(Params)));
    if (f == 0)
      hw_templates<<<kPoints, kThreads>>>();
    else
      hw_track<<<kPoints, kThreads>>>();
    CHECK(cudaGetLastError());
    ++launches;
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<int> py = to_host(d_py, kPoints), px = to_host(d_px, kPoints);
  std::vector<float> ncc = to_host(d_ncc, kFrames * kPoints);
  std::vector<float> templates = to_host(d_templates, kPoints * kTT);

  long bad = 0;
  int moved_right = 0;
  for (int i = 0; i < kPoints; ++i) {
    std::vector<float> tmpl(kTT);
    for (int k = 0; k < kTT; ++k) {
      int y = clampi(p.init_y[i] - kHalf + k / kT, 0, kFH - 1), x = clampi(p.init_x[i] - kHalf + k % kT, 0, kFW - 1);
      tmpl[k] = video[y * kFW + x];
      bad += templates[i * kTT + k] != tmpl[k];
    }
    int cy = p.init_y[i], cx = p.init_x[i];
    int ty = cy, tx = cx;
    for (int f = 1; f < kFrames; ++f) {
      float best;
      host_track(&video[size_t(f) * kFH * kFW], tmpl, p.radius[i], cy, cx, best);
      bad += !close_enough(ncc[f * kPoints + i], best, 1e-3, 1e-4);
      ty += kShiftY[f];
      tx += kShiftX[f];
    }
    bad += py[i] != cy || px[i] != cx;
    moved_right += py[i] == ty && px[i] == tx;
  }
  std::printf("points tracked to the true displacement: %d of %d, ncc[1][0]=%.5f\n", moved_right, kPoints,
              ncc[kPoints]);
  if (moved_right < kPoints / 2) ++bad;

  print_timing(ms, launches);
  device_free(d_video, d_templates, d_py, d_px, d_ncc);
  return verdict("heartwall", bad);
}
