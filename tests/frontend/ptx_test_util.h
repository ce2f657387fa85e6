// Helpers for the PTX parser tests: fixture loading and lookups by name.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "frontend/ptx/parser.h"

namespace ws::ptx::test {

inline std::string fixture_dir() { return std::string(WARPSIM_SOURCE_DIR) + "/tests/data/ptx/"; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline Module parse_fixture(const std::string& name) {
  return parse_module(read_file(fixture_dir() + name), name);
}

inline const Function& function(const Module& m, const std::string& name) {
  const Function* f = m.find_function(name);
  if (!f) throw std::runtime_error("no function " + name);
  return *f;
}

// The first instruction whose text starts with `prefix`.
inline const Instruction& inst(const Function& f, std::string_view prefix) {
  for (const Instruction& i : f.body)
    if (std::string_view(i.text).starts_with(prefix)) return i;
  throw std::runtime_error("no instruction starting with " + std::string(prefix));
}

// A module of one kernel `k(.param .u64 a)` with `body` as its body, after
// declarations of %r, %rd, %p, %f and %rs registers.
inline Module parse_kernel_body(const std::string& body) {
  return parse_module(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
                      ".reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n.reg .pred %p<8>;\n.reg .f32 %f<32>;\n.reg .b16 %rs<8>;\n" +
                          body + "\n}\n",
                      "t.ptx");
}

// The position in f.body of the first instruction whose text starts with `prefix`.
inline size_t index_of(const Function& f, std::string_view prefix) {
  return static_cast<size_t>(&inst(f, prefix) - f.body.data());
}


// Index of the first register called `name`, or -1.
inline int32_t reg(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i)
    if (f.regs[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

// The message of the InputError that parsing `text` throws ("" if none).
inline std::string parse_error(const std::string& text, const std::string& file = "bad.ptx") {
  try {
    parse_module(text, file);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace ws::ptx::test
