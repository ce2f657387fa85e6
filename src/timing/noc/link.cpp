#include "timing/noc/link.h"

namespace ws::timing {
namespace {

using config::Param;
// 40 B flits (QV100 config): a read request is one flit, a 32 B reply one flit.
const Param<int64_t> kFlitBytes{"icnt.flit_bytes", 40, "bytes", "crossbar flit size", {1, 4096}};
const Param<int64_t> kHeaderBytes{"icnt.header_bytes", 8, "bytes", "header added to every message", {0, 4096}};

}  // namespace

FlitSize::FlitSize(const config::Config& cfg)
    : flit_bytes_(static_cast<uint32_t>(kFlitBytes.get(cfg))), header_bytes_(static_cast<uint32_t>(kHeaderBytes.get(cfg))) {}

}  // namespace ws::timing
