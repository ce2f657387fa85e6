// libFuzzer target over the trace header and instruction-line parsers: any
// input must either parse or raise ws::InputError, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "frontend/trace/trace_parse.h"

using namespace ws::frontend;

namespace {

const IsaTable& table(bool pascal) {
  static const IsaTable sm61 = IsaTable::load_from(WARPSIM_SOURCE_DIR "/isa", 61);
  static const IsaTable sm70 = IsaTable::load_from(WARPSIM_SOURCE_DIR "/isa", 70);
  return pascal ? sm61 : sm70;
}

// The first byte picks the line format; each following line is fed to the
// header parser ('-' lines) or the instruction parser (all others).
void run(std::string_view in) {
  uint8_t sel = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  static const uint32_t kVersions[] = {2, 3, 4, 5};
  LineFormat fmt{kVersions[sel & 3], (sel & 4) != 0, 0x7f0000000000ull, 0x7e0000000000ull};
  InstParser parser(table(sel & 8), fmt);
  TraceHeader h;
  ParsedInst out;
  for (uint64_t line = 1; !in.empty(); ++line) {
    size_t nl = in.find('\n');
    std::string_view l = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
    LineCtx ctx{"fuzz.traceg", line};
    try {
      if (!l.empty() && l[0] == '-') {
        parse_header_line(l, h, ctx);
      } else {
        parser.parse(l, out, ctx);
        // A parsed memory access must carry its 32 lane addresses.
        if (out.has_addrs && (!out.inst.addrs || !out.inst.is_memory())) __builtin_trap();
      }
    } catch (const ws::InputError&) {
    }
  }
  try {
    check_header(h, LineCtx{"fuzz.traceg", 1});
  } catch (const ws::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
