#include "timing/core/fixed_miss_tags.h"

namespace ws::timing {

FixedMissTags::FixedMissTags(const SectorCacheShape& shape, uint32_t miss_latency)
    : shape_(shape), miss_latency_(miss_latency), tags_(shape) {}

FixedMissTags::Result FixedMissTags::probe(Addr line, Cycle at) {
  if (Cycle* fill = in_flight_.find(line)) {
    if (*fill > at) return {Outcome::Merged, *fill};
    in_flight_.erase(line);  // filled meanwhile: install it, then it hits
    tags_.insert(line, nullptr);
  }
  if (CacheLine* l = tags_.find(line)) {
    tags_.touch(*l);
    return {Outcome::Hit, at};
  }
  return {Outcome::Miss, at};
}

FixedMissTags::Result FixedMissTags::lookup(Addr line, Cycle at) {
  Result r = probe(line, at);
  if (r.outcome != Outcome::Miss) return r;
  r.ready = at + miss_latency_;
  start_fill(line, r.ready);
  return r;
}

void FixedMissTags::flush() {
  tags_.resize(shape_.sets, shape_.ways);
  in_flight_.clear();
}

}  // namespace ws::timing
