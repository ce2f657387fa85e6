#include "frontend/trace/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "common/error.h"
#include "frontend/trace/line_memo.h"
#include "frontend/trace/line_reader.h"
#include "frontend/trace/trace_checks.h"
#include "frontend/trace/trace_cta.h"
#include "frontend/trace/wst_reader.h"

namespace ws::frontend {

namespace fs = std::filesystem;

namespace {

bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Index of the first character that is not blank, or s.size(). (A plain loop:
// on instruction lines it stops at once, where find_first_not_of does not.)
size_t first_nonblank(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_blank_char(s[i])) ++i;
  return i;
}

bool blank(std::string_view s) { return first_nonblank(s) == s.size(); }

std::string_view trim(std::string_view s) {
  size_t b = first_nonblank(s);
  if (b == s.size()) return {};
  size_t e = s.size();
  while (is_blank_char(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string hex_addr(Addr a) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(a));
  return buf;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "key = value" -> value, or empty view if the key does not match.
std::optional<std::string_view> keyed(std::string_view line, std::string_view key) {
  line = trim(line);
  if (!starts_with(line, key)) return std::nullopt;
  std::string_view rest = trim(line.substr(key.size()));
  if (rest.empty() || rest[0] != '=') return std::nullopt;
  return trim(rest.substr(1));
}

uint32_t need_u32(std::string_view v, const LineReader& r, const char* field) {
  uint32_t x = 0;
  auto res = std::from_chars(v.data(), v.data() + v.size(), x);
  if (res.ec != std::errc{} || res.ptr != v.data() + v.size())
    throw InputError(r.path(), r.line_no(), field, "expected a number, got '" + std::string(v.substr(0, 40)) + "'");
  return x;
}

// Reads header lines up to the first '#' line.
TraceHeader read_header(LineReader& r) {
  TraceHeader h;
  std::string_view line;
  while (r.next(line)) {
    line = trim(line);
    if (line.empty()) continue;
    if (line[0] == '#') break;
    parse_header_line(line, h, LineCtx{r.path(), r.line_no()});
  }
  check_header(h, LineCtx{r.path(), r.line_no()});
  return h;
}

class TraceKernel final : public ir::KernelSource {
 public:
  TraceKernel(std::unique_ptr<LineReader> r, std::shared_ptr<const IsaTable> isa)
      : r_(std::move(r)), h_(read_header(*r_)), isa_(isa ? std::move(isa) : load_isa()),
        parser_(*isa_, LineFormat::from(h_)) {}
  const ir::KernelInfo& info() const override { return h_.info; }
  const std::vector<std::string>& unit_names() const override { return isa_->unit_names(); }
  std::unique_ptr<ir::CtaSource> next_cta() override;
  // A CTA is read whole by next_cta(); its next() only reads what the
  // kernel's CTAs share (the table of static instructions).
  bool ctas_read_concurrently() const override { return true; }

 private:
  std::shared_ptr<const IsaTable> load_isa() const {
    try {
      return std::make_shared<IsaTable>(IsaTable::load(h_.info.binary_version));
    } catch (const InputError& e) {
      throw InputError(r_->path() + ": binary version " + std::to_string(h_.info.binary_version) + ": " + e.what());
    }
  }
  [[noreturn]] void fail(const char* field, const std::string& what) const {
    throw InputError(r_->path(), r_->line_no(), field, what);
  }
  bool next_nonblank(std::string_view& line);
  Dim3 check_block(Dim3 b);
  void check_mask(uint32_t mask, uint32_t lanes, uint32_t w) const;
  void remember(std::string_view line, const StoredInst& s, const TraceCta& cta);
  void read_warp(TraceCta& cta, uint32_t w, uint32_t n);

  std::unique_ptr<LineReader> r_;
  TraceHeader h_;
  std::shared_ptr<const IsaTable> isa_;
  InstParser parser_;
  ParsedInst scratch_;
  LineMemo memo_;
  std::shared_ptr<CtaBufferPool> pool_ = std::make_shared<CtaBufferPool>();
  uint64_t ctas_read_ = 0;
  BlockLedger blocks_;
};

bool TraceKernel::next_nonblank(std::string_view& line) {
  while (r_->next(line))
    if (!blank(line)) return true;
  return false;
}

// What LineMemo may reuse: lines without addresses, and base-and-stride lines
// stored by base and stride whose space does not depend on the address.
void TraceKernel::remember(std::string_view line, const StoredInst& s, const TraceCta& cta) {
  const ParsedInst& p = scratch_;
  if (!p.has_addrs) memo_.remember(line, s);
  else if (p.base_len > 0 && p.inst.active_mask != 0 && !p.space_from_address && !cta.lists_lanes(s))
    memo_.remember_rebased(line, p.base_at, p.base_len, p.base, s);
}

Dim3 TraceKernel::check_block(Dim3 b) {
  if (std::string e = blocks_.add(b, h_.info.grid); !e.empty()) fail("thread block", e);
  return b;
}

void TraceKernel::check_mask(uint32_t mask, uint32_t lanes, uint32_t w) const {
  if (mask & ~lanes) fail("mask", mask_error(mask, lanes, h_.info.block.count(), w));
}

void TraceKernel::read_warp(TraceCta& cta, uint32_t w, uint32_t n) {
  std::string_view line;
  const uint32_t lanes = warp_lanes(h_.info.block.count(), w);
  cta.reserve(std::min<uint32_t>(n, 1u << 20));
  for (uint32_t i = 0; i < n; ++i) {
    if (!next_nonblank(line))
      fail("insts", "truncated: end of file after " + std::to_string(i) + " of " + std::to_string(n) + " instructions");
    std::string_view t = line.substr(first_nonblank(line));  // non-empty: the line is not blank
    if (t[0] == '#' || (t[0] == 'w' && starts_with(t, "warp")) || (t[0] == 't' && starts_with(t, "thread block")))
      fail("insts", "only " + std::to_string(i) + " of " + std::to_string(n) + " instruction lines before this line");
    // (A remembered line may have come from a full warp: check each.)
    if (const StoredInst* s = memo_.find(line)) {
      if (lanes != ~0u) check_mask(s->mask, lanes, w);
      cta.add_stored(w, *s);
      continue;
    }
    if (auto s = memo_.find_rebased(line)) {
      if (lanes != ~0u) check_mask(s->mask, lanes, w);
      cta.add_stored(w, *s);
      continue;
    }
    parser_.parse(line, scratch_, LineCtx{r_->path(), r_->line_no()});
    if (lanes != ~0u) check_mask(scratch_.inst.active_mask, lanes, w);
    StoredInst s = cta.add(w, scratch_);
    remember(line, s, cta);
  }
}

std::unique_ptr<ir::CtaSource> TraceKernel::next_cta() {
  std::string_view line;
  bool found = false;
  while (!found && next_nonblank(line)) {
    std::string_view t = trim(line);
    found = t == "#BEGIN_TB";
    if (!found && t[0] != '#') fail("body", "expected #BEGIN_TB, got '" + std::string(t.substr(0, 40)) + "'");
  }
  if (!found) {
    if (ctas_read_ < h_.info.grid.count())
      fail("thread block", "truncated: " + std::to_string(ctas_read_) + " of " +
                               std::to_string(h_.info.grid.count()) + " thread blocks present");
    return nullptr;
  }
  auto cta = std::make_unique<TraceCta>(h_.info.warps_per_cta(), pool_);
  uint32_t warp = UINT32_MAX;
  std::vector<bool> warps_seen(cta->num_warps());
  for (;;) {
    if (!next_nonblank(line)) fail("thread block", "truncated: end of file inside a thread block (no #END_TB)");
    std::string_view t = trim(line);
    if (t == "#END_TB") break;
    if (auto v = keyed(t, "thread block")) {
      uint32_t xyz[3] = {0, 0, 0};
      std::string_view s = *v;
      for (int i = 0; i < 3; ++i) {
        size_t c = s.find(',');
        xyz[i] = need_u32(trim(s.substr(0, c)), *r_, "thread block");
        s = c == std::string_view::npos ? std::string_view{} : s.substr(c + 1);
      }
      cta->set_id(check_block(Dim3{xyz[0], xyz[1], xyz[2]}));
    } else if (auto v = keyed(t, "warp")) {
      warp = need_u32(*v, *r_, "warp");
      if (warp >= cta->num_warps())
        fail("warp", "warp " + std::to_string(warp) + " but the CTA has " + std::to_string(cta->num_warps()) + " warps");
      if (warps_seen[warp]) fail("warp", "warp " + std::to_string(warp) + " listed twice in this thread block");
      warps_seen[warp] = true;
    } else if (auto v = keyed(t, "insts")) {
      if (warp == UINT32_MAX) fail("insts", "instruction count before any 'warp = W' line");
      read_warp(*cta, warp, need_u32(*v, *r_, "insts"));
    } else {
      fail("body", "unexpected line '" + std::string(t.substr(0, 40)) + "' in a thread block");
    }
  }
  ++ctas_read_;
  cta->finish();
  return cta;
}

}  // namespace

namespace {

struct ListEntry {
  enum class Kind : uint8_t { Copy, Sync, Kernel, Event, StreamCopy } kind = Kind::Copy;
  ir::MemcpyHtoD copy;
  std::string kernel_path;
  ir::StreamEvent event;
  ir::StreamCopy stream_copy;
};

// EventRecord,<event>,<stream> and StreamWaitEvent,<stream>,<event> (warpsim lines).
ir::StreamEvent parse_stream_event(std::string_view line, const LineReader& r) {
  bool record = starts_with(line, "EventRecord,");
  std::string_view rest = line.substr(line.find(',') + 1);
  size_t c = rest.find(',');
  std::string_view a = c == std::string_view::npos ? rest : trim(rest.substr(0, c));
  std::string_view b = c == std::string_view::npos ? std::string_view{} : trim(rest.substr(c + 1));
  int64_t first = 0, second = 0;
  auto ra = std::from_chars(a.data(), a.data() + a.size(), first);
  auto rb = std::from_chars(b.data(), b.data() + b.size(), second);
  if (a.empty() || b.empty() || ra.ec != std::errc{} || ra.ptr != a.data() + a.size() || rb.ec != std::errc{} ||
      rb.ptr != b.data() + b.size() || (record && first < 0) || (!record && second < 0))
    throw InputError(r.path(), r.line_no(), "event",
                     record ? "expected EventRecord,<event>,<stream>" : "expected StreamWaitEvent,<stream>,<event>");
  if (record) return ir::StreamEvent{ir::StreamEvent::Kind::Record, second, static_cast<uint64_t>(first)};
  return ir::StreamEvent{ir::StreamEvent::Kind::Wait, first, static_cast<uint64_t>(second)};
}

// StreamNonBlocking,<stream> (warpsim line): a cudaStreamNonBlocking stream.
ir::StreamEvent parse_nonblocking(std::string_view line, const LineReader& r) {
  std::string_view s = trim(line.substr(line.find(',') + 1));
  int64_t stream = 0;
  auto rs = std::from_chars(s.data(), s.data() + s.size(), stream);
  if (s.empty() || rs.ec != std::errc{} || rs.ptr != s.data() + s.size() || stream < 0)
    throw InputError(r.path(), r.line_no(), "stream", "expected StreamNonBlocking,<stream>");
  return ir::StreamEvent{ir::StreamEvent::Kind::NonBlocking, stream, 0};
}

// MemcpyHtoD,0x<addr>,<bytes> (or MemcpyDtoD, warpsim's: a copy on the device)
ir::MemcpyHtoD parse_memcpy(std::string_view line, const LineReader& r) {
  std::string_view rest = line.substr(line.find(',') + 1);
  size_t c = rest.find(',');
  if (c == std::string_view::npos) throw InputError(r.path(), r.line_no(), "memcpy", "expected MemcpyHtoD,0x<addr>,<bytes>");
  std::string_view a = trim(rest.substr(0, c)), b = trim(rest.substr(c + 1));
  if (a.size() > 2 && a[1] == 'x') a.remove_prefix(2);
  ir::MemcpyHtoD m;
  auto ra = std::from_chars(a.data(), a.data() + a.size(), m.dst, 16);
  auto rb = std::from_chars(b.data(), b.data() + b.size(), m.bytes, 10);
  if (a.empty() || b.empty() || ra.ec != std::errc{} || ra.ptr != a.data() + a.size() || rb.ec != std::errc{} ||
      rb.ptr != b.data() + b.size())
    throw InputError(r.path(), r.line_no(), "memcpy", "expected MemcpyHtoD,0x<addr>,<bytes>, got '" + std::string(line.substr(0, 60)) + "'");
  m.host_sync = !starts_with(line, "MemcpyDtoD,");
  return m;
}

// CopyOnStream,<HtoD|DtoH>,<stream>,0x<device addr>,<bytes> (warpsim line).
ir::StreamCopy parse_stream_copy(std::string_view line, const LineReader& r) {
  std::vector<std::string_view> f;
  for (size_t at = 0; at <= line.size();) {
    size_t c = std::min(line.find(',', at), line.size());
    f.push_back(trim(line.substr(at, c - at)));
    at = c + 1;
  }
  ir::StreamCopy sc;
  auto number = [](std::string_view v, auto& out, int base) {
    if (base == 16 && v.size() > 2 && v[1] == 'x') v.remove_prefix(2);
    auto res = std::from_chars(v.data(), v.data() + v.size(), out, base);
    return !v.empty() && res.ec == std::errc{} && res.ptr == v.data() + v.size();
  };
  bool ok = f.size() == 5 && (f[1] == "HtoD" || f[1] == "DtoH") && number(f[2], sc.stream, 10) && sc.stream >= 0 &&
            number(f[3], sc.device_addr, 16) && number(f[4], sc.bytes, 10);
  if (!ok)
    throw InputError(r.path(), r.line_no(), "copy",
                     "expected CopyOnStream,<HtoD|DtoH>,<stream>,0x<addr>,<bytes>, got '" +
                         std::string(line.substr(0, 60)) + "'");
  sc.to_device = f[1] == "HtoD";
  return sc;
}

// A copy the GPU could not hold (or one that wraps the address space) was
// not traced from a real program: refuse it rather than simulate it.
ir::MemcpyHtoD check_copy(const ir::MemcpyHtoD& m, const LineReader& r, uint64_t device_bytes) {
  if (device_bytes && m.bytes > device_bytes)
    throw InputError(r.path(), r.line_no(), "memcpy",
                     std::to_string(m.bytes) + " bytes, more than the GPU's memory (" + std::to_string(device_bytes) +
                         " bytes: gpu.memory_gb)");
  if (m.bytes > ~Addr{0} - m.dst)
    throw InputError(r.path(), r.line_no(), "memcpy", std::to_string(m.bytes) + " bytes from " + hex_addr(m.dst) +
                                                           " run past the end of the 64-bit address space");
  return m;
}

class TraceWorkload final : public ir::WorkloadSource {
 public:
  TraceWorkload(const std::string& path, uint64_t device_bytes);
  std::optional<ir::Command> next() override;
  std::optional<uint32_t> kernel_count() const override { return kernels_; }
  std::string description() const override { return "trace " + list_; }

 private:
  std::shared_ptr<const IsaTable> isa_for(const std::string& kernel_path);

  std::string list_;
  std::vector<ListEntry> entries_;
  size_t pos_ = 0;
  uint32_t kernels_ = 0;
  std::map<uint32_t, std::shared_ptr<const IsaTable>> isas_;
};

// Up to 60 characters of a line that is not what we expected, with bytes
// outside printable ASCII shown as '?' (it may be a binary file).
std::string quoted_excerpt(std::string_view line) {
  std::string out(line.substr(0, 60));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return "'" + out + (line.size() > 60 ? "...'" : "'");
}


TraceWorkload::TraceWorkload(const std::string& path, uint64_t device_bytes) {
  std::error_code ec;
  fs::path p = fs::is_directory(path, ec) ? fs::path(path) / "kernelslist.g" : fs::path(path);
  list_ = p.string();
  // A kernel file given on its own is a one-kernel workload.
  if (is_kernel_file_name(p.filename().string()) && fs::is_regular_file(p, ec)) {
    entries_.push_back(ListEntry{ListEntry::Kind::Kernel, {}, list_, {}, {}});
    kernels_ = 1;
    return;
  }
  auto r = LineReader::open(list_);
  std::string_view line;
  while (r->next(line)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (starts_with(line, "MemcpyHtoD,") || starts_with(line, "MemcpyDtoD,")) {
      entries_.push_back(ListEntry{ListEntry::Kind::Copy, check_copy(parse_memcpy(line, *r), *r, device_bytes), {}, {}, {}});
    } else if (starts_with(line, "Memcpy") && line.find(',') != std::string_view::npos) {
      continue;  // another copy direction (MemcpyDtoH, ...): nothing for the L2 to warm
    } else if (line == "HostSync") {
      entries_.push_back(ListEntry{ListEntry::Kind::Sync, {}, {}, {}, {}});
    } else if (starts_with(line, "CopyOnStream,")) {
      ir::StreamCopy c = parse_stream_copy(line, *r);
      check_copy(ir::MemcpyHtoD{c.device_addr, c.bytes}, *r, device_bytes);
      entries_.push_back(ListEntry{ListEntry::Kind::StreamCopy, {}, {}, {}, c});
    } else if (starts_with(line, "EventRecord,") || starts_with(line, "StreamWaitEvent,")) {
      entries_.push_back(ListEntry{ListEntry::Kind::Event, {}, {}, parse_stream_event(line, *r), {}});
    } else if (starts_with(line, "StreamNonBlocking,")) {
      entries_.push_back(ListEntry{ListEntry::Kind::Event, {}, {}, parse_nonblocking(line, *r), {}});
    } else if (is_kernel_file_name(line)) {
      fs::path k = p.parent_path() / std::string(line);
      if (!fs::is_regular_file(k, ec)) throw InputError(list_, r->line_no(), "kernel", "missing kernel file " + k.string());
      entries_.push_back(ListEntry{ListEntry::Kind::Kernel, {}, k.string(), {}, {}});
      ++kernels_;
    } else {
      throw InputError(list_, r->line_no(), "", "not a kernel list line: " + quoted_excerpt(line) +
                                                    " (expected MemcpyHtoD,<addr>,<bytes>, HostSync, CopyOnStream, "
                                                    "EventRecord, StreamWaitEvent, StreamNonBlocking or a kernel-N.traceg or "
                                                    "kernel-N.wst file name)");
    }
  }
  if (kernels_ == 0)
    throw InputError(list_, 0, "", "names no kernel (kernel-N.traceg lines): nothing to simulate");
}

// Kernels of one workload share opcode tables per binary version.
std::shared_ptr<const IsaTable> TraceWorkload::isa_for(const std::string& kernel_path) {
  uint32_t v = read_trace_header(kernel_path).info.binary_version;
  auto& slot = isas_[v];
  if (!slot) slot = std::make_shared<IsaTable>(IsaTable::load(v));
  return slot;
}

std::optional<ir::Command> TraceWorkload::next() {
  if (pos_ >= entries_.size()) return std::nullopt;
  const ListEntry& e = entries_[pos_++];
  if (e.kind == ListEntry::Kind::Copy) return ir::Command{e.copy};
  if (e.kind == ListEntry::Kind::Sync) return ir::Command{ir::HostSync{}};
  if (e.kind == ListEntry::Kind::Event) return ir::Command{e.event};
  if (e.kind == ListEntry::Kind::StreamCopy) return ir::Command{e.stream_copy};
  return ir::Command{open_trace_kernel(e.kernel_path, isa_for(e.kernel_path))};
}

}  // namespace

std::unique_ptr<ir::WorkloadSource> open_trace_workload(const std::string& path, uint64_t device_bytes) {
  return std::make_unique<TraceWorkload>(path, device_bytes);
}

bool is_kernel_file_name(std::string_view name) {
  return (name.find(".traceg") != std::string_view::npos || is_wst_name(name)) && name.find(',') == std::string_view::npos;
}

bool is_wst_name(std::string_view name) { return name.size() > 4 && name.substr(name.size() - 4) == ".wst"; }

std::unique_ptr<ir::KernelSource> open_trace_kernel(const std::string& path, std::shared_ptr<const IsaTable> isa) {
  if (is_wst_name(path)) return open_wst_kernel(path, std::move(isa));
  return std::make_unique<TraceKernel>(LineReader::open(path), std::move(isa));
}

TraceHeader read_trace_header(const std::string& path) {
  if (is_wst_name(path)) return read_wst_header(path);
  auto r = LineReader::open(path);
  return read_header(*r);
}

}  // namespace ws::frontend
