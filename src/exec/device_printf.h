// Device-side printf (`vprintf(fmt, args)` as nvcc calls it): the format is
// walked here and each conversion is handed to the host's snprintf with the
// argument read from the packed argument buffer. Kept apart from the emulator
// so that it can be tested with plain byte buffers.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ws::exec {

// Where the formatter gets its arguments from.
class PrintfSource {
 public:
  virtual ~PrintfSource() = default;
  // `bytes` (4 or 8) of the argument buffer at `offset`; false when unreadable.
  virtual bool argument(uint64_t offset, unsigned bytes, uint64_t& value) = 0;
  // The NUL-terminated string at device address `addr`; false when unreadable.
  virtual bool string(uint64_t addr, std::string& out) = 0;
};

struct PrintfResult {
  bool ok = true;        // false: an argument or %s string could not be read (`out` holds what came before)
  int arguments = 0;     // arguments consumed (what CUDA's printf returns)
};

// Appends the formatted text to `out`. The argument buffer packs each argument
// at its natural alignment: int, unsigned, char, short (promoted) 4 bytes; long,
// long long, pointers, double (float promoted) 8 bytes. `*` widths read an int.
PrintfResult format_device_printf(std::string_view fmt, PrintfSource& src, std::string& out);

}  // namespace ws::exec
