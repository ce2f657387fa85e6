// An instruction line of an Accel-Sim text trace, field by field as written
// (RZ kept, address mode and values as the tracer chose them), so that the
// binary format can give the line back. Tokenizing never consults the
// opcode tables: the binary reader resolves opcodes when it opens a file.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/trace/trace_parse.h"

namespace ws::frontend::wst {

// Register numbers as listed (255 = RZ kept). A string of bytes: the short
// lists of real instructions live inside it, without an allocation each.
using RegList = std::basic_string<uint8_t>;

// The fields that repeat from one dynamic instance of a static instruction
// to the next; the binary format stores each distinct one once per kernel.
struct InstProto {
  uint32_t line_num = 0;  // lineinfo traces only
  uint64_t pc = 0;
  uint32_t opcode = 0;    // index into the kernel's opcode strings
  RegList dst, src;
  uint32_t mem_width = 0;
  int64_t immediate = 0;  // tracer version 5 only
  bool operator==(const InstProto&) const = default;
};

// What varies per instance.
struct InstAddrs {
  uint8_t mode = 0;    // address mode 0, 1 or 2 (memory instructions only)
  uint64_t base = 0;   // mode 1 and 2: the base; mode 0: unused
  int64_t stride = 0;  // mode 1
  uint32_t count = 0;  // mode 0: addresses, mode 2: deltas (after the base)
  std::array<uint64_t, 32> vals{};
};

struct TextInst {
  uint32_t prefix[4] = {0, 0, 0, 0};  // tracer version < 3: tb x, y, z, warp
  InstProto proto;
  std::string_view opcode;  // the text behind proto.opcode
  uint32_t mask = 0;
  InstAddrs addrs;
};

// Splits an instruction line into `out` (out.opcode points into `line`).
// Errors name ctx's file and line and the field, as the text reader's do.
void tokenize_inst_line(std::string_view line, const LineFormat& fmt, TextInst& out, const LineCtx& ctx);

// The line as NVBit's tracer writes it (each field followed by one space).
void render_inst_line(const TextInst& i, const LineFormat& fmt, std::string& out);

// The lane-indexed addresses an instance gives its active lanes (inactive
// lanes 0), as InstParser computes them.
void lane_addresses(const InstAddrs& a, uint32_t mask, std::array<Addr, 32>& out);

}  // namespace ws::frontend::wst
