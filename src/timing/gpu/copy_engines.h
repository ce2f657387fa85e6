// The GPU's copy engines: DMA units that move data between host memory and
// device memory over the host link (PCIe), beside the SMs. A copy whose
// stream turn has come occupies its direction's engine for the link latency
// plus its bytes at the link bandwidth; copies on one engine run one after
// another, copies on different engines (and kernels) overlap. Time only: a
// copy moves no requests through the crossbar or DRAM model (docs/exec.md,
// "Copy engines", says why); the GPU warms the L2 with a host-to-device
// copy's lines when it ends.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "common/types.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/engine/clocked.h"

namespace ws::timing {

enum class CopyDirection : uint8_t { HostToDevice, DeviceToHost };

// One host<->device copy as the timing model sees it.
struct CopyWork {
  CopyDirection dir = CopyDirection::HostToDevice;
  Addr device_addr = 0;  // its device side (a host-to-device copy's lines warm the L2)
  uint64_t bytes = 0;
  // The data movement itself (exec's functional copy), run when the copy
  // starts: by then everything it waits for in stream order has ended.
  std::function<void()> perform;
};

class CopyEngines : public Clocked {
 public:
  CopyEngines(const config::Config& cfg, stats::Scope scope, const ClockDomain& core);

  // Starts copy `id` at core cycle `now` (its stream turn) on the engine of
  // its direction, after what that engine already holds; returns its end.
  Cycle start(uint64_t id, CopyDirection dir, uint64_t bytes, Cycle now);
  // Core cycles one copy of `bytes` occupies its engine.
  Cycle duration(uint64_t bytes) const;
  // The engine a copy in direction `dir` uses (0 .. engines()-1).
  uint32_t engine_of(CopyDirection dir) const;
  uint32_t engines() const { return static_cast<uint32_t>(engines_.size()); }
  struct Ended {
    uint64_t id;
    Cycle at;
  };
  // Copies that have ended since the last call, in the order they ended.
  std::vector<Ended> take_ended();
  bool busy() const { return !in_flight_.empty(); }
  bool any_ended() const { return !ended_.empty(); }

  void tick() override;
  Tick next_event() const override;
  std::string waiting_for() const override;

 private:
  struct Engine {
    Cycle free_at = 0;
    stats::Counter *copies, *bytes, *busy_cycles, *queued_cycles;
  };
  const ClockDomain& clock_;
  double latency_ns_, gbps_, core_mhz_;
  std::vector<Engine> engines_;
  std::vector<Ended> in_flight_;  // by end cycle, then start order
  std::vector<Ended> ended_;
};

}  // namespace ws::timing
