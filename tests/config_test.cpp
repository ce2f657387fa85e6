#include <gtest/gtest.h>

#include <filesystem>
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

}  // namespace
}  // namespace ws::config
