// Index functions that spread line numbers over a power-of-two (or, for
// `linear`, any) number of buckets: cache sets or L2 slices. Plug-ins chosen by
// name (`linear`, `xor`, `ipoly`) in config.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "common/plugin.h"

namespace ws::timing {

class IndexHash {
 public:
  virtual ~IndexHash() = default;
  // Bucket in [0, buckets) for a line (or block) number.
  virtual uint32_t map(uint64_t block) const = 0;
};

// Factories take the bucket count; xor requires a power of two (ipoly has a
// rotated form for other counts).
using IndexHashRegistry = PluginRegistry<IndexHash, uint32_t>;

// `param` names the config parameter that chose `name`, for error messages.
std::unique_ptr<IndexHash> make_index_hash(const std::string& param, const std::string& name, uint32_t buckets);

bool is_pow2(uint64_t v);
uint32_t log2_exact(uint64_t v);

}  // namespace ws::timing
