// Sectored tag array: 128 B lines of four 32 B sectors, sets x ways, with
// per-sector valid/dirty bits and a per-sector written-byte mask (the L2's
// write-validate state, the L1's local write-back). Replacement and set-index
// functions are plug-ins. Holds tags only; data values live in the
// functional model.
//
// A line is 16 bytes: the byte masks of partly written sectors live in a side
// array that only partial writes touch (a dirty sector without one was
// written whole), so the arrays a streaming kernel sweeps stay small.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/plugin.h"
#include "common/types.h"
#include "timing/mem/mem_request.h"
#include "timing/mem/index_hash.h"
#include "timing/mem/line_index.h"

namespace ws::timing {

inline constexpr uint32_t kSectorsPerLine = 4;
inline constexpr uint32_t kFullSectorMask = 0xFFFFFFFFu;

inline Addr line_of(Addr a) { return a & ~Addr{kLineBytes - 1}; }
inline uint32_t sector_in_line(Addr a) { return static_cast<uint32_t>((a / 32) % kSectorsPerLine); }

struct CacheLine {
  Addr line_addr = 0;
  bool present = false;
  uint8_t valid = 0;    // bit s: sector s readable (fetched, or fully written)
  uint8_t dirty = 0;    // bit s: sector s differs from the level below
  uint8_t partial = 0;  // bit s: sector s has a partial written-byte mask (SectorCache::written)
};

// A line as it was when evicted, with its written-byte masks spelled out.
struct EvictedLine : CacheLine {
  std::array<uint32_t, kSectorsPerLine> written{};  // bytes written since the sector was allocated
};

// How long an inserted line should stay: evict-first lines (streaming
// accesses, ld.cs) are the set's next victims.
enum class Retention : uint8_t { Normal, EvictFirst };

// Picks victims within one set; keeps whatever per-way state it needs.
class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  virtual void init(uint32_t sets, uint32_t ways) = 0;
  virtual void on_insert(uint32_t set, uint32_t way, Retention r) = 0;
  virtual void on_hit(uint32_t set, uint32_t way) = 0;
  virtual uint32_t victim(uint32_t set) const = 0;
};
using ReplacementRegistry = PluginRegistry<ReplacementPolicy>;

struct SectorCacheShape {
  uint32_t sets = 1;
  uint32_t ways = 1;                 // 0 disables the cache (every lookup misses)
  std::string replacement = "lru";   // ReplacementRegistry name
  std::string set_index = "linear";  // IndexHashRegistry name
  uint32_t index_divisor = 1;        // line number is divided by this before indexing (L2: slice count)
  std::string param_prefix = "cache";  // e.g. "l1d", for error messages
};

class SectorCache {
 public:
  explicit SectorCache(const SectorCacheShape& shape);

  // The line holding `line_addr`, or nullptr; does not update replacement.
  CacheLine* find(Addr line_addr);
  const CacheLine* find(Addr line_addr) const;
  // Host-cache hint for a lookup of `line_addr` expected soon.
  void prefetch(Addr line_addr) const { where_.prefetch(line_addr); }
  // Marks a line as just used (LRU update).
  void touch(const CacheLine& line);
  // Installs a line that is not present, evicting a victim if the set is full;
  // the victim's old state is written to `evicted`.
  CacheLine& insert(Addr line_addr, std::optional<EvictedLine>* evicted, Retention r = Retention::Normal);
  // Bytes of sector `s` written since it was allocated: a dirty sector with
  // no partial mask was written whole.
  uint32_t written(const CacheLine& line, uint32_t s) const {
    if (line.partial >> s & 1) return partial_[index_of(line)][s];
    return (line.dirty >> s & 1) ? kFullSectorMask : 0;
  }
  // Adds `bytes` to sector `s`'s written mask (the caller marks it dirty);
  // returns the new mask.
  uint32_t add_written(CacheLine& line, uint32_t s, uint32_t bytes);
  void invalidate(Addr line_addr);
  // New geometry; drops every line (done between kernels).
  void resize(uint32_t sets, uint32_t ways);

  bool enabled() const { return shape_.ways != 0 && shape_.sets != 0; }
  uint32_t sets() const { return shape_.sets; }
  uint32_t ways() const { return shape_.ways; }
  uint64_t capacity_bytes() const { return uint64_t{shape_.sets} * shape_.ways * kLineBytes; }
  uint32_t set_of(Addr line_addr) const;
  // The line's slot, 0 .. sets x ways - 1 (side arrays by slot: the abstract model's fill times).
  uint32_t index_of(const CacheLine& line) const { return static_cast<uint32_t>(&line - lines_.data()); }

 private:
  uint32_t free_way(uint32_t set) const;
  void set_present(uint32_t index, bool on);

  SectorCacheShape shape_;
  std::unique_ptr<ReplacementPolicy> repl_;
  std::unique_ptr<IndexHash> index_;
  std::vector<CacheLine> lines_;  // set-major: lines_[set * ways + way]
  std::vector<std::array<uint32_t, kSectorsPerLine>> partial_;  // by line index, where `partial` says
  // Bit per way of each set: the way holds a line (finds a free way in O(ways/64)).
  std::vector<uint64_t> present_;
  uint32_t words_per_set_ = 0;
  // line address -> index in lines_ of every present line: lookups stay O(1)
  // even for the 256-way L1.
  LineIndex where_;
};

}  // namespace ws::timing
