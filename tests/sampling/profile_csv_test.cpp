// The profile CSV: rows, and the cycles column a timed run adds
// (`warpsim profile --cycles-model`).
#include <gtest/gtest.h>

#include "common/error.h"
#include "sampling/profile_csv.h"

namespace ws::sampling {
namespace {

std::string two_launches() {
  KernelFeatures a, b;
  a.id = 1;
  a.name = "_Z4blurPf";
  b.id = 2;
  b.name = "k\"quoted\",name";  // a quote and a comma inside the name
  return profile_csv_header() + profile_csv_row(a) + profile_csv_cheap_row(2, b.name, Dim3{4, 1, 1}, Dim3{64, 1, 1});
}

TEST(ProfileCsv, CyclesBecomeTheLastColumnOfEachRow) {
  std::string csv = two_launches();
  std::string out = profile_csv_add_cycles(csv, {{"_Z4blurPf", 1234}, {"k\"quoted\",name", 56}}, "p.csv", "s.json");
  std::vector<std::string> in_lines, out_lines;
  for (size_t a = 0, b; (b = csv.find('\n', a)) != std::string::npos; a = b + 1) in_lines.push_back(csv.substr(a, b - a));
  for (size_t a = 0, b; (b = out.find('\n', a)) != std::string::npos; a = b + 1) out_lines.push_back(out.substr(a, b - a));
  ASSERT_EQ(out_lines.size(), 3u);
  EXPECT_EQ(out_lines[0], in_lines[0] + ",\"gpc__cycles_elapsed.max\"");
  EXPECT_EQ(out_lines[1], in_lines[1] + ",1234");
  EXPECT_EQ(out_lines[2], in_lines[2] + ",56");  // a cheap row (empty features) gets its cycles too
}

TEST(ProfileCsv, ATimedRunOfOtherLaunchesIsAnErrorNamingTheFileAndLaunch) {
  std::string csv = two_launches();
  try {
    profile_csv_add_cycles(csv, {{"_Z4blurPf", 1}}, "p.csv", "s.json");
    FAIL() << "a launch missing";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json: field 'kernels': the timed run has 1 launches, the profile (p.csv) 2"),
              std::string::npos)
        << e.what();
  }
  try {
    profile_csv_add_cycles(csv, {{"_Z4blurPf", 1}, {"_Z5sobelPf", 2}}, "p.csv", "s.json");
    FAIL() << "a name that differs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'kernels[1]': launch 2 is '_Z5sobelPf', the profile's (p.csv) is "
                                         "'k\"quoted\",name'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ws::sampling
