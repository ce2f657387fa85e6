// Binary traces (.wst): lossless round trips against the text format, the
// same instruction stream as the text reader, and clear errors on damaged
// files.
#include <cstring>
#include <sstream>

#include "frontend/trace/synth.h"
#include "frontend/trace/trace_writer.h"
#include "frontend/trace/wst_convert.h"
#include "frontend/trace/wst_file.h"
#include "frontend/trace/wst_reader.h"
#include "frontend/trace/wst_writer.h"
#include "frontend/trace_test_util.h"
#include "ir/read_cta.h"

namespace ws::frontend {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string real_trace(const std::string& name) {
  return (fs::path(WARPSIM_SOURCE_DIR) / "examples" / "traces" / name).string();
}

// One line per instruction, every field the timing model reads, active
// lanes' addresses included: equal strings mean equal streams.
std::string stream_text(ir::KernelSource& k) {
  std::string out;
  ir::LaneAddrs scratch;
  while (auto cta = k.next_cta()) {
    Dim3 id = cta->cta_id();
    out += "cta " + std::to_string(id.x) + "," + std::to_string(id.y) + "," + std::to_string(id.z) + "\n";
    for (uint32_t w = 0; w < cta->num_warps(); ++w)
      while (const ir::WarpInst* i = cta->next(w)) {
        out += std::to_string(w) + " " + std::to_string(i->pc) + " " + std::to_string(i->active_mask) + " " +
               std::to_string(int(i->kind)) + " " + std::to_string(int(i->space)) + " " + std::to_string(i->unit) +
               " " + std::to_string(i->access_bytes) + " " + std::to_string(int(i->cache_op)) + " " +
               std::to_string(i->tensor_work) + " d";
        for (int r = 0; r < i->n_dst; ++r) out += " " + std::to_string(i->dst[r]);
        out += " s";
        for (int r = 0; r < i->n_src; ++r) out += " " + std::to_string(i->src[r]);
        if (const Addr* a = ir::lane_addrs(*i, scratch))
          for (uint32_t m = i->active_mask; m; m &= m - 1) out += " " + std::to_string(a[__builtin_ctz(m)]);
        out += "\n";
      }
  }
  return out;
}

TEST(Wst, RealTracesRoundTripByteIdentical) {
  for (const char* name : {"vectoradd-100-32-trace", "matrixmul-32-32-trace"}) {
    auto bin = test::temp_dir(std::string("wst-bin-") + name), text = test::temp_dir(std::string("wst-txt-") + name);
    ConvertStats to = convert_traces(real_trace(name), bin.string());
    EXPECT_TRUE(to.to_binary);
    EXPECT_EQ(to.kernels, 1u);
    ASSERT_TRUE(fs::exists(bin / "kernel-1.wst"));
    ConvertStats back = convert_traces(bin.string(), text.string());
    EXPECT_FALSE(back.to_binary);
    EXPECT_EQ(back.instructions, to.instructions);
    for (const char* f : {"kernelslist.g", "kernel-1.traceg"})
      EXPECT_EQ(read_bytes(text / f), read_bytes(fs::path(real_trace(name)) / f)) << name << " " << f;
    // The binary list names the .wst file in the text one's place.
    EXPECT_NE(read_bytes(bin / "kernelslist.g").find("kernel-1.wst\n"), std::string::npos);
  }
}

TEST(Wst, ReaderGivesTheTextReadersStream) {
  for (const char* name : {"vectoradd-100-32-trace", "matrixmul-32-32-trace"}) {
    auto bin = test::temp_dir(std::string("wst-stream-") + name);
    convert_traces(real_trace(name), bin.string());
    auto text = open_trace_kernel(real_trace(name) + "/kernel-1.traceg");
    auto binary = open_trace_kernel((bin / "kernel-1.wst").string());
    EXPECT_EQ(binary->info().name, text->info().name);
    EXPECT_EQ(binary->info().grid.count(), text->info().grid.count());
    std::string a = stream_text(*text), b = stream_text(*binary);
    EXPECT_GT(a.size(), 1000u);
    EXPECT_EQ(a, b) << name;
  }
}

// Every line layout the text reader knows, and spellings NVBit never
// writes (upper-case hex, extra blanks, address modes 0 and 2, a comment
// between blocks), come back byte for byte and read as the text does.
TEST(Wst, OddSpellingsAndLayoutsRoundTrip) {
  const std::string head = "-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (40,1,1)\n-binary version = 70\n"
                           "-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007effe0000000\n";
  struct Case {
    std::string version, prefix;
  };
  for (const Case& c : {Case{"", "0 0 0 1 "}, Case{"-accelsim tracer version = 4\n-enable lineinfo = 1\n", "17 "},
                        Case{"-accelsim tracer version = 5\n", ""}}) {
    bool v5 = c.version.find("= 5") != std::string::npos;
    std::string imm = v5 ? " -3 " : " ";
    std::string deltas = "8 8 -16";  // base, then 31 deltas
    for (int k = 0; k < 28; ++k) deltas += " 0";
    std::string body = "\n#traces format\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 4\n" + c.prefix +
                       "0010 ffffffff 1 R2 LDG.E.64 1 R4 8 2 0x7f0000001000 " + deltas + imm + "\n" +
                       c.prefix + "0018 0000000F 0 STG.E 2 R255 R2 4 0 0x7f0000002000 0x7f0000002040 0x1 0x3" + imm +
                       "\n  " + c.prefix + "0020 ffffffff 0 LD.E 1 R6 4 1 0x7f0000000010 4" + imm + "\n" + c.prefix +
                       "0028 00000000 0 EXIT 0 0" + imm + "\nwarp = 1\ninsts = 1\n" + c.prefix +
                       "0028 000000ff 0 EXIT 0 0" + imm + "\n\n#END_TB\n\n# between blocks\n#BEGIN_TB\n"
                       "thread block  = 1,0,0\nwarp = 0\ninsts = 1\n" + c.prefix + "0028 ffffffff 0 EXIT 0 0" + imm +
                       "\n#END_TB\n";
    auto dir = test::temp_dir("wst-odd");
    std::string text = head + c.version + body;
    test::write_file(dir / "k.traceg", text);
    EXPECT_EQ(text_kernel_to_wst((dir / "k.traceg").string(), (dir / "k.wst").string()), 6u);
    wst_kernel_to_text((dir / "k.wst").string(), (dir / "back.traceg").string());
    EXPECT_EQ(read_bytes(dir / "back.traceg"), text) << c.version;
    auto t = open_trace_kernel((dir / "k.traceg").string());
    auto b = open_trace_kernel((dir / "k.wst").string());
    EXPECT_EQ(stream_text(*t), stream_text(*b)) << c.version;
  }
}

// What TraceWriter writes in binary converts to exactly what it writes as text.
TEST(Wst, BinaryWriterMatchesTextWriter) {
  auto text = test::temp_dir("wst-w-text"), bin = test::temp_dir("wst-w-bin"), back = test::temp_dir("wst-w-back");
  for (auto [dir, binary] : {std::pair{text, false}, std::pair{bin, true}}) {
    TraceWriter w(dir.string(), binary);
    w.memcpy(0x7f1000000000, 4096);
    ir::KernelInfo info;
    info.name = "k";
    info.grid = {2, 1, 1};
    info.block = {64, 1, 1};
    info.binary_version = 70;
    w.begin_kernel(info);
    for (uint32_t c = 0; c < 2; ++c) {
      w.begin_cta({c, 0, 0});
      for (uint32_t warp = 0; warp < 2; ++warp) {
        w.begin_warp(warp, 2);
        TraceInst ld{0x10, 0xffffffff, "LDG.E", {4}, {2, 255}, 4, {}};
        for (uint32_t l = 0; l < 32; ++l) ld.addrs[l] = 0x7f1000000000 + (c * 64 + warp * 32 + l) * (l == 5 ? 12 : 4);
        w.add(ld);
        w.add(TraceInst{0x18, 0xffffffff, "EXIT", {}, {}, 0, {}});
      }
      w.end_cta();
    }
    w.end_kernel();
    w.close();
  }
  convert_traces(bin.string(), back.string());
  for (const char* f : {"kernelslist.g", "kernel-1.traceg"})
    EXPECT_EQ(read_bytes(back / f), read_bytes(text / f)) << f;
}

// Synthetic kernels of many CTAs span several zstd chunks; each CTA is read
// in its turn and the stream matches the text reader's.
TEST(Wst, ManyCtasAcrossChunks) {
  auto dir = test::temp_dir("wst-many"), bin = test::temp_dir("wst-many-bin");
  SynthSpec s{.kind = "stream", .ctas = 160, .threads_per_cta = 256, .iterations = 64};
  write_synthetic(s, dir.string());
  convert_traces(dir.string(), bin.string());
  wst::WstFile f((bin / "kernel-1.wst").string());
  EXPECT_EQ(f.ctas().size(), 160u);
  EXPECT_GT(f.ctas().back().chunk, 0u);  // more than one zstd frame
  EXPECT_EQ(f.instructions(), synth_instruction_count(s));
  auto t = open_trace_kernel((dir / "kernel-1.traceg").string());
  auto b = open_trace_kernel((bin / "kernel-1.wst").string());
  EXPECT_EQ(stream_text(*t), stream_text(*b));

  // Seeking: the last CTA decodes on its own from the index (its chunk
  // alone is decompressed), with the block id and count the index gives.
  struct Count {
    uint64_t insts = 0;
    Dim3 block{0, 0, 0};
    void op(wst::Op op, const uint64_t* a) {
      if (op == wst::kTb) block = Dim3{uint32_t(a[0]), uint32_t(a[1]), uint32_t(a[2])};
    }
    void text(wst::Op, std::string_view) {}
    void inst(uint32_t, uint32_t, const wst::InstAddrs&, const uint32_t*) { ++insts; }
  } count;
  wst::Predictor pred;
  wst::decode_record(f.record(159), f, pred, count);
  EXPECT_EQ(count.block, (Dim3{159, 0, 0}));
  EXPECT_EQ(count.block, f.ctas()[159].id);
  EXPECT_EQ(count.insts, f.ctas()[159].insts);
  EXPECT_EQ(count.insts, synth_instruction_count(s) / 160);  // every CTA runs the same loop
}

// A damaged file is refused with its name and an offset, never a crash:
// every truncation, and a flipped byte in every region.
TEST(Wst, DamagedFilesGiveClearErrors) {
  auto bin = test::temp_dir("wst-damage");
  convert_traces(real_trace("matrixmul-32-32-trace"), bin.string());
  std::string good = read_bytes(bin / "kernel-1.wst");
  auto path = bin / "bad.wst";
  auto drain = [&] {
    auto k = open_trace_kernel(path.string());
    test::count_kernel(*k);
  };
  for (size_t cut = 0; cut < good.size(); cut += 97) {
    test::write_file(path, good.substr(0, cut));
    std::string e = test::error_of(drain);
    EXPECT_NE(e.find(path.string()), std::string::npos) << cut << ": " << e;
    EXPECT_NE(e.find("offset"), std::string::npos) << cut << ": " << e;
  }
  for (size_t at = 8; at < good.size(); at += 13) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    test::write_file(path, bad);
    try {
      drain();  // a flip in a padding byte may change nothing
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << at << ": " << e.what();
    }
  }
}

// A list mixing binary and text kernels converts to text: the binary one
// is converted, the text one copied, and the list names both as text.
TEST(Wst, MixedListConvertsToText) {
  auto mixed = test::temp_dir("wst-mixed"), out = test::temp_dir("wst-mixed-out");
  std::string va = real_trace("vectoradd-100-32-trace") + "/kernel-1.traceg";
  text_kernel_to_wst(va, (mixed / "kernel-1.wst").string());
  fs::copy_file(va, mixed / "kernel-2.traceg");
  test::write_file(mixed / "kernelslist.g", "kernel-1.wst\nHostSync\nkernel-2.traceg\n");
  ConvertStats s = convert_traces(mixed.string(), out.string());
  EXPECT_FALSE(s.to_binary);
  EXPECT_EQ(s.kernels, 1u);
  EXPECT_EQ(read_bytes(out / "kernelslist.g"), "kernel-1.traceg\nHostSync\nkernel-2.traceg\n");
  EXPECT_EQ(read_bytes(out / "kernel-1.traceg"), read_bytes(va));
  EXPECT_EQ(read_bytes(out / "kernel-2.traceg"), read_bytes(va));
}

TEST(Wst, OtherFormatVersionIsRefused) {
  auto bin = test::temp_dir("wst-version");
  convert_traces(real_trace("vectoradd-100-32-trace"), bin.string());
  std::string bytes = read_bytes(bin / "kernel-1.wst");
  uint32_t v = 2;
  std::memcpy(bytes.data() + 8, &v, 4);
  test::write_file(bin / "v2.wst", bytes);
  std::string e = test::error_of([&] { open_trace_kernel((bin / "v2.wst").string()); });
  EXPECT_NE(e.find("format version 2; this warpsim reads version 1"), std::string::npos) << e;
  EXPECT_NE(e.find("v2.wst: offset 8"), std::string::npos) << e;
}

TEST(Wst, UnfinishedFileIsRefused) {
  auto dir = test::temp_dir("wst-unfinished");
  {
    wst::WstWriter w((dir / "k.wst").string(), "-grid dim = (1,1,1)\n", LineFormat{});
    std::string bytes = read_bytes(dir / "k.wst");
    test::write_file(dir / "copy.wst", bytes);  // before close(): no footer yet
    w.close();
  }
  std::string e = test::error_of([&] { open_trace_kernel((dir / "copy.wst").string()); });
  EXPECT_NE(e.find("writer did not finish"), std::string::npos) << e;
}

}  // namespace
}  // namespace ws::frontend
