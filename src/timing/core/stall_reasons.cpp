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
    "stats.mio_units", "sfu", "",
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

// Called as `w` issues `w.inst` at `now`, before the issue changes any state:
// the cycles since its previous issue go to the causes below, in priority
// order (stall_reasons.h, attribute_issue).
void Sm::attribute_stalls(const SubCore& sc, Warp& w, SmKernel& k, Cycle now) {
  const ir::WarpInst& in = w.inst;
  LdstUnit::FullSpan queue;
  UnitPool::Held pipe;
  bool mio_queue = false;
  if (in.is_memory()) {
    queue = ldst_.last_full();
    mio_queue = in.space == ir::MemSpace::Shared || in.space == ir::MemSpace::Const;
  } else if (in.kind != ir::OpKind::Barrier && in.kind != ir::OpKind::MemBar) {
    int16_t kind = w.unit_of[in.unit];
    if (kind != kLdstUnit) pipe = sc.units.last_held(static_cast<uint32_t>(kind));
  }
  std::array<StallCause, 6> causes{{
      {Stall::Barrier, w.barrier_open},
      {Stall::Membar, w.busy_until},
      {Stall::NoInstruction, w.fetch_ready},
      {stall_of(w.dep.source), w.dep.ready},
      {mio_queue ? Stall::MioThrottle : Stall::LgThrottle, queue.until, queue.since},
      {Stall::MathPipeThrottle, pipe.until, pipe.since, pipe.issues},
  }};
  attribute_issue(w.stall_from, now, causes, [&](Stall r, Cycle n) { add_stall(k, r, n); });
  w.stall_from = now + 1;
  w.barrier_open = 0;
  w.dep = RegDep{};
}

// A warp that finishes at `now` drained since its last issue.
void Sm::attribute_drain(const Warp& w, SmKernel& k, Cycle now) {
  if (now > w.stall_from) add_stall(k, Stall::Drain, now - w.stall_from);
}

}  // namespace ws::timing
