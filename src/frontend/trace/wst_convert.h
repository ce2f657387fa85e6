// `warpsim convert`: Accel-Sim text traces to binary traces (.wst) and back
// (docs/trace-format.md).
#pragma once
#include <cstdint>
#include <string>

namespace ws::frontend {

struct ConvertStats {
  uint32_t kernels = 0;
  uint64_t instructions = 0;
  uint64_t bytes_in = 0, bytes_out = 0;  // kernel files only
  bool to_binary = true;
};

// One kernel file: a .traceg[.xz] into a .wst. Lines are kept as written:
// converting back gives the same text (except '\r' before line ends, and a
// last line without '\n', which gain/lose nothing the reader sees).
uint64_t text_kernel_to_wst(const std::string& in, const std::string& out);
// One .wst kernel file back into a .traceg.
uint64_t wst_kernel_to_text(const std::string& in, const std::string& out);

// `in` is a trace folder (or its kernelslist.g) or one kernel file. A folder
// whose list names .traceg files becomes one naming .wst files and the
// other way round; list lines other than kernel names are copied as they are.
ConvertStats convert_traces(const std::string& in, const std::string& out);

}  // namespace ws::frontend
