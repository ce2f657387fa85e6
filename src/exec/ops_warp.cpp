// Warp-wide operations: shfl.sync, vote.sync, match.sync, redux.sync, elect.sync, activemask.
// A lane's participants are the executing lanes of its membermask: lanes of one
// warp instruction may name different masks (a thread_block_tile<16> reduces
// lanes 0-15 and 16-31 apart in one redux.sync), and each lane's result covers
// its own mask only. Warps run in lockstep, so membermask lanes that do not
// execute cannot be waited for; an executing lane outside its membermask
// (undefined in CUDA) stops the launch with a fault.
#include <bit>
#include <cstdio>

#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

constexpr unsigned kMaskSlot = 4;  // s[4]: the membermask of a .sync form (flag kHasPred)

// False (after reporting a fault) when an executing lane is not in its membermask.
bool members_ok(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!(in.flags & kHasPred)) return true;
  const uint64_t* mask = c.R + in.s[kMaskSlot];
  uint32_t outside = 0;
  each_lane(m, [&](unsigned l) { outside |= uint32_t(((mask[l] >> l) & 1) == 0) << l; });
  if (!outside) return true;
  auto lane = static_cast<unsigned>(std::countr_zero(outside));
  char text[96];
  std::snprintf(text, sizeof text, "lane %u executes it but is not in its membermask 0x%08x", lane,
                static_cast<uint32_t>(mask[lane]));
  fault(c, in, lane, text);
  return false;
}

// Lane l's participants: the executing lanes of its membermask (all executing
// lanes for a form without one).
inline uint32_t participants(const Ctx& c, const DecodedInst& in, uint32_t m, unsigned l) {
  if (!(in.flags & kHasPred)) return m;
  return static_cast<uint32_t>(c.R[in.s[kMaskSlot] + l]) & m;
}

void take_member_mask(Decoder& dc, DecodedInst& out, size_t operand) {
  out.s[kMaskSlot] = dc.src(operand, ptx::Type::B32);
  out.flags |= kHasPred;
}

enum ShflMode : uint8_t { kUp, kDown, kBfly, kIdx };

// PTX ISA shfl: c packs the clamp value (bits 4:0) and the segment mask (bits 12:8).
void run_shfl(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!members_ok(c, in, m)) return;
  uint64_t* R = c.R;
  uint64_t src[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) src[l] = R[in.s[0] + l];
  uint64_t *d = R + in.d[0], *p = R + in.d[1];
  each_lane(m, [&](unsigned l) {
    uint32_t b = static_cast<uint32_t>(R[in.s[1] + l]) & 0x1f, cv = static_cast<uint32_t>(R[in.s[2] + l]);
    uint32_t clamp = cv & 0x1f, seg = (cv >> 8) & 0x1f;
    int32_t max_lane = static_cast<int32_t>((l & seg) | (clamp & ~seg));
    int32_t min_lane = static_cast<int32_t>(l & seg);
    int32_t j;
    bool ok;
    switch (in.sub) {
      case kUp: j = static_cast<int32_t>(l) - static_cast<int32_t>(b), ok = j >= max_lane; break;
      case kDown: j = static_cast<int32_t>(l + b), ok = j <= max_lane; break;
      case kBfly: j = static_cast<int32_t>(l ^ b), ok = j <= max_lane; break;
      default: j = min_lane | static_cast<int32_t>(b & ~seg), ok = j <= max_lane; break;
    }
    if (!ok) j = static_cast<int32_t>(l);
    d[l] = src[j] & 0xffffffffu;
    if (in.nd == 2) p[l] = ok;
  });
}

void decode_shfl(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  bool sync = m.take("sync");
  int mode = m.take_one({"up", "down", "bfly", "idx"});
  if (mode < 0) dc.fail("shfl needs a mode");
  if (type_bytes(dc.type()) != 4) dc.fail("shfl needs .b32");
  out.sub = static_cast<uint8_t>(mode);
  size_t nsrc = sync ? 4 : 3;
  size_t ndst = dc.nops() - nsrc;
  if (ndst < 1 || ndst > 2) dc.fail("wrong number of shfl operands");
  out.d[0] = dc.dst(0);
  out.nd = static_cast<uint8_t>(ndst);
  out.d[1] = ndst == 2 ? dc.dst(1) : dc.private_slot(kSinkSlot);
  for (size_t i = 0; i < 3; ++i) out.s[i] = dc.src(ndst + i, ptx::Type::B32);
  if (sync) take_member_mask(dc, out, ndst + 3);
  out.fn = run_shfl;
}

enum VoteMode : uint8_t { kAll, kAny, kUni, kBallot };

void run_vote(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!members_ok(c, in, m)) return;
  uint64_t* a = c.R + in.s[0];
  bool neg = in.flags & kNeg;
  uint32_t ballot = 0;
  each_lane(m, [&](unsigned l) { ballot |= uint32_t(((a[l] & 1) != 0) != neg) << l; });
  uint64_t* d = c.R + in.d[0];
  each_lane(m, [&](unsigned l) {
    uint32_t group = participants(c, in, m, l), b = ballot & group;
    d[l] = in.sub == kBallot ? b
         : in.sub == kAll    ? b == group
         : in.sub == kAny    ? b != 0
                             : (b == 0 || b == group);
  });
}

void decode_vote(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  bool sync = m.take("sync");
  int mode = m.take_one({"all", "any", "uni", "ballot"});
  if (mode < 0) dc.fail("vote needs a mode");
  out.sub = static_cast<uint8_t>(mode);
  out.d[0] = dc.dst(0);
  out.nd = 1;
  const ptx::Operand& p = dc.op(1);
  ptx::Operand plain = p;
  plain.negate = false;
  out.s[0] = dc.src_operand(plain, ptx::Type::Pred);
  if (p.negate) out.flags |= kNeg;
  if (sync && dc.nops() == 3) take_member_mask(dc, out, 2);
  out.fn = run_vote;
}

// match.any: lanes holding my value; match.all: every lane if all values agree (p: whether they do).
template <class T>
void run_match(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!members_ok(c, in, m)) return;
  uint64_t *a = c.R + in.s[0], *d = c.R + in.d[0], *p = c.R + in.d[1];
  each_lane(m, [&](unsigned l) {
    uint32_t group = participants(c, in, m, l), same = 0;
    each_lane(group, [&](unsigned k) { same |= uint32_t(get<T>(a, k) == get<T>(a, l)) << k; });
    bool all = same == group;
    d[l] = in.sub ? (all ? group : 0) : same;
    if (in.sub) p[l] = all;
  });
}

void decode_match(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  m.take("sync");
  int mode = m.take_one({"any", "all"});
  if (mode < 0) dc.fail("match needs .any or .all");
  ptx::Type t = dc.type();
  out.fn = type_bytes(t) == 8 ? run_match<uint64_t> : run_match<uint32_t>;
  out.sub = static_cast<uint8_t>(mode);
  size_t ndst = dc.nops() - 2;
  if (ndst < 1 || ndst > 2) dc.fail("wrong number of match operands");
  out.d[0] = dc.dst(0);
  out.d[1] = ndst == 2 ? dc.dst(1) : dc.private_slot(kSinkSlot);
  out.nd = static_cast<uint8_t>(ndst);
  out.s[0] = dc.src(ndst, t);
  take_member_mask(dc, out, ndst + 1);
}

void run_activemask(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* d = c.R + in.d[0];
  each_lane(m, [&](unsigned l) { d[l] = m; });
}

enum ReduxOp : uint8_t { kRAdd, kRMin, kRMax, kRAnd, kROr, kRXor };

template <class T>
void run_redux(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!members_ok(c, in, m)) return;
  uint64_t *a = c.R + in.s[0], *d = c.R + in.d[0];
  auto reduce = [&](uint32_t group) {
    bool first = true;
    T acc = 0;
    each_lane(group, [&](unsigned l) {
      T v = get<T>(a, l);
      if (first) acc = v, first = false;
      else switch (in.sub) {
        case kRAdd: acc = T(uint32_t(acc) + uint32_t(v)); break;
        case kRMin: acc = v < acc ? v : acc; break;
        case kRMax: acc = v > acc ? v : acc; break;
        case kRAnd: acc &= v; break;
        case kROr: acc |= v; break;
        default: acc ^= v; break;
      }
    });
    return acc;
  };
  // Lanes usually share a few masks: reduce each distinct one once.
  uint32_t last_group = 0;
  T last = 0;
  each_lane(m, [&](unsigned l) {
    uint32_t group = participants(c, in, m, l);
    if (group != last_group) last_group = group, last = reduce(group);
    put(d, l, last);
  });
}

void decode_redux(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  m.take("sync");
  int op = m.take_one({"add", "min", "max", "and", "or", "xor"});
  if (op < 0) dc.fail("redux needs an operation");
  ptx::Type t = dc.type();
  if (type_bytes(t) != 4 || is_float(t)) dc.fail("unsupported redux type");
  out.sub = static_cast<uint8_t>(op);
  out.fn = t == ptx::Type::S32 ? run_redux<int32_t> : run_redux<uint32_t>;
  out.d[0] = dc.dst(0);
  out.nd = 1;
  out.s[0] = dc.src(1, t);
  take_member_mask(dc, out, 2);
}

// elect.sync: each group's leader is its lowest participating lane; d gets the
// leader's lane id, p whether this lane is it.
void run_elect(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (!members_ok(c, in, m)) return;
  uint64_t *d = c.R + in.d[0], *p = c.R + in.d[1];
  each_lane(m, [&](unsigned l) {
    auto leader = static_cast<unsigned>(std::countr_zero(participants(c, in, m, l)));
    d[l] = leader;
    p[l] = l == leader;
  });
}

void decode_elect(Decoder& dc, DecodedInst& out) {
  dc.mods().take("sync");
  if (dc.nops() != 3) dc.fail("elect.sync needs d|p, membermask");
  out.d[0] = dc.dst(0);
  out.d[1] = dc.dst(1);
  out.nd = 2;
  take_member_mask(dc, out, 2);
  out.fn = run_elect;
}

void run_warp_sync(Ctx& c, const DecodedInst& in, uint32_t m) { members_ok(c, in, m); }

}  // namespace

void decode_warp_sync(Decoder& dc, DecodedInst& out) {
  dc.mods().take("sync");
  take_member_mask(dc, out, 0);
  out.fn = run_warp_sync;
}

void register_warp_ops(DecodeTable& t) {
  t["shfl"] = decode_shfl;
  t["vote"] = decode_vote;
  t["match"] = decode_match;
  t["redux"] = decode_redux;
  t["elect"] = decode_elect;
  t["activemask"] = [](Decoder& dc, DecodedInst& out) {
    out.fn = run_activemask;
    out.d[0] = dc.dst(0);
    out.nd = 1;
  };
}

}  // namespace ws::exec::emu
