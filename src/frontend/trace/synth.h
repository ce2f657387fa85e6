// Synthetic trace generator: small parameterised kernels (streaming copy,
// pointer chase, FFMA compute) written as trace folders via TraceWriter.
#pragma once
#include <cstdint>
#include <string>

namespace ws::frontend {

struct SynthSpec {
  std::string kind = "stream";  // "stream", "chase" or "compute"
  uint32_t ctas = 1;
  uint32_t threads_per_cta = 32;
  uint32_t iterations = 1;
  uint64_t footprint_bytes = uint64_t{1} << 20;  // per buffer (stream, chase)
  uint64_t stride_bytes = 128;                   // chase: distance between successive pointers
  uint32_t binary_version = 70;                  // header's version; >= 70 (sm_70 opcodes are emitted)
  uint32_t chains = 4;                           // compute: independent FFMA chains per iteration
};

// Writes kernelslist.g + kernel-1.traceg under `out_dir`. Throws InputError
// naming the offending field for an invalid spec.
void write_synthetic(const SynthSpec& spec, const std::string& out_dir);

// Warp instructions write_synthetic() emits for `spec` (over all warps).
uint64_t synth_instruction_count(const SynthSpec& spec);

// Device addresses of the synthetic buffers (source/chase buffer, destination).
inline constexpr uint64_t kSynthSrcBase = 0x00007f1000000000ull;
inline constexpr uint64_t kSynthDstBase = 0x00007f2000000000ull;

}  // namespace ws::frontend
