// The decode half of scripts/ptx-coverage.py: every kernel of every PTX file
// under $WARPSIM_PTX_COVERAGE_DIR (what nvcc 13 emits for the test programs
// and examples) is decoded, collecting each instruction the emulator refuses
// into refused.txt there; the script turns them into forms and checks them
// against the documented list. Skipped without the variable (plain test runs).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "exec/decode.h"
#include "exec/device_memory.h"
#include "exec/program.h"
#include "exec/ptx_op_names.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

// Names every decoded instruction as a timed run would (isa/ptx.toml), with
// the space its decoder gave it; a generic access names as it does when no
// lane resolved it. Adds an error for each one without a SASS class.
void check_sass_names(const emu::DecodedKernel& k, const std::string& file, std::vector<std::string>& errors) {
  static const PtxOpNames names = PtxOpNames::load_from(std::string(WARPSIM_SOURCE_DIR) + "/isa/ptx.toml");
  for (const auto& f : k.funcs)
    for (size_t i = 0; i + 1 < f->code.size(); ++i) {  // the last is the implicit ret
      const emu::DecodedInst& in = f->code[i];
      if (!in.fn || !in.src) continue;  // refused at decode: already reported
      try {
        names.sass_name(*in.src, in.space, f.get() == k.funcs[0].get(), file);
      } catch (const InputError& e) {
        errors.push_back(e.what());
      }
    }
}

// Decode errors of every kernel in `path` (a parse or load error: one line).
std::vector<std::string> refusals(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  std::vector<std::string> errors;
  DeviceMemory mem;
  Program program{mem};
  try {
    const LoadedModule& m = program.load(ptx::parse_module(text.str(), path.string()));
    for (const ptx::Function& fn : m.ast.functions)
      if (fn.is_entry && !fn.is_extern) check_sass_names(*emu::decode_kernel(m, fn, &errors), path.string(), errors);
  } catch (const std::exception& e) {
    errors.push_back(e.what());
  }
  return errors;
}

TEST(PtxCoverage, DecodeEveryKernelOfTheSweep) {
  const char* dir = std::getenv("WARPSIM_PTX_COVERAGE_DIR");
  if (!dir) GTEST_SKIP() << "run by scripts/ptx-coverage.py (WARPSIM_PTX_COVERAGE_DIR)";
  std::ofstream out(std::filesystem::path(dir) / "refused.txt");
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".ptx") continue;
    ++files;
    for (const std::string& r : refusals(e.path())) out << r << "\n";
  }
  EXPECT_GT(files, 0u) << "no .ptx files under " << dir;
}

// Without the sweep: one refused instruction does not hide the next, and the
// errors name file and line.
TEST(PtxCoverage, CollectingDecodeErrorsGoesOnAfterTheFirst) {
  ptx::Module m = ptx::parse_module(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  vmad.u32.u32.u32 %r1, %r2, %r3, %r1;
  add.u32 %r1, %r1, 1;
  frobnicate.b32 %r1;
  ret;
}
)", "c.ptx");
  DeviceMemory mem;
  Program program{mem};
  const LoadedModule& lm = program.load(std::move(m));
  std::vector<std::string> errors;
  emu::decode_kernel(lm, lm.ast.functions[0], &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("c.ptx:8"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("vmad"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("c.ptx:10"), std::string::npos) << errors[1];
  EXPECT_THROW(emu::decode_kernel(lm, lm.ast.functions[0]), InputError);
}

}  // namespace
}  // namespace ws::exec
