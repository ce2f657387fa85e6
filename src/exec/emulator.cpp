// The emulator's driver: CTAs in linear order; within a CTA, warps in index
// order, each running until it exits or waits at a barrier. One warp step
// executes one decoded instruction for the lanes of the top reconvergence
// stack entry (guard applied).
#include "exec/emulator.h"

#include <bit>
#include <functional>
#include <cstdio>
#include <map>

#include "common/error.h"

#include "exec/decode.h"
#include "exec/device_memory.h"

namespace ws::exec {

using namespace emu;

namespace {

std::string dim_text(uint32_t x, uint32_t y, uint32_t z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

Dim3 thread_of(const Launch& l, uint32_t linear) {
  return Dim3{linear % l.block.x, (linear / l.block.x) % l.block.y, linear / (l.block.x * l.block.y)};
}

uint64_t special_value(const Ctx& c, const Warp& w, ptx::SpecialReg r, unsigned lane, uint8_t index) {
  using S = ptx::SpecialReg;
  const Launch& l = *c.launch;
  Dim3 t = thread_of(l, w.index * kLanes + lane);
  uint64_t below = (uint64_t{1} << lane) - 1, upto = (uint64_t{2} << lane) - 1;
  switch (r) {
    case S::TidX: return t.x;
    case S::TidY: return t.y;
    case S::TidZ: return t.z;
    case S::NtidX: return l.block.x;
    case S::NtidY: return l.block.y;
    case S::NtidZ: return l.block.z;
    case S::CtaidX: return c.cta->id.x;
    case S::CtaidY: return c.cta->id.y;
    case S::CtaidZ: return c.cta->id.z;
    case S::NctaidX: return l.grid.x;
    case S::NctaidY: return l.grid.y;
    case S::NctaidZ: return l.grid.z;
    case S::LaneId: return lane;
    case S::WarpId: return w.index;
    case S::NWarpId: return 64;
    case S::SmId: return c.cta->linear % c.num_sms;
    case S::NSmId: return c.num_sms;
    case S::LaneMaskEq: return uint32_t(1u << lane);
    case S::LaneMaskLe: return uint32_t(upto);
    case S::LaneMaskLt: return uint32_t(below);
    case S::LaneMaskGe: return uint32_t(~below);
    case S::LaneMaskGt: return uint32_t(~upto);
    case S::Clock: case S::Clock64: return c.clock ? (*c.clock)() : w.clock;
    case S::GlobalTimer: return (c.clock ? (*c.clock)() : w.clock) * 1000;
    case S::DynamicSmemSize: return l.dynamic_shmem;
    case S::TotalSmemSize: return c.cta->shared.size();
    // CUDA's driver ABI: %envreg1 (high half) and %envreg2 (low half) hold the
    // address of a cooperative launch's grid workspace (cg::this_grid()).
    case S::EnvReg: return index == 1 ? l.grid_workspace >> 32 : index == 2 ? uint32_t(l.grid_workspace) : 0;
    case S::ReservedSmem: {
      uint64_t base = reserved_shared_base(*c.kernel, l.dynamic_shmem);
      constexpr uint64_t kOffsets[] = {0, kReservedSharedBytes, 0, 0, kReservedRegionBytes};
      return index == 2 ? kReservedSharedBytes : base + kOffsets[index < 5 ? index : 0];
    }
    default: return 0;
  }
}

uint32_t guard_mask(const uint64_t* p, uint32_t m, bool negated) {
  uint32_t g = 0;
  each_lane(m, [&](unsigned l) { g |= uint32_t(p[l] & 1) << l; });
  return negated ? (m & ~g) : g;
}

void pop_entry(Warp& w) {
  w.stack.pop_back();
  while (w.frames.size() > 1 && w.stack.size() < w.frames.back().stack_depth) w.frames.pop_back();
}

void report(Ctx& c, const Warp& w, const DecodedFunction& fn, uint32_t pc, uint32_t m, uint32_t reached,
            WarpObserver& obs) {
  WarpStep s;
  s.warp = w.index;
  s.inst = fn.code[pc].src;
  s.pc = pc;
  s.function = fn.fn;
  s.active_mask = m;
  s.warp_mask = reached;
  s.space = c.step_space;
  s.access_bytes = c.step_bytes;
  s.cache_op = fn.code[pc].cache;
  s.addrs = c.step_space == ptx::StateSpace::None ? nullptr : c.addrs;
  obs.on_step(s);
  c.step_space = ptx::StateSpace::None;
  c.step_bytes = 0;
}

// Runs the clock read the warp holds (see Warp::deferred): now is when the
// timing model issues it.
void run_deferred(Ctx& c, Warp& w) {
  const DecodedInst& in = *w.deferred;
  w.deferred = nullptr;
  c.R = frame_registers(w);
  in.fn(c, in, w.deferred_mask);
}

// Executes the warp's next instruction (after popping finished stack
// entries). False when the warp has nothing left to run. `defer_clock`: a
// clock-reading mov is reported but held (timed runs, the warp the SM asked
// for), so that it reads the cycle at which it issues.
bool exec_one(Ctx& c, Warp& w, WarpObserver* obs, LaunchResult& res, bool defer_clock = false) {
  if (w.deferred) run_deferred(c, w);
  for (;;) {
    if (w.stack.empty()) {
      w.state = WarpState::Done;
      return false;
    }
    StackEntry& top = w.stack.back();
    if (top.mask != 0 && top.pc != top.rpc) break;
    pop_entry(w);
  }
  StackEntry& top = w.stack.back();
  const DecodedFunction& fn = *w.frames.back().fn;
  uint32_t pc = top.pc;
  const DecodedInst& in = fn.code[pc < fn.code.size() ? pc : fn.code.size() - 1];
  top.pc = pc + 1;
  c.R = frame_registers(w);
  uint32_t m = top.mask;
  const uint32_t reached = m;
  if (in.guard != kNoGuard) m = guard_mask(c.R + in.guard, m, in.guard_neg);
  if (defer_clock && c.clock && (in.flags & kClockRead)) {
    w.deferred = &in;  // a mov: no control flow or memory effect to wait for
    w.deferred_mask = m;
  } else {
    in.fn(c, in, m);
  }
  w.clock++;
  res.warp_insts++;
  res.thread_insts += static_cast<uint64_t>(std::popcount(m));
  if (obs) report(c, w, fn, pc, m, reached, *obs);
  return true;
}

// Runs the warp until it exits, waits at a barrier or faults, or has run
// `budget` instructions.
void run_warp(Ctx& c, Warp& w, WarpObserver* obs, LaunchResult& res, uint64_t budget = ~uint64_t{0}) {
  c.w = &w;
  c.yield = false;
  while (!c.yield && budget-- > 0 && exec_one(c, w, obs, res)) {
  }
}

}  // namespace

namespace emu {

void fault(Ctx& c, const DecodedInst& in, unsigned lane, const std::string& what) {
  c.yield = true;
  if (c.faulted) return;
  c.faulted = true;
  const Dim3& b = c.cta->id;
  Dim3 t = thread_of(*c.launch, c.w->index * kLanes + lane);
  c.fault = "kernel " + c.launch->kernel->name + ": block " + dim_text(b.x, b.y, b.z) + " thread " +
            dim_text(t.x, t.y, t.z) + ": PTX line " + std::to_string(in.src->line) + " `" + in.src->text + "`: " + what;
}

void prepare_frame(Ctx& c, const DecodedFunction& f, uint32_t reg_base, size_t depth) {
  Warp& w = *c.w;
  size_t need = reg_base + size_t{f.nslots} * kLanes;
  if (w.regs.size() < need) w.regs.resize(need);
  if (w.filled.size() <= depth) w.filled.resize(depth + 1, {nullptr, 0});
  uint64_t* R = w.regs.data() + reg_base;
  if (w.filled[depth] != std::make_pair(&f, reg_base)) {
    for (auto [off, value] : f.consts) std::fill(R + off, R + off + kLanes, value);
    w.filled[depth] = {&f, reg_base};
  }
  for (auto [off, reg, index] : f.specials)
    for (unsigned l = 0; l < kLanes; ++l) R[off + l] = special_value(c, w, reg, l, index);
}

void finish_lanes(Ctx& c, uint32_t lanes) {
  Warp& w = *c.w;
  for (StackEntry& e : w.stack) e.mask &= ~lanes;
  w.live &= ~lanes;
  if (w.live == 0) {
    w.state = WarpState::Done;
    c.yield = true;
    release_barriers(c);
  }
}

void h_refresh_clock(Ctx& c, const DecodedInst& in, uint32_t m) {
  Warp& w = *c.w;
  for (auto [off, reg, index] : w.frames.back().fn->specials)
    if (reg == ptx::SpecialReg::Clock || reg == ptx::SpecialReg::Clock64 || reg == ptx::SpecialReg::GlobalTimer)
      for (unsigned l = 0; l < kLanes; ++l) c.R[off + l] = special_value(c, w, reg, l, index);
  in.inner(c, in, m);
}

}  // namespace emu

struct Emulator::Impl {
  DeviceMemory& mem;
  uint32_t num_sms;
  uint32_t threads_per_sm = 2048;  // resident threads per SM (functional interleaving)
  uint64_t watchdog_warp_insts = 0;  // run(): stop a kernel past this many warp instructions (0 = never)
  std::map<const ptx::Function*, std::unique_ptr<DecodedKernel>> decoded;
  std::vector<Warp> warps;  // reused from CTA to CTA (functional runs)
  std::function<uint64_t()> clock;
  const TextureTable* textures = nullptr;
  PrintSink print = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };

  Impl(DeviceMemory& m, uint32_t sms) : mem(m), num_sms(sms ? sms : 1) {}

  const DecodedKernel& kernel(const Launch& l) {
    auto& k = decoded[l.kernel];
    if (!k) k = decode_kernel(*l.module, *l.kernel);
    return *k;
  }

  void init_warp(Ctx& c, Warp& w, uint32_t index) {
    const DecodedFunction& fn = *c.kernel->funcs[0];
    uint32_t threads = static_cast<uint32_t>(std::min<uint64_t>(kLanes, c.cta->nthreads - index * kLanes));
    w.index = index;
    w.nthreads = threads;
    w.live = threads == kLanes ? kFullMask : (1u << threads) - 1;
    w.stack.assign(1, StackEntry{0, kNoPc, w.live});
    w.frames.assign(1, Frame{&fn, 0, 0, 0, 1, nullptr});
    w.state = WarpState::Ready;
    w.clock = 0;
    w.deferred = nullptr;
    size_t pb = fn.param_frame_bytes, n = std::min<size_t>(pb, c.launch->params.size());
    w.params.assign(pb * kLanes, 0);
    for (unsigned l = 0; l < kLanes && n; ++l) std::memcpy(&w.params[l * pb], c.launch->params.data(), n);
    w.local.assign(size_t{c.local_stride} * kLanes, 0);
    c.w = &w;
    prepare_frame(c, fn, 0, 0);
  }

  LaunchResult run_one(const Launch& l, Dim3 id, WarpObserver* obs, GlobalCache& gcache);
  LaunchResult run_interleaved(const Launch& l);
};

namespace {
// Instructions a warp runs before the next warp (functional runs: the next
// resident CTA's warps) gets a turn.
constexpr uint64_t kRoundInstructions = 256;

std::string watchdog_message(const std::string& kernel, uint64_t executed, uint64_t limit) {
  return "kernel " + kernel + ": stopped by the watchdog after " + std::to_string(executed) +
         " warp instructions (exec.watchdog_warp_insts = " + std::to_string(limit) +
         "; an endless loop? raise it, or 0 for no limit)";
}
}  // namespace

// One CTA's execution state. Functional runs drive it to completion
// (run_all); timing-driven runs step one warp at a time (step).
class CtaExec : public CtaRun {
 public:
  CtaExec(Emulator::Impl& impl, const Launch& l, Dim3 id, WarpObserver* obs, std::vector<Warp>& warps,
          GlobalCache gcache)
      : obs_(obs) {
    const DecodedKernel& k = impl.kernel(l);
    cta_.id = id;
    cta_.linear = id.x + uint64_t{l.grid.x} * (id.y + uint64_t{l.grid.y} * id.z);
    cta_.nthreads = static_cast<uint32_t>(l.block.count());
    cta_.nwarps = (cta_.nthreads + kLanes - 1) / kLanes;
    cta_.shared.assign(k.reserved_shared ? reserved_shared_base(k, l.dynamic_shmem) + kReservedSharedBytes
                                         : cta_shared_bytes(k, l.dynamic_shmem),
                       0);
    if (warps.size() < cta_.nwarps) warps.resize(cta_.nwarps);
    cta_.warps = &warps;
    c_.mem = &impl.mem, c_.launch = &l, c_.kernel = &k, c_.num_sms = impl.num_sms, c_.cta = &cta_;
    c_.gcache = gcache;
    c_.clock = impl.clock ? &impl.clock : nullptr;
    c_.print = &impl.print;
    c_.textures = impl.textures;
    c_.local_stride = k.funcs[0]->stack_bytes;
    for (uint32_t i = 0; i < cta_.nwarps; ++i) impl.init_warp(c_, warps[i], i);
  }

  // With a watchdog (a limit on this CTA's warp instructions), warps take
  // turns so that an endless one is stopped; without, each runs until it blocks.
  LaunchResult run_all(uint64_t watchdog = 0) {
    while (run_round(watchdog ? kRoundInstructions : ~uint64_t{0})) {
      if (watchdog && res_.warp_insts > watchdog) {
        res_.ok = false;
        res_.failure = LaunchFailure::Watchdog;
        res_.error = watchdog_message(c_.launch->kernel->name, res_.warp_insts, watchdog);
        break;
      }
    }
    return res_;
  }

  // Every warp that can run runs up to `budget` instructions. False once
  // the CTA has finished, faulted or deadlocked (result() says which).
  bool run_round(uint64_t budget) {
    bool ran = false, done = true;
    for (uint32_t i = 0; i < cta_.nwarps && !c_.faulted; ++i) {
      Warp& w = warp(i);
      if (w.state == WarpState::Done) continue;
      done = false;
      if (w.state == WarpState::Ready) ran = true, run_warp(c_, w, obs_, res_, budget);
    }
    if (c_.faulted) return take_fault(), false;
    if (done) return false;
    if (!ran) return deadlock(), false;
    return true;
  }

  Status step(uint32_t wi) override {
    Warp& w = warp(wi);
    for (;;) {
      if (!res_.ok) return Status::Fault;
      if (w.state == WarpState::Done) return Status::Done;
      if (w.state == WarpState::Ready) {
        c_.w = &w;
        c_.yield = false;
        bool stepped = exec_one(c_, w, obs_, res_, true);
        if (c_.faulted) return take_fault(), Status::Fault;
        if (stepped) return Status::Stepped;
        continue;
      }
      // `w` waits at a barrier: the other warps run ahead until it opens.
      bool ran = false;
      for (uint32_t i = 0; i < cta_.nwarps && !c_.faulted; ++i)
        if (i != wi && warp(i).state == WarpState::Ready) ran = true, run_warp(c_, warp(i), obs_, res_);
      if (c_.faulted) return take_fault(), Status::Fault;
      if (!ran && w.state != WarpState::Ready) return deadlock(), Status::Fault;
    }
  }

  const LaunchResult& result() const override { return res_; }
  const GlobalCache& gcache() const { return c_.gcache; }

 private:
  Warp& warp(uint32_t i) { return (*cta_.warps)[i]; }
  void take_fault() {
    res_.ok = false;
    res_.error = c_.fault;
    res_.failure = c_.assert_fault ? LaunchFailure::Assertion : LaunchFailure::Fault;
  }
  void deadlock() {
    const Dim3& id = cta_.id;
    res_.ok = false;
    res_.failure = LaunchFailure::BarrierDeadlock;
    res_.error = "kernel " + c_.launch->kernel->name + ": block " + dim_text(id.x, id.y, id.z) +
                 ": barrier deadlock: warps wait at a barrier that the other warps never reach";
  }

  WarpObserver* obs_;
  Cta cta_;
  Ctx c_;
  LaunchResult res_;
};

// A timing-driven CTA owns its warps (several are in flight at once).
class OwnedCtaExec : public CtaRun {
 public:
  OwnedCtaExec(Emulator::Impl& impl, const Launch& l, Dim3 id, WarpObserver* obs)
      : exec_(impl, l, id, obs, warps_, GlobalCache{}) {}
  Status step(uint32_t w) override { return exec_.step(w); }
  const LaunchResult& result() const override { return exec_.result(); }

 private:
  std::vector<Warp> warps_;
  CtaExec exec_;
};

LaunchResult Emulator::Impl::run_one(const Launch& l, Dim3 id, WarpObserver* obs, GlobalCache& gcache) {
  CtaExec cta(*this, l, id, obs, warps, gcache);
  LaunchResult r = cta.run_all(watchdog_warp_insts);
  if (r.ok) gcache = cta.gcache();
  return r;
}

namespace {

std::string check_launch(const Launch& l) {
  if (!l.module || !l.kernel) return "launch names no kernel";
  if (l.grid.count() == 0 || l.block.count() == 0) return "kernel " + l.kernel->name + ": empty grid or block";
  if (l.block.count() > 1024) return "kernel " + l.kernel->name + ": more than 1024 threads per block";
  return "";
}

}  // namespace

Emulator::Emulator(DeviceMemory& mem, uint32_t num_sms) : impl_(std::make_unique<Impl>(mem, num_sms)) {}
Emulator::~Emulator() = default;

LaunchResult Emulator::run(const Launch& launch) {
  LaunchResult total;
  if (std::string e = check_launch(launch); !e.empty()) return total.ok = false, total.error = e, total;
  impl_->kernel(launch);  // decode errors surface before anything runs
  return impl_->run_interleaved(launch);
}

namespace {
// A functional CTA in flight with its own warps (several run interleaved).
struct ResidentCta {
  std::vector<Warp> warps;
  std::unique_ptr<CtaExec> exec;
};

// The watchdog stops a kernel that runs on and on (an endless loop): the
// instructions of the CTAs still in flight count too.
LaunchResult stop_runaway(const Launch& l, const std::vector<std::unique_ptr<ResidentCta>>& live, LaunchResult total,
                          uint64_t limit) {
  for (const auto& cta : live) {
    total.warp_insts += cta->exec->result().warp_insts;
    total.thread_insts += cta->exec->result().thread_insts;
  }
  total.ok = false;
  total.failure = LaunchFailure::Watchdog;
  total.error = watchdog_message(l.kernel->name, total.warp_insts, limit);
  return total;
}
}  // namespace

// The CTAs a GPU would hold at once (every SM full of this kernel's CTAs, by
// threads alone) run interleaved, a round of kRoundInstructions per warp at a
// time, in launch order; a finished CTA's place goes to the next one. So
// CTAs that talk through memory without a grid barrier (a flag another
// resident CTA sets) see each other's writes, as on hardware. Deterministic.
LaunchResult Emulator::Impl::run_interleaved(const Launch& l) {
  LaunchResult total;
  const uint64_t ctas = l.grid.count();
  const uint64_t per_sm = std::max<uint64_t>(1, threads_per_sm / std::max<uint64_t>(1, l.block.count()));
  const uint64_t window = std::min<uint64_t>(ctas, per_sm * num_sms);
  std::vector<std::unique_ptr<ResidentCta>> live;
  // A finished CTA's warps (their register and local arrays) go to the next
  // one: allocating them afresh per CTA made a grid of many small CTAs
  // spend its time in the allocator.
  std::vector<std::unique_ptr<ResidentCta>> spare;
  uint64_t next = 0, executed = 0;
  while (next < ctas || !live.empty()) {
    while (live.size() < window && next < ctas) {
      uint64_t x = next % l.grid.x, yz = next / l.grid.x;
      Dim3 id{static_cast<uint32_t>(x), static_cast<uint32_t>(yz % l.grid.y), static_cast<uint32_t>(yz / l.grid.y)};
      std::unique_ptr<ResidentCta> r;
      if (spare.empty()) {
        r = std::make_unique<ResidentCta>();
      } else {
        r = std::move(spare.back());
        spare.pop_back();
      }
      r->exec = std::make_unique<CtaExec>(*this, l, id, nullptr, r->warps, GlobalCache{});
      live.push_back(std::move(r));
      ++next;
    }
    for (size_t i = 0; i < live.size();) {
      uint64_t before = live[i]->exec->result().warp_insts;
      bool more = live[i]->exec->run_round(kRoundInstructions);
      executed += live[i]->exec->result().warp_insts - before;
      if (watchdog_warp_insts && executed > watchdog_warp_insts)
        return stop_runaway(l, live, total, watchdog_warp_insts);
      if (more) {
        ++i;
        continue;
      }
      const LaunchResult& r = live[i]->exec->result();
      total.warp_insts += r.warp_insts;
      total.thread_insts += r.thread_insts;
      if (!r.ok) return total.ok = false, total.error = r.error, total.failure = r.failure, total;
      live[i]->exec.reset();
      spare.push_back(std::move(live[i]));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return total;
}

void Emulator::set_print_sink(PrintSink sink) { impl_->print = std::move(sink); }
void Emulator::set_threads_per_sm(uint32_t threads) { impl_->threads_per_sm = threads ? threads : 1; }
void Emulator::set_watchdog(uint64_t warp_insts) { impl_->watchdog_warp_insts = warp_insts; }
void Emulator::set_textures(const TextureTable* textures) { impl_->textures = textures; }

LaunchResult Emulator::run_cta(const Launch& launch, Dim3 cta, WarpObserver* observer) {
  if (std::string e = check_launch(launch); !e.empty()) {
    LaunchResult r;
    return r.ok = false, r.error = e, r;
  }
  GlobalCache gcache;
  return impl_->run_one(launch, cta, observer, gcache);
}

}  // namespace ws::exec

namespace ws::exec {

std::unique_ptr<CtaRun> Emulator::start_cta(const Launch& launch, Dim3 cta, WarpObserver* observer) {
  if (std::string e = check_launch(launch); !e.empty()) throw Error(e);
  return std::make_unique<OwnedCtaExec>(*impl_, launch, cta, observer);
}

void Emulator::set_clock(std::function<uint64_t()> clock) { impl_->clock = std::move(clock); }

}  // namespace ws::exec
