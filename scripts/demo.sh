#!/usr/bin/env bash
# `make demo`: synthesise the sample workloads, simulate them and the bundled
# real NVBit traces on the QV100 preset, and print a summary table for each.
set -euo pipefail
BUILD=${1:-build}
BIN="$BUILD/bin/warpsim"
OUT="$BUILD/demo"
mkdir -p "$OUT"
"$BIN" synth stream  --out "$OUT/stream"  --ctas 160 --threads 256 --iterations 8 --footprint $((160*256*8*4)) >/dev/null
"$BIN" synth chase   --out "$OUT/chase"   --ctas 1 --threads 32 --iterations 512 --footprint 16384 --stride 128 >/dev/null
"$BIN" synth compute --out "$OUT/compute" --ctas 160 --threads 256 --iterations 16 >/dev/null
for w in examples/traces/vectoradd-100-32-trace examples/traces/matrixmul-32-32-trace \
         "$OUT/stream" "$OUT/chase" "$OUT/compute"; do
  name=$(basename "$w")
  echo
  "$BIN" run "$w" --gpu qv100 --out "$OUT/results-$name"
done
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
echo "results (stats.json, config.toml) are under $OUT/results-*"
