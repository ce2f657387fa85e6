#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>

#include "common/error.h"
#include "config/config.h"

namespace ws::config {
namespace {

const Param<int64_t> kTestLatency{"test.cfg.latency", 28, "cycles", "a test parameter", {1, 1000}};
const Param<double> kTestClock{"test.cfg.clock_mhz", 1132.0, "MHz", "a test clock"};
const Param<int64_t> kTestUnitLat{"test.cfg.units.*.latency", 4, "cycles", "per-unit latency", {1, 100}};
const Param<std::vector<int64_t>> kTestList{"test.cfg.options", {0, 8}, "KB", "carve-out options"};

TEST(Config, DefaultsComeFromTheDeclaration) {
  Config c;
  EXPECT_EQ(kTestLatency.get(c), 28);
  EXPECT_DOUBLE_EQ(kTestClock.get(c), 1132.0);
}

TEST(Config, SetParsesByDeclaredType) {
  Config c;
  c.set_assignment("test.cfg.latency=40");
  c.set_assignment("test.cfg.clock_mhz=1500");
  c.set_assignment("test.cfg.options=0,16,32");
  EXPECT_EQ(kTestLatency.get(c), 40);
  EXPECT_DOUBLE_EQ(kTestClock.get(c), 1500.0);
  EXPECT_EQ(kTestList.get(c), (std::vector<int64_t>{0, 16, 32}));
}

TEST(Config, UnknownKeySuggestsNearestName) {
  Config c;
  try {
    c.set_assignment("test.cfg.latncy=3");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'test.cfg.latency'"), std::string::npos) << e.what();
  }
}

TEST(Config, OutOfRangeAndBadTypeAreRejected) {
  Config c;
  EXPECT_THROW(c.set_assignment("test.cfg.latency=0"), ConfigError);
  EXPECT_THROW(c.set_assignment("test.cfg.latency=abc"), ConfigError);
  EXPECT_THROW(c.set_assignment("test.cfg.latency"), InputError);
}

TEST(Config, FamiliesAndTomlFilesWithLineNumbers) {
  auto dir = std::filesystem::temp_directory_path() / "warpsim_config_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "base.toml") << "[test.cfg]\nlatency = 10\n[test.cfg.units.sp]\nlatency = 6\n";
    std::ofstream(dir / "child.toml") << "base = \"base\"\n[test.cfg.units.dp]\nlatency = 9\n";
    std::ofstream(dir / "bad.toml") << "[test.cfg]\nclock_mhz = 1\nlatency = 5000\n";
  }
  Config c;
  c.load_file((dir / "child.toml").string());
  EXPECT_EQ(kTestLatency.get(c), 10);
  EXPECT_EQ(c.instances("test.cfg.units"), (std::vector<std::string>{"dp", "sp"}));
  EXPECT_EQ(kTestUnitLat.get(c, "sp"), 6);
  EXPECT_EQ(kTestUnitLat.get(c, "dp"), 9);
  std::string dump = c.to_toml();
  EXPECT_NE(dump.find("\"test.cfg.units.dp.latency\" = 9"), std::string::npos) << dump;
  Config bad;
  try {
    bad.load_file((dir / "bad.toml").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml:3"), std::string::npos) << e.what();
  }
}

// A preset outside configs/gpus (what `warpsim tune --out` writes) may name a
// bundled preset as its base; an unknown base names both places it looked.
TEST(Config, BaseFallsBackToTheBundledPresets) {
  auto dir = std::filesystem::temp_directory_path() / "warpsim_config_base_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.toml") << "base = \"a100\"\n[dram]\ntRCD = 21\n";
  std::ofstream(dir / "lost.toml") << "base = \"no_such_gpu\"\n";
  Config mine;
  mine.load_file((dir / "mine.toml").string());
  EXPECT_EQ(mine.get<int64_t>("dram.tRCD"), 21);  // its own key
  EXPECT_EQ(mine.get<int64_t>("dram.tRP"), 17);   // a100's HBM2-1215 part, through the base
  Config lost;
  try {
    lost.load_file((dir / "lost.toml").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("next to this file or among the presets"), std::string::npos) << e.what();
  }
}

// A preset's own keys and --set beat its DRAM part's, whatever the order;
// changing the part swaps the whole layer.
TEST(Config, DramPartLoadsBeneathPresetKeys) {
  Config a100;
  a100.load_file(find_preset("a100"));
  EXPECT_EQ(a100.get<int64_t>("dram.tRCD"), 17);                  // HBM2-1215
  EXPECT_DOUBLE_EQ(a100.get<double>("clock.dram_mhz"), 1215.0);  // the part owns its clock
  EXPECT_EQ(a100.get<std::string>("dram.scheduler"), "frfcfs");   // controller key from qv100
  std::string dump = a100.to_toml();
  EXPECT_NE(dump.find("# part: dram.part = HBM2-1215"), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"dram.tRCD\" = 17  # cycles; "), std::string::npos);
  EXPECT_NE(dump.find("HBM2-1215.toml"), std::string::npos);

  auto dir = std::filesystem::temp_directory_path() / "warpsim_config_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "part.toml") << "[dram]\ntRCD = 20\npart = \"HBM2-850\"\n";
  Config c;
  c.load_file((dir / "part.toml").string());
  EXPECT_EQ(c.get<int64_t>("dram.tRCD"), 20);
  EXPECT_EQ(c.get<int64_t>("dram.tRP"), 12);
  c.set_assignment("dram.part=HBM2-1215");
  EXPECT_EQ(c.get<int64_t>("dram.tRCD"), 20);  // explicit key still wins
  EXPECT_EQ(c.get<int64_t>("dram.tRP"), 17);
  c.set_assignment("dram.part=");
  EXPECT_EQ(c.get<int64_t>("dram.tRP"), 12);  // declared default
  try {
    c.set_assignment("dram.part=HBM9-1");
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("dram.part"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HBM2-850"), std::string::npos) << msg;
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::filesystem::path scratch_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("warpsim_config_hostile_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Issue 17 item 2: a preset naming itself (or a longer loop) recursed without
// end and crashed with SIGSEGV.
TEST(ConfigHostile, BaseChainLoopIsAnErrorNamingTheChain) {
  auto dir = scratch_dir();
  std::ofstream(dir / "self.toml") << "base = \"self\"\n";
  std::ofstream(dir / "a.toml") << "base = \"b\"\n[test.cfg]\nlatency = 3\n";
  std::ofstream(dir / "b.toml") << "base = \"a\"\n";
  std::string self = error_of([&] { Config().load_file((dir / "self.toml").string()); });
  EXPECT_NE(self.find("loops: self.toml -> self.toml"), std::string::npos) << self;
  std::string ab = error_of([&] { Config().load_file((dir / "a.toml").string()); });
  EXPECT_NE(ab.find("loops: a.toml -> b.toml -> a.toml"), std::string::npos) << ab;
}

// Issue 17 item 3: these tripped a toml++ assertion (abort) in builds
// without NDEBUG; each must be a clean error naming file, line and column.
TEST(ConfigHostile, MalformedPresetsAreErrorsWithLineAndColumn) {
  auto dir = scratch_dir();
  int i = 0;
  for (const char* text : {"[?]\n", "[.core]\n", "[#core]\n", "[[[x]]]\n", "[core]\nmax_warps = = 3\n"}) {
    auto file = dir / ("bad" + std::to_string(i++) + ".toml");
    std::ofstream(file) << text;
    std::string msg = error_of([&] { Config().load_file(file.string()); });
    // file:line:column: what
    std::string where = file.string() + ":";
    ASSERT_EQ(msg.rfind(where, 0), 0u) << text << " -> " << msg;
    size_t line_end = msg.find(':', where.size()), col_end = msg.find(':', line_end + 1);
    ASSERT_NE(col_end, std::string::npos) << msg;
    EXPECT_GT(std::stoi(msg.substr(where.size(), line_end - where.size())), 0) << msg;
    EXPECT_GT(std::stoi(msg.substr(line_end + 1, col_end - line_end - 1)), 0) << msg;
  }
}

// The preset fuzzer found that toml++ 3.3 reaches __builtin_unreachable on
// some non-ASCII characters in a bare key (U+0492 here): undefined behaviour.
// They are refused before toml++ sees them; in comments and strings, where
// TOML allows them, they still load.
TEST(ConfigHostile, NonAsciiOutsideStringsAndCommentsIsAnError) {
  auto dir = scratch_dir();
  std::ofstream(dir / "key.toml") << "[test]\n[core.units\xd2\x92p]\nx = 1\n";
  std::string msg = error_of([&] { Config().load_file((dir / "key.toml").string()); });
  EXPECT_NE(msg.find("key.toml:2:12: a non-ASCII character outside a string or comment"), std::string::npos) << msg;
  std::ofstream(dir / "fine.toml") << "# caf\xc3\xa9 \xc2\xb5s\n[gpu]\ndescription = \"\xc3\xa9t\xc3\xa9 \\\"q\\\" #\"\n"
                                      "[clock] # \xc3\x97 2\ncore_mhz = 1000.0\n";
  Config c;
  c.load_file((dir / "fine.toml").string());
  EXPECT_EQ(c.get<std::string>("gpu.description"), "\xc3\xa9t\xc3\xa9 \"q\" #");
  EXPECT_EQ(c.get<double>("clock.core_mhz"), 1000.0);
}

TEST(ConfigHostile, MissingPresetFileSaysSo) {
  std::string msg = error_of([] { find_preset("./nope-does-not-exist.toml"); });
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("unknown GPU preset"), std::string::npos) << msg;
  std::string name = error_of([] { find_preset("qv1000"); });
  EXPECT_NE(name.find("unknown GPU preset 'qv1000'"), std::string::npos) << name;
}

// Issue 17 item 14: `core.units.<typo>.latency` created a unit no opcode
// uses and changed nothing.
TEST(ConfigHostile, UnknownExecutionUnitIsAnErrorWithSuggestion) {
  Config c;
  c.load_file(find_preset("qv100"));
  std::string msg = error_of([&] { c.set_assignment("core.units.sfuu.latency=30"); });
  EXPECT_NE(msg.find("unknown core.units instance 'sfuu'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'sfu'?"), std::string::npos) << msg;
  auto units = c.instances("core.units");
  EXPECT_EQ(std::find(units.begin(), units.end(), "sfuu"), units.end());
  // ldst is timed by the LD/ST unit's own parameters, not here.
  EXPECT_NE(error_of([&] { c.set_assignment("core.units.ldst.latency=30"); }).find("unknown"), std::string::npos);
  c.set_assignment("core.units.sfu.latency=30");  // a real unit still works
  EXPECT_EQ(c.get<int64_t>("core.units.sfu.latency"), 30);
  // In a preset file too, with its line.
  auto file = scratch_dir() / "units.toml";
  std::ofstream(file) << "[core.units.sp]\nlatency = 4\n[core.units.tensr]\nlatency = 4\n";
  std::string in_file = error_of([&] { Config().load_file(file.string()); });
  EXPECT_NE(in_file.find("units.toml:4"), std::string::npos) << in_file;
  EXPECT_NE(in_file.find("did you mean 'tensor'?"), std::string::npos) << in_file;
}

}  // namespace
}  // namespace ws::config
