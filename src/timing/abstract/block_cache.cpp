// The block table's file: a header (magic, format, configuration hash, entry
// count), the entries, and a checksum of everything before it. Nothing read
// back is trusted: a wrong header, a bad checksum, a length or value out of
// range drops the whole file (its entries are characterised again).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "timing/abstract/block_table.h"

namespace ws::timing::abstract {

namespace {

constexpr uint32_t kMaxList = 4096;                 // no stored list is longer

uint64_t checksum(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

class Writer {
 public:
  template <class T>
  void put(T v) {
    auto* p = reinterpret_cast<const unsigned char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
  }
  std::vector<unsigned char> bytes;
};

class Reader {
 public:
  Reader(const unsigned char* p, size_t n) : p_(p), end_(p + n) {}
  template <class T>
  bool get(T& v) {
    if (static_cast<size_t>(end_ - p_) < sizeof v) return false;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return true;
  }
  bool at_end() const { return p_ == end_; }

 private:
  const unsigned char* p_;
  const unsigned char* end_;
};

void put_entry(Writer& w, uint64_t key, const BlockTiming& b) {
  w.put(key);
  w.put(b.size());
  for (uint32_t t : b.issue) w.put(t);
  for (const auto* list : {&b.needs, &b.writes}) {
    w.put(static_cast<uint32_t>(list->size()));
    for (const RegAt& r : *list) w.put(uint32_t{r.reg}), w.put(r.at);
  }
  w.put(static_cast<uint32_t>(b.demand.size()));
  for (const UnitDemand& d : b.demand) w.put(d.kind), w.put(d.busy);
  w.put(b.collect);
}

bool get_regs(Reader& r, std::vector<RegAt>& out) {
  uint32_t n;
  if (!r.get(n) || n > kMaxList) return false;
  out.resize(n);
  for (RegAt& x : out) {
    uint32_t reg;
    if (!r.get(reg) || !r.get(x.at) || reg > 0xffff) return false;
    x.reg = static_cast<uint16_t>(reg);
  }
  return true;
}

// One entry, checked: issue offsets in order, unit kinds in the table.
bool get_entry(Reader& r, size_t n_units, uint64_t& key, BlockTiming& b) {
  uint32_t n;
  if (!r.get(key) || !r.get(n) || n == 0 || n > kMaxList) return false;
  b.issue.resize(n);
  for (uint32_t i = 0; i < n; ++i)
    if (!r.get(b.issue[i]) || (i > 0 && b.issue[i] <= b.issue[i - 1])) return false;
  if (!get_regs(r, b.needs) || !get_regs(r, b.writes)) return false;
  uint32_t nd;
  if (!r.get(nd) || nd > n_units) return false;
  b.demand.resize(nd);
  for (UnitDemand& d : b.demand)
    if (!r.get(d.kind) || !r.get(d.busy) || d.kind >= n_units) return false;
  return r.get(b.collect);
}

}  // namespace

BlockTable::Load BlockTable::load() {
  if (file_.empty()) return Load::Off;
  std::ifstream in(file_, std::ios::binary);
  if (!in) return Load::Missing;
  std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof(uint64_t)) return Load::Rejected;
  size_t body = data.size() - sizeof(uint64_t);
  uint64_t sum;
  std::memcpy(&sum, data.data() + body, sizeof sum);
  if (sum != checksum(data.data(), body)) return Load::Rejected;
  Reader r(data.data(), body);
  uint64_t magic, hash, count;
  uint32_t format;
  if (!r.get(magic) || !r.get(format) || !r.get(hash) || !r.get(count) || magic != kBlockFileMagic || format != kBlockFormat ||
      hash != params_hash_)
    return Load::Rejected;
  std::unordered_map<uint64_t, BlockTiming> got;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t key;
    BlockTiming b;
    if (!get_entry(r, params_.units.size(), key, b)) return Load::Rejected;
    got.insert_or_assign(key, std::move(b));
  }
  if (!r.at_end()) return Load::Rejected;
  counts_.loaded = got.size();
  entries_ = std::move(got);
  return Load::Loaded;
}

void BlockTable::save() {
  if (file_.empty() || !dirty_) return;
  dirty_ = false;
  Writer w;
  w.put(kBlockFileMagic);
  w.put(kBlockFormat);
  w.put(params_hash_);
  w.put(static_cast<uint64_t>(entries_.size()));
  // Key order: the same entries give the same file.
  std::vector<uint64_t> keys;
  for (const auto& [key, b] : entries_) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (uint64_t key : keys) put_entry(w, key, entries_.at(key));
  w.put(checksum(w.bytes.data(), w.bytes.size()));
  std::error_code ec;
  std::filesystem::path path(file_);
  std::filesystem::create_directories(path.parent_path(), ec);
  std::string tmp = file_ + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;  // an unwritable cache only costs the next run a characterisation
    out.write(reinterpret_cast<const char*>(w.bytes.data()), static_cast<std::streamsize>(w.bytes.size()));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace ws::timing::abstract
