#include "timing/gpu/dispatcher.h"

#include <algorithm>

#include "common/error.h"
#include "ir/read_cta.h"
#include "timing/core/sm.h"

namespace ws::timing {

namespace {
const config::Param<std::string> kPlacement{
    "gpu.cta_placement", "restart", "",
    "which SM a kernel's first CTA goes to: restart (SM 0, then round robin: a kernel launched again finds its code "
    "in the same SMs' instruction caches, as the H100's profiles show) or continue (the round robin carries on from "
    "the previous kernel's last CTA)"};
}  // namespace

Dispatcher::Dispatcher(const config::Config& cfg, const ClockDomain& core, std::vector<Sm*> sms)
    : clock_(core), sms_(std::move(sms)) {
  std::string p = kPlacement.get(cfg);
  if (p != "restart" && p != "continue")
    throw ConfigError(kPlacement.name(), "unknown CTA placement '" + p + "' (known: restart, continue)");
  restart_ = p == "restart";
}

void Dispatcher::add(ir::KernelSource& kernel, SmKernel& ctx, Cycle first_dispatch) {
  auto e = std::make_unique<Entry>(Entry{&kernel, &ctx, kernel.next_cta(), first_dispatch});
  entries_.push_back(std::move(e));
  wake();
}

void Dispatcher::remove(const SmKernel& ctx) {
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) { return e->ctx == &ctx; });
}

Dispatcher::Entry& Dispatcher::find(const SmKernel& ctx) const {
  for (const auto& e : entries_)
    if (e->ctx == &ctx) return *e;
  throw Error("internal: kernel " + std::to_string(ctx.id) + " is not in the dispatcher");
}

uint64_t Dispatcher::drain_undispatched(const SmKernel& ctx) {
  Entry& e = find(ctx);
  ir::WarpInst scratch;
  uint64_t insts = 0;
  while (e.next) {
    ir::read_cta(*e.next, [&insts](const ir::WarpInst&) { ++insts; }, scratch);
    e.next = e.source->next_cta();
  }
  return insts;
}

bool Dispatcher::done(const SmKernel& ctx) const {
  const Entry& e = find(ctx);
  return !e.dispatching() && ctx.ctas_done() == e.dispatched;
}

Dispatcher::Entry* Dispatcher::head(Cycle now) const {
  for (const auto& e : entries_)
    if (e->dispatching()) return now < e->first_dispatch ? nullptr : e.get();
  return nullptr;
}

bool Dispatcher::any_sm_free(const SmKernel& ctx) const {
  for (const Sm* sm : sms_)
    if (sm->can_host(ctx)) return true;
  return false;
}

void Dispatcher::dispatch(Cycle now, bool reserve) {
  Entry* e = head(now);
  // Round robin over SMs, one CTA each at most, starting after the SM that
  // got the previous CTA (or at SM 0 for a kernel's first).
  if (e && e->dispatched == 0 && restart_) rr_ = 0;
  size_t start = rr_, n = sms_.size();
  for (size_t i = 0; i < n && e; ++i) {
    size_t idx = (start + i) % n;
    if (!sms_[idx]->can_host(*e->ctx)) continue;
    if (reserve) sms_[idx]->reserve(now, std::move(e->next), *e->ctx);
    else sms_[idx]->launch(std::move(e->next), *e->ctx);
    ++e->dispatched;
    e->next = e->source->next_cta();
    rr_ = (idx + 1) % n;
    if (!e->next) e = head(now);
  }
}

void Dispatcher::plan(Cycle from, Cycle to) {
  for (Cycle c = next_cycle(from); c < to; c = next_cycle(c + 1)) dispatch(c, true);
}

Cycle Dispatcher::next_cycle(Cycle now) const {
  for (const auto& e : entries_) {
    if (!e->dispatching()) continue;
    if (now < e->first_dispatch) return e->first_dispatch;
    return any_sm_free(*e->ctx) ? now : kNoCycle;
  }
  return kNoCycle;
}

Tick Dispatcher::next_event() const {
  Cycle c = next_cycle(clock_.now());
  return c == kNoCycle ? kNever : clock_.tick_of(c);
}

}  // namespace ws::timing
