#include "frontend/trace/wst_format.h"

#include <zstd.h>

#include "common/error.h"

namespace ws::frontend::wst {

void ByteReader::fail(const std::string& what) const {
  throw InputError(*file_ + ": offset " + std::to_string(offset()) + (what_->empty() ? "" : " of " + *what_) +
                   ": corrupt binary trace: " + what);
}

uint64_t ByteReader::varint_slow() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ == end_) fail("truncated: a number runs past the end");
    auto b = static_cast<unsigned char>(*p_++);
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
  fail("a number longer than 64 bits");
}

std::string compress(std::string_view raw) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, kZstdLevel);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  size_t n = ZSTD_compress2(c, out.data(), out.size(), raw.data(), raw.size());
  ZSTD_freeCCtx(c);
  if (ZSTD_isError(n)) throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::string decompress(std::string_view frame, size_t expect, const std::string& file, uint64_t at) {
  auto fail = [&](const std::string& what) {
    return InputError(file + ": offset " + std::to_string(at) + ": corrupt binary trace: " + what);
  };
  if (expect > kMaxFrameBytes) throw fail("a frame claims " + std::to_string(expect) + " bytes");
  std::string out(expect, '\0');
  // One context per thread, kept: creating one per frame costs more than
  // decompressing a small frame.
  struct Ctx {
    ZSTD_DCtx* c = ZSTD_createDCtx();
    ~Ctx() { ZSTD_freeDCtx(c); }
  };
  thread_local Ctx ctx;
  size_t n = ZSTD_decompressDCtx(ctx.c, out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) throw fail(std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != expect) throw fail("a frame holds " + std::to_string(n) + " bytes, its index says " + std::to_string(expect));
  return out;
}

}  // namespace ws::frontend::wst
