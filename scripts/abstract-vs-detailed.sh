#!/usr/bin/env bash
# The abstract timing model against the detailed one (docs/abstract-model.md):
# runs each workload through both on one preset and prints a markdown table of
# total kernel cycles, the abstract model's error, L1/L2 hit rates, host
# seconds and the speedup, then the mean and largest absolute error.
#
# Usage: scripts/abstract-vs-detailed.sh [BUILD_DIR]
#   GPU=qv100          preset
#   CUDA_BIN=DIR       compiled tests/cuda programs (default BUILD_DIR/cuda); missing ones are skipped
#   QUICK=1            the synthetic workloads only
#   ABSTRACT_SET="k=v ..."  extra --set for the abstract runs (e.g. abstract.block_max=1: one event per instruction)
# The abstract runs share one block cache in a fresh folder: the first run of
# each block's code characterises it (its cost is in that run's seconds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
ws="$build/bin/warpsim"
gpu=${GPU:-qv100}
cuda_bin=${CUDA_BIN:-$build/cuda}
work=$(mktemp -d "${TMPDIR:-/tmp}/warpsim-avd.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name, then how to run it: "trace DIR" or "exec PROGRAM ARGS..."
workloads=()
synth() {  # name kind args...
  local name=$1 kind=$2
  shift 2
  "$ws" synth "$kind" --out "$work/$name" "$@" >/dev/null
  workloads+=("$name|trace $work/$name")
}
synth stream-small stream --ctas 80 --threads 256 --iterations 8 --footprint $((80 * 256 * 8 * 4))
synth stream stream --ctas 640 --threads 256 --iterations 16 --footprint $((640 * 256 * 16 * 4))
synth stream-l2 stream --ctas 320 --threads 256 --iterations 4 --footprint $((1 << 20))
synth chase chase --ctas 1 --threads 32 --iterations 200 --footprint $((1 << 24)) --stride 4096
synth chase-l2 chase --ctas 1 --threads 32 --iterations 200 --footprint $((1 << 20)) --stride 256
synth chase-many chase --ctas 160 --threads 64 --iterations 50 --footprint $((1 << 26)) --stride 4160
synth compute compute --ctas 320 --threads 256 --iterations 24 --chains 4
synth compute-1chain compute --ctas 80 --threads 128 --iterations 64 --chains 1
synth compute-8chains compute --ctas 640 --threads 256 --iterations 16 --chains 8
if [[ -z ${QUICK:-} ]]; then
  for t in "$root"/examples/traces/*/; do
    workloads+=("$(basename "$t")|trace $t")
  done
  for p in vector_add saxpy_grid_stride matmul_tiled reduce_shuffle prefix_scan histogram_atomics stencil_3d \
           gemm_store_heavy divergence_loops double_precision dynamic_shared many_launches; do
    [[ -x $cuda_bin/$p ]] && workloads+=("$p (exec)|exec $cuda_bin/$p")
  done
fi

run_one() {  # model spec out
  local model=$1 spec=$2 out=$3 sets=()
  read -r how target rest <<<"$spec"
  if [[ $model == abstract ]]; then
    sets=(--set "abstract.block_cache=$work/blocks")
    for kv in ${ABSTRACT_SET:-}; do sets+=(--set "$kv"); done
  fi
  if [[ $how == trace ]]; then
    "$ws" run "$target" --gpu "$gpu" --model "$model" "${sets[@]}" --out "$out" --format none --no-progress
  else
    # shellcheck disable=SC2086
    "$ws" exec --gpu "$gpu" --timing --model "$model" "${sets[@]}" --out "$out" -- "$target" $rest >/dev/null
  fi
}

echo "| workload | kernels | detailed cycles | abstract cycles | error | L1 hit det/abs (%) | L2 hit det/abs (%) | detailed s | abstract s | speedup |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for w in "${workloads[@]}"; do
  name=${w%%|*}
  spec=${w#*|}
  ok=1
  for m in detailed abstract; do
    run_one "$m" "$spec" "$work/out-$m" >"$work/log-$m" 2>&1 || ok=0
  done
  if [[ $ok == 0 ]]; then
    echo "| $name | failed: $(tail -1 "$work/log-detailed" "$work/log-abstract" | tr '\n|' '  ' | cut -c1-120) |"
    continue
  fi
  python3 - "$name" "$work/out-detailed/stats.json" "$work/out-abstract/stats.json" <<'EOF' | tee -a "$work/rows"
import json, sys
name, det, ab = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def tot(j, key):
    return sum(k[key] for k in j["kernels"])
def hit(j, level):
    acc = sum(k[level]["accesses"] for k in j["kernels"])
    return 100.0 * sum(k[level]["hits"] for k in j["kernels"]) / acc if acc else float("nan")
cd, ca = tot(det, "cycles"), tot(ab, "cycles")
err = (ca - cd) / cd if cd else 0.0
sd, sa = det["sim"]["wall_seconds"], ab["sim"]["wall_seconds"]
print(f"| {name} | {len(det['kernels'])} | {cd} | {ca} | {100 * err:+.1f}% | {hit(det, 'l1d'):.1f} / {hit(ab, 'l1d'):.1f} "
      f"| {hit(det, 'l2'):.1f} / {hit(ab, 'l2'):.1f} | {sd:.3f} | {sa:.3f} | {sd / sa if sa > 0 else 0:.1f}x |")
EOF
done
python3 - "$work/rows" <<'EOF'
import sys
errs = []
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    errs.append(abs(float(cells[4].rstrip("%"))))
if errs:
    print(f"\n{len(errs)} workloads: mean |error| {sum(errs) / len(errs):.1f}%, max |error| {max(errs):.1f}%")
EOF
