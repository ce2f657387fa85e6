// One CTA's instructions as read from a trace, and the pool that recycles
// their storage between the CTAs of a kernel.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "frontend/trace/trace_parse.h"
#include "ir/source.h"

namespace ws::frontend {

// The storage behind one CTA. All warps' instructions lie in one array and
// their lane addresses in another (32 per memory instruction, same order),
// so a CTA costs a handful of allocations however many warps it has.
struct CtaBuffers {
  // Consecutive instructions of one warp, as the trace listed them.
  struct Run {
    uint32_t warp, begin, end;
  };
  struct Cursor {
    const ir::WarpInst* cur = nullptr;
    const ir::WarpInst* end = nullptr;
  };
  std::vector<ir::WarpInst> insts;
  std::vector<Addr> addrs;
  std::vector<Run> runs;
  std::vector<Cursor> cursors;  // per warp, set once the CTA is complete
};

// Buffers of finished CTAs wait here for the next ones: in a kernel of many
// waves a CTA then reads into memory that is already mapped and big enough.
// Without a spare, new buffers are sized like the last CTA read, so that
// uniform kernels never regrow (and recopy) them.
class CtaBufferPool {
 public:
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
  const ir::WarpInst* next(uint32_t w) override {
    if (w >= warps_) return nullptr;
    CtaBuffers::Cursor& c = b_.cursors[w];
    if (c.cur == c.end) return nullptr;
    const ir::WarpInst* inst = c.cur++;
    // The warp's next instruction is asked for many simulated cycles later,
    // by when its line would have left the host's caches; requesting it now
    // lets it wait in the outer cache (two lines: an instruction may
    // straddle). A prefetch past the end is harmless.
    __builtin_prefetch(inst + 1);
    __builtin_prefetch(reinterpret_cast<const char*>(inst + 2) - 1);
    return inst;
  }

  void set_id(Dim3 id) { id_ = id; }
  // `insts = K` announces K more instructions for warp `w`.
  void reserve(uint32_t n);
  void add(uint32_t w, const ParsedInst& p);
  // Call once after the last add(): points instructions at their addresses
  // and warps at their instructions.
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
