// One CTA's instructions as read from a trace, and the pool that recycles
// their storage between the CTAs of a kernel.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/flat_map.h"
#include "frontend/trace/trace_parse.h"
#include "ir/source.h"

namespace ws::frontend {

// A warp instruction as stored: what repeats from one dynamic instance to the
// next (pc, opcode facts, registers, access width, stride) is an index into
// the kernel's table of distinct static instructions (InstProtos), so each
// stored instruction takes 16 bytes instead of a whole WarpInst: the trace
// of a kernel takes a quarter of the memory, and reading it back at issue
// brings a quarter of the cache lines into the host's caches.
struct StoredInst {
  uint32_t proto = 0;  // index in InstProtos
  uint32_t mask = 0;   // active lanes
  uint64_t where = 0;  // strided: lane 0's address; lane list: its index in CtaBuffers::addrs / 32
};

// The distinct static instructions of one kernel: a WarpInst with no active
// lanes and no addresses (strided ones keep their stride, base 0), and
// whether its instances list 32 lane addresses.
class InstProtos {
 public:
  uint32_t intern(const ir::WarpInst& proto, bool lane_list);
  const ir::WarpInst& operator[](uint32_t i) const { return protos_[i]; }
  bool lane_list(uint32_t i) const { return lane_list_[i] != 0; }
  size_t size() const { return protos_.size(); }

 private:
  bool matches(uint32_t i, const ir::WarpInst& proto, bool lane_list) const;
  uint32_t lookup(const ir::WarpInst& proto, bool lane_list);

  std::vector<ir::WarpInst> protos_;
  std::vector<uint8_t> lane_list_;
  FlatMap<uint32_t> by_hash_;  // hash of the static fields -> first proto with it (collisions probe on)
  std::array<uint32_t, 1024> by_pc_{};  // pc (mod size) -> last proto interned for it + 1, 0: none
};

// The storage behind one CTA. All warps' instructions lie in one array and
// their lane addresses in another (32 per instruction that lists them, same
// order), so a CTA costs a handful of allocations however many warps it has.
struct CtaBuffers {
  // Consecutive instructions of one warp, as the trace listed them.
  struct Run {
    uint32_t warp, begin, end;
  };
  struct Cursor {
    const StoredInst* cur = nullptr;
    const StoredInst* end = nullptr;
  };
  std::vector<StoredInst> insts;
  std::vector<Addr> addrs;
  std::vector<Run> runs;
  std::vector<Cursor> cursors;  // per warp, set once the CTA is complete
  std::vector<ir::WarpInst> current;  // per warp: what next() last returned (sized by the first next())
};

// What the CTAs of one kernel share: the table of static instructions, and
// the buffers of finished CTAs, which wait here for the next ones (in a
// kernel of many waves a CTA then reads into memory that is already mapped
// and big enough). Without a spare, new buffers are sized like the last CTA
// read, so that uniform kernels never regrow (and recopy) them.
class CtaBufferPool {
 public:
  InstProtos& protos() { return protos_; }
  CtaBuffers take(uint32_t warps);
  void give(CtaBuffers b);
  void remember_sizes(const CtaBuffers& b);
  size_t spares() const { return spare_.size(); }

 private:
  // Enough for the CTAs that end between two launches; beyond that the memory
  // goes back to the allocator.
  static constexpr size_t kMaxSpare = 16;
  std::vector<CtaBuffers> spare_;
  size_t insts_hint_ = 0, addrs_hint_ = 0;
  InstProtos protos_;
};

class TraceCta final : public ir::CtaSource {
 public:
  TraceCta(uint32_t warps, std::shared_ptr<CtaBufferPool> pool)
      : pool_(std::move(pool)), b_(pool_->take(warps)), warps_(warps) {}
  ~TraceCta() override { pool_->give(std::move(b_)); }
  TraceCta(const TraceCta&) = delete;
  TraceCta& operator=(const TraceCta&) = delete;

  Dim3 cta_id() const override { return id_; }
  uint32_t num_warps() const override { return warps_; }
  // The instruction is rebuilt from its stored form into a per-warp slot,
  // valid until the next call for the same warp.
  const ir::WarpInst* next(uint32_t w) override {
    if (w >= warps_) return nullptr;
    if (b_.current.empty()) b_.current.resize(warps_);
    if (!next_into(w, b_.current[w])) return nullptr;
    return &b_.current[w];
  }
  // The SM's way in: rebuilt straight into the warp's own copy.
  bool next_into(uint32_t w, ir::WarpInst& out) override {
    if (w >= warps_) return false;
    CtaBuffers::Cursor& c = b_.cursors[w];
    if (c.cur == c.end) return false;
    const StoredInst& s = *c.cur++;
    // The warp's next instruction is asked for many simulated cycles later,
    // by when its line would have left the host's caches; requesting it now
    // lets it wait in the outer cache. A prefetch past the end is harmless.
    __builtin_prefetch(c.cur);
    const InstProtos& protos = pool_->protos();
    out = protos[s.proto];
    out.active_mask = s.mask;
    if (out.strided) out.base = s.where;
    else if (protos.lane_list(s.proto)) out.addrs = b_.addrs.data() + 32 * s.where;
    return true;
  }

  void set_id(Dim3 id) { id_ = id; }
  // `insts = K` announces K more instructions for warp `w`.
  void reserve(uint32_t n);
  // Returns the stored form, which add_stored() takes again for a later
  // instance of the same line (see LineMemo) when it lists no lane addresses.
  StoredInst add(uint32_t w, const ParsedInst& p) {
    StoredInst s = store(p);
    add_stored(w, s);
    return s;
  }
  // The stored form of `p` (its lane addresses kept in this CTA's buffers
  // if it lists them), not yet added to any warp.
  StoredInst store(const ParsedInst& p);
  // Appends `n` instructions to warp `w`, to be written through the
  // returned pointer (valid until the next add or extend): a reader that
  // knows a warp's count fills them without a bounds check each.
  StoredInst* extend(uint32_t w, uint32_t n) {
    auto at = static_cast<uint32_t>(b_.insts.size());
    if (b_.runs.empty() || b_.runs.back().warp != w) b_.runs.push_back({w, at, at});
    b_.runs.back().end += n;
    b_.insts.resize(at + size_t{n});
    return b_.insts.data() + at;
  }
  // Whether a stored instruction lists its 32 lane addresses in this CTA's
  // buffers (and so cannot be reused elsewhere).
  bool lists_lanes(const StoredInst& s) const { return pool_->protos().lane_list(s.proto); }
  void add_stored(uint32_t w, const StoredInst& s) {
    auto at = static_cast<uint32_t>(b_.insts.size());
    if (b_.runs.empty() || b_.runs.back().warp != w) b_.runs.push_back({w, at, at});
    ++b_.runs.back().end;
    b_.insts.push_back(s);
  }
  // Call once after the last add(): points warps at their instructions.
  void finish();

 private:
  bool point_cursors();
  void group_by_warp();

  std::shared_ptr<CtaBufferPool> pool_;
  CtaBuffers b_;
  uint32_t warps_;
  Dim3 id_;
};

}  // namespace ws::frontend
