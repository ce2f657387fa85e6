// `warpsim exec`: runs an unmodified CUDA program (built with
// `nvcc -cudart shared`) against warpsim's libcudart.so.13. The options
// travel to the library in WARPSIM_* environment variables.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "common/error.h"
#include "common/huge_pages.h"
#include "common/paths.h"
#include "sampling/plan.h"
#include "tools/commands.h"

namespace ws::tools {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libcudart.so.13";

// build/bin/warpsim -> build/lib; an installed bin/warpsim -> lib.
fs::path library_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot locate the warpsim binary (/proc/self/exe)");
  fs::path dir = exe.parent_path().parent_path() / "lib";
  if (!fs::exists(dir / kLibrary, ec))
    throw Error(fmt::format("{} not found in {} (build it: ninja -C <build> cudart; it needs the CUDA headers)",
                            kLibrary, dir.string()));
  return fs::weakly_canonical(dir);
}

// The file execvp would run for `program`, or "" when it cannot be found.
fs::path resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = std::min(dirs.find(':', start), dirs.size());
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// A program linked with nvcc's default static runtime never calls us.
void warn_if_static_runtime(const std::string& program) {
  fs::path file = resolve_program(program);
  std::error_code ec;
  if (file.empty() || !fs::is_regular_file(file, ec) || fs::file_size(file, ec) > (256u << 20)) return;
  std::ifstream in(file, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  bool has_device_code = bytes.find(".nv_fatbin") != std::string::npos;
  if (bytes.rfind("\x7f" "ELF", 0) == 0 && has_device_code && bytes.find(kLibrary) == std::string::npos)
    std::cerr << fmt::format("warpsim: warning: {} does not link {} dynamically; its CUDA calls will not reach "
                             "warpsim (build it with nvcc -cudart shared)\n",
                             program, kLibrary);
}

void set_env(const char* name, const std::string& value) {
  if (value.empty())
    unsetenv(name);
  else
    setenv(name, value.c_str(), 1);
}

// The plan is read here first so that a bad one is reported before the
// program starts; the runtime reads it again (absolute: the program may
// change its directory).
std::string plan_path(const ExecOptions& opt) {
  if (opt.plan.empty()) return "";
  if (!opt.timing) throw InputError("--plan " + opt.plan + ": needs --timing (only a timed run is sampled)");
  sampling::KernelPlan::load(opt.plan);
  return fs::absolute(opt.plan).string();
}

}  // namespace

int exec_command(const ExecOptions& opt) {
  if (opt.command.empty()) throw InputError("exec: no program given (warpsim exec [options] -- ./app args...)");
  fs::path lib = library_dir();
  std::string sets;
  for (const std::string& s : opt.sets) {
    if (s.find('=') == std::string::npos) throw InputError(fmt::format("--set {}: expected key=value", s));
    if (s.find(';') != std::string::npos) throw InputError(fmt::format("--set {}: ';' is not allowed", s));
    sets += (sets.empty() ? "" : ";") + s;
  }
  set_env("WARPSIM_GPU", opt.gpu);
  set_env("WARPSIM_SET", sets);
  set_env("WARPSIM_TIMING", opt.timing ? "1" : "");
  set_env("WARPSIM_OUT", opt.out);
  set_env("WARPSIM_TRACE_OUT", opt.trace_out);
  set_env("WARPSIM_TRACE_BINARY", opt.trace_binary ? "1" : "");
  set_env("WARPSIM_VERBOSE", opt.verbose ? "1" : "");
  set_env("WARPSIM_PLAN", plan_path(opt));
  set_env("WARPSIM_PROFILE", opt.profile_out);
  set_env("WARPSIM_PROFILE_FULL", opt.profile_full ? std::to_string(opt.profile_full) : "");
  // The library runs inside the program, so it cannot find configs/ from
  // its own executable's location.
  if (!std::getenv("WARPSIM_DATA_DIR")) set_env("WARPSIM_DATA_DIR", data_dir());
  // With --timing the model runs inside the program: give its heap huge
  // pages as `warpsim run` does (common/huge_pages.h).
  if (opt.timing)
    if (auto tunables = wanted_huge_page_tunables()) set_env("GLIBC_TUNABLES", *tunables);
  const char* old = std::getenv("LD_LIBRARY_PATH");
  set_env("LD_LIBRARY_PATH", lib.string() + (old && *old ? std::string(":") + old : ""));
  if (opt.verbose) std::cerr << "warpsim: debug: running " << opt.command[0] << " with " << (lib / kLibrary) << "\n";
  warn_if_static_runtime(opt.command[0]);

  std::vector<char*> argv;
  for (const std::string& a : opt.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << fmt::format("warpsim: cannot run {}: {}\n", opt.command[0], std::strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

}  // namespace ws::tools
