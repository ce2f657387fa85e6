// Sampling workload: breadth-first search over a generated graph (8,192
// vertices, 8 random out-edges each, CSR), level by level from 36 sources.
// Per level one frontier-expansion kernel whose grid follows the frontier
// (from 1 vertex to thousands), and the host reads the next frontier's size;
// per source a reset kernel. Levels are checked against a CPU BFS.
#include <queue>
#include <vector>

#include "common.h"

constexpr int kVertices = 8192, kDegree = 8, kSources = 36, kThreads = 128;

__global__ void reset(int* dist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dist[i] = -1;
}

__global__ void expand(const int* offsets, const int* edges, int* dist, const int* frontier, int frontier_size,
                       int* next, int* next_size, int level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  int v = frontier[i];
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
    int u = edges[e];
    if (atomicCAS(&dist[u], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = u;
  }
}

std::vector<int> host_bfs(const std::vector<int>& off, const std::vector<int>& edges, int src) {
  std::vector<int> dist(kVertices, -1);
  std::queue<int> q;
  dist[src] = 0;
  q.push(src);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = off[v]; e < off[v + 1]; ++e)
      if (dist[edges[e]] < 0) dist[edges[e]] = dist[v] + 1, q.push(edges[e]);
  }
  return dist;
}

int main() {
  Rng rng(2024);
  std::vector<int> off(kVertices + 1), edges(kVertices * kDegree);
  for (int v = 0; v <= kVertices; ++v) off[v] = v * kDegree;
  // Mostly local edges plus a few long ones: many levels, frontiers of varied size.
  for (int v = 0; v < kVertices; ++v)
    for (int d = 0; d < kDegree; ++d) {
      int step = d < 6 ? int(rng.next() % 64) - 32 : int(rng.next() % kVertices);
      edges[v * kDegree + d] = ((v + step) % kVertices + kVertices) % kVertices;
    }
  int *doff, *dedges, *dist, *fa, *fb, *size;
  CHECK(cudaMalloc(&doff, off.size() * sizeof(int)));
  CHECK(cudaMalloc(&dedges, edges.size() * sizeof(int)));
  CHECK(cudaMalloc(&dist, kVertices * sizeof(int)));
  CHECK(cudaMalloc(&fa, kVertices * sizeof(int)));
  CHECK(cudaMalloc(&fb, kVertices * sizeof(int)));
  CHECK(cudaMalloc(&size, sizeof(int)));
  CHECK(cudaMemcpy(doff, off.data(), off.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dedges, edges.data(), edges.size() * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = true;
  int levels = 0;
  std::vector<int> got(kVertices);
  for (int s = 0; s < kSources; ++s) {
    int src = int(rng.next() % kVertices), zero = 0, frontier = 1;
    reset<<<(kVertices + kThreads - 1) / kThreads, kThreads>>>(dist, kVertices);
    CHECK(cudaMemcpy(dist + src, &zero, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(fa, &src, sizeof(int), cudaMemcpyHostToDevice));
    int* cur = fa;
    int* nxt = fb;
    for (int level = 0; frontier > 0; ++level, ++levels) {
      CHECK(cudaMemcpy(size, &zero, sizeof(int), cudaMemcpyHostToDevice));
      expand<<<(frontier + kThreads - 1) / kThreads, kThreads>>>(doff, dedges, dist, cur, frontier, nxt, size, level);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(&frontier, size, sizeof(int), cudaMemcpyDeviceToHost));
      std::swap(cur, nxt);
    }
    CHECK(cudaMemcpy(got.data(), dist, kVertices * sizeof(int), cudaMemcpyDeviceToHost));
    ok = ok && got == host_bfs(off, edges, src);
  }
  std::printf("bfs: %d sources, %d levels in all\n", kSources, levels);
  return report("bfs", ok);
}
