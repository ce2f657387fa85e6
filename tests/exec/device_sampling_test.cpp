// exec::Device and kernel sampling (docs/sampling.md): the features profile a
// functional run writes, and a timed run under a plan (representatives timed,
// the other launches run functionally, totals projected; a plan made for
// another program refused).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"
#include "sampling/kernel_features.h"
#include "sampling/plan.h"

namespace ws::exec {
namespace {

constexpr uint32_t kN = 4096;  // vadd over 4096 floats: 16 CTAs of 256 threads

std::string temp(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("warpsim-devsampling-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// A device with vadd loaded and three buffers a, b, out of n floats
// (kN unless given): a[i] = i, b[i] = 2.
struct Vadd {
  Device dev;
  const LoadedModule* module;
  uint32_t n;
  Addr a = 0, b = 0, out = 0;

  explicit Vadd(const DeviceOptions& o, uint32_t n_ = kN) : dev(o), n(n_) {
    module = &dev.program().load(ptx::parse_module(test::vector_add(), "vadd.ptx"));
    std::vector<float> ha(n), hb(n, 2.0f);
    for (uint32_t i = 0; i < n; ++i) ha[i] = float(i);
    a = *dev.memory().allocate(n * 4), b = *dev.memory().allocate(n * 4), out = *dev.memory().allocate(n * 4);
    dev.copy_to_device(a, ha.data(), n * 4);
    dev.copy_to_device(b, hb.data(), n * 4);
  }
  // out = in + b: each launch adds 2 to what the one before it wrote.
  LaunchResult launch(Addr in, StreamRef stream = {}) {
    Launch l;
    l.module = module;
    l.kernel = module->ast.find_function("vadd");
    l.grid = Dim3{n / 256, 1, 1}, l.block = Dim3{256, 1, 1};
    l.params.assign(l.kernel->param_bytes, 0);
    uint64_t args[] = {in, b, out, n};
    for (size_t i = 0; i < 4; ++i) std::memcpy(l.params.data() + l.kernel->params[i].offset, &args[i], l.kernel->params[i].size);
    return dev.launch(l, stream);
  }
  float out_at(uint32_t i) {
    float v = 0;
    dev.copy_to_host(&v, out + i * 4, 4);
    return v;
  }
};

// `launches` launches of vadd; group 0 = launch 1 alone, group 1 = the rest (represented by launch 2).
std::string write_plan(const std::string& dir, uint32_t launches, const std::string& name = "vadd") {
  nlohmann::json j{{"version", 1},
                   {"launches", launches},
                   {"names", std::vector<std::string>(launches, name)},
                   {"groups",
                    {{{"group", 0}, {"representative", 1}, {"weight", 1}, {"name", name}},
                     {{"group", 1}, {"representative", 2}, {"weight", launches - 1}, {"name", name}}}}};
  std::string path = dir + "/plan.json";
  std::ofstream(path) << j.dump();
  return path;
}

DeviceOptions timed_under(const std::string& plan, const std::string& out) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.plan = plan;
  o.out_dir = out;
  return o;
}

TEST(ExecDeviceSampling, ProfileWritesOneRowPerLaunchFromTheFunctionalRun) {
  std::string dir = temp("profile");
  DeviceOptions o;
  o.profile_out = dir + "/prof.csv";
  {
    Vadd v(o);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(v.launch(v.a).ok);
    EXPECT_EQ(v.out_at(7), 9.0f);  // the profiled launches computed their result
    v.dev.finish();
  }
  std::ifstream in(o.profile_out);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"smsp__inst_executed.sum\"", 0), 0u)
      << header;
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u);
  // vadd: 19 warp instructions per warp (device_test.cpp), 128 warps; 18 of
  // them per thread; 16 CTAs.
  EXPECT_EQ(rows[0].rfind("1,\"vadd\",\"(16, 1, 1)\",\"(256, 1, 1)\"," + std::to_string(19 * kN / 32) + "," +
                              std::to_string(18 * kN) + ",",
                          0),
            0u)
      << rows[0];
  EXPECT_EQ(rows[2].rfind("3,\"vadd\"", 0), 0u) << rows[2];
  EXPECT_EQ(rows[2].substr(rows[2].find(',')), rows[0].substr(rows[0].find(',')));  // same launch, same features
}

// Two-level profiling: features for the first launch only; the others name,
// grid and block with empty feature cells (and they still run).
TEST(ExecDeviceSampling, TwoLevelProfileLeavesTheLaterLaunchesFeaturesEmpty) {
  std::string dir = temp("two-level");
  DeviceOptions o;
  o.profile_out = dir + "/prof.csv";
  o.profile_full = 1;
  {
    Vadd v(o);
    ASSERT_TRUE(v.launch(v.a).ok);
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(v.launch(v.out).ok);
    EXPECT_EQ(v.out_at(5), 11.0f);  // 5 + 3 x 2
    v.dev.finish();
  }
  std::ifstream in(o.profile_out);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].rfind("1,\"vadd\",\"(16, 1, 1)\",\"(256, 1, 1)\"," + std::to_string(19 * kN / 32) + ",", 0), 0u);
  std::string empty(sampling::kFeatureCount, ',');
  EXPECT_EQ(rows[2], "2,\"vadd\",\"(16, 1, 1)\",\"(256, 1, 1)\"" + empty);
  EXPECT_EQ(rows[3], "3,\"vadd\",\"(16, 1, 1)\",\"(256, 1, 1)\"" + empty);
}

TEST(ExecDeviceSampling, PlanTimesTheRepresentativesAndRunsTheRestFunctionally) {
  std::string dir = temp("plan");
  DeviceOptions o = timed_under(write_plan(dir, 5), dir + "/out");
  {
    Vadd v(o);
    // Chained: launch k writes a + 2 into out, then out + 2 into out ...
    ASSERT_TRUE(v.launch(v.a).ok);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(v.launch(v.out).ok);
    EXPECT_EQ(v.out_at(100), 110.0f);  // 100 + 5 x 2: every launch ran
    v.dev.finish();
  }
  nlohmann::json s = read_json(o.out_dir + "/stats.json");
  EXPECT_TRUE(s["complete"].get<bool>()) << s["error"];
  ASSERT_EQ(s["kernels"].size(), 2u);  // launches 1 and 2 only
  EXPECT_EQ(s["kernels"][0]["id"], 1);
  EXPECT_EQ(s["kernels"][1]["id"], 2);
  const auto& sm = s["sampling"];
  EXPECT_EQ(sm["launches"], 5);
  EXPECT_EQ(sm["launches_simulated"], 2);
  double c1 = s["kernels"][0]["cycles"].get<double>(), c2 = s["kernels"][1]["cycles"].get<double>();
  EXPECT_DOUBLE_EQ(sm["projected"]["cycles"].get<double>(), c1 + 4 * c2);
  EXPECT_DOUBLE_EQ(sm["projected"]["warp_insts"].get<double>(), 5.0 * 19 * kN / 32);
}

// Intra-kernel projection under exec: a vadd of 1,024 CTAs on 8 SMs (16
// waves of 64) stops dispatching once its IPC settles; the CTAs never
// dispatched still execute (functionally), so the result is right to the
// last element, and the projection counts their instructions exactly (19
// per warp, every CTA alike: homogeneous).
TEST(ExecDeviceSampling, ProjectedKernelStillComputesEveryCta) {
  std::string dir = temp("project");
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = dir;
  o.sets = {"gpu.sms=8", "sampling.project_kernels=true"};
  constexpr uint32_t n = 1024 * 256;
  {
    Vadd v(o, n);
    ASSERT_TRUE(v.launch(v.a).ok);
    EXPECT_EQ(v.out_at(0), 2.0f);
    EXPECT_EQ(v.out_at(n - 1), float(n - 1) + 2.0f);  // in the last CTA, which was not timed
    v.dev.finish();
  }
  nlohmann::json k = read_json(dir + "/stats.json")["kernels"][0];
  ASSERT_TRUE(k.contains("projection")) << "vadd did not stop early";
  const auto& p = k["projection"];
  EXPECT_LT(p["ctas_simulated"].get<uint64_t>(), 1024u);
  EXPECT_GE(p["ctas_simulated"].get<uint64_t>(), 64u);  // a full wave first
  EXPECT_EQ(k["warp_insts"].get<uint64_t>(), 19 * 8 * p["ctas_simulated"].get<uint64_t>());
  EXPECT_EQ(p["warp_insts"].get<uint64_t>(), uint64_t{19} * n / 32);
  EXPECT_TRUE(p["homogeneous"].get<bool>());
}

TEST(ExecDeviceSampling, PlanOnACreatedStreamTimesOneKernelAtATimeInOrder) {
  // The same five chained launches on a created stream, where a timed launch
  // is queued and returns at once. The launches the plan skips run at once
  // in the emulator: they must still see the timed ones' output (else out
  // would not end at 110), and each group's result must be its own kernel.
  std::string dir = temp("plan-stream");
  DeviceOptions o = timed_under(write_plan(dir, 5), dir + "/out");
  {
    Vadd v(o);
    StreamRef created{2, true};
    ASSERT_TRUE(v.launch(v.a, created).ok);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(v.launch(v.out, created).ok);
    EXPECT_EQ(v.out_at(100), 110.0f);
    v.dev.finish();
  }
  nlohmann::json s = read_json(o.out_dir + "/stats.json");
  EXPECT_TRUE(s["complete"].get<bool>()) << s["error"];
  ASSERT_EQ(s["kernels"].size(), 2u);
  EXPECT_EQ(s["kernels"][0]["id"], 1);
  EXPECT_EQ(s["kernels"][1]["id"], 2);
  double c1 = s["kernels"][0]["cycles"].get<double>(), c2 = s["kernels"][1]["cycles"].get<double>();
  EXPECT_DOUBLE_EQ(s["sampling"]["projected"]["cycles"].get<double>(), c1 + 4 * c2);
}

TEST(ExecDeviceSampling, PlanOfAnotherProgramIsRefusedNamingFileAndField) {
  std::string dir = temp("other");
  DeviceOptions o = timed_under(write_plan(dir, 3, "saxpy"), dir + "/out");
  Vadd v(o);
  try {
    v.launch(v.a);
    FAIL() << "the launch ran under another program's plan";
  } catch (const sampling::PlanMismatch& e) {
    EXPECT_NE(std::string(e.what()).find(o.plan + ": field 'names': launch 1 is 'saxpy' in the plan and 'vadd'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(v.dev.finish(), sampling::PlanMismatch);  // the runtime ends the program with it
  nlohmann::json s = read_json(o.out_dir + "/stats.json");
  EXPECT_FALSE(s["complete"].get<bool>());
  EXPECT_NE(s["error"].get<std::string>().find("field 'names'"), std::string::npos);
}

TEST(ExecDeviceSampling, ProgramShorterThanItsPlanIsAnErrorAtTheEnd) {
  std::string dir = temp("short");
  DeviceOptions o = timed_under(write_plan(dir, 4), dir + "/out");
  Vadd v(o);
  ASSERT_TRUE(v.launch(v.a).ok);
  ASSERT_TRUE(v.launch(v.a).ok);
  try {
    v.dev.finish();
    FAIL() << "2 launches passed for the plan's 4";
  } catch (const sampling::PlanMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("field 'launches': the plan has 4 launches, the workload 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(read_json(o.out_dir + "/stats.json")["complete"].get<bool>());
}

TEST(ExecDeviceSampling, PlanNeedsTimingAndProfileNeedsNone) {
  std::string dir = temp("modes");
  DeviceOptions plan_only;
  plan_only.plan = write_plan(dir, 2);
  EXPECT_THROW(Device{plan_only}, InputError);
  DeviceOptions both = timed_under("", "");
  both.profile_out = dir + "/p.csv";
  EXPECT_THROW(Device{both}, InputError);
}

}  // namespace
}  // namespace ws::exec
