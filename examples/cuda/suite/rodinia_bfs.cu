// Suite benchmark: breadth-first search in the style of Rodinia's bfs. An
// undirected graph of 65,536 nodes is kept in CSR form: per node the index
// of its first edge and its edge count, and one edge list holding each
// undirected edge twice. Every node after the first hangs off a random
// earlier node (so node 0 reaches all of them) and also gets one to three
// edges to random nodes, about six edges per node in all. The search keeps
// four per-node arrays: the frontier mask, the updating mask, the visited
// mask (bytes, as bool) and the cost (the level, -1 while unreached). Each
// level launches two kernels of 512-thread CTAs, one thread per node:
// `bfs_expand` takes every frontier node off the frontier and, for each
// unvisited neighbour, writes the cost one above its own and sets the
// neighbour's updating mask (several frontier nodes may write the same
// neighbour, always with the same value); `bfs_advance` moves the updating
// mask into the frontier and visited masks and sets the device flag `over`.
// The host clears `over` with a cudaMemcpy before the pair, copies it back
// after, and loops until no node was added. Exercises data-dependent loop
// trip counts, scattered (gather-through-index) loads and stores, byte
// loads and stores, benign write races, mostly idle threads on the sparse
// levels and a blocking host round trip per level. Checked against a host
// breadth-first search: every node's cost must match.
#include <queue>
#include <vector>

#include "suite.h"

constexpr int kNodes = 65536;
constexpr int kThreads = 512;  // one thread per node
constexpr int kMaxLevels = 1000;

struct Node {
  int first;  // index of the node's first edge in the edge list
  int count;  // number of edges
};

// Takes each frontier node off the frontier and reaches its unvisited neighbours.
__global__ void bfs_expand(const Node* nodes, const int* edges, bool* frontier, bool* updating,
                           const bool* visited, int* cost, int n) {
  int v = blockIdx.x * kThreads + threadIdx.x;
  if (v >= n || !frontier[v]) return;
  frontier[v] = false;
  Node node = nodes[v];
  int next = cost[v] + 1;
  for (int e = node.first; e < node.first + node.count; ++e) {
    int w = edges[e];
    if (!visited[w]) {
      cost[w] = next;
      updating[w] = true;
    }
  }
}

// The nodes reached this level become the next frontier; any of them sets *over.
__global__ void bfs_advance(bool* frontier, bool* updating, bool* visited, bool* over, int n) {
  int v = blockIdx.x * kThreads + threadIdx.x;
  if (v >= n || !updating[v]) return;
  frontier[v] = true;
  visited[v] = true;
  *over = true;
  updating[v] = false;
}

// The graph in CSR form.
struct Graph {
  std::vector<Node> nodes;
  std::vector<int> edges;
};

Graph make_graph() {
  std::vector<std::vector<int>> adj(kNodes);
  XorShift32 rng{0x0BF5EEDu};
  auto link = [&](int a, int b) {
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  for (int v = 1; v < kNodes; ++v) {
    link(v, int(rng.next() % uint32_t(v)));  // a random earlier node: everything connects to 0
    int extra = 1 + int(rng.next() % 3);
    for (int k = 0; k < extra; ++k) {
      int w = int(rng.next() % kNodes);
      if (w != v) link(v, w);
    }
  }
  Graph g;
  g.nodes.resize(kNodes);
  for (int v = 0; v < kNodes; ++v) {
    g.nodes[v] = {int(g.edges.size()), int(adj[v].size())};
    g.edges.insert(g.edges.end(), adj[v].begin(), adj[v].end());
  }
  return g;
}

std::vector<int> host_bfs(const Graph& g, int source) {
  std::vector<int> cost(kNodes, -1);
  std::queue<int> q;
  cost[source] = 0;
  q.push(source);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = g.nodes[v].first; e < g.nodes[v].first + g.nodes[v].count; ++e) {
      int w = g.edges[e];
      if (cost[w] < 0) {
        cost[w] = cost[v] + 1;
        q.push(w);
      }
    }
  }
  return cost;
}

int main() {
  Graph g = make_graph();
  const int source = 0;
  // Only the source is on the frontier and visited, at cost 0.
  std::vector<char> mask(kNodes, 0);
  mask[source] = 1;
  std::vector<int> cost(kNodes, -1);
  cost[source] = 0;

  Node* d_nodes = to_device(g.nodes);
  int* d_edges = to_device(g.edges);
  bool* d_frontier = reinterpret_cast<bool*>(to_device(mask));
  bool* d_visited = reinterpret_cast<bool*>(to_device(mask));
  bool* d_updating = device_zeros<bool>(kNodes);
  int* d_cost = to_device(cost);
  bool* d_over = device_alloc<bool>(1);

  EventTimer timer;
  int grid = (kNodes + kThreads - 1) / kThreads, launches = 0, levels = 0;
  bool over;
  timer.start();
  do {
    over = false;
    CHECK(cudaMemcpy(d_over, &over, sizeof(bool), cudaMemcpyHostToDevice));
    bfs_expand<<<grid, kThreads>>>(d_nodes, d_edges, d_frontier, d_updating, d_visited, d_cost, kNodes);
    bfs_advance<<<grid, kThreads>>>(d_frontier, d_updating, d_visited, d_over, kNodes);
    CHECK(cudaGetLastError());
    launches += 2;
    CHECK(cudaMemcpy(&over, d_over, sizeof(bool), cudaMemcpyDeviceToHost));
    ++levels;
  } while (over && levels < kMaxLevels);
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<int> result(kNodes);
  copy_to_host(result, d_cost);

  std::vector<int> want = host_bfs(g, source);
  long bad = 0;
  int depth = 0;
  for (int v = 0; v < kNodes; ++v) {
    bad += result[v] != want[v];
    if (want[v] > depth) depth = want[v];
  }
  // The last level finds nothing new: one pair of launches per level of the tree plus that one.
  if (levels != depth + 1) {
    std::printf("rodinia_bfs: %d levels launched for a depth of %d\n", levels, depth);
    ++bad;
  }
  std::printf("edges=%zu levels=%d\n", g.edges.size(), levels);

  print_timing(ms, launches);
  device_free(d_nodes, d_edges, d_frontier, d_visited, d_updating, d_cost, d_over);
  return verdict("rodinia_bfs", bad);
}
