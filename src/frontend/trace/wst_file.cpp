#include "frontend/trace/wst_file.h"

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace ws::frontend::wst {

namespace {

uint32_t get_u32(const std::string& s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

uint64_t get_u64(const std::string& s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

}  // namespace

bool is_wst_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[sizeof kMagic];
  bool yes = std::fread(magic, 1, sizeof magic, f) == sizeof magic && std::memcmp(magic, kMagic, sizeof magic) == 0;
  std::fclose(f);
  return yes;
}

TraceHeader parse_header_text(const std::string& text, const std::string& file) {
  TraceHeader h;
  uint64_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    std::string_view line(text.data() + at, (nl == std::string::npos ? text.size() : nl) - at);
    at = nl == std::string::npos ? text.size() : nl + 1;
    ++line_no;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    if (line[b] == '#') break;
    parse_header_line(line, h, LineCtx{file, line_no});
  }
  check_header(h, LineCtx{file, line_no});
  return h;
}

WstFile::WstFile(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_) throw InputError(path_, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::fseek(file_, 0, SEEK_END);
  size_ = static_cast<uint64_t>(std::ftell(file_));
  if (size_ < kFixedHeaderBytes)
    throw InputError(path_ + ": offset " + std::to_string(size_) + ": truncated binary trace: " +
                     std::to_string(size_) + " bytes, shorter than its " + std::to_string(kFixedHeaderBytes) +
                     "-byte header");
  std::string head = read_at(0, kFixedHeaderBytes, "header");
  if (std::memcmp(head.data(), kMagic, sizeof kMagic) != 0)
    throw InputError(path_ + ": offset 0: not a binary trace (no WSTRACE magic)");
  if (uint32_t v = get_u32(head, 8); v != kVersion)
    throw InputError(path_ + ": offset 8: binary trace format version " + std::to_string(v) +
                     "; this warpsim reads version " + std::to_string(kVersion) +
                     " (convert the text trace again with this warpsim)");
  uint64_t footer_at = get_u64(head, 16);
  if (footer_at == 0)
    throw InputError(path_ + ": offset 16: incomplete binary trace: its writer did not finish (no footer)");
  header_text_ = read_frame(kFixedHeaderBytes, get_u32(head, 32), get_u32(head, 36), "kernel header");
  header_ = parse_header_text(header_text_, path_);
  fmt_ = LineFormat::from(header_);
  read_footer(footer_at, get_u32(head, 24), get_u32(head, 28));
}

WstFile::~WstFile() {
  if (file_) std::fclose(file_);
}

std::string WstFile::read_at(uint64_t offset, uint64_t size, const char* what) {
  if (offset > size_ || size > size_ - offset)
    throw InputError(path_ + ": offset " + std::to_string(offset) + ": truncated binary trace: the " + what + " (" +
                     std::to_string(size) + " bytes) runs past the end of the file (" + std::to_string(size_) +
                     " bytes)");
  std::string out(size, '\0');
  if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0 || std::fread(out.data(), 1, size, file_) != size)
    throw InputError(path_ + ": offset " + std::to_string(offset) + ": read failed: " + std::strerror(errno));
  return out;
}

std::string WstFile::read_frame(uint64_t offset, uint64_t csize, uint64_t usize, const char* what) {
  return decompress(read_at(offset, csize, what), usize, path_, offset);
}

// Column by column, as WstWriter::put_protos() writes them.
void WstFile::read_protos(ByteReader& r) {
  protos_.resize(r.varint_max(r.remaining(), "static instruction count"));
  if (!protos_.empty() && opcodes_.empty()) r.fail("static instructions but no opcodes");
  uint64_t line = 0, pc = 0;
  for (InstProto& p : protos_) {
    line += static_cast<uint64_t>(unzigzag(r.varint()));
    if (line > UINT32_MAX) r.fail("line number over 32 bits");
    p.line_num = static_cast<uint32_t>(line);
  }
  for (InstProto& p : protos_) p.pc = pc += static_cast<uint64_t>(unzigzag(r.varint()));
  for (InstProto& p : protos_) p.opcode = static_cast<uint32_t>(r.varint_max(opcodes_.size() - 1, "opcode index"));
  for (InstProto& p : protos_)
    for (auto* regs : {&p.dst, &p.src}) {
      std::string_view b = r.counted();
      regs->assign(b.begin(), b.end());
    }
  for (InstProto& p : protos_) {
    p.mem_width = static_cast<uint32_t>(r.varint_max(UINT32_MAX, "mem width"));
    has_addrs_.push_back(p.mem_width > 0 ? 1 : 0);
  }
  for (InstProto& p : protos_) p.immediate = unzigzag(r.varint());
}

// As WstWriter::put_index() writes it.
void WstFile::read_index(ByteReader& r) {
  chunks_.resize(r.varint_max(r.remaining(), "chunk count"));
  for (auto& c : chunks_) {
    for (uint64_t& v : c) v = r.varint();
    if (c[2] > kMaxFrameBytes) r.fail("a chunk of " + std::to_string(c[2]) + " bytes");
  }
  ctas_.resize(r.varint_max(r.remaining(), "CTA count"));
  uint64_t chunk = 0, end = 0;
  uint64_t id[3] = {0, 0, 0};
  for (CtaIndex& c : ctas_) {
    uint64_t step = r.varint_max(chunks_.size(), "chunk step");
    if (step) end = 0;
    chunk += step;
    if (chunk >= chunks_.size()) r.fail("a CTA in chunk " + std::to_string(chunk) + " of " + std::to_string(chunks_.size()));
    c.chunk = static_cast<uint32_t>(chunk);
    uint64_t room = chunks_[chunk][2];
    c.offset = end + r.varint_max(room, "record offset");
    c.size = r.varint_max(room, "record size");
    if (c.offset > room || c.size > room - c.offset) r.fail("a CTA record lies outside its chunk");
    end = c.offset + c.size;
    // Each instruction takes one op byte at least.
    c.insts = static_cast<uint32_t>(r.varint_max(c.size, "CTA instruction count"));
    for (uint64_t& v : id) {
      v += static_cast<uint64_t>(unzigzag(r.varint()));
      if (v > UINT32_MAX) r.fail("block index over 32 bits");
    }
    c.id = Dim3{static_cast<uint32_t>(id[0]), static_cast<uint32_t>(id[1]), static_cast<uint32_t>(id[2])};
  }
}

void WstFile::read_footer(uint64_t offset, uint64_t csize, uint64_t usize) {
  std::string raw = read_frame(offset, csize, usize, "footer");
  static const std::string kFooter = "the footer";
  ByteReader r(raw, path_, 0, kFooter);
  opcodes_.resize(r.varint_max(r.remaining(), "opcode count"));
  for (std::string& op : opcodes_) op = std::string(r.counted());
  read_protos(r);
  read_index(r);
  insts_ = r.varint();
  if (!r.done()) r.fail("trailing bytes");
}

ByteReader WstFile::record(size_t i) {
  const CtaIndex& c = ctas_.at(i);
  const auto& ch = chunks_[c.chunk];
  if (loaded_ != static_cast<int64_t>(c.chunk)) {
    loaded_ = -1;
    chunk_ = read_frame(ch[0], ch[1], ch[2], "chunk");
    loaded_ = c.chunk;
  }
  if (what_chunk_ != c.chunk)
    record_what_ = "chunk " + std::to_string(c.chunk) + " (file offset " + std::to_string(ch[0]) + ")";
  what_chunk_ = c.chunk;
  return ByteReader(std::string_view(chunk_).substr(c.offset, c.size), path_, c.offset, record_what_);
}

}  // namespace ws::frontend::wst
