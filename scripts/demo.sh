#!/usr/bin/env bash
# `make demo`: a memory-bound and a compute-bound kernel on two GPUs (QV100
# and A100), to show what changes between them and why; then the CUDA
# examples through warpsim's runtime when nvcc is here.
set -euo pipefail
BUILD=${1:-build}
BIN="$BUILD/bin/warpsim"
OUT="$BUILD/demo"
PRESETS="qv100 a100"
rm -rf "$OUT"
mkdir -p "$OUT"

# Memory-bound: a grid-stride copy of one 16 MiB buffer into another (65,536
# threads, 64 floats each; every element read and written once). The trace's
# copy to the GPU leaves as much of the source in the L2 as fits: QV100's
# 6 MB L2 holds little of it, so the kernel streams from DRAM; A100's 40 MB
# L2 holds both buffers, so DRAM is idle and the L2 feeds the copy.
"$BIN" synth stream --out "$OUT/stream" --ctas 256 --threads 256 --iterations 64 \
  --footprint $((16 << 20)) >/dev/null
# Compute-bound: 8 independent FFMA chains per thread, no data traffic.
# 640 CTAs of 8 warps fill QV100's 80 SMs (64 warps each) in one wave and
# put 5-6 CTAs on each of A100's 108, so A100 could issue the FFMAs up to
# (64 / 1132 MHz) / (48 / 1410 MHz) = 1.66x as fast; its preset's register
# file reads one operand per bank per cycle (QV100's two), and the
# three-operand FFMAs lose cycles to bank conflicts there.
"$BIN" synth compute --out "$OUT/compute" --ctas 640 --threads 256 --iterations 64 --chains 8 >/dev/null

for w in stream compute; do
  for gpu in $PRESETS; do
    echo
    "$BIN" run "$OUT/$w" --gpu "$gpu" --out "$OUT/results-$w-$gpu" --no-progress
  done
done

# What changed between the GPUs, and the counters that say why.
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]


def facts(workload, gpu):
    s = json.load(open(f"{out}/results-{workload}-{gpu}/stats.json"))
    k = s["kernels"][0]
    l2 = k["l2"]
    conflicts = sum(v for name, v in s["counters"].items() if name.endswith(".regfile.bank_conflict_cycles"))
    return (k["cycles"] / s["gpu"]["core_mhz"], k["dram"]["reads"],
            100 * l2["read_hits"] / l2["reads"] if l2["reads"] else 0.0, conflicts)


print()
print("qv100 -> a100:")
for w in ("stream", "compute"):
    (t0, d0, h0, c0), (t1, d1, h1, c1) = facts(w, "qv100"), facts(w, "a100")
    print(f"{w:>9}: {t0:,.1f} -> {t1:,.1f} us ({t0 / t1:.2f}x as fast); DRAM read sectors {d0:,} -> {d1:,}; "
          f"L2 read hits {h0:.0f}% -> {h1:.0f}%; register-bank conflict cycles {c0:,} -> {c1:,}")
EOF

# Unmodified CUDA programs through warpsim's libcudart.so.13, when nvcc is
# here and the library could be built with the execution backend.
if command -v nvcc >/dev/null && [ -e "$BUILD/lib/libcudart.so.13" ] && [ -e src/exec/device.cpp ]; then
  for ex in vector_add matrix_mul; do
    nvcc -cudart shared -gencode arch=compute_80,code=compute_80 "examples/cuda/$ex.cu" -o "$OUT/$ex"
    echo
    echo "warpsim exec --gpu qv100 --timing -- $OUT/$ex"
    "$BIN" exec --gpu qv100 --timing --out "$OUT/results-cuda-$ex" -- "$OUT/$ex"
  done
else
  echo
  echo "(skipping the CUDA examples: they need nvcc and build/lib/libcudart.so.13)"
fi
echo
echo "stats: $OUT/results-*/stats.json (every counter; docs/stats.md), with the effective config.toml beside each"
