#include "timing/mem/sector_cache.h"

#include <algorithm>
#include <bit>

namespace ws::timing {
namespace {

// A recency list per set (least recent at the head): LRU moves a way to the
// tail on insert and on hit, FIFO on insert only. The victim is the head, O(1)
// for the 256-way L1. Victims are only asked for in a full set, where every
// way has been inserted since init, so the list's starting order never shows.
class ListPolicy : public ReplacementPolicy {
 public:
  explicit ListPolicy(bool refresh_on_hit) : refresh_on_hit_(refresh_on_hit) {}
  void init(uint32_t sets, uint32_t ways) override {
    ways_ = ways;
    // Each set's list in way order, written directly (the L2's and 80 L1s'
    // lists are built at every GPU construction).
    links_.resize(size_t{sets} * ways);
    ends_.assign(sets, ways == 0 ? Ends{} : Ends{0, ways - 1});
    for (size_t set = 0; set < sets; ++set) {
      Link* l = links_.data() + set * ways;
      for (uint32_t w = 0; w < ways; ++w) l[w] = Link{w == 0 ? kNone : w - 1, w + 1 == ways ? kNone : w + 1};
    }
  }
  void on_insert(uint32_t set, uint32_t way, Retention r) override {
    if (r == Retention::EvictFirst) to_head(set, way);
    else to_tail(set, way);
  }
  void on_hit(uint32_t set, uint32_t way) override {
    if (refresh_on_hit_) to_tail(set, way);
  }
  uint32_t victim(uint32_t set) const override { return ends_[set].head; }

 private:
  static constexpr uint32_t kNone = ~0u;
  struct Link {
    uint32_t prev = kNone, next = kNone;
  };
  struct Ends {
    uint32_t head = kNone, tail = kNone;
  };
  Link& at(uint32_t set, uint32_t way) { return links_[size_t{set} * ways_ + way]; }
  void append(uint32_t set, uint32_t way) {
    Ends& e = ends_[set];
    at(set, way) = Link{e.tail, kNone};
    if (e.tail == kNone) e.head = way;
    else at(set, e.tail).next = way;
    e.tail = way;
  }
  void unlink(uint32_t set, uint32_t way) {
    Ends& e = ends_[set];
    Link l = at(set, way);
    if (l.prev == kNone) e.head = l.next;
    else at(set, l.prev).next = l.next;
    if (l.next == kNone) e.tail = l.prev;
    else at(set, l.next).prev = l.prev;
  }
  void to_tail(uint32_t set, uint32_t way) {
    if (ends_[set].tail == way) return;
    unlink(set, way);
    append(set, way);
  }
  // The next victim of its set.
  void to_head(uint32_t set, uint32_t way) {
    Ends& e = ends_[set];
    if (e.head == way) return;
    unlink(set, way);
    at(set, way) = Link{kNone, e.head};
    if (e.head == kNone) e.tail = way;
    else at(set, e.head).prev = way;
    e.head = way;
  }

  bool refresh_on_hit_;
  uint32_t ways_ = 0;
  std::vector<Link> links_;
  std::vector<Ends> ends_;
};

const PluginRegistrar<ReplacementPolicy> kLruReg{
    "lru", "least recently used", [] { return std::make_unique<ListPolicy>(true); }};
const PluginRegistrar<ReplacementPolicy> kFifoReg{
    "fifo", "first in, first out", [] { return std::make_unique<ListPolicy>(false); }};

}  // namespace

SectorCache::SectorCache(const SectorCacheShape& shape) : shape_(shape) {
  repl_ = ReplacementRegistry::instance().create(shape_.param_prefix + ".replacement", shape_.replacement);
  resize(shape_.sets, shape_.ways);
}

void SectorCache::resize(uint32_t sets, uint32_t ways) {
  shape_.sets = sets;
  shape_.ways = ways;
  lines_.assign(size_t{sets} * ways, CacheLine{});
  partial_.assign(lines_.size(), {});
  words_per_set_ = (ways + 63) / 64;
  present_.assign(size_t{sets} * words_per_set_, 0);
  where_.reset(lines_.size());
  if (sets != 0) index_ = make_index_hash(shape_.param_prefix + ".set_index", shape_.set_index, sets);
  repl_->init(sets, ways);
}

uint32_t SectorCache::set_of(Addr line_addr) const {
  return index_->map(line_addr / kLineBytes / shape_.index_divisor);
}

CacheLine* SectorCache::find(Addr line_addr) {
  return const_cast<CacheLine*>(static_cast<const SectorCache*>(this)->find(line_addr));
}

const CacheLine* SectorCache::find(Addr line_addr) const {
  if (!enabled()) return nullptr;
  uint32_t at = where_.find(line_addr, [this](uint32_t i) { return lines_[i].line_addr; });
  return at == LineIndex::kAbsent ? nullptr : &lines_[at];
}

void SectorCache::touch(const CacheLine& line) {
  auto at = static_cast<uint32_t>(&line - lines_.data());
  repl_->on_hit(at / shape_.ways, at % shape_.ways);
}

// The lowest-numbered way not holding a line, or `ways` when the set is full.
uint32_t SectorCache::free_way(uint32_t set) const {
  const uint64_t* words = &present_[size_t{set} * words_per_set_];
  for (uint32_t i = 0; i < words_per_set_; ++i) {
    if (~words[i] == 0) continue;
    uint32_t way = i * 64 + static_cast<uint32_t>(std::countr_one(words[i]));
    return std::min(way, shape_.ways);
  }
  return shape_.ways;
}

void SectorCache::set_present(uint32_t index, bool on) {
  uint32_t set = index / shape_.ways, way = index % shape_.ways;
  uint64_t& word = present_[size_t{set} * words_per_set_ + way / 64];
  uint64_t bit = uint64_t{1} << (way % 64);
  word = on ? word | bit : word & ~bit;
}

uint32_t SectorCache::add_written(CacheLine& line, uint32_t s, uint32_t bytes) {
  uint32_t mask = written(line, s) | bytes;
  auto bit = static_cast<uint8_t>(1u << s);
  if (mask == kFullSectorMask) {
    line.partial &= static_cast<uint8_t>(~bit);
  } else {
    partial_[index_of(line)][s] = mask;
    line.partial |= bit;
  }
  return mask;
}

CacheLine& SectorCache::insert(Addr line_addr, std::optional<EvictedLine>* evicted, Retention r) {
  uint32_t set = set_of(line_addr);
  CacheLine* ways = &lines_[size_t{set} * shape_.ways];
  uint32_t way = free_way(set);
  bool full = way == shape_.ways;
  if (full) way = repl_->victim(set);
  auto index = static_cast<uint32_t>(size_t{set} * shape_.ways + way);
  if (full) {
    const CacheLine& old = ways[way];
    if (evicted) {
      EvictedLine e;
      static_cast<CacheLine&>(e) = old;
      for (uint32_t s = 0; s < kSectorsPerLine; ++s) e.written[s] = written(old, s);
      *evicted = e;
    }
    where_.erase(old.line_addr, index);
  }
  ways[way] = CacheLine{};
  ways[way].line_addr = line_addr;
  ways[way].present = true;
  where_.insert(line_addr, index);
  set_present(index, true);
  repl_->on_insert(set, way, r);
  return ways[way];
}

void SectorCache::invalidate(Addr line_addr) {
  if (CacheLine* l = find(line_addr)) {
    uint32_t index = index_of(*l);
    set_present(index, false);
    *l = CacheLine{};
    where_.erase(line_addr, index);
  }
}

}  // namespace ws::timing
