#include "timing/noc/crossbar.h"

#include <fmt/format.h>

#include "common/error.h"

namespace ws::timing {
namespace {

using config::Param;
// 25 each way on top of the 160-cycle L2 pipeline (and two port hand-offs) make
// the 212-cycle QV100 L2 hit round trip; MemSystem test measures it.
const Param<int64_t> kLatency{"icnt.latency", 25, "cycles", "crossbar traversal latency of a one-flit message",
                              {1, 100000}};
const Param<int64_t> kInputBuffer{"icnt.input_buffer", 8, "messages", "crossbar input buffer depth", {1, 65536}};
const Param<std::string> kArbiter{"icnt.arbiter", "voq", "",
                                  "input buffering: fifo (only the oldest message of an input may go: head-of-line "
                                  "blocking) or voq (virtual output queues: the oldest message for any free output)"};

Crossbar::Arbiter arbiter_of(const config::Config& cfg) {
  std::string name = kArbiter.get(cfg);
  if (name == "fifo") return Crossbar::Arbiter::Fifo;
  if (name == "voq") return Crossbar::Arbiter::Voq;
  throw ConfigError(kArbiter.name(), "unknown choice '" + name + "' (known: fifo, voq)");
}

}  // namespace

Crossbar::Crossbar(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint32_t inputs,
                   uint32_t outputs, Router route)
    : clk_(clk),
      route_(std::move(route)),
      flits_(cfg),
      latency_(static_cast<uint32_t>(kLatency.get(cfg))),
      arbiter_(arbiter_of(cfg)),
      outputs_(outputs, nullptr),
      in_free_(inputs, 0),
      out_free_(outputs, 0),
      rr_(outputs, 0),
      taken_(outputs, ~Cycle{0}),
      requests_(outputs),
      flit_count_(scope.counter("flits", "flits moved through the crossbar")),
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

void Crossbar::move_latency_to_inputs(uint32_t cycles) {
  if (cycles >= latency_)
    throw ConfigError("icnt.input_latency", "must be below icnt.latency (" + std::to_string(latency_) + ")");
  latency_ -= cycles;
}

void Crossbar::tick() {
  if (arbiter_ == Arbiter::Voq) {
    tick_voq();
    return;
  }
  Cycle now = clk_.now();
  Tick now_tick = clk_.now_tick();
  for_each_nonempty([&](uint32_t i) {
    if (in_free_[i] > now || !inputs_[i]->ready(now_tick)) return;
    uint32_t out = route_at(i, 0);
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

// A message's route is computed once and kept with it in the input buffer.
uint32_t Crossbar::route_at(uint32_t in, size_t k) {
  Port<MemRequest>& src = *inputs_[in];
  uint32_t out = src.note_of(k);
  if (out == Port<MemRequest>::kNoNote) {
    out = route_of(src.peek(k));
    src.set_note(k, out);
  }
  return out;
}

// Virtual output queues: an input's buffer holds one queue per output, so
// a message waiting for a busy slice does not hold back the ones behind it
// that go elsewhere. Modelled as look-ahead into the input buffer: each
// input sends its oldest arrived message whose output is free this cycle,
// so messages from one input to one output keep their order. Inputs are
// served in a rotating order (one grant per output per cycle). The look-ahead
// reaches the buffer's depth (icnt.input_buffer) and no further.
void Crossbar::tick_voq() {
  Cycle now = clk_.now();
  Tick now_tick = clk_.now_tick();
  stalled_ = false;
  auto n = static_cast<uint32_t>(inputs_.size());
  auto serve = [&](uint32_t i) {
    if (in_free_[i] > now) return;
    Port<MemRequest>& src = *inputs_[i];
    // Only the buffer's depth is looked into: a remote input (docs/parallel.md)
    // may hold more arrived messages than that, which wait on the wire.
    size_t depth = std::min(src.size(), src.capacity());
    for (size_t k = 0; k < depth && src.ready_of(k) <= now_tick; ++k) {
      uint32_t out = route_at(i, k);
      if (out_free_[out] > now || taken_[out] == now) continue;
      if (!outputs_[out]->can_push(now_tick)) {
        stalled_ = true;
        taken_[out] = now;  // keeps later messages of this input for `out` behind this one
        continue;
      }
      send(i, k, out);
      return;
    }
  };
  // Rotating priority, from the cycle number (not from a count of ticks:
  // the engine skips ticks with nothing to do, and that must not change who
  // goes first).
  auto first = static_cast<uint32_t>(now % n);
  for_each_nonempty([&](uint32_t i) {
    if (i >= first) serve(i);
  });
  for_each_nonempty([&](uint32_t i) {
    if (i < first) serve(i);
  });
  if (stalled_) stall_cycles_.inc();
}

uint32_t Crossbar::route_of(const MemRequest& m) const {
  uint32_t out = route_(m);
  if (out >= outputs_.size() || !outputs_[out])
    throw Error("crossbar: message routed to unconnected output " + std::to_string(out));
  return out;
}

bool Crossbar::grant(uint32_t in, uint32_t out) {
  if (!outputs_[out]->can_push(clk_.now_tick())) return false;
  send(in, 0, out);
  rr_[out] = in + 1 == inputs_.size() ? 0 : in + 1;
  return true;
}

// Moves the k-th message of input `in` to output `out` (which has room).
void Crossbar::send(uint32_t in, size_t k, uint32_t out) {
  Port<MemRequest>& src = *inputs_[in];
  uint32_t flits = flits_.flits_of(src.peek(k));
  Cycle now = clk_.now();
  outputs_[out]->push(src.peek(k), clk_.tick_of(now + latency_ + flits - 1));
  src.erase(k);
  if (src.empty()) nonempty_[in / 64] &= ~(uint64_t{1} << (in % 64));
  taken_[out] = now;
  in_free_[in] = out_free_[out] = now + flits;
  flit_count_.inc(flits);
  packets_.inc();
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
