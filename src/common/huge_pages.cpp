#include "common/huge_pages.h"

#include <gnu/libc-version.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ws {

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
constexpr const char* kDoneVar = "WARPSIM_HUGE_PAGES_DONE";  // set in the re-executed process

bool glibc_at_least(const std::string& version, int major, int minor) {
  int ma = 0, mi = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &ma, &mi) != 2) return false;
  return ma > major || (ma == major && mi >= minor);
}

std::string read_thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

std::optional<std::string> huge_page_tunables(const char* current, const std::string& thp_mode,
                                              const std::string& glibc_version) {
  if (thp_mode.find("[madvise]") == std::string::npos) return std::nullopt;
  if (!glibc_at_least(glibc_version, 2, 35)) return std::nullopt;
  std::string cur = current ? current : "";
  if (cur.find("glibc.malloc.hugetlb") != std::string::npos) return std::nullopt;
  return cur.empty() ? std::string(kTunable) : cur + ":" + kTunable;
}

std::optional<std::string> wanted_huge_page_tunables() {
  const char* opt = std::getenv("WARPSIM_HUGE_PAGES");
  if (opt && std::strcmp(opt, "0") == 0) return std::nullopt;
  return huge_page_tunables(std::getenv("GLIBC_TUNABLES"), read_thp_mode(), gnu_get_libc_version());
}

bool preloads_valgrind(const char* ld_preload) {
  return ld_preload && std::strstr(ld_preload, "vgpreload") != nullptr;
}

void reexec_with_huge_pages(char** argv) {
  if (std::getenv(kDoneVar) || preloads_valgrind(std::getenv("LD_PRELOAD"))) return;
  auto tunables = wanted_huge_page_tunables();
  if (!tunables) return;
  const char* now = std::getenv("GLIBC_TUNABLES");
  std::optional<std::string> before = now ? std::optional<std::string>(now) : std::nullopt;
  setenv(kDoneVar, "1", 1);
  setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  execv("/proc/self/exe", argv);
  // Still here: the exec failed; carry on as we were.
  if (before) setenv("GLIBC_TUNABLES", before->c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
  unsetenv(kDoneVar);
}

}  // namespace ws
