#include "common/paths.h"

#include <cstdlib>
#include <filesystem>

namespace ws {

namespace fs = std::filesystem;

static bool has_data(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "configs", ec) && fs::is_directory(p / "isa", ec);
}

std::string data_dir() {
  if (const char* env = std::getenv("WARPSIM_DATA_DIR")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    for (const fs::path& c : {dir / ".." / "..", dir / "..", dir / ".." / "share" / "warpsim", dir}) {
      if (has_data(c)) return fs::weakly_canonical(c).string();
    }
  }
#ifdef WARPSIM_SOURCE_DIR
  if (has_data(WARPSIM_SOURCE_DIR)) return WARPSIM_SOURCE_DIR;
#endif
  return ".";
}

}  // namespace ws
