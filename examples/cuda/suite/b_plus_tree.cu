// Suite benchmark: point and range look-ups in a B+ tree of fanout 256, in
// the style of Rodinia's b+tree ("findK" and "findRangeK"). The host builds
// the tree over 600,000 sorted keys as a flat array of nodes (each with 257
// keys, 257 child or record indices, a leaf flag and a key count; nodes 128
// to 256 full, the root first, level by level). `find_k` runs one 256-thread
// CTA per query: at every level each thread tests whether the query falls
// between its key and the next one, the thread that matches writes the child
// index, thread 0 moves the CTA's current node (a 64-bit index kept in global
// memory, as the original keeps it) and __syncthreads separates the levels;
// at the leaf the matching thread fetches the record. `find_range_k` walks
// two paths at once (range start and end) and returns the first record index
// and the range length. 4,096 queries of each kind: 2 launches. Exercises
// large structs indexed by 64-bit values, per-thread compares across a node,
// barriers inside a loop, and dependent loads down the tree. Checked against
// binary searches over the sorted keys on the host.
#include <algorithm>
#include <climits>
#include <vector>

#include "suite.h"

constexpr int kOrder = 256;  // children per node, also threads per CTA
constexpr int kKeys = 600000, kQueries = 4096;
constexpr int kMinFill = kOrder / 2;

struct Knode {
  int location;
  int indices[kOrder + 1];  // children (inner nodes) or records (leaves)
  int keys[kOrder + 1];     // unused slots hold INT_MAX
  bool is_leaf;
  int num_keys;
};

struct Record {
  int value;
};

// ---- kernels ----

__global__ void find_k(int levels, const Knode* knodes, long knodes_elem, const Record* records, long* current,
                       long* offset, const int* keys, Record* ans) {
  int t = threadIdx.x, q = blockIdx.x;
  for (int l = 0; l < levels; ++l) {
    const Knode* node = &knodes[current[q]];
    if (node->keys[t] <= keys[q] && node->keys[t + 1] > keys[q]) {
      if (node->indices[t] < knodes_elem) offset[q] = node->indices[t];
    }
    __syncthreads();
    if (t == 0) current[q] = offset[q];
    __syncthreads();
  }
  const Knode* leaf = &knodes[current[q]];
  if (leaf->keys[t] == keys[q]) ans[q].value = records[leaf->indices[t]].value;
}

__global__ void find_range_k(int levels, const Knode* knodes, long knodes_elem, long* current, long* offset,
                             long* last, long* offset_last, const int* start, const int* end, int* rec_start,
                             int* rec_len) {
  int t = threadIdx.x, q = blockIdx.x;
  for (int l = 0; l < levels; ++l) {
    const Knode* a = &knodes[current[q]];
    if (a->keys[t] <= start[q] && a->keys[t + 1] > start[q]) {
      if (a->indices[t] < knodes_elem) offset[q] = a->indices[t];
    }
    const Knode* b = &knodes[last[q]];
    if (b->keys[t] <= end[q] && b->keys[t + 1] > end[q]) {
      if (b->indices[t] < knodes_elem) offset_last[q] = b->indices[t];
    }
    __syncthreads();
    if (t == 0) {
      current[q] = offset[q];
      last[q] = offset_last[q];
    }
    __syncthreads();
  }
  const Knode* a = &knodes[current[q]];
  if (a->keys[t] == start[q]) rec_start[q] = a->indices[t];
  __syncthreads();
  const Knode* b = &knodes[last[q]];
  if (b->keys[t] == end[q] && rec_start[q] >= 0) rec_len[q] = b->indices[t] - rec_start[q] + 1;
}

// ---- host side ----

struct Tree {
  std::vector<Knode> nodes;  // root at 0
  int levels;                // levels below the root (descents to a leaf)
};

// Node sizes between kMinFill and kOrder that add up to `count`.
std::vector<int> split(int count, Lcg& rng) {
  std::vector<int> sizes;
  while (count > 0) {
    int take = kMinFill + int((rng.next() >> 16) % (kOrder - kMinFill + 1));
    if (count - take < kMinFill) take = count <= kOrder ? count : count - kMinFill;
    sizes.push_back(take);
    count -= take;
  }
  return sizes;
}

Knode empty_node() {
  Knode k{};
  for (int t = 0; t <= kOrder; ++t) k.keys[t] = INT_MAX, k.indices[t] = 0;
  return k;
}

Tree build_tree(const std::vector<int>& keys) {
  Lcg rng{0xB7EEu};
  // Levels bottom-up; each entry: the node and its smallest key.
  std::vector<std::vector<Knode>> levels;
  std::vector<int> level_min;  // smallest key of each node in the current level
  {
    std::vector<Knode> leaves;
    int at = 0;
    for (int size : split(int(keys.size()), rng)) {
      Knode k = empty_node();
      k.is_leaf = true;
      k.num_keys = size;
      for (int t = 0; t < size; ++t) k.keys[t] = keys[at + t], k.indices[t] = at + t;
      level_min.push_back(keys[at]);
      at += size;
      leaves.push_back(k);
    }
    levels.push_back(leaves);
  }
  while (levels.back().size() > 1) {
    int children = int(levels.back().size());
    std::vector<Knode> up;
    std::vector<int> up_min;
    int at = 0;
    for (int size : split(children, rng)) {
      Knode k = empty_node();
      k.is_leaf = false;
      k.num_keys = size;
      // indices hold positions within the level below for now.
      for (int t = 0; t < size; ++t) k.keys[t] = level_min[at + t], k.indices[t] = at + t;
      up_min.push_back(level_min[at]);
      at += size;
      up.push_back(k);
    }
    levels.push_back(up);
    level_min = up_min;
  }
  // Flatten root first; child positions become node numbers.
  Tree tree;
  tree.levels = int(levels.size()) - 1;
  std::vector<int> first(levels.size());
  int count = 0;
  for (int l = int(levels.size()) - 1; l >= 0; --l) first[l] = count, count += int(levels[l].size());
  for (int l = int(levels.size()) - 1; l >= 0; --l)
    for (Knode k : levels[l]) {
      k.location = int(tree.nodes.size());
      if (!k.is_leaf)
        for (int t = 0; t < k.num_keys; ++t) k.indices[t] += first[l - 1];
      tree.nodes.push_back(k);
    }
  return tree;
}

int main() {
  // Sorted distinct keys with gaps, so that some queries miss.
  Lcg rng{0xB1u};
  std::vector<int> keys(kKeys);
  std::vector<Record> records(kKeys);
  int key = 10;
  for (int i = 0; i < kKeys; ++i) {
    key += 1 + int((rng.next() >> 16) % 4);
    keys[i] = key;
    records[i].value = int((uint32_t(key) * 2654435761u) >> 8);
  }
  Tree tree = build_tree(keys);
  const long n_nodes = long(tree.nodes.size());

  // Point queries: three in four are keys in the tree. Range queries: a
  // stored start and an end up to 600 records on (one in eight ends misses).
  std::vector<int> q_key(kQueries), q_start(kQueries), q_end(kQueries);
  for (int q = 0; q < kQueries; ++q) {
    q_key[q] = (rng.next() >> 16) % 4 ? keys[(rng.next() >> 8) % kKeys] : int((rng.next() >> 16) % uint32_t(key + 100));
    int s = int((rng.next() >> 8) % kKeys), e = std::min(kKeys - 1, s + int((rng.next() >> 16) % 600));
    q_start[q] = keys[s];
    q_end[q] = (rng.next() >> 16) % 8 ? keys[e] : keys[e] + 1;
  }

  Knode* d_nodes = to_device(tree.nodes);
  Record* d_records = to_device(records);
  int *d_key = to_device(q_key), *d_start = to_device(q_start), *d_end = to_device(q_end);
  std::vector<long> zeros(kQueries, 0);  // every walk starts at the root
  long *d_cur = to_device(zeros), *d_off = to_device(zeros), *d_last = to_device(zeros),
       *d_off_last = to_device(zeros);
  long *d_cur2 = to_device(zeros), *d_off2 = to_device(zeros);
  std::vector<Record> ans(kQueries, Record{-1});
  std::vector<int> rec_start(kQueries, -1), rec_len(kQueries, 0);
  Record* d_ans = to_device(ans);
  int *d_rec_start = to_device(rec_start), *d_rec_len = to_device(rec_len);

  EventTimer timer;
  timer.start();
  find_k<<<kQueries, kOrder>>>(tree.levels, d_nodes, n_nodes, d_records, d_cur, d_off, d_key, d_ans);
  find_range_k<<<kQueries, kOrder>>>(tree.levels, d_nodes, n_nodes, d_cur2, d_off2, d_last, d_off_last, d_start,
                                      d_end, d_rec_start, d_rec_len);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  copy_to_host(ans, d_ans);
  copy_to_host(rec_start, d_rec_start);
  copy_to_host(rec_len, d_rec_len);

  long bad = 0, found = 0, ranges = 0;
  for (int q = 0; q < kQueries; ++q) {
    auto it = std::lower_bound(keys.begin(), keys.end(), q_key[q]);
    int want = it != keys.end() && *it == q_key[q] ? records[it - keys.begin()].value : -1;
    bad += ans[q].value != want;
    found += want != -1;
    auto s = std::lower_bound(keys.begin(), keys.end(), q_start[q]);
    auto e = std::lower_bound(keys.begin(), keys.end(), q_end[q]);
    int want_start = s != keys.end() && *s == q_start[q] ? int(s - keys.begin()) : -1;
    int want_len = want_start >= 0 && e != keys.end() && *e == q_end[q] ? int(e - s) + 1 : 0;
    bad += rec_start[q] != want_start || rec_len[q] != want_len;
    ranges += want_len > 0;
  }
  std::printf("nodes=%ld levels=%d found=%ld ranges=%ld\n", n_nodes, tree.levels + 1, found, ranges);

  print_timing(ms, 2);
  device_free(d_nodes, d_records, d_key, d_start, d_end, d_cur, d_off, d_last, d_off_last, d_cur2, d_off2, d_ans,
              d_rec_start, d_rec_len);
  return verdict("b+tree", bad);
}
