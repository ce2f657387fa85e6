// `warpsim correlate ...`, `warpsim tune ...` and `warpsim sweep ...`: hand their arguments to the
// Python package (python/warpsim, `python3 -m warpsim TOOL`), so that one CLI
// holds every tool while tables, plots and fitting stay in Python.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "common/paths.h"
#include "tools/commands.h"

extern char** environ;

namespace ws::tools {

namespace fs = std::filesystem;

namespace {

// What each tool imports, and the Debian packages that bring it.
struct ToolNeeds {
  std::vector<std::string> modules;
  const char* packages;
};

ToolNeeds needs_of(const std::string& tool) {
  if (tool == "tune") return {{"tomllib"}, "python3 (3.11 or newer, for tomllib)"};
  if (tool == "sample") return {{"numpy"}, "python3 python3-numpy"};
  // `sweep run` needs only the standard library; `sweep report` checks for pandas and matplotlib itself.
  if (tool == "sweep") return {{"tomllib", "sqlite3"}, "python3 (3.11 or newer, for tomllib)"};
  return {{"pandas", "numpy", "matplotlib"}, "python3 python3-pandas python3-numpy python3-matplotlib"};
}

// Looks the modules up without importing them, which takes seconds for pandas.
bool has_modules(const std::string& python, const std::vector<std::string>& modules) {
  std::string list;
  for (const std::string& m : modules) list += "'" + m + "', ";
  std::string probe = "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in (" + list +
                      ")) else 3)";
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>("-c"), probe.data(), nullptr};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  int status = 0;
  return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string python_package_dir() {
  if (const char* env = std::getenv("WARPSIM_PYTHONPATH"); env && *env) return env;
  return (fs::path(data_dir()) / "python").string();
}

std::string choose_python(const std::vector<std::string>& modules) {
  if (const char* env = std::getenv("WARPSIM_PYTHON"); env && *env) return env;
  // A python3 earlier on PATH (pyenv, a virtualenv) may lack the Debian
  // packages that the system interpreter has.
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (has_modules(candidate, modules)) return candidate;
  return {};
}

int python_tool_command(const std::string& tool, const std::vector<std::string>& args) {
  fs::path package = python_package_dir();
  std::error_code ec;
  if (!fs::is_regular_file(package / "warpsim" / "__main__.py", ec))
    throw Error(fmt::format("warpsim {}: the Python package is not in {} (set WARPSIM_PYTHONPATH to the folder "
                            "that holds warpsim/)",
                            tool, package.string()));
  const ToolNeeds needs = needs_of(tool);
  std::string python = choose_python(needs.modules);
  if (python.empty())
    throw Error(fmt::format("warpsim {} needs python3 with {}; on Debian: sudo apt-get install {} (or set "
                            "WARPSIM_PYTHON to an interpreter that has them)",
                            tool, fmt::join(needs.modules, ", "), needs.packages));
  const char* old = std::getenv("PYTHONPATH");
  std::string path = package.string() + (old && *old ? std::string(":") + old : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  // The tuner simulates with this same binary unless told otherwise.
  std::error_code self_ec;
  fs::path self = fs::read_symlink("/proc/self/exe", self_ec);
  if (!self_ec && !std::getenv("WARPSIM_BIN")) setenv("WARPSIM_BIN", self.c_str(), 1);

  std::vector<std::string> words{python, "-m", "warpsim", tool};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << fmt::format("warpsim: cannot run {}: {}\n", python, std::strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

}  // namespace ws::tools
