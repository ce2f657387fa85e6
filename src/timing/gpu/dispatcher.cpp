#include "timing/gpu/dispatcher.h"

#include "ir/read_cta.h"
#include "timing/core/sm.h"

namespace ws::timing {

void Dispatcher::start(ir::KernelSource& kernel, Cycle first_dispatch) {
  kernel_ = &kernel;
  first_dispatch_ = first_dispatch;
  next_ = kernel.next_cta();
  dispatched_ = 0;
  stopped_ = false;
}

void Dispatcher::drain_undispatched() {
  ir::WarpInst scratch;
  while (next_) {
    ir::read_cta(*next_, [](const ir::WarpInst&) {}, scratch);
    next_ = kernel_->next_cta();
  }
}

bool Dispatcher::kernel_done() const {
  if (next_ && !stopped_) return false;
  for (const Sm* sm : sms_)
    if (sm->live_ctas() > 0) return false;
  return true;
}

bool Dispatcher::any_sm_free() const {
  for (const Sm* sm : sms_)
    if (sm->can_launch()) return true;
  return false;
}

void Dispatcher::tick() {
  if (!next_ || stopped_ || clock_.now() < first_dispatch_) return;
  // Round robin over SMs, one CTA each at most, starting after the SM that
  // got the previous CTA.
  size_t start = rr_, n = sms_.size();
  for (size_t i = 0; i < n && next_; ++i) {
    size_t idx = (start + i) % n;
    if (!sms_[idx]->can_launch()) continue;
    sms_[idx]->launch(std::move(next_));
    ++dispatched_;
    next_ = kernel_->next_cta();
    rr_ = (idx + 1) % n;
  }
}

Tick Dispatcher::next_event() const {
  if (!next_ || stopped_) return kNever;
  if (clock_.now() < first_dispatch_) return clock_.tick_of(first_dispatch_);
  return any_sm_free() ? clock_.now_tick() : kNever;
}

}  // namespace ws::timing
