// Building blocks of the binary trace format (.wst, docs/trace-format.md):
// the file's fixed header, varints, a bounds-checked byte reader whose errors
// name the file and offset, and zstd frames.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ws::frontend::wst {

inline constexpr char kMagic[8] = {'W', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint32_t kVersion = 1;
// magic, version, flags, footer offset, footer size, header size.
inline constexpr size_t kFixedHeaderBytes = 40;
// CTAs are grouped into zstd frames of about this many uncompressed bytes:
// large enough for the compressor to see repeats across CTAs, small enough
// that seeking to one CTA decompresses little and memory stays bounded.
inline constexpr size_t kChunkBytes = size_t{1} << 20;
// What one frame may decompress to: a reader refuses larger claims.
inline constexpr size_t kMaxFrameBytes = size_t{1} << 30;
inline constexpr int kZstdLevel = 19;

// Ops of a CTA record (values below kInstBase; instructions are coded from it).
enum Op : uint32_t {
  kEnd = 0,      // end of the CTA record
  kBlank = 1,    // an empty line
  kBeginTb = 2,  // #BEGIN_TB
  kEndTb = 3,    // #END_TB
  kTb = 4,       // thread block = x,y,z
  kWarp = 5,     // warp = W
  kInsts = 6,    // insts = K
  kSpelled = 7,  // the next op's line is spelled as this text (a non-canonical spelling)
  kComment = 8,  // a '#' line between blocks: text only
  kInstBase = 16,
};

// The byte streams of a CTA record, in record order.
enum Stream : int { kOps, kMasks, kAddrs, kPrefix, kText, kStreams };

inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline void put_u32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}
inline void put_u64(std::string& out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}
inline void put_bytes(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

// Reads a byte range; every read past its end, and every value out of the
// range the caller allows, throws an InputError naming the file and the
// offset (`base` is where the range lies in the file, or in the
// decompressed frame `what` names). `file` and `what` must outlive the
// reader (copies of it are made per CTA record: no strings are copied).
class ByteReader {
 public:
  ByteReader(std::string_view bytes, const std::string& file, uint64_t base, const std::string& what)
      : p_(bytes.data()), begin_(bytes.data()), end_(bytes.data() + bytes.size()), file_(&file), base_(base),
        what_(&what) {}
  // The hot path: a varint of at most 10 bytes.
  uint64_t varint() {
    if (p_ != end_ && static_cast<unsigned char>(*p_) < 0x80) return static_cast<unsigned char>(*p_++);
    return varint_slow();
  }
  uint64_t varint_max(uint64_t max, const char* field) {
    uint64_t v = varint();
    if (v > max) fail(std::string(field) + " " + std::to_string(v) + " is over " + std::to_string(max));
    return v;
  }
  uint32_t u32() {
    need(4, "u32");
    uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  uint8_t byte() {
    need(1, "byte");
    return static_cast<uint8_t>(*p_++);
  }
  std::string_view bytes(size_t n) {
    need(n, "bytes");
    std::string_view s(p_, n);
    p_ += n;
    return s;
  }
  std::string_view counted() { return bytes(varint_max(kMaxFrameBytes, "length")); }
  bool done() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  uint64_t offset() const { return base_ + static_cast<uint64_t>(p_ - begin_); }
  const std::string& file() const { return *file_; }
  const std::string& what() const { return *what_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  uint64_t varint_slow();
  void need(size_t n, const char* what) {
    if (static_cast<size_t>(end_ - p_) < n) fail(std::string("truncated: ") + what + " runs past the end");
  }
  const char* p_;
  const char* begin_;
  const char* end_;
  const std::string* file_;
  uint64_t base_;
  const std::string* what_;
};

// One zstd frame with a checksum (the level is kZstdLevel).
std::string compress(std::string_view raw);
// Decompresses a frame that must hold exactly `expect` bytes; errors name
// `file` and the frame's file offset.
std::string decompress(std::string_view frame, size_t expect, const std::string& file, uint64_t at);

}  // namespace ws::frontend::wst

namespace ws::frontend::wst {

inline constexpr uint32_t kNoProto = UINT32_MAX;

// What the encoder and decoder of a CTA record both predict from the
// instances before: the static instruction that followed each one last
// time, and each one's last mask, base address and stride. Reset at every
// CTA, so that each record decodes on its own (seeking to one CTA).
struct ProtoState {
  uint32_t stamp = 0;
  uint32_t next = kNoProto;
  uint32_t mask = ~0u;
  uint64_t base = 0;
  uint64_t stride = 0;
};

class Predictor {
 public:
  void new_cta() {
    ++epoch_;
    prev_ = nullptr;
  }
  ProtoState& at(uint32_t proto) {
    if (proto >= state_.size()) grow(proto + 1);
    ProtoState& s = state_[proto];
    if (s.stamp != epoch_) s = ProtoState{epoch_};
    return s;
  }
  // The proto that followed the previous instruction's last time, or kNoProto.
  uint32_t predicted() const { return prev_ ? prev_->next : kNoProto; }
  // `s` (at(proto)) is the next instruction's.
  void followed_by(ProtoState& s, uint32_t proto) {
    if (prev_) prev_->next = proto;
    prev_ = &s;
  }
  // Room for `n` protos, so that at() never moves the states.
  void grow(size_t n) {
    if (n <= state_.size()) return;
    size_t prev = prev_ ? static_cast<size_t>(prev_ - state_.data()) : 0;
    state_.resize(n);
    if (prev_) prev_ = state_.data() + prev;
  }

 private:
  std::vector<ProtoState> state_;
  ProtoState* prev_ = nullptr;  // the previous instruction's state (this CTA's)
  uint32_t epoch_ = 1;
};

}  // namespace ws::frontend::wst
