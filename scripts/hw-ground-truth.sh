#!/usr/bin/env bash
# Ground truth on a real GPU (docs/validation.md): builds the microbenchmarks
# and CUDA test programs natively with nvcc, runs the microbenchmarks
# (scripts/ubench-run.sh --native) and profiles each program with Nsight
# Compute, one CSV per program in the form `warpsim correlate --hw DIR` reads.
#   scripts/hw-ground-truth.sh OUT_DIR [program ...]   (programs: tests/cuda/NAME.cu, or a path
#   from the source root without .cu, e.g. examples/cuda/conv2d; profiles are named by the file's base name)
# Writes OUT_DIR/gpu.txt, OUT_DIR/ubench-results.txt, OUT_DIR/ncu/NAME.csv (+ .err), and
# OUT_DIR/native/NAME.txt: each program's own output run once without the profiler (the
# programs of examples/cuda/suite print `elapsed_us=`, launch gaps included).
# Where cuobjdump is found, OUT_DIR/sass/NAME.sass holds each binary's SASS (what ptxas made of it).
# Environment: NCU_FLAGS (extra ncu options, e.g. "--cache-control none --clock-control none
# --section WarpStateStats"), HW_SKIP_UBENCH=1 (profile only), HW_NATIVE_ONLY=1 (of the
# microbenchmarks, only ubench/native), HW_ARCH (nvcc -arch, default native),
# HW_NCU_TIMEOUT (seconds per program, default 120), HW_NCU_LAUNCHES (profile at most this many
# launches per program), HW_UBENCH="clocks atomics" (run only these microbenchmarks),
# HW_L2_SOURCES="hotspot srad" (profile these programs' first launches a second time with the L2's
# sectors by source unit, into OUT_DIR/ncu-l2-sources/; empty: skip).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${1:?usage: scripts/hw-ground-truth.sh OUT_DIR [program ...]}
shift
progs=("$@")
[[ ${#progs[@]} -gt 0 ]] || progs=(vector_add saxpy_grid_stride matmul_tiled reduce_shuffle stencil_3d
                                   histogram_atomics prefix_scan gemm_store_heavy divergence_loops constant_cache)
mkdir -p "$out/bin/ubench" "$out/bin/cuda" "$out/ncu"
arch=${HW_ARCH:-native}
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,driver_version --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu.txt" 2>&1
# Build everything at once: the machine has the cores.
for f in "$root"/ubench/*.cu; do
  nvcc -O2 -std=c++17 -arch="$arch" -o "$out/bin/ubench/$(basename "$f" .cu)" "$f" > "$out/bin/ubench/$(basename "$f" .cu).log" 2>&1 &
done
src_of() { if [[ $1 == */* ]]; then echo "$root/$1.cu"; else echo "$root/tests/cuda/$1.cu"; fi; }
for p in "${progs[@]}"; do
  b=$(basename "$p")
  nvcc -O2 -std=c++17 -arch="$arch" -I "$root/tests/cuda" -o "$out/bin/cuda/$b" "$(src_of "$p")" > "$out/bin/cuda/$b.log" 2>&1 &
done
for f in "$root"/ubench/native/*.cu; do  # native-only benchmarks (not run under warpsim)
  nvcc -O2 -std=c++17 -arch="$arch" -o "$out/bin/ubench/native_$(basename "$f" .cu)" "$f" > /dev/null 2>&1 &
done
wait
if command -v cuobjdump > /dev/null; then
  mkdir -p "$out/sass"
  for b in "$out"/bin/ubench/* "$out"/bin/cuda/*; do
    [[ -x $b && ! -d $b ]] && cuobjdump -sass -res-usage "$b" > "$out/sass/$(basename "$b").sass" 2>&1
  done
fi
if [[ -n ${HW_UBENCH:-} && -z ${HW_SKIP_UBENCH:-} ]]; then
  for name in $HW_UBENCH; do
    { echo "# $name (native)"; timeout 60 "$out/bin/ubench/$name" 2>&1; } >> "$out/ubench-results.txt"
  done
elif [[ -z ${HW_SKIP_UBENCH:-}${HW_NATIVE_ONLY:-} ]]; then UBENCH_DRAM_MB=${UBENCH_DRAM_MB:-1024} UBENCH_LAUNCHES=${UBENCH_LAUNCHES:-1000} \
  timeout 240 bash "$root/scripts/ubench-run.sh" --native --bin "$out/bin/ubench" --out "$out/ubench-results.txt" \
  > "$out/ubench-run.log" 2>&1
fi
[[ -n ${HW_SKIP_UBENCH:-}${HW_UBENCH:-} ]] || for b in "$out"/bin/ubench/native_*; do
  [[ -x $b ]] && timeout 60 "$b" >> "$out/ubench-native.txt" 2>&1
done
# The metrics the correlator maps (python/warpsim/data/metrics.toml).
metrics=$(grep -o '^ncu = "[^"]*"' "$root/python/warpsim/data/metrics.toml" | cut -d'"' -f2 | sort -u | paste -sd, -)
mkdir -p "$out/native"
for p in "${progs[@]}"; do
  p=$(basename "$p")
  [[ -x "$out/bin/cuda/$p" ]] && CUDA_MODULE_LOADING=EAGER timeout 60 "$out/bin/cuda/$p" > "$out/native/$p.txt" 2>&1
done
launches=()
[[ -z ${HW_NCU_LAUNCHES:-} ]] || launches=(--launch-count "$HW_NCU_LAUNCHES")
for p in "${progs[@]}"; do
  p=$(basename "$p")
  [[ -x "$out/bin/cuda/$p" ]] || { echo "not built: $p" >> "$out/ncu/missing.txt"; continue; }
  # shellcheck disable=SC2086
  timeout "${HW_NCU_TIMEOUT:-120}" ncu ${NCU_FLAGS:-} "${launches[@]}" --csv --page raw --metrics "$metrics" "$out/bin/cuda/$p" > "$out/ncu/$p.csv" \
    2> "$out/ncu/$p.err"
done
# Where the L2's extra write sectors come from (docs/validation-h100.md, "Time outside
# the SMs and L2 write sectors"): SM traffic against traffic between the two L2 partitions. A pass of its
# own, so a metric this ncu does not know costs only these files.
l2_metrics=lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
l2_metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_active.max
for p in ${HW_L2_SOURCES-hotspot srad}; do
  [[ -x "$out/bin/cuda/$p" ]] || continue
  mkdir -p "$out/ncu-l2-sources"
  # shellcheck disable=SC2086
  timeout "${HW_NCU_TIMEOUT:-120}" ncu ${NCU_FLAGS:-} --launch-count 3 --csv --page raw --metrics "$l2_metrics" \
    "$out/bin/cuda/$p" > "$out/ncu-l2-sources/$p.csv" 2> "$out/ncu-l2-sources/$p.err"
done
echo "done: $(ls "$out/ncu"/*.csv 2>/dev/null | wc -l) profiles, $(grep -c = "$out/ubench-results.txt" 2>/dev/null) ubench figures"
