// Suite benchmark: one training step of a two-layer perceptron with 65536
// inputs, 16 hidden units and one output, in the back-propagation benchmark's
// structure. `bp_layerforward` runs 4096 CTAs of 16 x 16 threads: a CTA
// takes 16 inputs, multiplies each by its 16 weights into shared memory and
// sums each hidden unit's column with a tree, writing one partial sum per
// hidden unit per CTA. The host adds the partials, applies the sigmoid, runs
// the tiny output layer and the error terms, and sends the hidden deltas
// back; `bp_adjust_weights` then updates the 65537 x 17 input->hidden
// weights with momentum. 2 launches, with the host round trip the algorithm
// needs in between. Exercises 2-D CTAs, shared-memory column reductions and
// a large streaming read-modify-write of two weight arrays.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kIn = 65536, kHid = 16;   // units; each layer also has a bias unit at index 0
constexpr int kTile = 16;               // inputs per CTA, and the CTA is kTile x kHid threads
constexpr int kBlocks = kIn / kTile;    // 4096
constexpr int kStride = kHid + 1;       // weights of input i: w[i * kStride + 0 .. kHid]
constexpr float kEta = 0.3f, kMomentum = 0.3f, kTarget = 0.1f;
static_assert(kTile == kHid, "square CTAs");

// Partial sums: CTA b adds inputs 1 + 16b .. 16 + 16b into partial[b * kHid + j].
__global__ void bp_layerforward(const float* input, const float* w, float* partial) {
  __shared__ float in_tile[kTile];
  __shared__ float prod[kTile][kHid];
  int tx = threadIdx.x, ty = threadIdx.y;  // tx: hidden unit, ty: input within the tile
  int row = 1 + blockIdx.y * kTile + ty;
  if (tx == 0) in_tile[ty] = input[row];
  __syncthreads();
  prod[ty][tx] = w[row * kStride + 1 + tx] * in_tile[ty];
  __syncthreads();
  for (int half = kTile / 2; half > 0; half /= 2) {
    if (ty < half) prod[ty][tx] += prod[ty + half][tx];
    __syncthreads();
  }
  if (ty == 0) partial[blockIdx.y * kHid + tx] = prod[0][tx];
}

__host__ __device__ inline float weight_step(float delta, float x, float old_step) {
  return kEta * delta * x + kMomentum * old_step;
}

// w[i][j] += eta * delta[j] * x[i] + momentum * (last change); the bias row by CTA 0.
__global__ void bp_adjust_weights(const float* delta, const float* input, float* w, float* prev_step) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = 1 + blockIdx.y * kTile + ty;
  int i = row * kStride + 1 + tx;
  float step = weight_step(delta[tx], input[row], prev_step[i]);
  w[i] += step;
  prev_step[i] = step;
  if (blockIdx.y == 0 && ty == 0) {
    int b = 1 + tx;
    float bias_step = weight_step(delta[tx], input[0], prev_step[b]);
    w[b] += bias_step;
    prev_step[b] = bias_step;
  }
}

// ---- host side ----

struct Net {
  std::vector<float> input;     // kIn + 1, input[0] = 1 (bias)
  std::vector<float> w1, prev1; // (kIn + 1) x kStride, column 0 unused
  std::vector<float> w2;        // kHid + 1 weights to the output, w2[0] the bias
};

Net make_net() {
  Net net;
  XorShift32 rng{0xC0FFEEu};
  net.input.resize(kIn + 1);
  net.input[0] = 1.0f;
  for (int i = 1; i <= kIn; ++i) net.input[i] = rng.uniform();
  net.w1.resize(size_t(kIn + 1) * kStride);
  net.prev1.resize(net.w1.size());
  for (size_t i = 0; i < net.w1.size(); ++i) {
    net.w1[i] = 0.02f * (rng.uniform() - 0.5f);  // hidden sums stay well inside the sigmoid
    net.prev1[i] = 0.001f * (rng.uniform() - 0.5f);
  }
  net.w2.resize(kHid + 1);
  for (float& v : net.w2) v = rng.uniform() - 0.5f;
  return net;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// From the partial sums to the hidden deltas: hidden layer, output layer and
// both error terms (the host's share of the step, identical for both runs).
std::vector<float> hidden_deltas(const Net& net, const std::vector<float>& partial) {
  float hidden[kHid + 1];
  hidden[0] = 1.0f;
  for (int j = 0; j < kHid; ++j) {
    float sum = net.w1[1 + j];  // bias unit times its weight
    for (int b = 0; b < kBlocks; ++b) sum += partial[b * kHid + j];
    hidden[1 + j] = sigmoid(sum);
  }
  float out_sum = 0.0f;
  for (int j = 0; j <= kHid; ++j) out_sum += net.w2[j] * hidden[j];
  float out = sigmoid(out_sum);
  float out_delta = out * (1.0f - out) * (kTarget - out);
  std::vector<float> delta(kHid);
  for (int j = 0; j < kHid; ++j) {
    float h = hidden[1 + j];
    delta[j] = h * (1.0f - h) * out_delta * net.w2[1 + j];
  }
  return delta;
}

// The partial sums the kernel computes, in its order.
std::vector<float> host_partials(const Net& net) {
  std::vector<float> partial(size_t(kBlocks) * kHid);
  float prod[kTile][kHid];
  for (int b = 0; b < kBlocks; ++b) {
    for (int t = 0; t < kTile; ++t)
      for (int j = 0; j < kHid; ++j) {
        int row = 1 + b * kTile + t;
        prod[t][j] = net.w1[row * kStride + 1 + j] * net.input[row];
      }
    for (int half = kTile / 2; half > 0; half /= 2)
      for (int t = 0; t < half; ++t)
        for (int j = 0; j < kHid; ++j) prod[t][j] += prod[t + half][j];
    for (int j = 0; j < kHid; ++j) partial[b * kHid + j] = prod[0][j];
  }
  return partial;
}

void host_adjust(Net& net, const std::vector<float>& delta) {
  for (int row = 0; row <= kIn; ++row)
    for (int j = 0; j < kHid; ++j) {
      int i = row * kStride + 1 + j;
      float step = weight_step(delta[j], net.input[row], net.prev1[i]);
      net.w1[i] += step;
      net.prev1[i] = step;
    }
}

int main() {
  Net net = make_net();
  float *d_input = to_device(net.input), *d_w = to_device(net.w1), *d_prev = to_device(net.prev1);
  float *d_partial = device_alloc<float>(size_t(kBlocks) * kHid), *d_delta = device_alloc<float>(kHid);

  EventTimer timer;
  dim3 block(kHid, kTile), grid(1, kBlocks);
  std::vector<float> partial(size_t(kBlocks) * kHid);
  timer.start();
  bp_layerforward<<<grid, block>>>(d_input, d_w, d_partial);
  CHECK(cudaGetLastError());
  copy_to_host(partial, d_partial);
  std::vector<float> delta = hidden_deltas(net, partial);
  copy_to_device(d_delta, delta);
  bp_adjust_weights<<<grid, block>>>(d_delta, d_input, d_w, d_prev);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> w(net.w1.size()), prev(net.w1.size());
  copy_to_host(w, d_w);
  copy_to_host(prev, d_prev);

  // The partial sums must match bit for bit (same products, same tree order).
  std::vector<float> want_partial = host_partials(net);
  long bad = 0;
  for (size_t i = 0; i < partial.size(); ++i) bad += partial[i] != want_partial[i];
  host_adjust(net, hidden_deltas(net, want_partial));
  for (size_t i = 0; i < w.size(); ++i) {
    bad += !close_enough(w[i], net.w1[i], 1e-6, 1e-9);
    bad += !close_enough(prev[i], net.prev1[i], 1e-5, 1e-9);
  }

  print_timing(ms, 2);
  device_free(d_input, d_w, d_prev, d_partial, d_delta);
  return verdict("backprop", bad);
}
