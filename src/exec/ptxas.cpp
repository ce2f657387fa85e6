#include "exec/ptxas.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ws::exec {

namespace {

bool executable(const std::filesystem::path& p) { return ::access(p.c_str(), X_OK) == 0; }

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::optional<std::string> find_ptxas() {
  if (const char* env = std::getenv("WARPSIM_PTXAS")) {
    std::string v = env;
    if (v.empty() || v == "none") return std::nullopt;
    return executable(v) ? std::optional<std::string>(v) : std::nullopt;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && executable(std::filesystem::path(d) / "ptxas")) return (std::filesystem::path(d) / "ptxas").string();
  }
  if (const char* home = std::getenv("CUDA_HOME"))
    if (executable(std::filesystem::path(home) / "bin" / "ptxas")) return (std::filesystem::path(home) / "bin" / "ptxas").string();
  if (executable("/usr/local/cuda/bin/ptxas")) return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

std::map<std::string, unsigned> parse_ptxas_registers(const std::string& output) {
  std::map<std::string, unsigned> regs;
  std::istringstream in(output);
  std::string current;
  for (std::string line; std::getline(in, line);) {
    const std::string entry = "Compiling entry function '";
    if (auto at = line.find(entry); at != std::string::npos) {
      auto start = at + entry.size();
      auto end = line.find('\'', start);
      current = end == std::string::npos ? std::string() : line.substr(start, end - start);
      continue;
    }
    if (line.find("Compiling function '") != std::string::npos) current.clear();  // a .func: not a kernel
    const std::string used = "Used ";
    auto at = line.find(used);
    if (current.empty() || at == std::string::npos || line.find(" registers", at) == std::string::npos) continue;
    regs[current] = static_cast<unsigned>(std::strtoul(line.c_str() + at + used.size(), nullptr, 10));
    current.clear();
  }
  return regs;
}

std::map<std::string, unsigned> ptxas_registers(const std::string& ptxas, const std::string& ptx, unsigned sm) {
  std::array<char, 64> name{};
  std::snprintf(name.data(), name.size(), "/tmp/warpsim-ptxas-XXXXXX");
  int fd = ::mkstemp(name.data());
  if (fd < 0) return {};
  ::close(fd);
  std::string file = name.data();
  {
    std::ofstream out(file, std::ios::binary);
    out << ptx;
  }
  std::string cmd = shell_quoted(ptxas) + " -arch=sm_" + std::to_string(sm) + " -v -o /dev/null " + shell_quoted(file) + " 2>&1";
  std::string output;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf{};
    for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) output.append(buf.data(), n);
    if (::pclose(p) != 0) output.clear();  // refused (an older ptxas, an unknown target): keep the assumption
  }
  std::filesystem::remove(file);
  return parse_ptxas_registers(output);
}

}  // namespace ws::exec
