#include "frontend/trace/wst_reader.h"

#include <climits>

#include "common/error.h"
#include "frontend/trace/trace_checks.h"
#include "frontend/trace/trace_cta.h"
#include "frontend/trace/wst_file.h"

namespace ws::frontend {

namespace {

// A static instruction as the timing model sees it, and the stored form its
// instances take (cached: consecutive instances mostly share it).
struct ProtoFacts {
  ir::WarpInst proto;       // no lanes, no addresses
  bool addrs = false;       // a memory access with traced addresses
  bool generic = false;     // its space depends on the address
  uint32_t fixed = 0;       // without addresses: its InstProtos entry
  int64_t last_stride = 0;  // with addresses: the strided entry last used
  ir::MemSpace last_space = ir::MemSpace::None;
  uint32_t last_id = UINT32_MAX;
};

class WstKernel final : public ir::KernelSource {
 public:
  WstKernel(const std::string& path, std::shared_ptr<const IsaTable> isa);
  const ir::KernelInfo& info() const override { return file_.header().info; }
  const std::vector<std::string>& unit_names() const override { return isa_->unit_names(); }
  std::unique_ptr<ir::CtaSource> next_cta() override;
  // A CTA is read whole by next_cta(); its next() only reads what the
  // kernel's CTAs share (the table of static instructions).
  bool ctas_read_concurrently() const override { return true; }

 private:
  friend class CtaBuilder;
  void resolve_protos();
  uint32_t strided_id(ProtoFacts& f, int64_t stride, ir::MemSpace space);
  StoredInst stored(TraceCta& cta, uint32_t id, uint32_t mask, const wst::InstAddrs& a);

  wst::WstFile file_;
  std::shared_ptr<const IsaTable> isa_;
  std::vector<ProtoFacts> facts_;
  std::vector<uint32_t> fixed_;  // per proto: facts_[i].fixed, or UINT32_MAX with addresses (the hot loop's view)
  std::shared_ptr<CtaBufferPool> pool_ = std::make_shared<CtaBufferPool>();
  wst::Predictor pred_;
  ParsedInst scratch_;
  BlockLedger blocks_;
  size_t next_ = 0;
};

WstKernel::WstKernel(const std::string& path, std::shared_ptr<const IsaTable> isa) : file_(path), isa_(std::move(isa)) {
  if (!isa_) {
    uint32_t v = file_.header().info.binary_version;
    try {
      isa_ = std::make_shared<IsaTable>(IsaTable::load(v));
    } catch (const InputError& e) {
      throw InputError(path + ": binary version " + std::to_string(v) + ": " + e.what());
    }
  }
  resolve_protos();
}

// Copies a static instruction's registers into the IR, dropping RZ (R255)
// as the text parser does, with its error when too many remain.
template <size_t N>
uint8_t ir_regs(const wst::RegList& regs, std::array<uint16_t, N>& out, const std::string& file,
                const char* field) {
  uint8_t n = 0;
  for (uint8_t r : regs) {
    if (r == 255) continue;
    if (n == N)
      throw InputError(file, 0, field, "more than " + std::to_string(N) + " registers (the IR holds at most " +
                                           std::to_string(N) + ")");
    out[n++] = r;
  }
  return n;
}

// Each opcode (with or without traced addresses) goes through the text
// parser once, spelled as a line without registers: the opcode tables
// decide kind, unit, space and access size exactly as for a text trace,
// and their errors read the same. Static instructions then take that
// template with their own pc and registers.
void WstKernel::resolve_protos() {
  const wst::WstFile& f = file_;
  InstParser parser(*isa_, f.format());
  std::vector<int32_t> parsed(2 * f.opcodes().size(), -1);  // (opcode, has width) -> index in templates
  std::vector<ProtoFacts> templates;
  std::string line;
  facts_.resize(f.protos().size());
  for (size_t i = 0; i < facts_.size(); ++i) {
    const wst::InstProto& proto = f.protos()[i];
    int32_t& t = parsed[2 * proto.opcode + (proto.mem_width > 0)];
    if (t < 0) {
      wst::TextInst text;
      text.proto = proto;
      text.proto.dst.clear();
      text.proto.src.clear();
      text.opcode = f.opcodes()[proto.opcode];
      text.mask = ~0u;
      text.addrs.mode = 1;
      line.clear();
      wst::render_inst_line(text, f.format(), line);
      parser.parse(line, scratch_, LineCtx{f.path(), 0});
      t = static_cast<int32_t>(templates.size());
      templates.push_back(ProtoFacts{scratch_.inst, scratch_.has_addrs, scratch_.space_from_address});
      templates.back().proto.active_mask = 0;
      templates.back().proto.addrs = nullptr;
    }
    ProtoFacts& p = facts_[i] = templates[static_cast<size_t>(t)];
    p.proto.pc = proto.pc;
    p.proto.n_dst = ir_regs(proto.dst, p.proto.dst, f.path(), "dst") & 0xf;
    p.proto.n_src = ir_regs(proto.src, p.proto.src, f.path(), "src") & 0xf;
    if (!p.addrs) p.fixed = pool_->protos().intern(p.proto, false);
    fixed_.push_back(p.addrs ? UINT32_MAX : p.fixed);
  }
}

uint32_t WstKernel::strided_id(ProtoFacts& f, int64_t stride, ir::MemSpace space) {
  ir::WarpInst p = f.proto;
  p.strided = true;
  p.stride = static_cast<int32_t>(stride);
  p.space = space;
  f.last_stride = stride;
  f.last_space = space;
  return f.last_id = pool_->protos().intern(p, false);
}

// The stored form the text reader would give the same line: a coalesced
// access over consecutive lanes directly; anything else through the lane
// addresses, as TraceCta::add() stores a parsed line.
StoredInst WstKernel::stored(TraceCta& cta, uint32_t id, uint32_t mask, const wst::InstAddrs& a) {
  if (uint32_t fixed = fixed_[id]; fixed != UINT32_MAX) return StoredInst{fixed, mask, 0};
  ProtoFacts& f = facts_[id];
  if (a.mode == 1 && mask != 0) {
    auto first = static_cast<uint32_t>(__builtin_ctz(mask));
    uint32_t run = mask >> first;
    int64_t stride = run == 1 ? 0 : a.stride;  // one lane: make_strided() gives stride 0
    if ((run & (run + 1)) == 0 && stride >= INT32_MIN && stride <= INT32_MAX) {
      ir::MemSpace space = f.generic ? classify_generic(a.base, file_.format()) : f.proto.space;
      uint32_t sid = f.last_id != UINT32_MAX && f.last_stride == stride && f.last_space == space
                         ? f.last_id
                         : strided_id(f, stride, space);
      return StoredInst{sid, mask, a.base - static_cast<uint64_t>(stride) * first};
    }
  }
  ParsedInst& p = scratch_;
  p.inst = f.proto;
  p.inst.active_mask = mask;
  wst::lane_addresses(a, mask, p.addrs);
  p.has_addrs = true;
  p.inst.addrs = p.addrs.data();
  if (f.generic) p.inst.space = generic_space(p.inst, file_.format());
  return cta.store(p);
}

// Follows one CTA record's ops with the text reader's rules for the lines
// they stand for; what breaks them is an error naming the record.
class CtaBuilder {
 public:
  CtaBuilder(WstKernel& k, TraceCta& cta, size_t record)
      : k_(k), cta_(cta), record_(record), seen_(cta.num_warps()), threads_(k.info().block.count()) {}
  void op(wst::Op op, const uint64_t* args) {
    if (op == wst::kBlank) return;
    if (pending_) fail("insts", std::to_string(pending_) + " instructions of warp " + std::to_string(warp_) + " missing");
    if (op != wst::kBeginTb && (!begun_ || ended_)) fail("body", "an op outside #BEGIN_TB ... #END_TB");
    switch (op) {
      case wst::kBeginTb:
        if (begun_) fail("body", "a second #BEGIN_TB in one record");
        begun_ = true;
        break;
      case wst::kEndTb: ended_ = true; break;
      case wst::kTb: block(Dim3{uint32_t(args[0]), uint32_t(args[1]), uint32_t(args[2])}); break;
      case wst::kWarp: warp(static_cast<uint32_t>(args[0])); break;
      default:
        if (warp_ == UINT32_MAX) fail("insts", "instruction count before any warp");
        pending_ = static_cast<uint32_t>(args[0]);
        slot_ = cta_.extend(warp_, pending_);
        break;
    }
  }
  void text(wst::Op, std::string_view) {}
  void inst(uint32_t id, uint32_t mask, const wst::InstAddrs& a, const uint32_t*) {
    if (pending_ == 0) fail("insts", "an instruction beyond its warp's count");
    --pending_;
    if (mask & ~lanes_) fail("mask", mask_error(mask, lanes_, threads_, warp_));
    *slot_++ = k_.stored(cta_, id, mask, a);
  }
  void finish() {
    if (!ended_) fail("body", "no #END_TB");
  }

 private:
  void block(Dim3 b) {
    if (std::string e = k_.blocks_.add(b, k_.info().grid); !e.empty()) fail("thread block", e);
    cta_.set_id(b);
  }
  void warp(uint32_t w) {
    if (w >= cta_.num_warps())
      fail("warp", "warp " + std::to_string(w) + " but the CTA has " + std::to_string(cta_.num_warps()) + " warps");
    if (seen_[w]) fail("warp", "warp " + std::to_string(w) + " listed twice in this thread block");
    seen_[w] = true;
    warp_ = w;
    lanes_ = warp_lanes(threads_, w);
  }
  [[noreturn]] void fail(const char* field, const std::string& what) const {
    const wst::CtaIndex& c = k_.file_.ctas()[record_];
    throw InputError(k_.file_.path() + ": CTA record " + std::to_string(record_) + " (chunk " +
                     std::to_string(c.chunk) + ", offset " + std::to_string(c.offset) + "): field '" + field +
                     "': " + what);
  }

  WstKernel& k_;
  TraceCta& cta_;
  size_t record_;
  std::vector<bool> seen_;
  uint64_t threads_;
  bool begun_ = false, ended_ = false;
  uint32_t warp_ = UINT32_MAX, pending_ = 0, lanes_ = ~0u;
  StoredInst* slot_ = nullptr;  // where the warp's next instruction goes
};

std::unique_ptr<ir::CtaSource> WstKernel::next_cta() {
  const ir::KernelInfo& k = info();
  if (next_ >= file_.ctas().size()) {
    if (next_ < k.grid.count())
      throw InputError(file_.path(), 0, "thread block",
                       "truncated: " + std::to_string(next_) + " of " + std::to_string(k.grid.count()) +
                           " thread blocks present");
    return nullptr;
  }
  auto cta = std::make_unique<TraceCta>(k.warps_per_cta(), pool_);
  cta->reserve(file_.ctas()[next_].insts);
  CtaBuilder b(*this, *cta, next_);
  wst::decode_record(file_.record(next_), file_, pred_, b);
  b.finish();
  ++next_;
  cta->finish();
  return cta;
}

}  // namespace

std::unique_ptr<ir::KernelSource> open_wst_kernel(const std::string& path, std::shared_ptr<const IsaTable> isa) {
  return std::make_unique<WstKernel>(path, std::move(isa));
}

TraceHeader read_wst_header(const std::string& path) { return wst::WstFile(path).header(); }

}  // namespace ws::frontend
