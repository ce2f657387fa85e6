// The SM's side of stall attribution (stall_reasons.h): what held a warp
// before each issue, read from the state the issue is about to change.
#include "timing/core/stall_reasons.h"

#include <sstream>

#include "timing/core/sm.h"

namespace ws::timing {

namespace {
const config::Param<bool> kStallReasonsOn{
    "stats.stall_reasons", true, "",
    "attribute every resident warp cycle to an issue-stall reason (stall.* counters, per kernel and per SM)"};
const config::Param<std::string> kMioUnits{
    "stats.mio_units", "sfu,mio", "",
    "execution units (comma-separated) whose results a dependent instruction waits for as short_scoreboard "
    "(variable-latency MIO) rather than wait (fixed latency)"};

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}
}  // namespace

void Sm::init_stalls(const config::Config& cfg, stats::Scope scope) {
  stall_reasons_ = kStallReasonsOn.get(cfg);
  std::vector<std::string> mio = split_names(kMioUnits.get(cfg));
  for (const UnitSpec& u : unit_specs_)
    unit_source_.push_back(std::find(mio.begin(), mio.end(), u.name) != mio.end() ? RegSource::Mio : RegSource::Fixed);
  if (!stall_reasons_) return;
  for (size_t r = 0; r < kStallReasons; ++r)
    stall_counters_[r] = &scope.counter(std::string("stall.") + kStallNames[r],
                                        std::string("warp cycles in issue-stall state ") + kStallNames[r]);
}

// The cycles [w.stall_from, now) before an issue at `now` go to the causes
// below, in priority order (stall_reasons.h); the warp's own waits first,
// which usually cover the gap, then the shared resource it needed.
void Sm::attribute_wait(const SubCore& sc, const Warp& w, SmKernel& k, Cycle now) {
  auto add = [&](Stall r, Cycle n) { add_stall(k, r, n); };
  Cycle from = attribute_wait_until(w.stall_from, now, Stall::Barrier, w.barrier_open, add);
  from = attribute_wait_until(from, now, Stall::Membar, w.busy_until, add);
  from = attribute_wait_until(from, now, Stall::BranchResolving, w.branch_ready, add);
  from = attribute_wait_until(from, now, Stall::NoInstruction, w.fetch_ready, add);
  from = attribute_wait_until(from, now, stall_of(w.dep.source), w.dep.ready, add);
  // The stall counts ptxas would give: after the warp's previous memory
  // instruction (core.lsu_issue_interval) or constant load
  // (core.ldc_issue_interval), after the instruction that set a predicate
  // this branch tests (core.branch_predicate_latency).
  if (spaced_access(w.inst)) from = attribute_wait_until(from, now, Stall::Wait, w.lsu_next, add);
  if (constant_access(w.inst)) from = attribute_wait_until(from, now, Stall::Wait, w.ldc_next, add);
  if (w.inst.tests_branch_pred) from = attribute_wait_until(from, now, Stall::Wait, w.pred_ready, add);
  if (now > from) from = attribute_throttle(sc, w, k, from, now);
  if (now > from) add(Stall::NotSelected, now - from);
}

// The cycles from `from` on that a shared resource held the warp's
// instruction; returns where attribution goes on. A memory instruction waits
// for room in the LD/ST unit's LG queue or (shared memory) in the MIO queue,
// which may fill and drain many times while it
// waits: of the cycles since the warp's last issue the queue was full on some
// (counted by the LD/ST unit); the cycles left here get that share. Another
// instruction waits for its pipeline (UnitPool::last_held).
Cycle Sm::attribute_throttle(const SubCore& sc, const Warp& w, SmKernel& k, Cycle from, Cycle now) {
  const ir::WarpInst& in = w.inst;
  if (in.uses_lg_queue() || in.uses_mio_queue()) {
    bool lg = in.uses_lg_queue();
    Cycle full = lg ? ldst_.full_cycles(now) - w.queue_full_mark : ldst_.mio_full_cycles(now) - w.mio_full_mark;
    Cycle held = std::min(now - from, full * (now - from) / (now - w.stall_from));
    if (held == 0) return from;
    add_stall(k, lg ? Stall::LgThrottle : Stall::MioThrottle, held);
    return from + held;
  }
  if (in.kind == ir::OpKind::Barrier || in.kind == ir::OpKind::MemBar || w.unit_of[in.unit] == kLdstUnit) return from;
  UnitPool::Held p = sc.units.last_held(static_cast<uint32_t>(w.unit_of[in.unit]));
  return attribute_causes(from, now, std::array<StallCause, 1>{{{Stall::MathPipeThrottle, p.until, p.since, p.issues}}},
                          [&](Stall r, Cycle n) { add_stall(k, r, n); });
}

// A warp that finishes at `now` drained since its last issue.
void Sm::attribute_drain(const Warp& w, SmKernel& k, Cycle now) {
  if (now > w.stall_from) add_stall(k, Stall::Drain, now - w.stall_from);
}

}  // namespace ws::timing
