// `warpsim correlate ...`: hands its arguments to the Python correlator
// (python/warpsim, `python3 -m warpsim correlate`), so that one CLI holds every
// tool while tables and plots stay in pandas and matplotlib.
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

#include "common/error.h"
#include "common/paths.h"
#include "tools/commands.h"

extern char** environ;

namespace ws::tools {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDebianPackages = "python3 python3-pandas python3-numpy python3-matplotlib";

// Looks the modules up without importing them, which takes seconds for pandas.
bool has_modules(const std::string& python) {
  const char* probe =
      "import importlib.util as u, sys; "
      "sys.exit(0 if all(u.find_spec(m) for m in ('pandas', 'numpy', 'matplotlib')) else 3)";
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>("-c"), const_cast<char*>(probe),
                          nullptr};
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

std::string choose_python() {
  if (const char* env = std::getenv("WARPSIM_PYTHON"); env && *env) return env;
  // A python3 earlier on PATH (pyenv, a virtualenv) may lack the Debian
  // packages that the system interpreter has.
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (has_modules(candidate)) return candidate;
  return {};
}

int correlate_command(const std::vector<std::string>& args) {
  fs::path package = python_package_dir();
  std::error_code ec;
  if (!fs::is_regular_file(package / "warpsim" / "__main__.py", ec))
    throw Error(fmt::format("the correlator's Python package is not in {} (set WARPSIM_PYTHONPATH to the folder "
                            "that holds warpsim/)",
                            package.string()));
  std::string python = choose_python();
  if (python.empty())
    throw Error(fmt::format("warpsim correlate needs python3 with pandas, numpy and matplotlib; on Debian: "
                            "sudo apt-get install {} (or set WARPSIM_PYTHON to an interpreter that has them)",
                            kDebianPackages));
  const char* old = std::getenv("PYTHONPATH");
  std::string path = package.string() + (old && *old ? std::string(":") + old : "");
  setenv("PYTHONPATH", path.c_str(), 1);

  std::vector<std::string> words{python, "-m", "warpsim", "correlate"};
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
