#include "timing/noc/crossbar.h"

#include <fmt/format.h>

#include "common/error.h"

namespace ws::timing {
namespace {

using config::Param;
// 40 B flits (QV100 config): a read request is one flit, a 32 B reply one flit.
const Param<int64_t> kFlitBytes{"icnt.flit_bytes", 40, "bytes", "crossbar flit size", {1, 4096}};
const Param<int64_t> kHeaderBytes{"icnt.header_bytes", 8, "bytes", "header added to every message", {0, 4096}};
// 25 each way on top of the 160-cycle L2 pipeline (and two port hand-offs) make
// the 212-cycle QV100 L2 hit round trip; MemSystem test measures it.
const Param<int64_t> kLatency{"icnt.latency", 25, "cycles", "crossbar traversal latency of a one-flit message",
                              {1, 100000}};
const Param<int64_t> kInputBuffer{"icnt.input_buffer", 8, "messages", "crossbar input buffer depth", {1, 65536}};

}  // namespace

Crossbar::Crossbar(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint32_t inputs,
                   uint32_t outputs, Router route)
    : clk_(clk),
      route_(std::move(route)),
      flit_bytes_(static_cast<uint32_t>(kFlitBytes.get(cfg))),
      header_bytes_(static_cast<uint32_t>(kHeaderBytes.get(cfg))),
      latency_(static_cast<uint32_t>(kLatency.get(cfg))),
      outputs_(outputs, nullptr),
      in_free_(inputs, 0),
      out_free_(outputs, 0),
      rr_(outputs, 0),
      head_out_(inputs, kNoRoute),
      requests_(outputs),
      flits_(scope.counter("flits", "flits moved through the crossbar")),
      packets_(scope.counter("packets", "messages moved through the crossbar")),
      stall_cycles_(scope.counter("stall_cycles", "cycles some message waited for a full output port")) {
  auto depth = static_cast<size_t>(kInputBuffer.get(cfg));
  nonempty_.assign((inputs + 63) / 64, 0);
  for (uint32_t i = 0; i < inputs; ++i) {
    inputs_.push_back(std::make_unique<Port<MemRequest>>(depth));
    inputs_.back()->notify_on_push(&nonempty_[i / 64], uint64_t{1} << (i % 64));
    inputs_.back()->wire_consumer(this);
  }
  track_events();
}

uint32_t Crossbar::flits_of(const MemRequest& m) const {
  return (header_bytes_ + m.payload_bytes() + flit_bytes_ - 1) / flit_bytes_;
}

void Crossbar::tick() {
  Cycle now = clk_.now();
  Tick now_tick = clk_.now_tick();
  for_each_nonempty([&](uint32_t i) {
    if (in_free_[i] > now || !inputs_[i]->ready(now_tick)) return;
    uint32_t out = head_route(i);
    if (out_free_[out] > now) return;
    if (requests_[out].empty()) asked_.push_back(out);
    requests_[out].push_back(i);  // inputs in ascending order
  });
  // Each input asks one output, so grants at different outputs touch disjoint
  // state and the order outputs are visited in does not matter.
  stalled_ = false;
  for (uint32_t j : asked_) {
    std::vector<uint32_t>& req = requests_[j];
    // Round robin: the first requester at or after the favoured input.
    uint32_t pick = req.front();
    for (uint32_t i : req)
      if (i >= rr_[j]) {
        pick = i;
        break;
      }
    if (!grant(pick, j)) stalled_ = true;
    req.clear();
  }
  asked_.clear();
  if (stalled_) stall_cycles_.inc();
}

// The head of an input only changes when it is granted, so its route is
// computed once per message.
uint32_t Crossbar::head_route(uint32_t in) {
  if (head_out_[in] != kNoRoute) return head_out_[in];
  uint32_t out = route_(inputs_[in]->front());
  if (out >= outputs_.size() || !outputs_[out])
    throw Error("crossbar: message routed to unconnected output " + std::to_string(out));
  head_out_[in] = out;
  return out;
}

bool Crossbar::grant(uint32_t in, uint32_t out) {
  if (!outputs_[out]->can_push(clk_.now_tick())) return false;
  Port<MemRequest>& src = *inputs_[in];
  uint32_t flits = flits_of(src.front());
  Cycle now = clk_.now();
  outputs_[out]->push(src.front(), clk_.tick_of(now + latency_ + flits - 1));
  src.pop();
  if (src.empty()) nonempty_[in / 64] &= ~(uint64_t{1} << (in % 64));
  head_out_[in] = kNoRoute;
  in_free_[in] = out_free_[out] = now + flits;
  rr_[out] = in + 1 == inputs_.size() ? 0 : in + 1;
  flits_.inc(flits);
  packets_.inc();
  return true;
}

Tick Crossbar::next_event() const {
  // Back-pressure is polled: a downstream port frees without telling us.
  if (stalled_) return clk_.now_tick();
  Tick t = kNever;
  for_each_nonempty([&](uint32_t i) { t = std::min(t, std::max(inputs_[i]->next_ready(), clk_.tick_of(in_free_[i]))); });
  return t;
}

// Messages still in the input buffers, and whether the head of one waits
// for a full output port.
std::string Crossbar::waiting_for() const {
  size_t held = 0, inputs = 0;
  for_each_nonempty([&](uint32_t i) {
    held += inputs_[i]->size();
    ++inputs;
  });
  if (held == 0) return {};
  return fmt::format("{} messages in {} input buffers{}", held, inputs,
                     stalled_ ? "; some wait for a full output port" : "");
}

}  // namespace ws::timing
