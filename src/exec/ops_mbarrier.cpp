// mbarrier (PTX ISA "Parallel synchronization and communication instructions:
// mbarrier"), cp.async.mbarrier.arrive, and the non-tensor bulk copies
// (cp.async.bulk) that complete on an mbarrier. The object is 8 opaque bytes of
// shared memory; its layout here is warpsim's own:
//   bits  0-19  pending arrivals of the current phase
//   bits 20-39  expected arrivals (what pending resets to)
//   bits 40-60  tx-count, 21-bit two's complement (expect_tx adds, complete_tx subtracts)
//   bits 61-63  phase number mod 8
// A phase completes when pending and tx-count are both zero. The state an
// arrive returns is the object as it was before (PTX: "prior to the
// arrive-on operation"); test_wait/try_wait compare its phase (or a parity)
// with the current phase, pending_count reads its pending arrivals. Lanes apply in lane order, each a
// thread of its own. Waits never block: a false try_wait ends the warp's
// turn so that the threads it waits for can run.
#include <algorithm>

#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

using Space = ptx::StateSpace;

constexpr uint64_t kCountMask = (uint64_t{1} << 20) - 1;
constexpr unsigned kExpectedShift = 20, kTxShift = 40, kPhaseShift = 61;
constexpr uint64_t kTxMask = (uint64_t{1} << 21) - 1;

struct MbarState {
  uint32_t pending, expected, phase;
  int32_t tx;

  static MbarState unpack(uint64_t v) {
    MbarState s;
    s.pending = static_cast<uint32_t>(v & kCountMask);
    s.expected = static_cast<uint32_t>((v >> kExpectedShift) & kCountMask);
    uint32_t tx = static_cast<uint32_t>((v >> kTxShift) & kTxMask);
    s.tx = static_cast<int32_t>(tx << 11) >> 11;  // sign-extend 21 bits
    s.phase = static_cast<uint32_t>(v >> kPhaseShift);
    return s;
  }
  uint64_t pack() const {
    return (uint64_t{pending} & kCountMask) | (uint64_t{expected} & kCountMask) << kExpectedShift |
           (static_cast<uint64_t>(static_cast<uint32_t>(tx)) & kTxMask) << kTxShift | uint64_t{phase & 7} << kPhaseShift;
  }
  void complete_if_done() {
    if (pending == 0 && tx == 0) pending = expected, phase = (phase + 1) & 7;
  }
};

enum MbarOp : uint8_t { kInit, kInval, kArrive, kArriveDrop, kExpectTx, kCompleteTx, kTestWait, kTryWait, kPending,
                        kCpAsyncArrive };
// DecodedInst::aux bits.
enum : uint32_t { kParity = 1, kNoComplete = 2, kWithTx = 4, kHasCount = 8, kNoInc = 16 };

// The mbarrier of `lane`: s[0] + imm, in in.space (generic resolved); nullptr after a fault.
uint8_t* mbar_ptr(Ctx& c, const DecodedInst& in, unsigned lane) {
  Space sp = in.space;
  uint64_t addr = c.R[in.s[0] + lane] + static_cast<uint64_t>(in.imm);
  uint8_t* p = space_ptr(c, in, sp, addr, 8, lane);
  if (!p) return nullptr;
  if (sp != Space::Shared) {
    fault(c, in, lane, "mbarrier object not in shared memory");
    return nullptr;
  }
  if (addr & 7) {
    fault(c, in, lane, "misaligned mbarrier object");
    return nullptr;
  }
  c.addrs[lane] = addr;
  return p;
}

uint64_t load(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// One thread's arrive of `count`; false (after a fault) when the phase has fewer pending arrivals.
bool arrive(Ctx& c, const DecodedInst& in, unsigned lane, MbarState& s, uint32_t count, bool drop) {
  if (count == 0 || count > s.pending) {
    fault(c, in, lane, "mbarrier arrive of " + std::to_string(count) + " with " + std::to_string(s.pending) +
                           " arrivals pending");
    return false;
  }
  s.pending -= count;
  if (drop) s.expected -= count;
  if (in.aux & kNoComplete) {
    if (s.pending == 0 && s.tx == 0) {
      fault(c, in, lane, "mbarrier arrive.noComplete would complete the phase");
      return false;
    }
    return true;
  }
  s.complete_if_done();
  return true;
}

bool phase_done(const MbarState& s, const DecodedInst& in, uint64_t operand) {
  if (in.aux & kParity) return (s.phase & 1) != (operand & 1);
  return (operand >> kPhaseShift) != s.phase;
}

// One lane's operation; false after a fault.
bool mbar_lane(Ctx& c, const DecodedInst& in, unsigned l) {
  uint8_t* p = mbar_ptr(c, in, l);
  if (!p) return false;
  uint64_t operand = c.R[in.s[1] + l];
  MbarState s = MbarState::unpack(load(p));
  uint64_t result = 0;
  switch (in.sub) {
    case kInit: {
      uint64_t n = operand & 0xffffffffu;
      if (n == 0 || n > kCountMask) return fault(c, in, l, "mbarrier count " + std::to_string(n) + " out of range"), false;
      s = MbarState{static_cast<uint32_t>(n), static_cast<uint32_t>(n), 0, 0};
      break;
    }
    case kInval: s = MbarState{0, 0, 0, 0}; break;
    case kArrive: case kArriveDrop: {
      result = s.pack();  // the state before the arrive: its phase, and pending_count's count
      if (in.aux & kWithTx) s.tx += static_cast<int32_t>(operand);
      uint32_t count = (in.aux & kHasCount) ? static_cast<uint32_t>(c.R[in.s[2] + l]) : 1;
      if (!arrive(c, in, l, s, count, in.sub == kArriveDrop)) return false;
      break;
    }
    case kExpectTx: s.tx += static_cast<int32_t>(operand); break;
    case kCompleteTx: s.tx -= static_cast<int32_t>(operand), s.complete_if_done(); break;
    case kCpAsyncArrive:
      // The thread's earlier cp.async copies are already done. Without .noinc
      // the pending count goes up by one first, so the arrive changes nothing.
      if ((in.aux & kNoInc) && !arrive(c, in, l, s, 1, false)) return false;
      break;
    default: result = phase_done(s, in, operand); break;  // test_wait, try_wait
  }
  uint64_t v = s.pack();
  std::memcpy(p, &v, 8);
  c.R[in.d[0] + l] = result;
  return true;
}

void run_mbarrier(Ctx& c, const DecodedInst& in, uint32_t m) {
  c.step_bytes = 8;
  c.step_space = Space::Shared;
  bool all_done = true;
  each_lane(m, [&](unsigned l) {
    if (c.faulted || !mbar_lane(c, in, l)) return;
    if (in.sub == kTryWait) all_done &= c.R[in.d[0] + l] != 0;
  });
  if (in.sub == kTryWait && !all_done) c.yield = true;  // let the arriving warps run
}

// mbarrier.pending_count.b64 count, state: no memory access.
void run_pending_count(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) { c.R[in.d[0] + l] = c.R[in.s[1] + l] & kCountMask; });
}

Space mbar_space(Decoder& dc) {
  Mods& m = dc.mods();
  if (m.take("shared::cluster")) return Space::Shared;  // a cluster of one CTA
  if (m.space == Space::None) return Space::Generic;
  if (m.space != Space::Shared) dc.fail("mbarrier objects live in shared memory");
  return m.space;
}

// Operand forms: init/expect_tx/complete_tx [a], n; inval [a]; arrive{_drop}
// st, [a]{, count}; arrive.expect_tx st, [a], tx{, count}; test/try_wait p,
// [a], st|parity{, hint}; pending_count n, st.
void decode_mbarrier(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int op = m.take_one({"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait", "try_wait",
                       "pending_count"});
  if (op < 0) dc.fail("unsupported mbarrier operation");
  out.sub = static_cast<uint8_t>(op);
  if (dc.type() != ptx::Type::B64) dc.fail("mbarrier takes .b64");
  m.take("tx"), m.take("bytes");  // expect_tx/complete_tx count bytes
  if (out.sub == kPending) {
    if (dc.nops() != 2) dc.fail("expected two operands");
    out.d[0] = dc.dst(0), out.s[1] = dc.src(1, ptx::Type::B64), out.nd = 1, out.ns = 2;
    out.fn = run_pending_count;
    return;
  }
  out.space = mbar_space(dc);
  bool has_dst = out.sub == kArrive || out.sub == kArriveDrop || out.sub == kTestWait || out.sub == kTryWait;
  size_t a = has_dst ? 1 : 0;
  out.d[0] = has_dst ? dc.dst(0) : dc.private_slot(kSinkSlot);
  out.nd = 1;
  dc.address(a, out, 0);
  size_t extra = dc.nops() - a - 1;
  if (out.sub == kArrive || out.sub == kArriveDrop) {
    if (m.take("expect_tx")) out.aux |= kWithTx;
    if (m.take("noComplete")) out.aux |= kNoComplete;
    size_t want_min = (out.aux & kWithTx) ? 1 : 0;
    if (extra < want_min || extra > want_min + 1) dc.fail("wrong number of mbarrier operands");
    out.s[1] = want_min ? dc.src(a + 1, ptx::Type::U32) : dc.constant(0);
    if (extra > want_min) out.aux |= kHasCount, out.s[2] = dc.src(a + 1 + want_min, ptx::Type::U32);
  } else if (out.sub == kInval) {
    if (extra != 0) dc.fail("wrong number of mbarrier operands");
    out.s[1] = dc.constant(0);
  } else {
    if (m.take("parity")) out.aux |= kParity;
    bool wait = out.sub == kTestWait || out.sub == kTryWait;
    if (extra < 1 || extra > (out.sub == kTryWait ? 2u : 1u)) dc.fail("wrong number of mbarrier operands");
    out.s[1] = dc.src(a + 1, wait && !(out.aux & kParity) ? ptx::Type::B64 : ptx::Type::U32);
    // try_wait's suspend-time hint changes nothing here: the wait never blocks.
  }
  out.ns = 3;
  out.fn = run_mbarrier;
}

// --- cp.async.bulk (non-tensor): one thread copies `size` bytes at once ---

// s[0] + imm: destination, s[1] + aux: source, s[2]: size, s[3] + target:
// the mbarrier (complete_tx form; in.sub == kCompleteTx) or none (bulk_group).
void run_bulk_copy(Ctx& c, const DecodedInst& in, uint32_t m) {
  const bool to_shared = in.space == Space::Shared;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t size = c.R[in.s[2] + l] & 0xffffffffu;
    uint64_t dst = c.R[in.s[0] + l] + static_cast<uint64_t>(in.imm), src = c.R[in.s[1] + l] + int32_t(in.aux);
    if (size % 16 || dst % 16 || src % 16)
      return fault(c, in, l, "cp.async.bulk needs 16-byte aligned addresses and a size that is a multiple of 16");
    // 16 bytes at a time: a global pointer is valid within its page only.
    for (uint64_t off = 0; off < size; off += 16) {
      Space ds = to_shared ? Space::Shared : Space::Global, ss = to_shared ? Space::Global : Space::Shared;
      uint64_t dst_at = dst + off, src_at = src + off;
      uint8_t* d = space_ptr(c, in, ds, dst_at, 16, l);
      const uint8_t* s = d ? space_ptr(c, in, ss, src_at, 16, l) : nullptr;
      if (!s) return;
      std::memcpy(d, s, 16);
    }
    if (in.sub == kCompleteTx) {
      DecodedInst bar = in;  // the mbarrier operand where mbar_ptr reads it
      bar.s[0] = in.s[3], bar.imm = in.target, bar.space = Space::Shared;
      uint8_t* p = mbar_ptr(c, bar, l);
      if (!p) return;
      MbarState st = MbarState::unpack(load(p));
      st.tx -= static_cast<int32_t>(size);
      st.complete_if_done();
      uint64_t v = st.pack();
      std::memcpy(p, &v, 8);
    }
    c.addrs[l] = to_shared ? src : dst;
  });
  // Timed as one 16-byte access of the global side per copying thread: the
  // bulk copy engine is not modelled.
  c.step_space = Space::Global;
  c.step_bytes = 16;
}

// What cannot run is refused by name and reason.
void refuse_tensor_and_multicast(Decoder& dc) {
  Mods& m = dc.mods();
  if (m.take("tensor"))
    dc.fail("cp.async.bulk.tensor (TMA) is not supported: its tensor-map operand is a CUtensorMap that the driver "
            "API encodes (cuTensorMapEncodeTiled/Im2col), which warpsim does not emulate; cp.async.bulk without a "
            "tensor map, cp.async and plain loads run");
  const std::vector<std::string>& words = dc.inst().mods;
  if (std::find(words.begin(), words.end(), "multicast::cluster") != words.end())
    dc.fail("cp.async.bulk .multicast::cluster is not supported: it writes the shared memory of several CTAs of a "
            "cluster, and warpsim runs clusters of one CTA");
}

}  // namespace

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [s], size, [mbar]
// cp.async.bulk.global.shared::cta.bulk_group [d], [s], size; and commit_group/wait_group (no-ops:
// the copy is done when the instruction ends).
void decode_cp_async_bulk(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (m.take_one({"commit_group", "wait_group"}) >= 0) {
    m.take("read");
    out.fn = [](Ctx&, const DecodedInst&, uint32_t) {};
    return;
  }
  refuse_tensor_and_multicast(dc);
  const std::vector<std::string>& words = dc.inst().mods;
  if (m.take("prefetch")) {  // cp.async.bulk.prefetch.L2.global [a], size: a cache hint, no data moves
    m.take("L2");
    out.fn = [](Ctx&, const DecodedInst&, uint32_t) {};
    return;
  }
  // The destination's space is the word after "bulk" (the source's follows).
  auto bulk = std::find(words.begin(), words.end(), "bulk");
  std::string dst_space = bulk != words.end() && bulk + 1 != words.end() ? *(bulk + 1) : "";
  m.take("shared::cluster");  // a cluster of one CTA: its own shared memory
  bool to_shared = dst_space == "shared::cluster" || dst_space == "shared::cta";
  if (to_shared && m.take("mbarrier::complete_tx::bytes")) out.sub = kCompleteTx;
  else if (dst_space == "global" && m.take("bulk_group")) out.sub = kInit;  // anything but kCompleteTx: no mbarrier
  else dc.fail("unsupported cp.async.bulk form");
  // .L2::cache_hint adds a cache-policy operand last; the hint has no effect here.
  bool hint = std::find(words.begin(), words.end(), "L2::cache_hint") != words.end();
  if (dc.nops() != (to_shared ? 4u : 3u) + hint) dc.fail("wrong number of cp.async.bulk operands");
  out.space = to_shared ? Space::Shared : Space::Global;  // the destination
  dc.address(0, out, 0);
  DecodedInst src;
  dc.address(1, src, 1);
  out.s[1] = src.s[1], out.aux = static_cast<uint32_t>(src.imm);
  out.s[2] = dc.src(2, ptx::Type::U32);
  if (to_shared) {
    DecodedInst bar;
    dc.address(3, bar, 3);
    out.s[3] = bar.s[3], out.target = static_cast<uint32_t>(bar.imm);
  }
  out.ns = to_shared ? 4 : 3;
  out.fn = run_bulk_copy;
}

// cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [a] (ops_memory.cpp's cp decoder hands it here).
void decode_cp_async_mbarrier_arrive(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (m.take("noinc")) out.aux |= kNoInc;
  out.sub = kCpAsyncArrive;
  out.space = mbar_space(dc);
  if (dc.nops() != 1) dc.fail("expected one operand");
  dc.address(0, out, 0);
  out.d[0] = dc.private_slot(kSinkSlot);
  out.s[1] = dc.constant(0);
  out.nd = 1, out.ns = 2;
  out.fn = run_mbarrier;
}

void register_mbarrier_ops(DecodeTable& t) { t["mbarrier"] = decode_mbarrier; }

}  // namespace ws::exec::emu
