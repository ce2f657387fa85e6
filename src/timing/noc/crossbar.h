// Crossbar between SMs and L2 slices (interconnect clock). One instance carries
// requests (scope "icnt.req"), another replies ("icnt.reply").
//
// Input-queued. With `icnt.arbiter = fifo` every input offers only its head
// message (head-of-line blocking), so each input requests exactly one output
// and a per-output round-robin grant is what one iSLIP iteration reduces to
// (no accept stage conflicts). With `voq` an input's buffer acts as virtual
// output queues: a message for a busy output does not block the ones behind
// it (see tick_voq). A message of F flits holds its input and its output for F
// cycles and is delivered latency + F - 1 cycles after its grant. An output
// is granted only if its downstream port has room (the message takes its slot
// at grant time), so back-pressure stalls the crossbar instead of overflowing.
#pragma once
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "config/config.h"
#include "stats/stats.h"
#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/mem_request.h"
#include "timing/noc/link.h"

namespace ws::timing {

class Crossbar : public Clocked {
 public:
  using Router = std::function<uint32_t(const MemRequest&)>;  // message -> output index
  enum class Arbiter { Fifo, Voq };

  Crossbar(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint32_t inputs, uint32_t outputs,
           Router route);

  Port<MemRequest>& input(uint32_t i) { return *inputs_[i]; }
  void connect_output(uint32_t j, Port<MemRequest>* out) { outputs_[j] = out; }
  uint32_t flits_of(const MemRequest& m) const { return flits_.flits_of(m); }
  // `cycles` of the traversal latency are spent on the wires into the
  // inputs instead (the senders' ports delay their messages): the end-to-end
  // latency of a message that finds its output free is unchanged.
  void move_latency_to_inputs(uint32_t cycles);

  void tick() override;
  Tick next_event() const override;
  std::string waiting_for() const override;
  uint64_t packets() const { return packets_.value(); }

 private:
  bool grant(uint32_t in, uint32_t out);
  void send(uint32_t in, size_t k, uint32_t out);
  void tick_voq();
  uint32_t route_of(const MemRequest& m) const;
  uint32_t route_at(uint32_t in, size_t k);
  // Calls f(i) for each non-empty input, in ascending order.
  template <class F>
  void for_each_nonempty(F&& f) const {
    for (size_t w = 0; w < nonempty_.size(); ++w)
      for (uint64_t m = nonempty_[w]; m; m &= m - 1) f(static_cast<uint32_t>(w * 64 + std::countr_zero(m)));
  }

  const ClockDomain& clk_;
  Router route_;
  FlitSize flits_;
  uint32_t latency_;
  Arbiter arbiter_;
  std::vector<std::unique_ptr<Port<MemRequest>>> inputs_;
  std::vector<uint64_t> nonempty_;  // bit i: input i holds a message (set by its port on push)
  std::vector<Port<MemRequest>*> outputs_;
  std::vector<Cycle> in_free_, out_free_;  // first cycle a new message may start
  std::vector<uint32_t> rr_;               // per output: input favoured next
  std::vector<Cycle> taken_;               // per output: last cycle it was granted or found full
  std::vector<std::vector<uint32_t>> requests_;  // per output, inputs asking this cycle (scratch)
  std::vector<uint32_t> asked_;                  // outputs with requests this cycle (scratch)
  bool stalled_ = false;

  stats::Counter &flit_count_, &packets_, &stall_cycles_;
};

}  // namespace ws::timing
