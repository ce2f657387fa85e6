#!/usr/bin/env bash
# Simulates the programs profiled on a real H100 (examples/hw/h100-2026-11-26)
# on the `h100` preset and correlates them with the warm-cache profile
# (docs/validation-h100.md). Nsight Compute replays each kernel once per
# group of metrics, so the passes it reports find the kernel's code in the
# SMs' instruction caches: the runs set l1i.warm_start=true (a later
# `--set l1i.warm_start=false` simulates each launch as a program's own run).
#   scripts/h100-correlate.sh RUNS_DIR [--set key=value ...]
# Env: BUILD (default build-dev): its bin/warpsim, cuda/, examples/{cuda,suite,sampling}/
# programs; HW (default the ncu-warm-boost folder). Prints the correlator's
# summary; RUNS_DIR/NAME holds each program's stats.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-dev}
hw=${HW:-$root/examples/hw/h100-2026-11-26/ncu-warm-boost}
runs=${1:?usage: $0 RUNS_DIR [--set key=value ...]}
shift
mkdir -p "$runs"
for csv in "$hw"/*.csv; do
  name=$(basename "$csv" .csv)
  case $name in launch-cache-*) continue ;; esac
  prog=$build/cuda/$name
  [[ -x $prog ]] || prog=$build/examples/cuda/$name
  [[ -x $prog ]] || prog=$build/examples/suite/$name
  [[ -x $prog ]] || prog=$build/examples/sampling/$name
  if [[ ! -x $prog ]]; then echo "h100-correlate: no program $name under $build" >&2; continue; fi
  [[ -f $runs/$name/stats.json ]] && continue  # rerun resumes
  "$build/bin/warpsim" exec --gpu h100 --timing --set l1i.warm_start=true "$@" --out "$runs/$name" -- "$prog" >"$runs/$name.log" 2>&1 ||
    echo "h100-correlate: $name failed (see $runs/$name.log)" >&2
done
"$build/bin/warpsim" correlate --sim "$runs" --hw "$hw" --allow-unknown --allow-unmatched --out "$runs/correlation.html"
