#include "frontend/trace/wst_inst.h"

#include <charconv>

#include "common/error.h"

namespace ws::frontend::wst {

namespace {

// More register tokens than any SASS instruction lists: a corrupt line.
constexpr uint32_t kMaxRegTokens = 64;

class Fields {
 public:
  Fields(std::string_view line, const LineCtx& ctx) : p_(line.data()), end_(line.data() + line.size()), ctx_(ctx) {}
  std::string_view next(const char* field) {
    while (p_ != end_ && blank(*p_)) ++p_;
    const char* b = p_;
    while (p_ != end_ && !blank(*p_)) ++p_;
    if (b == p_) fail(field, "missing (line ends early)");
    return {b, static_cast<size_t>(p_ - b)};
  }
  bool done() {
    while (p_ != end_ && blank(*p_)) ++p_;
    return p_ == end_;
  }
  uint64_t hex(const char* field) {
    std::string_view t = next(field);
    if (auto v = hex_value(t)) return *v;
    fail(field, "expected a hex number, got '" + std::string(t.substr(0, 40)) + "'");
  }
  template <class T>
  T dec(const char* field) {
    std::string_view t = next(field);
    T v{};
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc{} || r.ptr != t.data() + t.size())
      fail(field, "expected a decimal number, got '" + std::string(t.substr(0, 40)) + "'");
    return v;
  }
  void regs(RegList& out, const char* field) {
    auto n = dec<uint32_t>(field);
    if (n > kMaxRegTokens) fail(field, std::to_string(n) + " registers");
    out.clear();
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view t = next(field);
      uint32_t r = 256;
      if (t.size() >= 2 && t[0] == 'R') {
        auto res = std::from_chars(t.data() + 1, t.data() + t.size(), r);
        if (res.ec != std::errc{} || res.ptr != t.data() + t.size()) r = 256;
      }
      if (r > 255) fail(field, "expected a register R0..R255, got '" + std::string(t.substr(0, 40)) + "'");
      out.push_back(static_cast<uint8_t>(r));
    }
  }
  [[noreturn]] void fail(const char* field, const std::string& what) const {
    throw InputError(std::string(ctx_.file), ctx_.line, field, what);
  }

 private:
  static bool blank(char c) { return static_cast<unsigned char>(c) <= ' '; }
  const char* p_;
  const char* end_;
  const LineCtx& ctx_;
};

void read_addrs(Fields& f, uint32_t mask, InstAddrs& a) {
  auto mode = f.dec<uint32_t>("address mode");
  if (mode > 2) f.fail("address mode", "must be 0, 1 or 2, got " + std::to_string(mode));
  a.mode = static_cast<uint8_t>(mode);
  a.count = 0;
  auto lanes = static_cast<uint32_t>(__builtin_popcount(mask));
  if (mode == 1) {
    a.base = f.hex("address");
    a.stride = f.dec<int64_t>("stride");
  } else if (mode == 0) {
    for (; a.count < lanes; ++a.count) a.vals[a.count] = f.hex("address");
  } else if (lanes > 0) {
    a.base = f.hex("address");
    for (; a.count + 1 < lanes; ++a.count) a.vals[a.count] = static_cast<uint64_t>(f.dec<int64_t>("address"));
  }
}

void append_hex(std::string& out, uint64_t v, int min_digits) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  for (int pad = min_digits - static_cast<int>(r.ptr - buf); pad > 0; --pad) out.push_back('0');
  out.append(buf, r.ptr);
  out.push_back(' ');
}

template <class T>
void append_dec(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
  out.push_back(' ');
}

void append_regs(std::string& out, const RegList& regs) {
  append_dec(out, regs.size());
  for (uint8_t r : regs) {
    out.push_back('R');
    append_dec(out, unsigned{r});
  }
}

void append_addr(std::string& out, uint64_t a) {
  out += "0x";
  append_hex(out, a, 0);
}

}  // namespace

void tokenize_inst_line(std::string_view line, const LineFormat& fmt, TextInst& out, const LineCtx& ctx) {
  Fields f(line, ctx);
  if (fmt.tracer_version < 3) {
    for (int k = 0; k < 3; ++k) out.prefix[k] = f.dec<uint32_t>("thread block");
    out.prefix[3] = f.dec<uint32_t>("warp");
  }
  InstProto& p = out.proto;
  p.line_num = fmt.lineinfo ? f.dec<uint32_t>("line number") : 0;
  p.pc = f.hex("pc");
  uint64_t mask = f.hex("mask");
  if (mask > 0xffffffffull) f.fail("mask", "wider than 32 lanes");
  out.mask = static_cast<uint32_t>(mask);
  f.regs(p.dst, "dst count");
  out.opcode = f.next("opcode");
  f.regs(p.src, "src count");
  p.mem_width = f.dec<uint32_t>("mem width");
  if (p.mem_width > 0) read_addrs(f, out.mask, out.addrs);
  p.immediate = fmt.tracer_version >= 5 ? f.dec<int64_t>("immediate") : 0;
  if (!f.done()) f.fail("line", "unexpected trailing text");
}

void render_inst_line(const TextInst& i, const LineFormat& fmt, std::string& out) {
  const InstProto& p = i.proto;
  if (fmt.tracer_version < 3)
    for (uint32_t v : i.prefix) append_dec(out, v);
  if (fmt.lineinfo) append_dec(out, p.line_num);
  append_hex(out, p.pc, 4);
  append_hex(out, i.mask, 8);
  append_regs(out, p.dst);
  out += i.opcode;
  out.push_back(' ');
  append_regs(out, p.src);
  append_dec(out, p.mem_width);
  if (p.mem_width > 0) {
    const InstAddrs& a = i.addrs;
    append_dec(out, unsigned{a.mode});
    if (a.mode == 1) {
      append_addr(out, a.base);
      append_dec(out, a.stride);
    } else if (a.mode == 0) {
      for (uint32_t k = 0; k < a.count; ++k) append_addr(out, a.vals[k]);
    } else if (i.mask != 0) {
      append_addr(out, a.base);
      for (uint32_t k = 0; k < a.count; ++k) append_dec(out, static_cast<int64_t>(a.vals[k]));
    }
  }
  if (fmt.tracer_version >= 5) append_dec(out, p.immediate);
}

void lane_addresses(const InstAddrs& a, uint32_t mask, std::array<Addr, 32>& out) {
  out.fill(0);
  uint32_t k = 0;
  Addr prev = a.base;
  for (uint32_t m = mask; m; m &= m - 1, ++k) {
    auto lane = static_cast<uint32_t>(__builtin_ctz(m));
    if (a.mode == 1) out[lane] = a.base + static_cast<uint64_t>(a.stride) * k;
    else if (a.mode == 0) out[lane] = a.vals[k];
    else out[lane] = prev = k == 0 ? a.base : prev + a.vals[k - 1];
  }
}

}  // namespace ws::frontend::wst
