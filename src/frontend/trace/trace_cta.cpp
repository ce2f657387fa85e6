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

// The static fields of an instruction (all but its active lanes and its
// addresses), hashed and compared field by field: padding bytes carry no
// value.
uint64_t static_hash(const ir::WarpInst& in, bool lane_list) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  mix(in.pc);
  mix(uint64_t{static_cast<uint8_t>(in.kind)} | uint64_t{static_cast<uint8_t>(in.space)} << 8 | uint64_t{in.unit} << 16 |
      uint64_t{in.access_bytes} << 24 | uint64_t{in.n_dst} << 32 | uint64_t{in.n_src} << 40 |
      uint64_t{in.strided} << 48 | uint64_t{lane_list} << 49 | uint64_t{in.sets_branch_pred} << 50 |
      uint64_t{in.tests_branch_pred} << 51 | uint64_t{in.write_barrier} << 52 | uint64_t{in.fma_pipe} << 55 |
      uint64_t{static_cast<uint8_t>(in.cache_op)} << 56);
  mix(static_cast<uint32_t>(in.stride) | uint64_t{in.tensor_work} << 32);
  for (int k = 0; k < in.n_dst; ++k) mix(in.dst[k]);
  for (int k = 0; k < in.n_src; ++k) mix(in.src[k]);
  return h;
}

bool same_static(const ir::WarpInst& a, const ir::WarpInst& b) {
  if (a.pc != b.pc || a.kind != b.kind || a.space != b.space || a.unit != b.unit || a.access_bytes != b.access_bytes ||
      a.n_dst != b.n_dst || a.n_src != b.n_src || a.strided != b.strided || a.stride != b.stride ||
      a.cache_op != b.cache_op || a.tensor_work != b.tensor_work || a.sets_branch_pred != b.sets_branch_pred ||
      a.tests_branch_pred != b.tests_branch_pred || a.write_barrier != b.write_barrier || a.fma_pipe != b.fma_pipe)
    return false;
  return std::equal(a.dst.begin(), a.dst.begin() + a.n_dst, b.dst.begin()) &&
         std::equal(a.src.begin(), a.src.begin() + a.n_src, b.src.begin());
}

}  // namespace

bool InstProtos::matches(uint32_t i, const ir::WarpInst& proto, bool lane_list) const {
  return same_static(protos_[i], proto) && (lane_list_[i] != 0) == lane_list;
}

uint32_t InstProtos::intern(const ir::WarpInst& proto, bool lane_list) {
  // Most instances match the entry last interned for their pc.
  uint32_t& hint = by_pc_[proto.pc % by_pc_.size()];
  if (hint == 0 || !matches(hint - 1, proto, lane_list)) hint = lookup(proto, lane_list) + 1;
  return hint - 1;
}

// A new entry gets its register slots past n_dst/n_src cleared, so that it
// equals every instance it stands for field by field.
uint32_t InstProtos::lookup(const ir::WarpInst& proto, bool lane_list) {
  for (uint64_t h = static_hash(proto, lane_list);; ++h) {
    uint32_t& slot = by_hash_[h];
    if (slot == 0) {
      protos_.push_back(proto);
      ir::WarpInst& p = protos_.back();
      std::fill(p.dst.begin() + p.n_dst, p.dst.end(), uint16_t{0});
      std::fill(p.src.begin() + p.n_src, p.src.end(), uint16_t{0});
      lane_list_.push_back(lane_list ? 1 : 0);
      slot = static_cast<uint32_t>(protos_.size());  // index + 1: 0 marks a new slot
      return slot - 1;
    }
    if (matches(slot - 1, proto, lane_list)) return slot - 1;
  }
}

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
  b.current.clear();  // sized on first use: the SM goes through next_into()
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

// Strided lanes (coalesced accesses, the common case) keep base and stride
// only; others list all 32 addresses.
StoredInst TraceCta::store(const ParsedInst& p) {
  ir::WarpInst proto = p.inst;
  proto.addrs = nullptr;
  StoredInst s{0, p.inst.active_mask, 0};
  bool lane_list = p.has_addrs && !ir::make_strided(p.addrs, proto);  // (reads the mask)
  proto.active_mask = 0;
  if (lane_list) {
    s.where = b_.addrs.size() / kLanes;
    b_.addrs.insert(b_.addrs.end(), p.addrs.begin(), p.addrs.end());
  } else if (proto.strided) {
    s.where = proto.base;
    proto.base = 0;
  }
  s.proto = pool_->protos().intern(proto, lane_list);
  return s;
}

void TraceCta::finish() {
  if (!point_cursors()) {
    group_by_warp();
    point_cursors();
  }
  pool_->remember_sizes(b_);
}

// False if some warp's instructions came in more than one run.
bool TraceCta::point_cursors() {
  std::fill(b_.cursors.begin(), b_.cursors.end(), CtaBuffers::Cursor{});
  const StoredInst* base = b_.insts.data();
  for (const CtaBuffers::Run& r : b_.runs) {
    CtaBuffers::Cursor& c = b_.cursors[r.warp];
    if (c.end) return false;
    c = {base + r.begin, base + r.end};
  }
  return true;
}

// A trace may list a warp twice in one CTA: its runs are joined, in order.
void TraceCta::group_by_warp() {
  std::vector<StoredInst> grouped;
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
