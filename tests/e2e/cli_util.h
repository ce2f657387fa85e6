// Runs the warpsim binary as a user does, capturing its exit status and its
// stdout and stderr together.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ws::test {

struct CliResult {
  int rc;
  std::string out;  // stdout + stderr
};

inline CliResult run_cli(const std::string& args) {
  std::string cmd = std::string(WARPSIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

}  // namespace ws::test
