#include "timing/mem/sector_cache.h"

#include <algorithm>

namespace ws::timing {
namespace {

// Age stamps per way; LRU refreshes on hit, FIFO only on insert.
class StampPolicy : public ReplacementPolicy {
 public:
  explicit StampPolicy(bool refresh_on_hit) : refresh_on_hit_(refresh_on_hit) {}
  void init(uint32_t sets, uint32_t ways) override {
    ways_ = ways;
    stamps_.assign(size_t{sets} * ways, 0);
    clock_ = 0;
  }
  void on_insert(uint32_t set, uint32_t way) override { stamps_[size_t{set} * ways_ + way] = ++clock_; }
  void on_hit(uint32_t set, uint32_t way) override {
    if (refresh_on_hit_) stamps_[size_t{set} * ways_ + way] = ++clock_;
  }
  uint32_t victim(uint32_t set) const override {
    auto first = stamps_.begin() + ptrdiff_t(size_t{set} * ways_);
    return static_cast<uint32_t>(std::min_element(first, first + ways_) - first);
  }

 private:
  bool refresh_on_hit_;
  uint32_t ways_ = 0;
  uint64_t clock_ = 0;
  std::vector<uint64_t> stamps_;
};

const PluginRegistrar<ReplacementPolicy> kLruReg{
    "lru", "least recently used", [] { return std::make_unique<StampPolicy>(true); }};
const PluginRegistrar<ReplacementPolicy> kFifoReg{
    "fifo", "first in, first out", [] { return std::make_unique<StampPolicy>(false); }};

}  // namespace

SectorCache::SectorCache(const SectorCacheShape& shape) : shape_(shape) {
  repl_ = ReplacementRegistry::instance().create(shape_.param_prefix + ".replacement", shape_.replacement);
  resize(shape_.sets, shape_.ways);
}

void SectorCache::resize(uint32_t sets, uint32_t ways) {
  shape_.sets = sets;
  shape_.ways = ways;
  lines_.assign(size_t{sets} * ways, CacheLine{});
  where_.clear();
  where_.reserve(lines_.size());
  if (sets != 0) index_ = make_index_hash(shape_.param_prefix + ".set_index", shape_.set_index, sets);
  repl_->init(sets, ways);
}

uint32_t SectorCache::set_of(Addr line_addr) const {
  return index_->map(line_addr / kLineBytes / shape_.index_divisor);
}

uint32_t SectorCache::way_index(const CacheLine& line) const {
  return static_cast<uint32_t>(&line - lines_.data()) % shape_.ways;
}

CacheLine* SectorCache::find(Addr line_addr) {
  return const_cast<CacheLine*>(static_cast<const SectorCache*>(this)->find(line_addr));
}

const CacheLine* SectorCache::find(Addr line_addr) const {
  if (!enabled()) return nullptr;
  const uint32_t* at = where_.find(line_addr);
  return at ? &lines_[*at] : nullptr;
}

void SectorCache::touch(const CacheLine& line) {
  repl_->on_hit(set_of(line.line_addr), way_index(line));
}

CacheLine& SectorCache::insert(Addr line_addr, std::optional<CacheLine>* evicted) {
  uint32_t set = set_of(line_addr);
  CacheLine* ways = &lines_[size_t{set} * shape_.ways];
  uint32_t way = shape_.ways;
  for (uint32_t w = 0; w < shape_.ways && way == shape_.ways; ++w)
    if (!ways[w].present) way = w;
  if (way == shape_.ways) {
    way = repl_->victim(set);
    if (evicted) *evicted = ways[way];
    where_.erase(ways[way].line_addr);
  }
  ways[way] = CacheLine{};
  ways[way].line_addr = line_addr;
  ways[way].present = true;
  where_[line_addr] = static_cast<uint32_t>(size_t{set} * shape_.ways + way);
  repl_->on_insert(set, way);
  return ways[way];
}

void SectorCache::invalidate(Addr line_addr) {
  if (CacheLine* l = find(line_addr)) {
    *l = CacheLine{};
    where_.erase(line_addr);
  }
}

}  // namespace ws::timing
