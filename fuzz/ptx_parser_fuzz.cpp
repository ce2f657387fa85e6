// libFuzzer target over the PTX parser: any text must either parse into a
// module or raise ws::InputError, never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "frontend/ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ws::ptx::Module m = ws::ptx::parse_module(text, "fuzz.ptx");
    // A parsed module's register references must name declared registers.
    for (const auto& fn : m.functions)
      for (const auto& in : fn.body)
        for (const auto& op : in.ops)
          if (op.reg >= 0 && static_cast<size_t>(op.reg) >= fn.regs.size()) __builtin_trap();
  } catch (const ws::InputError&) {
  }
  return 0;
}
