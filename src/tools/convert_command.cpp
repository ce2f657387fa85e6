// warpsim convert IN OUT: text trace folders <-> binary (.wst) ones.
#include <fmt/format.h>

#include <iostream>

#include "frontend/trace/wst_convert.h"
#include "tools/commands.h"

namespace ws::tools {

int convert_command(const std::string& in, const std::string& out) {
  frontend::ConvertStats s = frontend::convert_traces(in, out);
  double ratio = s.bytes_out ? static_cast<double>(s.bytes_in) / static_cast<double>(s.bytes_out) : 0.0;
  std::cout << fmt::format("converted {} kernel file{} ({} warp instructions) to {}: {} bytes -> {} bytes ({:.1f}x)\n",
                           s.kernels, s.kernels == 1 ? "" : "s", s.instructions, s.to_binary ? "binary (.wst)" : "text",
                           s.bytes_in, s.bytes_out, ratio);
  return 0;
}

}  // namespace ws::tools
