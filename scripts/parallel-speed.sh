#!/usr/bin/env bash
# The speed table of docs/parallel.md: a DRAM-bound stream and a compute loop
# of about a million warp instructions each, simulated on QV100 with one
# engine and with the parallel layouts, runs interleaved (the host's speed
# drifts), best and median of the `warpsim run` summary's warp insts/s.
#   usage: scripts/parallel-speed.sh [--warpsim BIN] [--reps N] [--work DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
warpsim=$root/build/bin/warpsim
reps=6
work=${TMPDIR:-/tmp}/warpsim-parallel-speed
while [[ $# -gt 0 ]]; do
  case $1 in
    --warpsim) warpsim=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "usage: $0 [--warpsim BIN] [--reps N] [--work DIR]" >&2; exit 2 ;;
  esac
done
[[ -x $warpsim ]] || { echo "parallel-speed: no $warpsim (build first, or pass --warpsim)" >&2; exit 2; }
mkdir -p "$work"
[[ -d $work/stream ]] || "$warpsim" synth stream --out "$work/stream" --ctas 1280 --threads 256 --iterations 16 \
  --footprint 20971520 > /dev/null
[[ -d $work/compute ]] || "$warpsim" synth compute --out "$work/compute" --ctas 800 --threads 256 --iterations 24 \
  > /dev/null
# The default layout is sm-memory with two SM groups, on the host's CPUs.
layouts=("one|--set gpu.partitions=one" "sm-memory 2T|--set gpu.sm_groups=1 --threads 2"
         "2 groups 1T|--threads 1" "2 groups 2T|--threads 2" "default|")
results=$work/results.txt
: > "$results"
for workload in stream compute; do
  for ((r = 0; r < reps; ++r)); do
    for entry in "${layouts[@]}"; do
      name=${entry%%|*} args=${entry#*|}
      # shellcheck disable=SC2086  # args is a list of options
      rate=$("$warpsim" run "$work/$workload" --gpu qv100 $args --no-progress |
             sed -n 's/^total:.*(\([0-9]*\) warp insts\/s).*/\1/p')
      echo "$workload|$name|$rate" >> "$results"
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    workload, name, rate = line.rstrip("\n").split("|")
    runs[(workload, name)].append(float(rate))
print(f"{'workload':10s} {'layout':14s} {'best M/s':>9s} {'median M/s':>11s} {'vs one':>7s}")
for (workload, name), rates in runs.items():
    best = max(rates)
    one = max(runs[(workload, "one")])
    print(f"{workload:10s} {name:14s} {best / 1e6:9.2f} {statistics.median(rates) / 1e6:11.2f} {best / one:6.2f}x")
PY
