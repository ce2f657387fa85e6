// TraceWriter's binary kernel files: the ops of the lines KernelTraceFile
// writes, so that both convert to the same text.
#include "common/error.h"
#include "frontend/trace/trace_parse.h"
#include "frontend/trace/trace_writer.h"
#include "frontend/trace/wst_writer.h"

namespace ws::frontend {

namespace {

class WstKernelFile final : public KernelFile {
 public:
  WstKernelFile(const std::string& path, const ir::KernelInfo& info, Addr shmem_base, Addr local_base)
      : w_(path, kernel_header_text(info, shmem_base, local_base), LineFormat{}) {}
  ~WstKernelFile() override {
    try {
      close();
    } catch (...) {
    }
  }
  void begin_cta(Dim3 id) override {
    w_.begin_record();
    w_.op(wst::kBeginTb);
    w_.op(wst::kBlank);
    w_.tb(id);
    w_.op(wst::kBlank);
  }
  void begin_warp(uint32_t warp, uint32_t count) override {
    if (pending_) throw Error("trace writer: previous warp is missing instructions");
    w_.op(wst::kWarp, warp);
    w_.op(wst::kInsts, count);
    pending_ = count;
  }
  void add(const TraceInst& i) override;
  void end_cta() override {
    if (pending_) throw Error("trace writer: warp is missing instructions");
    w_.op(wst::kBlank);
    w_.op(wst::kEndTb);
    w_.op(wst::kBlank);
  }
  void close() override {
    if (!closed_) w_.close();
    closed_ = true;
  }

 private:
  wst::WstWriter w_;
  wst::TextInst t_;
  uint32_t pending_ = 0;
  bool closed_ = false;
};

void WstKernelFile::add(const TraceInst& i) {
  if (pending_ == 0) throw Error("trace writer: more instructions than begin_warp() announced");
  --pending_;
  wst::InstProto& p = t_.proto;
  p.pc = i.pc;
  for (auto [from, to] : {std::pair{&i.dst, &p.dst}, std::pair{&i.src, &p.src}}) {
    to->clear();
    for (uint16_t r : *from) {
      if (r > 255) throw Error("trace writer: register R" + std::to_string(r) + " (the format has R0..R255)");
      to->push_back(static_cast<uint8_t>(r));
    }
  }
  p.mem_width = i.mem_width;
  t_.opcode = i.opcode;
  t_.mask = i.mask;
  wst::InstAddrs& a = t_.addrs;
  if (i.mem_width > 0) {
    a.mode = active_lane_stride(i, a.base, a.stride) ? 1 : 0;
    a.count = 0;
    if (a.mode == 0)
      for (uint32_t m = i.mask; m; m &= m - 1) a.vals[a.count++] = i.addrs[static_cast<size_t>(__builtin_ctz(m))];
  }
  w_.inst(t_);
}

}  // namespace

std::unique_ptr<KernelFile> open_wst_kernel_file(const std::string& path, const ir::KernelInfo& info, Addr shmem_base,
                                                 Addr local_base) {
  return std::make_unique<WstKernelFile>(path, info, shmem_base, local_base);
}

}  // namespace ws::frontend
