// Kernel names for people: demangled where they are mangled C++ names, left
// alone otherwise.
#include "common/demangle.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

TEST(Demangle, MangledKernelNamesBecomeReadable) {
  EXPECT_EQ(demangle("_Z6vecAddIfEvPT_S1_S1_i"), "void vecAdd<float>(float*, float*, float*, int)");
  EXPECT_EQ(demangle("_Z3sumPKfPfi"), "sum(float const*, float*, int)");
}

TEST(Demangle, OtherNamesStayAsTheyAre) {
  EXPECT_EQ(demangle("vadd"), "vadd");  // extern "C"
  EXPECT_EQ(demangle("i"), "i");        // a valid mangled *type*, not a function name
  EXPECT_EQ(demangle("_Z"), "_Z");      // cut short
  EXPECT_EQ(demangle("_Zgarbage!!"), "_Zgarbage!!");
  EXPECT_EQ(demangle(""), "");
}

TEST(Demangle, FitCutsWithAnEllipsis) {
  EXPECT_EQ(demangle_fit("_Z6vecAddIfEvPT_S1_S1_i", 20), "void vecAdd<float...");
  EXPECT_EQ(demangle_fit("_Z6vecAddIfEvPT_S1_S1_i", 100), "void vecAdd<float>(float*, float*, float*, int)");
  EXPECT_EQ(demangle_fit("short", 5), "short");
}

}  // namespace
}  // namespace ws
