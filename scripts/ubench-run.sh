#!/usr/bin/env bash
# Runs every microbenchmark (build/ubench/*, `make ubench`) and writes their
# key=value lines into one results file, for docs/validation.md and
# `warpsim tune --measured`.
#   scripts/ubench-run.sh [--gpu PRESET] [--set K=V ...] [--native] [--warpsim BIN] [--bin DIR] [--out FILE]
#   --gpu P     simulate on preset P under `warpsim exec --timing` (default qv100)
#   --set K=V   a parameter override for the simulated runs (repeatable)
#   --native    run on the machine's real GPU instead (no warpsim)
#   --warpsim   the warpsim binary (default build/bin/warpsim)
#   --bin       folder of the benchmark programs (default build/ubench)
#   --out       results file (default ubench-results.txt)
# Sizes: each program reads UBENCH_<ARG> from the environment (see the
# `args:` line at the top of each ubench/*.cu); defaults are small so that a
# simulated run takes a few minutes. On a real GPU, larger sizes help, e.g.
#   UBENCH_DRAM_MB=1024 UBENCH_LAUNCHES=1000 scripts/ubench-run.sh --native
set -euo pipefail
gpu=qv100 native=0 warpsim=build/bin/warpsim bin=build/ubench out=ubench-results.txt
sets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --gpu) gpu=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --native) native=1; shift ;;
    --warpsim) warpsim=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "ubench-run.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
# Fixed order: latencies first, then geometry, units, bandwidths, the rest.
order=(mem_latency geometry icache units regbank clocks fence bandwidth divergent lsu_queue mio_queue copy mshr merge l1_persist store atomics placement launch tensor)
[[ -d $bin ]] || { echo "ubench-run.sh: no $bin: build the benchmarks with 'make ubench'" >&2; exit 2; }
if (( native )); then
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
  header="# gpu: ${name:-unknown} (native)"
else
  [[ -x $warpsim ]] || { echo "ubench-run.sh: no warpsim binary at $warpsim (--warpsim BIN)" >&2; exit 2; }
  header="# gpu: $gpu (warpsim exec --gpu $gpu --timing${sets[*]:+ ${sets[*]}})"
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "# warpsim microbenchmark results (ubench/, docs/validation.md)"
  echo "$header"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out"
for name in "${order[@]}"; do
  program=$bin/$name
  [[ -x $program ]] || { echo "# $name: not built" >> "$out"; continue; }
  start=$SECONDS
  if (( native )); then
    status=0; "$program" > "$tmp" 2>&1 || status=$?
  else
    status=0; "$warpsim" exec --gpu "$gpu" --timing "${sets[@]}" -- "$program" > "$tmp" 2>/dev/null || status=$?
  fi
  echo "# $name ($((SECONDS - start)) s host time)" >> "$out"
  grep -E '^(#|[a-z0-9_]+=)' "$tmp" >> "$out" || true
  (( status == 0 )) || echo "# $name: exit status $status" >> "$out"
  echo "ubench-run.sh: $name done (status $status)" >&2
done
echo "ubench-run.sh: wrote $out" >&2
