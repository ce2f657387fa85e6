#include "frontend/trace/wst_format.h"

#include <zstd.h>

#include "common/error.h"

namespace ws::frontend::wst {

namespace {

// Every frame is compressed against this text (a zstd prefix dictionary),
// so that a small kernel's header and opcode strings cost a few bytes: it
// holds the header lines NVBit's tracer and warpsim write and common SASS
// mnemonics. It is part of the format: changing it needs a new kVersion.
constexpr std::string_view kDictionary =
    "-kernel name = _Z\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (256,1,1)\n-shmem = 0\n-nregs = 32\n"
    "-binary version = 70\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
    "-local mem base_addr = 0x00007effe0000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 4\n"
    "-enable lineinfo = 0\n\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
    "mem_width [adrrescompress?] [mem_addresses]\n\n\n\n-nvbit version = warpsim\n-accelsim tracer version = 4\n"
    "-enable lineinfo = 0\n\n#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
    "[adrrescompress?] [mem_addresses]\n\n"
    "MOVS2RS2UR CS2R IMAD IMAD.MOV.U32 IMAD.WIDE IMAD.WIDE.U32 IMAD.SHL.U32 IMAD.IADD IMAD.HI.U32 IADD3 IADD3.X "
    "ISETP.GE.AND ISETP.NE.AND ISETP.GT.AND ISETP.GE.U32.AND ISETP.LT.AND ISETP.NE.U32.AND LOP3.LUT SHF.R.U32.HI "
    "SHF.L.U32 SHF.R.S32.HI LEA LEA.HI.X LEA.HI SEL PRMT POPC FLO BMSK I2F F2I.FTZ.TRUNC.NTZ F2F FFMA FADD FMUL FMNMX "
    "FSETP.GEU.AND FSETP.GT.AND MUFU.RCP MUFU.EX2 MUFU.RSQ HFMA2 HADD2 HMUL2 DFMA DADD DMUL HMMA.16816.F32 "
    "LDG.E LDG.E.SYS LDG.E.64 LDG.E.128 LDG.E.CONSTANT LDG.E.EF LDG.E.CG STG.E STG.E.SYS STG.E.64 STG.E.128 LDS LDS.U "
    "LDS.U.32 LDS.U.128 LDS.64 LDS.128 STS STS.64 STS.128 LDL STL LD.E ST.E LDC LDC.64 ULDC ULDC.64 ATOM.E.ADD "
    "ATOMG.E.ADD.STRONG.GPU RED.E.ADD.STRONG.GPU ATOMS.ADD SHFL.BFLY SHFL.DOWN SHFL.IDX VOTE.ANY VOTE.ALL "
    "BAR.SYNC BAR.SYNC.DEFER_BLOCKING MEMBAR.CTA MEMBAR.GL MEMBAR.SC.GPU BSSY BSYNC WARPSYNC BRA BRA.DIV EXIT RET.ABS "
    "CALL.ABS.NOINC NOP XMAD XMAD.MRG XMAD.PSL.CBCC XMAD.PSL SHL SHR IADD IADD.X ISCADD IADD32I ISETP.LT.U32.AND "
    "LOP.AND LOP32I.AND DEPBAR.LE";

}  // namespace

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
  ZSTD_CCtx_refPrefix(c, kDictionary.data(), kDictionary.size());
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
  size_t n = ZSTD_DCtx_refPrefix(ctx.c, kDictionary.data(), kDictionary.size());
  if (!ZSTD_isError(n)) n = ZSTD_decompressDCtx(ctx.c, out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) throw fail(std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != expect) throw fail("a frame holds " + std::to_string(n) + " bytes, its index says " + std::to_string(expect));
  return out;
}

}  // namespace ws::frontend::wst
