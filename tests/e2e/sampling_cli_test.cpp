// Kernel sampling from the command line: profile, then run under a plan.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/cli_util.h"
#include "e2e/sim_util.h"
#include "sampling/kernel_features.h"

namespace {

namespace fs = std::filesystem;
using ws::test::run_cli;

fs::path temp(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("warpsim-sampling-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Launches: stream compute stream compute stream compute chase (7).
fs::path mixed_workload() {
  static fs::path dir;
  if (!dir.empty()) return dir;
  dir = temp("mixed");
  ws::frontend::SynthSpec s;
  s.ctas = 16;
  s.threads_per_cta = 128;
  s.iterations = 4;
  s.footprint_bytes = 1 << 18;
  for (const char* kind : {"stream", "compute", "chase"}) {
    s.kind = kind;
    s.ctas = s.kind == "chase" ? 2 : 16;
    fs::path one = ws::test::synth(s, std::string("sampling-") + kind);
    fs::copy_file(fs::path(one) / "kernel-1.traceg", dir / (std::string(kind) + ".traceg"));
  }
  std::ofstream list(dir / "kernelslist.g");
  for (int i = 0; i < 3; ++i) list << "stream.traceg\ncompute.traceg\n";
  list << "chase.traceg\n";
  return dir;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void write_plan(const fs::path& p, const nlohmann::json& groups, std::vector<std::string> names = {}) {
  if (names.empty())
    for (int i = 0; i < 3; ++i) names.insert(names.end(), {"warpsim_synth_stream", "warpsim_synth_compute"});
  if (names.size() == 6) names.push_back("warpsim_synth_chase");
  nlohmann::json j{{"version", 1}, {"launches", names.size()}, {"names", names}, {"groups", groups}};
  std::ofstream(p) << j.dump();
}

const nlohmann::json kThreeGroups = nlohmann::json::array(
    {{{"group", 0}, {"representative", 1}, {"weight", 3}, {"name", "warpsim_synth_stream"}},
     {{"group", 1}, {"representative", 2}, {"weight", 3}, {"name", "warpsim_synth_compute"}},
     {{"group", 2}, {"representative", 7}, {"weight", 1}, {"name", "warpsim_synth_chase"}}});

TEST(SamplingCli, ProfileWritesOneRowPerLaunchWithNcuNames) {
  fs::path csv = temp("profile") / "prof.csv";
  auto r = run_cli("profile --no-progress --out " + csv.string() + " " + mixed_workload().string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_NE(header.find("\"smsp__inst_executed.sum\""), std::string::npos);
  EXPECT_NE(header.find("\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\""), std::string::npos);
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 7);
}

// Two-level profiling of a trace folder: the launches after the first two
// keep their name and shape, their features empty; a program after -- that
// is not there is the exec error, and no CSV is left.
TEST(SamplingCli, ProfileFullLaunchesLeavesLaterFeaturesEmpty) {
  fs::path csv = temp("two-level") / "prof.csv";
  auto r = run_cli("profile --no-progress --full-launches 2 --out " + csv.string() + " " + mixed_workload().string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[2].find(",,"), std::string::npos) << rows[2];  // launch 2: all its features
  EXPECT_EQ(rows[3], "3,\"warpsim_synth_stream\",\"(16, 1, 1)\",\"(128, 1, 1)\"" +
                         std::string(ws::sampling::kFeatureCount, ','));
  auto missing = run_cli("profile --no-progress --out " + csv.string() + " -- ./no-such-program-here");
  EXPECT_NE(missing.rc, 0);
  EXPECT_NE(missing.out.find("no-such-program-here launched no kernel"), std::string::npos) << missing.out;
  EXPECT_FALSE(fs::exists(csv));  // the old profile is gone: it was not this run's
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  return rows;
}

// --cycles-model: the profile gains each launch's cycles from a second,
// timed run; the cycles are that model's, exactly as `run --model` gives
// them (same workload, same model, deterministic).
TEST(SamplingCli, ProfileCyclesModelAddsEachLaunchsCycles) {
  fs::path dir = temp("cycles-model");
  std::string quiet = " --no-progress --set abstract.block_cache=off ";
  auto r = run_cli("profile" + quiet + "--cycles-model abstract --out " + (dir / "p.csv").string() + " " +
                   mixed_workload().string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("abstract model"), std::string::npos) << r.out;
  auto timed = run_cli("run --format none --model abstract" + quiet + "--out " + (dir / "abs").string() + " " +
                       mixed_workload().string());
  ASSERT_EQ(timed.rc, 0) << timed.out;
  auto kernels = read_json(dir / "abs" / "stats.json")["kernels"];
  auto rows = read_lines(dir / "p.csv");
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].substr(rows[0].rfind(',') + 1), "\"gpc__cycles_elapsed.max\"");
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(rows[i + 1].substr(rows[i + 1].rfind(',') + 1), std::to_string(kernels[i]["cycles"].get<uint64_t>()))
        << "launch " << i + 1;
  // The features are those of a plain profile.
  auto plain = run_cli("profile --no-progress --out " + (dir / "plain.csv").string() + " " + mixed_workload().string());
  ASSERT_EQ(plain.rc, 0) << plain.out;
  auto plain_rows = read_lines(dir / "plain.csv");
  for (size_t i = 1; i < 8; ++i) EXPECT_EQ(rows[i].rfind(plain_rows[i], 0), 0u) << rows[i];
}

// A projected kernel's memory counts: its CTAs all do the same accesses, so
// the L1 sectors scaled to all CTAs are the full run's. Counts that depend on
// where the data is are scaled the same way (linear projection), and need
// not match: here the host copy left the first CTAs' data in the L2 and the
// later CTAs' not (docs/sampling.md).
TEST(SamplingCli, ProjectedKernelsProjectTheirMemoryCounts) {
  fs::path dir = temp("projected-mem");
  ws::frontend::SynthSpec s;
  s.kind = "stream";
  s.ctas = 1024;
  s.threads_per_cta = 256;
  s.iterations = 4;
  s.footprint_bytes = 1 << 22;
  std::string trace = ws::test::synth(s, "sampling-projected-mem");
  std::string small = " --no-progress --format none --set gpu.sms=8 ";
  ASSERT_EQ(run_cli("run" + small + "--out " + (dir / "full").string() + " " + trace).rc, 0);
  auto r = run_cli("run" + small + "--project-kernels --out " + (dir / "p").string() + " " + trace);
  ASSERT_EQ(r.rc, 0) << r.out;
  auto full = read_json(dir / "full" / "stats.json")["kernels"][0];
  auto k = read_json(dir / "p" / "stats.json")["kernels"][0];
  ASSERT_TRUE(k.contains("projection")) << "the stream did not stop early";
  const auto& p = k["projection"];
  EXPECT_LT(k["l1d"]["reads"].get<double>(), full["l1d"]["reads"].get<double>());  // only the CTAs simulated
  EXPECT_DOUBLE_EQ(p["l1d"]["reads"].get<double>(), full["l1d"]["reads"].get<double>());
  EXPECT_DOUBLE_EQ(p["l1d"]["writes"].get<double>(), full["l1d"]["writes"].get<double>());
  double scale = p["ctas_total"].get<double>() / p["ctas_simulated"].get<double>();
  EXPECT_DOUBLE_EQ(p["l2"]["read_hits"].get<double>(), k["l2"]["read_hits"].get<double>() * scale);
  EXPECT_DOUBLE_EQ(p["dram"]["reads"].get<double>(), k["dram"]["reads"].get<double>() * scale);
}

// Only the representatives run; each stands for `weight` launches. The first
// two launches run exactly as in the full run (nothing before them differs).
TEST(SamplingCli, RunUnderAPlanSimulatesRepresentativesAndProjects) {
  fs::path dir = temp("plan");
  write_plan(dir / "plan.json", kThreeGroups);
  auto full = run_cli("run --no-progress --format none --out " + (dir / "full").string() + " " +
                      mixed_workload().string());
  ASSERT_EQ(full.rc, 0) << full.out;
  auto r = run_cli("run --no-progress --plan " + (dir / "plan.json").string() + " --out " + (dir / "s").string() +
                   " " + mixed_workload().string());
  ASSERT_EQ(r.rc, 0) << r.out;
  auto f = read_json(dir / "full" / "stats.json"), s = read_json(dir / "s" / "stats.json");
  ASSERT_EQ(s["kernels"].size(), 3u);
  EXPECT_EQ(s["kernels"][0]["cycles"], f["kernels"][0]["cycles"]);
  EXPECT_EQ(s["kernels"][1]["cycles"], f["kernels"][1]["cycles"]);
  const auto& samp = s["sampling"];
  EXPECT_EQ(samp["launches_simulated"], 3);
  double projected = 0, insts = 0;
  int weights[] = {3, 3, 1};
  for (int g = 0; g < 3; ++g) {
    projected += s["kernels"][g]["cycles"].get<double>() * weights[g];
    insts += s["kernels"][g]["warp_insts"].get<double>() * weights[g];
  }
  EXPECT_DOUBLE_EQ(samp["projected"]["cycles"].get<double>(), projected);
  // Launches of one kernel execute the same instructions: the projection of
  // warp instructions is exact.
  EXPECT_DOUBLE_EQ(samp["projected"]["warp_insts"].get<double>(), f["total"]["warp_insts"].get<double>());
  EXPECT_DOUBLE_EQ(insts, f["total"]["warp_insts"].get<double>());
  // The share simulated, and the reduction it stands for: the three
  // representatives' warp instructions against the projected whole.
  double simulated = 0;
  for (int g = 0; g < 3; ++g) simulated += s["kernels"][g]["warp_insts"].get<double>();
  EXPECT_DOUBLE_EQ(samp["simulated"]["warp_insts"].get<double>(), simulated);
  EXPECT_DOUBLE_EQ(samp["fraction_simulated"].get<double>(), simulated / insts);
  EXPECT_DOUBLE_EQ(samp["reduction"].get<double>(), insts / simulated);
  EXPECT_NE(r.out.find("sampling ("), std::string::npos);
  // Deterministic: the same plan on the same workload gives the same figures.
  auto again = run_cli("run --no-progress --format none --plan " + (dir / "plan.json").string() + " --out " +
                       (dir / "s2").string() + " " + mixed_workload().string());
  ASSERT_EQ(again.rc, 0) << again.out;
  auto s2 = read_json(dir / "s2" / "stats.json");
  EXPECT_EQ(s2["sampling"], s["sampling"]);
  EXPECT_EQ(s2["counters"], s["counters"]);
}

TEST(SamplingCli, PlanForAnotherWorkloadIsAnError) {
  fs::path dir = temp("wrong");
  std::vector<std::string> names(7, "some_other_kernel");
  write_plan(dir / "plan.json", kThreeGroups, names);
  auto r = run_cli("run --no-progress --plan " + (dir / "plan.json").string() + " " + mixed_workload().string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("plan.json: field 'names': launch 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("another workload"), std::string::npos) << r.out;
  // Too few launches in the plan.
  write_plan(dir / "short.json", nlohmann::json::array({{{"group", 0}, {"representative", 1}, {"weight", 2},
                                                          {"name", "warpsim_synth_stream"}}}),
             {"warpsim_synth_stream", "warpsim_synth_compute"});
  r = run_cli("run --no-progress --plan " + (dir / "short.json").string() + " " + mixed_workload().string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("short.json: field 'launches': the plan has 2 launches, the workload 7"), std::string::npos) << r.out;
}

TEST(SamplingCli, MalformedPlansAreErrorsNamingTheField) {
  fs::path dir = temp("bad");
  auto bad = nlohmann::json::array({{{"group", 0}, {"representative", 1}, {"weight", 5}, {"name", "x"}}});
  write_plan(dir / "weights.json", bad);
  auto r = run_cli("run --no-progress --plan " + (dir / "weights.json").string() + " " + mixed_workload().string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("weights add up to 5, not the 7 launches"), std::string::npos) << r.out;
  std::ofstream(dir / "junk.json") << "{\"version\": 1, \"names\": ";
  r = run_cli("run --no-progress --plan " + (dir / "junk.json").string() + " " + mixed_workload().string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("junk.json: not a plan (JSON)"), std::string::npos) << r.out;
  auto members = kThreeGroups;
  members[0]["members"] = {1, 3};  // weight 3
  write_plan(dir / "members.json", members);
  r = run_cli("run --no-progress --plan " + (dir / "members.json").string() + " " + mixed_workload().string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("members.json: group 0: field 'members' lists 2 launches, its weight is 3"), std::string::npos)
      << r.out;
  std::ofstream(dir / "nogroups.json") << R"({"version": 1, "launches": 1, "names": ["a"]})";
  r = run_cli("run --no-progress --plan " + (dir / "nogroups.json").string() + " " + mixed_workload().string());
  EXPECT_NE(r.out.find("field 'groups' is missing"), std::string::npos) << r.out;
}

}  // namespace
