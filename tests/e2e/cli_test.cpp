// The warpsim binary as a user runs it: outputs, determinism and bad input.
#include <gtest/gtest.h>

#include "e2e/cli_util.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

using Result = ws::test::CliResult;
Result run(const std::string& args) { return ws::test::run_cli(args); }

fs::path temp(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("warpsim-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// The real NVBit traces checked in with the sources (as in ../shared/traces).
std::string example_traces() { return (fs::path(WARPSIM_SOURCE_DIR) / "examples" / "traces").string(); }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// Copies a real trace folder and replaces line `line` (1-based) of its kernel.
fs::path corrupt_copy(const std::string& name, int line, const std::string& text) {
  fs::path dir = temp("bad-" + name);
  ws::test::copy_trace_replacing_line(fs::path(example_traces()) / "vectoradd-100-32-trace", dir, line, text);
  return dir;
}

TEST(CliRun, WritesStatsAndEffectiveConfig) {
  fs::path out = temp("out");
  Result r = run("run " + example_traces() + "/matrixmul-32-32-trace --gpu qv100 --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = read_json(out / "stats.json");
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["total"]["warp_insts"], 4416);
  EXPECT_EQ(j["kernels"][0]["warp_insts"], 4416);
  EXPECT_EQ(j["kernels"][0]["block"], nlohmann::json({32, 32, 1}));
  // 8 KB of shared memory per 1024-thread CTA, two CTAs fit by threads: the
  // driver's carve-out is the smallest option holding 16 KB; the rest is L1.
  EXPECT_EQ(j["kernels"][0]["occupancy"]["shared_kb"], 16);
  EXPECT_EQ(j["kernels"][0]["occupancy"]["l1_kb"], 112);
  for (const char* k : {"cycles", "thread_insts", "ipc"}) EXPECT_TRUE(j["total"].contains(k)) << k;
  for (const char* k : {"accesses", "hits", "misses"}) {
    EXPECT_TRUE(j["l1d"].contains(k)) << k;
    EXPECT_TRUE(j["l2"].contains(k)) << k;
  }
  EXPECT_TRUE(j["dram"].contains("reads"));
  EXPECT_GT(j["sim"]["warp_insts_per_second"].get<double>(), 0);
  // Profiler-named metrics: one 1024-thread CTA keeps 32 of QV100's 64 warp
  // slots resident on the one active SM, and all of its loads miss the L1.
  auto ncu = j["kernels"][0]["ncu"];
  EXPECT_EQ(ncu["smsp__inst_executed.sum"], 4416);
  EXPECT_NEAR(ncu["sm__warps_active.avg.pct_of_peak_sustained_active"].get<double>(), 50.0, 1.0);
  EXPECT_EQ(ncu["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], j["l1d"]["reads"]);
  EXPECT_EQ(ncu["lts__t_sectors_op_write.sum"], j["l2"]["writes"]);
  EXPECT_EQ(ncu["lts__t_sectors_op_read.sum"], j["l2"]["reads"]);
  EXPECT_EQ(ncu["gpc__cycles_elapsed.max"].get<uint64_t>(), j["kernels"][0]["cycles"].get<uint64_t>());
  EXPECT_EQ(j["kernels"][0]["launch_gap_cycles"], 5000);  // the first launch pays the full latency
  EXPECT_EQ(j["total"]["elapsed_cycles"].get<uint64_t>(), j["total"]["cycles"].get<uint64_t>() + 5000);
  std::ifstream cfg(out / "config.toml");
  std::string text((std::istreambuf_iterator<char>(cfg)), {});
  EXPECT_NE(text.find("\"l2.size_kb\" = 6144"), std::string::npos);
}

// The profiler's L2 read sectors are the L2's reads plus what each launch
// adds outside the kernel's accesses (stats.launch_l2_read_sectors: 0 on
// qv100, as the test above reads; set here): per kernel once, in the run's
// total once per kernel.
TEST(CliRun, NcuReadSectorsAddEachLaunchsOwnReads) {
  fs::path out = temp("launch-reads");
  Result r = run("run " + example_traces() + "/matrixmul-32-32-trace --gpu qv100 --set stats.launch_l2_read_sectors=240 --out " +
                 out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = read_json(out / "stats.json");
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["ncu"]["lts__t_sectors_op_read.sum"].get<uint64_t>(),
            j["kernels"][0]["l2"]["reads"].get<uint64_t>() + 240);
  EXPECT_EQ(j["ncu"]["lts__t_sectors_op_read.sum"].get<uint64_t>(), j["l2"]["reads"].get<uint64_t>() + 240);
  EXPECT_EQ(j["ncu"]["lts__t_sectors_op_write.sum"], j["l2"]["writes"]);  // writes unchanged
}

TEST(CliRun, AccelSimFormatHasTheLinesScriptsParse) {
  Result r = run("run " + example_traces() + "/vectoradd-100-32-trace --gpu a100 --set l2.size_kb=8192 --format accelsim");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* key : {"gpu_sim_cycle = ", "gpu_sim_insn = ", "gpu_ipc = ", "gpu_tot_sim_cycle = ",
                          "gpu_tot_sim_insn = ", "gpgpu_n_tot_w_icount = 344", "L1D_total_cache_accesses = ",
                          "L1D_total_cache_misses = ", "L1D_total_cache_miss_rate = ", "L2_total_cache_accesses = ",
                          "L2_total_cache_misses = ", "L2_total_cache_miss_rate = ", "total dram reads = ",
                          "total dram writes = ", "gpgpu_simulation_rate = "})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

// People read demangled names; tools that match on the trace's name find it
// as mangled_name (and in --format accelsim, as Accel-Sim prints it).
TEST(CliRun, KernelNamesAreDemangledWithTheMangledNameKept) {
  fs::path out = temp("names");
  Result r = run("run " + example_traces() + "/matrixmul-32-32-trace --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  auto k = read_json(out / "stats.json")["kernels"][0];
  EXPECT_EQ(k["name"], "void mult_gpu<float>(float*, float*, float*, int, int)");
  EXPECT_EQ(k["mangled_name"], "_Z8mult_gpuIfEvPT_S1_S1_ii");
  // The summary column is 44 wide: 41 characters of the name and "...".
  EXPECT_NE(r.out.find("void mult_gpu<float>(float*, float*, floa..."), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("_Z8mult_gpu"), std::string::npos) << r.out;
  Result a = run("run " + example_traces() + "/matrixmul-32-32-trace --format accelsim");
  EXPECT_NE(a.out.find("kernel_name = _Z8mult_gpuIfEvPT_S1_S1_ii\n"), std::string::npos) << a.out;
}

TEST(CliRun, KernelWithoutSharedMemoryGetsTheWholeArrayAsL1) {
  fs::path out = temp("carve");
  ASSERT_EQ(run("run " + example_traces() + "/vectoradd-100-32-trace --format none --out " + out.string()).rc, 0);
  auto j = read_json(out / "stats.json");
  EXPECT_EQ(j["kernels"][0]["occupancy"]["shared_kb"], 0);
  EXPECT_EQ(j["kernels"][0]["occupancy"]["l1_kb"], 128);  // QV100's unified 128 KB
}

TEST(CliRun, IdenticalRunsGiveIdenticalStatsApartFromWallClock) {
  fs::path a = temp("det-a"), b = temp("det-b");
  std::string trace = example_traces() + "/matrixmul-32-32-trace";
  ASSERT_EQ(run("run " + trace + " --out " + a.string() + " --format none").rc, 0);
  ASSERT_EQ(run("run " + trace + " --out " + b.string() + " --format none").rc, 0);
  auto ja = read_json(a / "stats.json"), jb = read_json(b / "stats.json");
  ja.erase("sim");
  jb.erase("sim");
  EXPECT_EQ(ja, jb);
}

// --threads through the CLI: the same stats as one thread, and stats.json's
// `sim.host_threads` says how many ran (at most one per partition: the
// default layout's two SM groups and the memory system make three). Without
// --threads, the run takes the CPUs it may use, up to three.
TEST(CliRun, ThreadsChangeNothingButHostThreads) {
  fs::path a = temp("thr-1"), b = temp("thr-2"), c = temp("thr-8"), d = temp("thr-default");
  std::string args = "run " + example_traces() + "/matrixmul-32-32-trace --format none --out ";
  ASSERT_EQ(run(args + a.string() + " --threads 1").rc, 0);
  ASSERT_EQ(run(args + b.string() + " --threads 2").rc, 0);
  ASSERT_EQ(run(args + c.string() + " --threads 8").rc, 0);
  ASSERT_EQ(run(args + d.string()).rc, 0);
  auto ja = read_json(a / "stats.json"), jb = read_json(b / "stats.json"), jc = read_json(c / "stats.json"),
       jd = read_json(d / "stats.json");
  EXPECT_EQ(ja["sim"]["host_threads"], 1);
  EXPECT_EQ(jb["sim"]["host_threads"], 2);
  EXPECT_EQ(jc["sim"]["host_threads"], 3);
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  EXPECT_EQ(jd["sim"]["host_threads"], std::min(CPU_COUNT(&cpus), 3));
  for (auto* j : {&ja, &jb, &jc, &jd}) j->erase("sim");
  EXPECT_EQ(ja, jb);
  EXPECT_EQ(ja, jc);
  EXPECT_EQ(ja, jd);
  Result one_engine =
      run("run " + example_traces() + "/matrixmul-32-32-trace --set gpu.partitions=one --threads 2 --format none");
  EXPECT_NE(one_engine.rc, 0);
  EXPECT_NE(one_engine.out.find("gpu.partitions at sm-memory"), std::string::npos) << one_engine.out;
}

// The CLI re-executes itself for huge pages where that helps (this machine
// kind: THP on request, glibc 2.36); with it on or off (WARPSIM_HUGE_PAGES=0)
// the arguments arrive intact and the stats are the same.
TEST(CliRun, HugePagesChangeNothingButSpeed) {
  fs::path trace = temp("hp-trace"), a = temp("hp-on"), b = temp("hp-off");
  ASSERT_EQ(run("synth stream --ctas 32 --threads 128 --iterations 4 --footprint 65536 --out " + trace.string()).rc, 0);
  std::string args = "run " + trace.string() + " --gpu qv100 --set gpu.sms=8 --format none --out ";
  ASSERT_EQ(run(args + a.string()).rc, 0);
  setenv("WARPSIM_HUGE_PAGES", "0", 1);
  int rc_off = run(args + b.string()).rc;
  unsetenv("WARPSIM_HUGE_PAGES");
  ASSERT_EQ(rc_off, 0);
  auto ja = read_json(a / "stats.json"), jb = read_json(b / "stats.json");
  EXPECT_GT(ja["total"]["warp_insts"].get<uint64_t>(), 0u);
  ja.erase("sim");
  jb.erase("sim");
  EXPECT_EQ(ja, jb);
}

// The profiling recipe in docs/performance.md runs warpsim under valgrind:
// the huge-page re-execution must stand aside there, or the run would escape
// the tool (or fail to start).
TEST(CliRun, RunsUnderValgrind) {
  if (std::system("valgrind --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "valgrind not installed";
  fs::path trace = temp("vg-trace"), out = temp("vg-out");
  ASSERT_EQ(run("synth stream --ctas 8 --threads 64 --iterations 2 --footprint 4096 --out " + trace.string()).rc, 0);
  std::string cmd = "valgrind -q --tool=none " + std::string(WARPSIM_BIN) + " run " + trace.string() +
                    " --gpu qv100 --set gpu.sms=4 --format none --out " + out.string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  int status = pclose(p);
  ASSERT_EQ(WEXITSTATUS(status), 0) << text;
  EXPECT_EQ(text.find("cannot run"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(out / "stats.json")) << text;
}

TEST(CliErrors, UnknownPresetAndParameterAreNamed) {
  Result r = run("run . --gpu qv1000");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("unknown GPU preset 'qv1000'"), std::string::npos) << r.out;
  r = run("run . --set l2.sise_kb=3");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("did you mean 'l2.size_kb'"), std::string::npos) << r.out;
  r = run("run . --set l2.ways=0");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("l2.ways"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out of range"), std::string::npos) << r.out;
}

TEST(CliErrors, MissingTraceIsNamed) {
  Result r = run("run /nonexistent/trace-folder");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("/nonexistent/trace-folder"), std::string::npos) << r.out;
}

TEST(CliErrors, MalformedTraceLineNamesFileLineFieldAndKeepsNoCompleteJson) {
  // Line 30 of vectoradd's kernel is an instruction; give it a bad mask.
  fs::path dir = corrupt_copy("mask", 30, "0018 zzzzzzzz 1 R2 S2R 0 0");
  fs::path out = temp("bad-out");
  Result r = run("run " + dir.string() + " --out " + out.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("kernel-1.traceg:30"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mask"), std::string::npos) << r.out;
  auto j = read_json(out / "stats.json");
  EXPECT_EQ(j["complete"], false);
  EXPECT_NE(j["error"].get<std::string>().find("kernel-1.traceg:30"), std::string::npos);
}

TEST(CliErrors, UnknownOpcodeIsNamed) {
  fs::path dir = corrupt_copy("opcode", 30, "0018 ffffffff 1 R2 FROBNICATE 0 0");
  Result r = run("run " + dir.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("FROBNICATE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel-1.traceg:30"), std::string::npos) << r.out;
}

TEST(CliInfo, PresetsAndParamsList) {
  Result r = run("presets");
  ASSERT_EQ(r.rc, 0);
  for (const char* p : {"qv100", "rtx2060", "rtx3070", "a100", "h100", "gtx480", "k20"})
    EXPECT_NE(r.out.find(p), std::string::npos);
  r = run("params");
  ASSERT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("l1d.latency"), std::string::npos);
  EXPECT_NE(r.out.find("cycles"), std::string::npos);
}

// The sweep validator reads this form: every declared parameter, ranges with
// an unbounded side as null.
TEST(CliInfo, ParamsJson) {
  Result r = run("params --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "warpsim-params/1");
  bool seen = false;
  for (const auto& p : j["params"]) {
    if (p["name"] != "l1d.replacement") continue;
    seen = true;
    EXPECT_EQ(p["type"], "string");
    EXPECT_EQ(p["default"], "lru");
    EXPECT_TRUE(p["min"].is_null() && p["max"].is_null());
  }
  EXPECT_TRUE(seen);
  for (const auto& p : j["params"]) {
    if (p["name"] != "core.subcores") continue;
    EXPECT_EQ(p["min"], 1.0);
    EXPECT_EQ(p["max"], 16.0);
  }
}

}  // namespace
