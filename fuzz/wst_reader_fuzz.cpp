// libFuzzer target over the binary trace reader (.wst): any file must either
// read completely or raise ws::InputError naming it, never crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/error.h"
#include "frontend/trace/wst_reader.h"
#include "ir/read_cta.h"

using namespace ws::frontend;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader works on files (it seeks): the input becomes one.
  static const std::string path = "/tmp/warpsim-wst-fuzz-" + std::to_string(::getpid()) + ".wst";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  static const auto isa = std::make_shared<IsaTable>(IsaTable::load_from(WARPSIM_SOURCE_DIR "/isa", 61));
  try {
    auto k = open_wst_kernel(path, isa);
    ws::ir::WarpInst scratch;
    uint64_t sum = 0;
    // Every active lane's address is read, so that a bad pointer shows.
    auto touch = [&sum](const ws::ir::WarpInst& i) {
      for (uint32_t m = i.active_mask; m && i.has_addrs(); m &= m - 1) sum += i.lane_addr(__builtin_ctz(m));
    };
    while (auto cta = k->next_cta()) ws::ir::read_cta(*cta, touch, scratch);
    if (sum == 1) std::fputc(' ', stderr);
  } catch (const ws::InputError&) {
  }
  return 0;
}
