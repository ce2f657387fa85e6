// When the CLI asks glibc for huge pages: only where the kernel gives them
// on request and glibc knows the tunable, never twice, keeping other tunables.
#include "common/huge_pages.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

const std::string kMadvise = "always [madvise] never\n";

TEST(HugePages, AddsTheTunableWhereItHelps) {
  EXPECT_EQ(huge_page_tunables(nullptr, kMadvise, "2.36"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("", kMadvise, "2.35"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=2", kMadvise, "2.40"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(HugePages, LeavesAloneWhereItCannotHelp) {
  EXPECT_FALSE(huge_page_tunables(nullptr, "[always] madvise never\n", "2.36"));  // already huge
  EXPECT_FALSE(huge_page_tunables(nullptr, "always madvise [never]\n", "2.36"));  // refused
  EXPECT_FALSE(huge_page_tunables(nullptr, "", "2.36"));                         // no THP at all
  EXPECT_FALSE(huge_page_tunables(nullptr, kMadvise, "2.34"));                   // tunable unknown
  EXPECT_FALSE(huge_page_tunables(nullptr, kMadvise, "garbage"));
  EXPECT_FALSE(huge_page_tunables("glibc.malloc.hugetlb=0", kMadvise, "2.36"));  // the user chose
}

TEST(HugePages, ValgrindIsRecognisedByItsPreload) {
  EXPECT_TRUE(preloads_valgrind("/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"));
  EXPECT_TRUE(preloads_valgrind("/x/libfoo.so:/usr/lib/valgrind/vgpreload_memcheck-amd64-linux.so"));
  EXPECT_FALSE(preloads_valgrind(nullptr));
  EXPECT_FALSE(preloads_valgrind(""));
  EXPECT_FALSE(preloads_valgrind("/usr/lib/libheaptrack_preload.so"));
}

}  // namespace
}  // namespace ws
