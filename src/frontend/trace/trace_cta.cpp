#include "frontend/trace/trace_cta.h"

#include <algorithm>

namespace ws::frontend {

namespace {

constexpr size_t kLanes = 32;

// Grows to at least `need`, at least doubling, so that one `insts = K` per
// warp does not reallocate (and copy) the whole CTA each time.
template <class T>
void grow(std::vector<T>& v, size_t need) {
  if (need > v.capacity()) v.reserve(std::max(need, 2 * v.capacity()));
}

}  // namespace

CtaBuffers CtaBufferPool::take(uint32_t warps) {
  CtaBuffers b;
  if (!spare_.empty()) {
    b = std::move(spare_.back());
    spare_.pop_back();
  } else {
    b.insts.reserve(insts_hint_);
    b.addrs.reserve(addrs_hint_);
  }
  b.cursors.assign(warps, CtaBuffers::Cursor{});
  return b;
}

void CtaBufferPool::give(CtaBuffers b) {
  if (spare_.size() >= kMaxSpare) return;
  b.insts.clear();
  b.addrs.clear();
  b.runs.clear();
  b.cursors.clear();
  spare_.push_back(std::move(b));
}

void CtaBufferPool::remember_sizes(const CtaBuffers& b) {
  insts_hint_ = b.insts.size();
  addrs_hint_ = b.addrs.size();
}

void TraceCta::reserve(uint32_t n) { grow(b_.insts, b_.insts.size() + n); }

// Until finish(), a memory instruction's `addrs` only marks that it has
// addresses: it still points into the parser's scratch line.
void TraceCta::add(uint32_t w, const ParsedInst& p) {
  auto at = static_cast<uint32_t>(b_.insts.size());
  if (b_.runs.empty() || b_.runs.back().warp != w) b_.runs.push_back({w, at, at});
  ++b_.runs.back().end;
  b_.insts.push_back(p.inst);
  ir::WarpInst& in = b_.insts.back();
  in.addrs = nullptr;
  // Strided lanes (coalesced accesses, the common case) keep base and
  // stride only; others list all 32 addresses.
  if (!p.has_addrs || ir::make_strided(p.addrs, in)) return;
  in.addrs = p.addrs.data();
  b_.addrs.insert(b_.addrs.end(), p.addrs.begin(), p.addrs.end());
}

void TraceCta::finish() {
  size_t k = 0;
  for (ir::WarpInst& in : b_.insts)
    if (in.addrs) in.addrs = b_.addrs.data() + kLanes * k++;
  if (!point_cursors()) {
    group_by_warp();
    point_cursors();
  }
  pool_->remember_sizes(b_);
}

// False if some warp's instructions came in more than one run.
bool TraceCta::point_cursors() {
  std::fill(b_.cursors.begin(), b_.cursors.end(), CtaBuffers::Cursor{});
  const ir::WarpInst* base = b_.insts.data();
  for (const CtaBuffers::Run& r : b_.runs) {
    CtaBuffers::Cursor& c = b_.cursors[r.warp];
    if (c.end) return false;
    c = {base + r.begin, base + r.end};
  }
  return true;
}

// A trace may list a warp twice in one CTA: its runs are joined, in order.
void TraceCta::group_by_warp() {
  std::vector<ir::WarpInst> grouped;
  std::vector<CtaBuffers::Run> joined;
  grouped.reserve(b_.insts.size());
  for (uint32_t w = 0; w < warps_; ++w) {
    auto begin = static_cast<uint32_t>(grouped.size());
    for (const CtaBuffers::Run& r : b_.runs)
      if (r.warp == w) grouped.insert(grouped.end(), b_.insts.begin() + r.begin, b_.insts.begin() + r.end);
    if (grouped.size() > begin) joined.push_back({w, begin, static_cast<uint32_t>(grouped.size())});
  }
  b_.insts.swap(grouped);
  b_.runs.swap(joined);
}

}  // namespace ws::frontend
