// Device printf: `call (ret), vprintf, (fmt, args)` to the runtime's extern
// vprintf runs as a built-in (and device assert()'s __assertfail, below). Every executing lane prints in lane order, its
// output going to the emulator's print sink as soon as the lane formats it.
#include <cstdio>
#include <cstring>
#include <optional>

#include "exec/device_memory.h"
#include "exec/device_printf.h"
#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

constexpr size_t kMaxString = 1 << 16;  // a longer string without NUL is treated as unreadable

// Reads device strings and the argument buffer of one lane; faults on a bad address.
class LaneSource : public PrintfSource {
 public:
  LaneSource(Ctx& c, const DecodedInst& in, unsigned lane, uint64_t args) : c_(c), in_(in), lane_(lane), args_(args) {}
  bool argument(uint64_t offset, unsigned bytes, uint64_t& value) override {
    const uint8_t* p = args_ ? generic_ptr(c_, in_, args_ + offset, bytes, lane_) : nullptr;
    if (!p) {
      if (!args_) fault(c_, in_, lane_, "printf reads an argument but none were passed");
      return false;
    }
    value = 0;
    std::memcpy(&value, p, bytes);
    return true;
  }
  bool string(uint64_t addr, std::string& out) override {
    out.clear();
    for (size_t i = 0; i < kMaxString; ++i) {
      const uint8_t* p = generic_ptr(c_, in_, addr + i, 1, lane_);
      if (!p) return false;
      if (*p == 0) return true;
      out += static_cast<char>(*p);
    }
    fault(c_, in_, lane_, "printf string without a terminating NUL");
    return false;
  }

 private:
  Ctx& c_;
  const DecodedInst& in_;
  unsigned lane_;
  uint64_t args_;
};

uint8_t* param_slot(Ctx& c, unsigned lane, uint32_t offset) {
  const Frame& f = c.w->frames.back();
  return c.w->params.data() + f.param_base + size_t{lane} * f.fn->param_frame_bytes + offset;
}

// s[0]/s[1] unused; imm: format param offset, aux: args param offset, target: return offset (kNoPc: none).
void run_vprintf(Ctx& c, const DecodedInst& in, uint32_t m) {
  std::string fmt, text;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t fmt_addr = 0, args = 0;
    std::memcpy(&fmt_addr, param_slot(c, l, static_cast<uint32_t>(in.imm)), 8);
    std::memcpy(&args, param_slot(c, l, in.aux), 8);
    LaneSource src(c, in, l, args);
    int32_t ret = -1;
    if (fmt_addr) {
      if (!src.string(fmt_addr, fmt)) return;
      text.clear();
      PrintfResult r = format_device_printf(fmt, src, text);
      if (!r.ok) return;
      (*c.print)(text);
      ret = r.arguments;
    }
    if (in.target != kNoPc) std::memcpy(param_slot(c, l, in.target), &ret, 4);
  });
}

uint32_t param_offset(Decoder& dc, const ptx::Operand& o) {
  if (o.kind != ptx::Operand::Kind::Symbol) dc.fail("vprintf arguments must be .param variables");
  ptx::StateSpace sp = ptx::StateSpace::None;
  uint16_t flags = 0;
  uint64_t off = dc.symbol_address(o.symbol, sp, flags, o.local);
  if (sp != ptx::StateSpace::Param) dc.fail("vprintf argument '" + o.symbol + "' is not a .param variable");
  return static_cast<uint32_t>(off);
}

// Device assert(): `call __assertfail, (message, file, line, function,
// char size)`. Every failing lane of the warp prints CUDA's line, then the
// kernel stops, reported as a failed assertion (cudaErrorAssert).
// imm: message offset, aux: file offset, target: line offset, d[0]: function offset.
void run_assertfail(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (m == 0) return;
  auto text = [&](unsigned lane, uint32_t offset) {
    uint64_t addr = 0;
    std::memcpy(&addr, param_slot(c, lane, offset), 8);
    std::string s;
    LaneSource src(c, in, lane, 0);
    if (addr) src.string(addr, s);
    return s;
  };
  const Dim3& b = c.cta->id;
  const Dim3& bd = c.launch->block;
  std::string first;
  each_lane(m, [&](unsigned l) {
    std::string msg = text(l, static_cast<uint32_t>(in.imm)), file = text(l, in.aux), func = text(l, in.d[0]);
    if (c.faulted) return;
    int32_t line = 0;
    std::memcpy(&line, param_slot(c, l, in.target), 4);
    unsigned t = c.w->index * kLanes + l;
    (*c.print)(file + ":" + std::to_string(line) + ": " + func + ": block: [" + std::to_string(b.x) + "," +
               std::to_string(b.y) + "," + std::to_string(b.z) + "], thread: [" + std::to_string(t % bd.x) + "," +
               std::to_string(t / bd.x % bd.y) + "," + std::to_string(t / (bd.x * bd.y)) + "] Assertion `" + msg +
               "` failed.\n");
    if (first.empty()) first = "device-side assertion `" + msg + "` failed (" + file + ":" + std::to_string(line) + ")";
  });
  if (c.faulted) return;
  c.assert_fault = true;
  fault(c, in, static_cast<unsigned>(__builtin_ctz(m)), first);
}

bool decode_assertfail(Decoder& dc, DecodedInst& out) {
  const std::vector<ptx::Operand>& args = dc.inst().ops[2].elems;
  if (args.size() < 4) dc.fail("__assertfail takes (message, file, line, function, char size)");
  out.imm = param_offset(dc, args[0]);
  out.aux = param_offset(dc, args[1]);
  out.target = param_offset(dc, args[2]);
  out.d[0] = param_offset(dc, args[3]);
  out.fn = run_assertfail;
  return true;
}

// Device malloc/free: each executing lane gets its own allocation from the
// device memory (the same allocator as cudaMalloc; NULL when it is full),
// and free releases one (NULL is ignored, like free(NULL)).
// imm: size (malloc) or pointer (free) param offset; target: malloc's return offset.
void run_malloc(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    uint64_t bytes = 0;
    std::memcpy(&bytes, param_slot(c, l, static_cast<uint32_t>(in.imm)), 8);
    auto a = bytes ? c.mem->allocate(bytes) : std::nullopt;
    uint64_t ptr = a ? *a : 0;
    std::memcpy(param_slot(c, l, in.target), &ptr, 8);
  });
  c.gcache = GlobalCache{};  // the valid-range cache may not know the new blocks
}

void run_free(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t ptr = 0;
    std::memcpy(&ptr, param_slot(c, l, static_cast<uint32_t>(in.imm)), 8);
    if (ptr && !c.mem->release(ptr)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(ptr));
      fault(c, in, l, std::string("free of ") + buf + ", which malloc did not return");
    }
  });
  c.gcache = GlobalCache{};
}

bool decode_heap_call(Decoder& dc, DecodedInst& out, bool is_malloc) {
  const ptx::Instruction& inst = dc.inst();
  const std::vector<ptx::Operand>& rets = inst.ops[0].elems;
  const std::vector<ptx::Operand>& args = inst.ops[2].elems;
  if (args.size() != 1 || rets.size() != (is_malloc ? 1u : 0u))
    dc.fail(is_malloc ? "malloc takes (size) and returns a pointer" : "free takes (pointer)");
  out.imm = param_offset(dc, args[0]);
  if (is_malloc) out.target = param_offset(dc, rets[0]);
  out.fn = is_malloc ? run_malloc : run_free;
  return true;
}

}  // namespace

bool decode_builtin_call(Decoder& dc, DecodedInst& out) {
  const ptx::Instruction& inst = dc.inst();
  if (inst.ops.size() < 3 || inst.ops[1].kind != ptx::Operand::Kind::Symbol) return false;
  const std::string& callee = inst.ops[1].symbol;
  if (dc.layout().function_index.count(callee)) return false;  // the module defines its own
  if (callee == "__assertfail") return decode_assertfail(dc, out);
  if (callee == "malloc" || callee == "free") return decode_heap_call(dc, out, callee == "malloc");
  if (callee != "vprintf") return false;
  const std::vector<ptx::Operand>& rets = inst.ops[0].elems;
  const std::vector<ptx::Operand>& args = inst.ops[2].elems;
  if (rets.size() > 1 || args.size() != 2) dc.fail("vprintf takes (format, arguments) and returns one value");
  out.imm = param_offset(dc, args[0]);
  out.aux = param_offset(dc, args[1]);
  out.target = rets.empty() ? kNoPc : param_offset(dc, rets[0]);
  out.fn = run_vprintf;
  return true;
}

}  // namespace ws::exec::emu
