#include "frontend/trace/trace_parse.h"
#include "frontend/trace/tensor_work.h"
#include "frontend/trace/trace_checks.h"

#include <array>
#include <charconv>
#include <span>

#include "common/error.h"

namespace ws::frontend {

namespace {

// Bits of TraceHeader::seen for the keys check_header() requires.
constexpr uint32_t kSeenGrid = 1, kSeenBlock = 2, kSeenVersion = 4;

[[noreturn]] void fail(const LineCtx& ctx, std::string_view field, const std::string& what) {
  throw InputError(std::string(ctx.file), ctx.line, std::string(field), what);
}

std::string quoted(std::string_view s) {
  if (s.size() > 40) return "'" + std::string(s.substr(0, 40)) + "...'";
  return "'" + std::string(s) + "'";
}

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Whitespace tokenizer over one line; never allocates. Works on local
// pointers so the scanning loops keep them in registers.
class Tokens {
 public:
  explicit Tokens(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}
  std::string_view next() {
    const char* p = skip_space(p_);
    const char* b = p;
    while (p != end_ && !is_space(*p)) ++p;
    p_ = p;
    return {b, static_cast<size_t>(p - b)};
  }
  bool done() {
    p_ = skip_space(p_);
    return p_ == end_;
  }

  // Fast paths for the common token shapes, converting while scanning. Each
  // consumes the token and returns true only for a well-formed one of at most
  // `Max` digits; otherwise it leaves the position alone and the caller takes
  // the checked path, which gives the same value or reports the error.
  bool hex(uint64_t& out) {
    const char* p = skip_space(p_);
    if (end_ - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    return accept(digits<16, 16>(p, out));
  }
  bool dec(uint32_t& out) {
    uint64_t v;
    if (!accept(digits<10, 9>(skip_space(p_), v))) return false;
    out = static_cast<uint32_t>(v);
    return true;
  }
  // Where the next token starts, and where the last one read ended.
  const char* at() const { return skip_space(p_); }
  const char* pos() const { return p_; }
  // A register token R<n>, n of one to three digits and at most 255.
  bool reg(uint32_t& out) {
    const char* p = skip_space(p_);
    uint64_t v;
    if (p == end_ || *p != 'R') return false;
    const char* end = digits<10, 3>(p + 1, v);
    if (!end || v > 255) return false;
    accept(end);
    out = static_cast<uint32_t>(v);
    return true;
  }

 private:
  // Base-`Base` digits from `p` up to a separator or the end, 1 to `Max` of
  // them (9 decimal digits cannot overflow 32 bits, 16 hex digits 64): where
  // they end, or nullptr if the token is anything else.
  template <int Base, int Max>
  const char* digits(const char* p, uint64_t& out) const {
    uint64_t v = 0;
    int n = 0;
    for (; p != end_ && !is_space(*p); ++p, ++n) {
      int d = digit_value(*p);
      if (d < 0 || d >= Base || n == Max) return nullptr;
      v = v * Base + static_cast<uint64_t>(d);
    }
    if (n == 0) return nullptr;
    out = v;
    return p;
  }
  // Consumes the token up to `end` (nullptr: leaves the position alone).
  bool accept(const char* end) {
    if (end) p_ = end;
    return end != nullptr;
  }
  static int digit_value(char c);
  // Trace lines hold printable text; every control character separates tokens.
  static bool is_space(char c) { return static_cast<unsigned char>(c) <= ' '; }
  const char* skip_space(const char* p) const {
    while (p != end_ && is_space(*p)) ++p;
    return p;
  }
  const char* p_;
  const char* end_;
};

template <class T>
bool parse_num(std::string_view t, T& v, int base) {
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v, base);
  return r.ec == std::errc{} && r.ptr == t.data() + t.size();
}

// Hex digit values by character, -1 for anything else.
constexpr std::array<int8_t, 256> kHexDigit = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int c = 0; c < 10; ++c) t[static_cast<size_t>('0' + c)] = static_cast<int8_t>(c);
  for (int c = 0; c < 6; ++c) {
    t[static_cast<size_t>('a' + c)] = static_cast<int8_t>(10 + c);
    t[static_cast<size_t>('A' + c)] = static_cast<int8_t>(10 + c);
  }
  return t;
}();

int Tokens::digit_value(char c) { return kHexDigit[static_cast<unsigned char>(c)]; }

// A hex token's digits: without its 0x/0X prefix and without leading zeros
// past the sixteenth digit (more than 64 bits only if they are not zeros).
std::string_view hex_digits(std::string_view t) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  while (t.size() > 16 && t[0] == '0') t.remove_prefix(1);
  return t;
}

uint64_t need_hex(std::string_view t, const LineCtx& ctx, std::string_view field) {
  if (std::optional<uint64_t> v = hex_value(t)) return *v;
  std::string_view d = hex_digits(t);
  if (d.empty() || d.size() > 16) fail(ctx, field, "expected a hex number (64 bits at most), got " + quoted(t));
  fail(ctx, field, "expected a hex number, got " + quoted(t));
}

template <class T>
T need_dec(std::string_view t, const LineCtx& ctx, std::string_view field) {
  T v{};
  if (!parse_num(t, v, 10)) fail(ctx, field, "expected a decimal number, got " + quoted(t));
  return v;
}

Dim3 parse_dim(std::string_view v, const LineCtx& ctx, std::string_view field) {
  if (v.size() < 2 || v.front() != '(' || v.back() != ')') fail(ctx, field, "expected (x,y,z), got " + quoted(v));
  v = v.substr(1, v.size() - 2);
  uint32_t xyz[3];
  for (int i = 0; i < 3; ++i) {
    size_t comma = v.find(',');
    if ((i < 2) != (comma != std::string_view::npos)) fail(ctx, field, "expected three components");
    xyz[i] = need_dec<uint32_t>(trim(v.substr(0, comma)), ctx, field);
    if (xyz[i] == 0) fail(ctx, field, "dimensions must be positive");
    v = i < 2 ? v.substr(comma + 1) : std::string_view{};
  }
  return Dim3{xyz[0], xyz[1], xyz[2]};
}

// CUDA's launch limits (every generation since sm_20): a header over them
// was not written by a tracer of a real launch.
Dim3 block_dim(std::string_view v, const LineCtx& ctx, std::string_view field) {
  Dim3 b = parse_dim(v, ctx, field);
  if (b.x > 1024 || b.y > 1024 || b.z > 64)
    fail(ctx, field, dim_text(b) + " is over CUDA's per-axis limits (1024,1024,64)");
  if (b.count() > 1024) fail(ctx, field, std::to_string(b.count()) + " threads per block; CUDA allows at most 1024");
  return b;
}

Dim3 grid_dim(std::string_view v, const LineCtx& ctx, std::string_view field) {
  Dim3 g = parse_dim(v, ctx, field);
  if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    fail(ctx, field, dim_text(g) + " is over CUDA's limits (2147483647,65535,65535)");
  return g;
}

// The line layouts this reader knows (an absent key means the pre-3 one);
// another version would be misread field by field.
uint32_t tracer_version(std::string_view v, const LineCtx& ctx, std::string_view field) {
  auto n = need_dec<uint32_t>(v, ctx, field);
  if (n < 3 || n > 5)
    fail(ctx, field, "version " + std::to_string(n) + " is not one this reader knows (3, 4 or 5; the pre-3 "
                     "layout has no version line)");
  return n;
}

}  // namespace

void parse_header_line(std::string_view line, TraceHeader& h, const LineCtx& ctx) {
  line = trim(line);
  if (line.empty() || line[0] != '-') fail(ctx, "header", "expected '-key = value', got " + quoted(line));
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) fail(ctx, "header", "missing '=' in " + quoted(line));
  std::string_view key = trim(line.substr(1, eq - 1)), v = trim(line.substr(eq + 1));
  auto& k = h.info;
  if (key == "kernel name") k.name = std::string(v);
  else if (key == "kernel id") k.id = need_dec<uint32_t>(v, ctx, key);
  else if (key == "grid dim") k.grid = grid_dim(v, ctx, key), h.seen |= kSeenGrid;
  else if (key == "block dim") k.block = block_dim(v, ctx, key), h.seen |= kSeenBlock;
  else if (key == "shmem") k.shmem_bytes = need_dec<uint32_t>(v, ctx, key);
  else if (key == "nregs") k.nregs = need_dec<uint32_t>(v, ctx, key);
  else if (key == "binary version") k.binary_version = need_dec<uint32_t>(v, ctx, key), h.seen |= kSeenVersion;
  else if (key == "cuda stream id") k.stream = need_dec<int64_t>(v, ctx, key);
  else if (key == "shmem base_addr") h.shmem_base = need_hex(v, ctx, key);
  else if (key == "local mem base_addr") h.local_base = need_hex(v, ctx, key);
  else if (key == "nvbit version") h.nvbit_version = std::string(v);
  else if (key == "accelsim tracer version") h.tracer_version = tracer_version(v, ctx, key);
  else if (key == "enable lineinfo") h.lineinfo = need_dec<uint32_t>(v, ctx, key) != 0;
}

void check_header(const TraceHeader& h, const LineCtx& ctx) {
  if (!(h.seen & kSeenGrid)) fail(ctx, "grid dim", "missing from the kernel header");
  if (!(h.seen & kSeenBlock)) fail(ctx, "block dim", "missing from the kernel header");
  if (!(h.seen & kSeenVersion)) fail(ctx, "binary version", "missing from the kernel header");
}

LineFormat LineFormat::from(const TraceHeader& h) {
  return LineFormat{h.tracer_version, h.lineinfo, h.shmem_base, h.local_base};
}

namespace {

// Calls f(modifier) for each '.'-separated word after the base opcode, in
// order, until it returns true.
template <class F>
void each_modifier(std::string_view op, F&& f) {
  size_t dot = op.find('.');
  while (dot != std::string_view::npos) {
    size_t end = op.find('.', dot + 1);
    std::string_view m = op.substr(dot + 1, end == std::string_view::npos ? std::string_view::npos : end - dot - 1);
    if (f(m)) return;
    dot = end;
  }
}

}  // namespace

uint8_t access_bytes_of(std::string_view op) {
  uint8_t bytes = 4;
  each_modifier(op, [&bytes](std::string_view m) {
    if (m == "256") bytes = 32;
    else if (m == "128") bytes = 16;
    else if (m == "64") bytes = 8;
    else if (m == "U8" || m == "S8") bytes = 1;
    else if (m == "U16" || m == "S16") bytes = 2;
    return bytes != 4;
  });
  return bytes;
}

namespace {

// SASS modifier -> operator. Where a name combines several (LDG.E.EF.STRONG.GPU)
// the one that restricts caching most wins: kCacheOpRank orders them.
struct SassCacheWord {
  std::string_view word;
  ir::CacheOp op;
};
constexpr SassCacheWord kSassCacheWords[] = {
    {"CA", ir::CacheOp::CacheAll},     {"CG", ir::CacheOp::CacheGlobal},   {"CS", ir::CacheOp::Streaming},
    {"EF", ir::CacheOp::Streaming},    {"LU", ir::CacheOp::LastUse},       {"CV", ir::CacheOp::Volatile},
    {"CI", ir::CacheOp::NonCoherent},  {"CONSTANT", ir::CacheOp::NonCoherent}, {"WB", ir::CacheOp::WriteBack},
    {"WT", ir::CacheOp::WriteThrough}, {"MMIO", ir::CacheOp::Volatile},
};
// STRONG.<scope>: the scope whose caches are coherent for the access.
constexpr SassCacheWord kStrongScopes[] = {
    {"SM", ir::CacheOp::CacheAll}, {"GPU", ir::CacheOp::CacheGlobal}, {"SYS", ir::CacheOp::Volatile}};
constexpr int kCacheOpRank[ir::kCacheOps] = {0, 1, 7, 5, 4, 8, 3, 2, 6};

ir::CacheOp stronger(ir::CacheOp a, ir::CacheOp b) {
  return kCacheOpRank[static_cast<int>(b)] > kCacheOpRank[static_cast<int>(a)] ? b : a;
}

}  // namespace

ir::MemSpace fence_scope_of(std::string_view op) {
  // ERRBAR, CGAERRBAR, CCTL (cache invalidations and prefetches) and the
  // proxy FENCE that follow or stand beside a MEMBAR wait for nothing beyond
  // the SM: the MEMBAR before them has waited for the memory system.
  if (base_opcode(op) != "MEMBAR") return ir::MemSpace::Shared;
  ir::MemSpace scope = ir::MemSpace::Global;
  each_modifier(op, [&](std::string_view m) {
    if (m == "CTA") scope = ir::MemSpace::Shared;
    if (m == "SYS") scope = ir::MemSpace::System;
    return false;
  });
  return scope;
}

ir::CacheOp cache_op_of(std::string_view op) {
  ir::CacheOp found = ir::CacheOp::Default;
  bool strong = false;
  each_modifier(op, [&](std::string_view m) {
    std::span<const SassCacheWord> words =
        strong ? std::span<const SassCacheWord>(kStrongScopes) : std::span<const SassCacheWord>(kSassCacheWords);
    for (const SassCacheWord& w : words)
      if (m == w.word) found = stronger(found, w.op);
    strong = m == "STRONG";
    return false;
  });
  return found;
}

const char* cache_op_suffix(ir::CacheOp op, uint32_t binary_version) {
  // Volta renamed the cache field: scopes and eviction priorities.
  static constexpr const char* kOld[ir::kCacheOps] = {"", ".CA", ".CG", ".CS", ".LU", ".CV", ".CI", ".WB", ".WT"};
  static constexpr const char* kVolta[ir::kCacheOps] = {
      "", ".STRONG.SM", ".STRONG.GPU", ".EF", ".LU", ".STRONG.SYS", ".CONSTANT", ".WB", ".WT"};
  return (binary_version >= 70 ? kVolta : kOld)[static_cast<int>(op)];
}

// Hand-rolled: hex fields (PCs, masks, addresses) are most of a trace's text.
std::optional<uint64_t> hex_value(std::string_view token) {
  std::string_view d = hex_digits(token);
  if (d.empty() || d.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : d) {
    int8_t digit = kHexDigit[static_cast<unsigned char>(c)];
    if (digit < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(digit);
  }
  return v;
}

ir::MemSpace classify_generic(Addr a, const LineFormat& f) {
  if (a >= f.shmem_base && a - f.shmem_base < kSharedWindow) return ir::MemSpace::Shared;
  if (a >= f.local_base && a - f.local_base < kLocalWindow) return ir::MemSpace::Local;
  return ir::MemSpace::Global;
}

namespace {

// FNV-1a: opcodes are a dozen bytes, too short for std::hash's setup to pay.
size_t opcode_hash(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return static_cast<size_t>(h ^ h >> 32);
}

}  // namespace

const InstParser::Resolved* InstParser::OpcodeCache::find(std::string_view op) const {
  size_t mask = slots_.size() - 1;
  for (size_t i = opcode_hash(op) & mask;; i = (i + 1) & mask) {
    uint32_t e = slots_[i];
    if (e == kEmpty) return nullptr;
    if (entries_[e].op == op) return &entries_[e].r;
  }
}

// Kept at most half full, so that probes stay short and always end.
const InstParser::Resolved& InstParser::OpcodeCache::add(std::string_view op, const Resolved& r) {
  entries_.push_back(Entry{std::string(op), r});
  if (entries_.size() * 2 > slots_.size()) {
    slots_.assign(slots_.size() * 2, kEmpty);
    for (uint32_t e = 0; e < entries_.size(); ++e) insert_slot(e);
  } else {
    insert_slot(static_cast<uint32_t>(entries_.size() - 1));
  }
  return entries_.back().r;
}

void InstParser::OpcodeCache::insert_slot(uint32_t entry) {
  size_t mask = slots_.size() - 1;
  size_t i = opcode_hash(entries_[entry].op) & mask;
  while (slots_[i] != kEmpty) i = (i + 1) & mask;
  slots_[i] = entry;
}

const InstParser::Resolved& InstParser::resolve(std::string_view opcode, const LineCtx& ctx) {
  if (const Resolved* r = cache_.find(opcode)) return *r;
  const OpInfo* op = isa_->find(opcode);
  if (!op) {
    std::string v = "sm_" + std::to_string(isa_->binary_version());
    fail(ctx, "opcode", "unknown opcode " + quoted(base_opcode(opcode)) + " for " + v + " (add it to isa/" + v + ".toml)");
  }
  return cache_.add(opcode, Resolved{*op, access_bytes_of(opcode), cache_op_of(opcode), tensor_work_of(opcode),
                                     fence_scope_of(opcode)});
}

}  // namespace ws::frontend

namespace ws::frontend {

namespace {

// Reads `n` register tokens into `regs`, dropping RZ (R255).
template <size_t N>
uint8_t parse_regs(Tokens& t, uint32_t n, std::array<uint16_t, N>& regs, const LineCtx& ctx, std::string_view field) {
  uint8_t count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t r;
    if (!t.reg(r)) {
      std::string_view tok = t.next();
      if (tok.size() < 2 || tok[0] != 'R') fail(ctx, field, "expected a register R<n>, got " + quoted(tok));
      r = need_dec<uint32_t>(tok.substr(1), ctx, field);
      if (r > 255) fail(ctx, field, "register " + quoted(tok) + " out of range R0..R255");
    }
    if (r == 255) continue;
    if (count >= N)
      fail(ctx, field, "more than " + std::to_string(N) + " registers (the IR holds at most " + std::to_string(N) + ")");
    regs[count++] = static_cast<uint16_t>(r);
  }
  return count;
}

std::string_view need_token(Tokens& t, const LineCtx& ctx, std::string_view field) {
  std::string_view tok = t.next();
  if (tok.empty()) fail(ctx, field, "missing (line ends early)");
  return tok;
}

uint64_t read_hex(Tokens& t, const LineCtx& ctx, std::string_view field) {
  uint64_t v;
  return t.hex(v) ? v : need_hex(need_token(t, ctx, field), ctx, field);
}

uint32_t read_u32(Tokens& t, const LineCtx& ctx, std::string_view field) {
  uint32_t v;
  return t.dec(v) ? v : need_dec<uint32_t>(need_token(t, ctx, field), ctx, field);
}

// Address modes: 0 = one hex address per active lane, 1 = base + decimal
// stride (k-th active lane = base + k*stride), 2 = base then signed deltas.
// Mode 1 records where its base token lies in the line (see ParsedInst).
void parse_addrs(Tokens& t, std::string_view line, ParsedInst& p, const LineCtx& ctx) {
  uint32_t mask = p.inst.active_mask;
  std::array<Addr, 32>& out = p.addrs;
  uint32_t mode = read_u32(t, ctx, "address mode");
  if (mode > 2) fail(ctx, "address mode", "must be 0, 1 or 2, got " + std::to_string(mode));
  out.fill(0);
  if (mode == 1) {
    const char* at = t.at();
    Addr base = read_hex(t, ctx, "address");
    p.base_at = static_cast<uint32_t>(at - line.data());
    p.base_len = static_cast<uint32_t>(t.pos() - at);
    p.base = base;
    int64_t stride = need_dec<int64_t>(need_token(t, ctx, "stride"), ctx, "stride");
    uint64_t k = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) out[lane] = base + static_cast<uint64_t>(stride) * k++;
    return;
  }
  bool first = true;
  Addr prev = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    if (mode == 0 || first) prev = read_hex(t, ctx, "address");
    else prev += static_cast<uint64_t>(need_dec<int64_t>(need_token(t, ctx, "address"), ctx, "address"));
    out[lane] = prev;
    first = false;
  }
}

}  // namespace

void InstParser::parse(std::string_view line, ParsedInst& out, const LineCtx& ctx) {
  Tokens t(line);
  out.has_addrs = false;  // stays consistent if this line throws
  out.base_len = 0;
  out.space_from_address = false;
  out.inst = ir::WarpInst{};
  if (fmt_.tracer_version < 3) {
    for (uint32_t& c : out.tb) c = read_u32(t, ctx, "thread block");
    out.warp = read_u32(t, ctx, "warp");
  }
  if (fmt_.lineinfo) out.line_num = read_u32(t, ctx, "line number");
  ir::WarpInst& w = out.inst;
  w.pc = read_hex(t, ctx, "pc");
  uint64_t mask = read_hex(t, ctx, "mask");
  if (mask > 0xffffffffull) fail(ctx, "mask", "wider than 32 lanes");
  w.active_mask = static_cast<uint32_t>(mask);
  uint32_t nd = read_u32(t, ctx, "dst count");
  w.n_dst = parse_regs(t, nd, w.dst, ctx, "dst");
  std::string_view opcode = need_token(t, ctx, "opcode");
  const Resolved& r = resolve(opcode, ctx);
  uint32_t ns = read_u32(t, ctx, "src count");
  w.n_src = parse_regs(t, ns, w.src, ctx, "src");
  uint32_t width = read_u32(t, ctx, "mem width");
  if (width > 0) parse_addrs(t, line, out, ctx);
  out.immediate = 0;
  if (fmt_.tracer_version >= 5) out.immediate = need_dec<int64_t>(need_token(t, ctx, "immediate"), ctx, "immediate");
  if (!t.done()) fail(ctx, "line", "unexpected trailing text " + quoted(t.next()));
  fill_kind(r, width > 0, out);
}

// Memory opcodes without traced addresses (e.g. LDC, TEX) have nothing for a
// memory model to do: they become ALU ops on their unit.
void InstParser::fill_kind(const Resolved& r, bool traced, ParsedInst& out) const {
  ir::WarpInst& w = out.inst;
  w.kind = r.op.kind;
  w.unit = r.op.unit;
  r.op.mark(w);
  w.tensor_work = r.tensor_work;
  if (w.kind == ir::OpKind::MemBar) w.space = r.fence_scope;
  bool mem = w.is_memory();
  if (!mem || !traced) {
    if (mem) w.kind = ir::OpKind::Alu;
    return;
  }
  out.has_addrs = true;
  w.access_bytes = r.access_bytes;
  w.cache_op = r.cache_op;
  w.addrs = out.addrs.data();
  switch (r.op.space) {
    case IsaSpace::Shared: w.space = ir::MemSpace::Shared; break;
    case IsaSpace::Local: w.space = ir::MemSpace::Local; break;
    case IsaSpace::Const: w.space = ir::MemSpace::Const; break;
    case IsaSpace::Tex: w.space = ir::MemSpace::Tex; break;
    case IsaSpace::Generic:
      w.space = generic_space(w, fmt_);
      out.space_from_address = true;
      break;
    default: w.space = ir::MemSpace::Global; break;
  }
}

// A warp's generic access is classified by its first active lane's address.
ir::MemSpace generic_space(const ir::WarpInst& w, const LineFormat& fmt) {
  if (w.active_mask == 0) return ir::MemSpace::Global;
  return classify_generic(w.addrs[__builtin_ctz(w.active_mask)], fmt);
}

}  // namespace ws::frontend
