// Sampling workload: training steps of a two-layer perceptron written by hand
// (batch 32, 64 inputs, 64 hidden ReLU units, 10 classes, softmax cross
// entropy, plain SGD on the weights; the biases stay as they start). Each
// step launches forward (2), loss gradient, backward (3) and update (2, one
// kernel at two sizes) kernels: 8 launches of 6 kinds; 40 steps. The loss
// must fall.
#include <cmath>
#include <vector>

#include "common.h"

constexpr int kBatch = 32, kIn = 64, kHidden = 64, kOut = 10, kSteps = 40;

// out[b][j] = act(sum_k in[b][k] * w[k][j] + bias[j]); one thread per output.
__global__ void dense_forward(const float* in, const float* w, const float* bias, float* out, int n_in, int n_out,
                              int relu) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kBatch * n_out) return;
  int b = i / n_out, j = i % n_out;
  float acc = bias[j];
  for (int k = 0; k < n_in; ++k) acc += in[b * n_in + k] * w[k * n_out + j];
  out[i] = relu && acc < 0 ? 0.0f : acc;
}

// Softmax of each row, minus the one-hot label, divided by the batch: the
// gradient of the mean cross entropy with respect to the logits.
__global__ void softmax_grad(const float* logits, const int* labels, float* grad, float* loss) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= kBatch) return;
  const float* z = logits + b * kOut;
  float m = z[0];
  for (int j = 1; j < kOut; ++j) m = fmaxf(m, z[j]);
  float sum = 0;
  for (int j = 0; j < kOut; ++j) sum += expf(z[j] - m);
  for (int j = 0; j < kOut; ++j) {
    float p = expf(z[j] - m) / sum;
    grad[b * kOut + j] = (p - (j == labels[b] ? 1.0f : 0.0f)) / kBatch;
  }
  atomicAdd(loss, (logf(sum) + m - z[labels[b]]) / kBatch);
}

// dw[k][j] = sum_b in[b][k] * dout[b][j]; db[j] = sum_b dout[b][j].
__global__ void dense_weight_grad(const float* in, const float* dout, float* dw, float* db, int n_in, int n_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_in * n_out) return;
  int k = i / n_out, j = i % n_out;
  float acc = 0, bias = 0;
  for (int b = 0; b < kBatch; ++b) {
    acc += in[b * n_in + k] * dout[b * n_out + j];
    bias += dout[b * n_out + j];
  }
  dw[i] = acc;
  if (k == 0) db[j] = bias;
}

// din[b][k] = (sum_j dout[b][j] * w[k][j]) where the ReLU let act[b][k] through.
__global__ void dense_input_grad(const float* dout, const float* w, const float* act, float* din, int n_in,
                                 int n_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kBatch * n_in) return;
  int b = i / n_in, k = i % n_in;
  float acc = 0;
  for (int j = 0; j < n_out; ++j) acc += dout[b * n_out + j] * w[k * n_out + j];
  din[i] = act[i] > 0 ? acc : 0.0f;
}

__global__ void sgd(float* p, const float* g, int n, float rate) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= rate * g[i];
}

struct Buffers {
  float *x, *w1, *b1, *h, *w2, *b2, *z, *dz, *dw2, *db2, *dh, *dw1, *db1, *loss;
  int* labels;
};

float* alloc(int n) {
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  return p;
}

void upload(float* d, const std::vector<float>& h) {
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
}

int blocks(int n) { return (n + 127) / 128; }

float step(Buffers& m) {
  CHECK(cudaMemset(m.loss, 0, sizeof(float)));
  dense_forward<<<blocks(kBatch * kHidden), 128>>>(m.x, m.w1, m.b1, m.h, kIn, kHidden, 1);
  dense_forward<<<blocks(kBatch * kOut), 128>>>(m.h, m.w2, m.b2, m.z, kHidden, kOut, 0);
  softmax_grad<<<1, kBatch>>>(m.z, m.labels, m.dz, m.loss);
  dense_weight_grad<<<blocks(kHidden * kOut), 128>>>(m.h, m.dz, m.dw2, m.db2, kHidden, kOut);
  dense_input_grad<<<blocks(kBatch * kHidden), 128>>>(m.dz, m.w2, m.h, m.dh, kHidden, kOut);
  dense_weight_grad<<<blocks(kIn * kHidden), 128>>>(m.x, m.dh, m.dw1, m.db1, kIn, kHidden);
  sgd<<<blocks(kIn * kHidden), 128>>>(m.w1, m.dw1, kIn * kHidden, 0.5f);
  sgd<<<blocks(kHidden * kOut), 128>>>(m.w2, m.dw2, kHidden * kOut, 0.5f);
  CHECK(cudaGetLastError());
  float loss = 0;
  CHECK(cudaMemcpy(&loss, m.loss, sizeof(float), cudaMemcpyDeviceToHost));
  return loss;
}

int main() {
  Rng rng(7);
  std::vector<float> x(kBatch * kIn), w1(kIn * kHidden), w2(kHidden * kOut), b1(kHidden, 0.0f), b2(kOut, 0.0f);
  std::vector<int> labels(kBatch);
  for (int b = 0; b < kBatch; ++b) {
    labels[b] = b % kOut;
    for (int k = 0; k < kIn; ++k) x[b * kIn + k] = rng.uniform() + (k % kOut == labels[b] ? 1.0f : 0.0f);
  }
  for (float& v : w1) v = (rng.uniform() - 0.5f) * 0.25f;
  for (float& v : w2) v = (rng.uniform() - 0.5f) * 0.25f;
  Buffers m{alloc(kBatch * kIn), alloc(kIn * kHidden), alloc(kHidden), alloc(kBatch * kHidden),
            alloc(kHidden * kOut), alloc(kOut), alloc(kBatch * kOut), alloc(kBatch * kOut),
            alloc(kHidden * kOut), alloc(kOut), alloc(kBatch * kHidden), alloc(kIn * kHidden),
            alloc(kHidden), alloc(1), nullptr};
  CHECK(cudaMalloc(&m.labels, kBatch * sizeof(int)));
  CHECK(cudaMemcpy(m.labels, labels.data(), kBatch * sizeof(int), cudaMemcpyHostToDevice));
  upload(m.x, x), upload(m.w1, w1), upload(m.w2, w2), upload(m.b1, b1), upload(m.b2, b2);
  float first = 0, last = 0;
  for (int s = 0; s < kSteps; ++s) {
    last = step(m);
    if (s == 0) first = last;
  }
  std::printf("mlp_train: %d steps, loss %.4f -> %.4f\n", kSteps, first, last);
  return report("mlp_train", std::isfinite(last) && first > 2.0f && last < 0.5f * first);
}
