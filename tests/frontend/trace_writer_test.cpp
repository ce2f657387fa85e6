// Writer output and a write -> read round trip.
#include <cstdio>
#include <tuple>

#include "common/error.h"
#include "frontend/trace_test_util.h"
#include "frontend/trace/trace_writer.h"

namespace ws::frontend {
namespace {

TraceInst mem_inst(uint32_t mask, Addr base, int64_t stride) {
  TraceInst i;
  i.pc = 0x20;
  i.mask = mask;
  i.opcode = "LDG.E.64.SYS";
  i.dst = {4};
  i.src = {2};
  i.mem_width = 8;
  uint64_t k = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1) i.addrs[l] = base + static_cast<uint64_t>(stride) * k++;
  return i;
}

TEST(TraceWriter, ChoosesAddressMode) {
  EXPECT_EQ(format_inst_line(mem_inst(0xffffffff, 0x1000, 8)), "0020 ffffffff 1 R4 LDG.E.64.SYS 1 R2 8 1 0x1000 8 ");
  EXPECT_EQ(format_inst_line(mem_inst(0x0000000a, 0x1000, -4)), "0020 0000000a 1 R4 LDG.E.64.SYS 1 R2 8 1 0x1000 -4 ");
  TraceInst irregular = mem_inst(0x7, 0x1000, 8);
  irregular.addrs[2] = 0x5000;
  EXPECT_EQ(format_inst_line(irregular), "0020 00000007 1 R4 LDG.E.64.SYS 1 R2 8 0 0x1000 0x1008 0x5000 ");
  TraceInst alu;
  alu.opcode = "EXIT";
  EXPECT_EQ(format_inst_line(alu), "0000 ffffffff 0 EXIT 0 0 ");
}

TEST(TraceWriter, RoundTrip) {
  auto dir = test::temp_dir("roundtrip");
  std::vector<TraceInst> prog;
  prog.push_back(mem_inst(0xffffffff, 0x7f1000000000, 4));
  prog.push_back(mem_inst(0x0000f00f, 0x7f1000000100, 16));
  TraceInst scattered = mem_inst(0x3, 0x7f1000000000, 4);
  scattered.addrs[1] = 0x7f1000009000;
  prog.push_back(scattered);
  TraceInst ffma;
  ffma.pc = 0x30, ffma.opcode = "FFMA", ffma.dst = {8}, ffma.src = {8, 2, 3};
  prog.push_back(ffma);
  TraceInst exit_i;
  exit_i.pc = 0x40, exit_i.opcode = "EXIT";
  prog.push_back(exit_i);
  {
    TraceWriter w(dir.string());
    w.memcpy(0x7f1000000000, 1 << 20);
    ir::KernelInfo k;
    k.name = "roundtrip";
    k.grid = Dim3{1, 1, 1};
    k.block = Dim3{32, 1, 1};
    k.binary_version = 70;
    w.begin_kernel(k);
    w.begin_cta(Dim3{0, 0, 0});
    w.begin_warp(0, static_cast<uint32_t>(prog.size()));
    for (const TraceInst& i : prog) w.add(i);
    w.end_cta();
  }
  auto wl = open_trace_workload(dir.string());
  ASSERT_EQ(std::get<ir::MemcpyHtoD>(*wl->next()).bytes, 1u << 20);
  auto k = std::get<std::unique_ptr<ir::KernelSource>>(std::move(*wl->next()));
  EXPECT_EQ(k->info().name, "roundtrip");
  auto cta = k->next_cta();
  for (const TraceInst& t : prog) {
    const ir::WarpInst* i = cta->next(0);
    ASSERT_TRUE(i);
    EXPECT_EQ(i->pc, t.pc);
    EXPECT_EQ(i->active_mask, t.mask);
    ASSERT_EQ(i->n_dst, t.dst.size());
    ASSERT_EQ(i->n_src, t.src.size());
    for (size_t s = 0; s < t.src.size(); ++s) EXPECT_EQ(i->src[s], t.src[s]);
    if (t.mem_width == 0) continue;
    for (unsigned l = 0; l < 32; ++l)
      if (t.mask >> l & 1) {
        EXPECT_EQ(i->lane_addr(l), t.addrs[l]) << "lane " << l;
      }
  }
  EXPECT_EQ(cta->next(0), nullptr);
  EXPECT_EQ(k->next_cta(), nullptr);
}

// Stream lines read back as written: a non-blocking stream's note (so that
// a replay does not order it after the legacy stream), then an event record
// and wait on it; a malformed note names the expected form.
TEST(TraceWriter, StreamLinesRoundTrip) {
  auto dir = test::temp_dir("streams");
  {
    TraceWriter w(dir.string());
    w.stream_event(ir::StreamEvent{ir::StreamEvent::Kind::NonBlocking, 4, 0});
    w.stream_event(ir::StreamEvent{ir::StreamEvent::Kind::Record, 4, 7});
    w.stream_event(ir::StreamEvent{ir::StreamEvent::Kind::Wait, 2, 7});
    ir::KernelInfo k;
    k.name = "k";
    k.grid = Dim3{1, 1, 1};
    k.block = Dim3{32, 1, 1};
    k.binary_version = 70;
    w.begin_kernel(k);
    w.begin_cta(Dim3{0, 0, 0});
    w.begin_warp(0, 1);
    TraceInst exit_i;
    exit_i.opcode = "EXIT";
    w.add(exit_i);
    w.end_cta();
  }
  auto wl = open_trace_workload(dir.string());
  using K = ir::StreamEvent::Kind;
  for (auto [kind, stream, event] : {std::tuple{K::NonBlocking, 4, 0}, {K::Record, 4, 7}, {K::Wait, 2, 7}}) {
    auto e = std::get<ir::StreamEvent>(*wl->next());
    EXPECT_EQ(e.kind, kind);
    EXPECT_EQ(e.stream, stream);
    EXPECT_EQ(e.event, uint64_t(event));
  }
  std::FILE* f = std::fopen((dir / "kernelslist.g").c_str(), "a");
  std::fputs("StreamNonBlocking,x\n", f);
  std::fclose(f);
  try {
    open_trace_workload(dir.string());
    FAIL() << "a malformed StreamNonBlocking line was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected StreamNonBlocking,<stream>"), std::string::npos) << e.what();
  }
}

TEST(TraceWriter, CountMismatchIsAnError) {
  auto dir = test::temp_dir("mismatch");
  TraceWriter w(dir.string());
  ir::KernelInfo k;
  k.binary_version = 70;
  w.begin_kernel(k);
  w.begin_cta(Dim3{});
  w.begin_warp(0, 2);
  TraceInst i;
  i.opcode = "EXIT";
  w.add(i);
  EXPECT_THROW(w.end_cta(), Error);
}

}  // namespace
}  // namespace ws::frontend
