// An open binary trace file (.wst): its header, opcode strings, static
// instructions and CTA index, all read and checked when it opens; CTA
// records are read on demand, one zstd frame held at a time.
#pragma once
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "frontend/trace/wst_format.h"
#include "frontend/trace/wst_inst.h"

namespace ws::frontend::wst {

struct CtaIndex {
  uint32_t chunk = 0;
  uint64_t offset = 0, size = 0;  // within the chunk's decompressed bytes
  uint32_t insts = 0;             // instructions in the record
  Dim3 id;
};

class WstFile {
 public:
  // Throws InputError naming the file (and the offset) if it is not a
  // complete binary trace of this format version.
  explicit WstFile(std::string path);
  ~WstFile();
  WstFile(const WstFile&) = delete;
  WstFile& operator=(const WstFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& header_text() const { return header_text_; }
  const TraceHeader& header() const { return header_; }
  const LineFormat& format() const { return fmt_; }
  const std::vector<std::string>& opcodes() const { return opcodes_; }
  const std::vector<InstProto>& protos() const { return protos_; }
  // Per static instruction: 1 if it carries address fields (mem width > 0);
  // packed apart for the decoder's hot loop.
  const std::vector<uint8_t>& has_addrs() const { return has_addrs_; }
  const std::vector<CtaIndex>& ctas() const { return ctas_; }
  uint64_t instructions() const { return insts_; }
  // CTA `i`'s record, valid until the next call (as is the reader: it
  // refers to this object's strings); it names the chunk's place in the
  // file in its errors.
  ByteReader record(size_t i);

 private:
  std::string read_at(uint64_t offset, uint64_t size, const char* what);
  std::string read_frame(uint64_t offset, uint64_t csize, uint64_t usize, const char* what);
  void read_footer(uint64_t offset, uint64_t csize, uint64_t usize);
  void read_protos(ByteReader& r);
  void read_index(ByteReader& r);

  std::string path_;
  FILE* file_ = nullptr;
  uint64_t size_ = 0;
  std::string header_text_;
  TraceHeader header_;
  LineFormat fmt_;
  std::vector<std::string> opcodes_;
  std::vector<InstProto> protos_;
  std::vector<uint8_t> has_addrs_;
  std::vector<std::array<uint64_t, 3>> chunks_;  // file offset, compressed, raw size
  std::vector<CtaIndex> ctas_;
  uint64_t insts_ = 0;
  int64_t loaded_ = -1;  // the chunk in chunk_
  std::string chunk_;
  int64_t what_chunk_ = -1;   // the chunk record_what_ names
  std::string record_what_;  // what record() readers name in errors
};

// True if the file starts with the binary trace magic.
bool is_wst_file(const std::string& path);

// Parses header text (the kernel file's lines before #BEGIN_TB) as the text
// reader does; errors name `file` and the line.
TraceHeader parse_header_text(const std::string& text, const std::string& file);

// The inverse of WstWriter::encode_addrs; `s` is the instruction's
// predictor state, `mask` its active lanes.
[[gnu::always_inline]] inline void decode_addrs(ByteReader& r, uint32_t mask, ProtoState& s, InstAddrs& a) {
  a.mode = r.byte();
  a.count = 0;
  if (a.mode == 1) {
    a.base = s.base += static_cast<uint64_t>(unzigzag(r.varint()));
    s.stride += static_cast<uint64_t>(unzigzag(r.varint()));
    a.stride = static_cast<int64_t>(s.stride);
    return;
  }
  if (a.mode > 2) r.fail("address mode " + std::to_string(a.mode));
  if (mask == 0) return;
  uint64_t first = s.base += static_cast<uint64_t>(unzigzag(r.varint()));
  auto lanes = static_cast<uint32_t>(__builtin_popcount(mask));
  if (a.mode == 0) {
    a.vals[0] = first;
    for (a.count = 1; a.count < lanes; ++a.count)
      a.vals[a.count] = a.vals[a.count - 1] + static_cast<uint64_t>(unzigzag(r.varint()));
  } else {
    a.base = first;
    for (; a.count + 1 < lanes; ++a.count) a.vals[a.count] = static_cast<uint64_t>(unzigzag(r.varint()));
  }
}

// Calls the visitor for each op of CTA record `r`:
//   v.op(Op, const uint64_t* args) for kBlank..kInsts (args: W, K or x,y,z),
//   v.text(Op, std::string_view) for kSpelled and kComment,
//   v.inst(uint32_t proto, uint32_t mask, const InstAddrs&, const uint32_t* prefix).
// Throws on anything that does not decode (naming file and offset).
template <class Visitor>
void decode_record(ByteReader r, const WstFile& f, Predictor& pred, Visitor& v) {
  uint64_t sizes[kStreams];
  for (uint64_t& s : sizes) s = r.varint_max(kMaxFrameBytes, "stream size");
  ByteReader streams[kStreams] = {r, r, r, r, r};
  for (int k = 0; k < kStreams; ++k) {
    uint64_t at = r.offset();
    streams[k] = ByteReader(r.bytes(sizes[k]), r.file(), at, r.what());
  }
  ByteReader &ops = streams[kOps], &masks = streams[kMasks], &addrs = streams[kAddrs];
  const auto n_protos = static_cast<uint32_t>(f.protos().size());
  const uint8_t* has_addrs = f.has_addrs().data();
  const bool prefixed = f.format().tracer_version < 3;
  pred.new_cta();
  pred.grow(n_protos);
  InstAddrs a;
  uint32_t prefix[4] = {0, 0, 0, 0};
  for (;;) {
    uint64_t code = ops.varint();
    if (code >= kInstBase) {
      code -= kInstBase;
      uint64_t pcode = code >> 1;
      uint32_t id = pcode == 0 ? pred.predicted() : static_cast<uint32_t>(pcode - 1);
      if (pcode > n_protos || id >= n_protos) ops.fail("instruction refers to no static instruction");
      ProtoState& s = pred.at(id);
      if (code & 1) s.mask = masks.u32();
      if (has_addrs[id]) decode_addrs(addrs, s.mask, s, a);
      if (prefixed)
        for (uint32_t& p : prefix) p = static_cast<uint32_t>(streams[kPrefix].varint_max(UINT32_MAX, "prefix"));
      pred.followed_by(s, id);
      v.inst(id, s.mask, a, prefix);
      continue;
    }
    if (code == kEnd) break;
    uint64_t args[3] = {0, 0, 0};
    if (code == kSpelled || code == kComment) {
      v.text(static_cast<Op>(code), streams[kText].bytes(ops.varint_max(kMaxFrameBytes, "text length")));
      continue;
    }
    if (code > kInsts) ops.fail("unknown op " + std::to_string(code));
    int n = code == kTb ? 3 : code == kWarp || code == kInsts ? 1 : 0;
    for (int k = 0; k < n; ++k) args[k] = ops.varint_max(UINT32_MAX, "block or warp number");
    // Each instruction takes an op byte at least: a larger count is damage
    // (and must not size the CTA's buffers).
    if (code == kInsts && args[0] > ops.remaining()) ops.fail("insts = " + std::to_string(args[0]) + " in a record "
                                                              "that holds fewer instructions");
    v.op(static_cast<Op>(code), args);
  }
}

}  // namespace ws::frontend::wst
