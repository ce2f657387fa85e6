// Runs the warpsim binary as a user does, capturing its exit status and its
// stdout and stderr together.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ws::test {

struct CliResult {
  int rc;
  std::string out;  // stdout + stderr
};

// `prefix` goes before the binary (e.g. "timeout -s INT 1 ").
inline CliResult run_cli_prefixed(const std::string& prefix, const std::string& args) {
  std::string cmd = prefix + std::string(WARPSIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

inline CliResult run_cli(const std::string& args) { return run_cli_prefixed("", args); }

// Copies trace folder `src` to `dst` (replaced) with line `line` (1-based)
// of its kernel-1.traceg replaced by `text`.
inline void copy_trace_replacing_line(const std::filesystem::path& src, const std::filesystem::path& dst, int line,
                                      const std::string& text) {
  std::filesystem::remove_all(dst);
  std::filesystem::copy(src, dst, std::filesystem::copy_options::recursive);
  std::ifstream in(dst / "kernel-1.traceg");
  std::stringstream out;
  std::string l;
  for (int n = 1; std::getline(in, l); ++n) out << (n == line ? text : l) << "\n";
  in.close();
  std::ofstream(dst / "kernel-1.traceg") << out.str();
}

}  // namespace ws::test
