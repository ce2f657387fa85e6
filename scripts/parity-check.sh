#!/usr/bin/env bash
# Checks that a change left simulation results bit-identical: runs a matrix of
# traces x presets with a reference binary and a candidate binary and compares
# stats.json without its wall-clock `sim` section.
#
#   scripts/parity-check.sh REF_BIN NEW_BIN [WORKDIR]
#
# Traces: the bench stream (DRAM-bound) and compute kernels, a pointer chase,
# a small stream, and the real traces in examples/traces. Presets and settings
# cover both DRAM schedulers, the single command bus, GDDR parts, the
# non-sectored Fermi L1 and the newer generations. Synthesised traces are made
# once under WORKDIR (default /tmp/warpsim-parity) and reused.
set -euo pipefail
ref=$(realpath "$1")
new=$(realpath "$2")
work=${3:-/tmp/warpsim-parity}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"

synth() {  # name kind args...
  local name=$1
  shift
  [[ -f $work/$name/kernelslist.g ]] || "$new" synth "$@" --out "$work/$name" >/dev/null
}
synth stream stream --ctas 640 --threads 256 --iterations 16 --footprint $((640 * 256 * 16 * 4))
synth compute compute --ctas 320 --threads 256 --iterations 24
synth chase chase --ctas 4 --threads 32 --iterations 200
synth stream_small stream --ctas 320 --threads 256 --iterations 8

runs=(
  "stream qv100"
  "stream qv100 --set dram.scheduler=fcfs"
  "stream qv100 --set dram.dual_command_bus=false"
  "stream a100"
  "stream rtx3070"
  "stream_small gtx480"
  "stream_small h100"
  "stream_small k20"
  "compute qv100"
  "compute qv100 --set core.scheduler=lrr"
  "stream_small qv100 --set core.scheduler=lrr"
  "chase qv100"
  "chase rtx2060"
)
for t in "$here"/examples/traces/*/; do
  [[ -d $t ]] || continue
  runs+=("$t qv100" "$t a100")
done

fail=0
for r in "${runs[@]}"; do
  read -r trace gpu extra <<<"$r"
  [[ -d $trace ]] || trace=$work/$trace
  tag=$(echo "$r" | tr -c 'a-zA-Z0-9' '_')
  for which in ref new; do
    bin=$ref
    [[ $which == new ]] && bin=$new
    # shellcheck disable=SC2086
    "$bin" run "$trace" --gpu "$gpu" $extra --format none --no-progress --out "$work/out-$which-$tag" >/dev/null
  done
  if python3 - "$work/out-ref-$tag/stats.json" "$work/out-new-$tag/stats.json" <<'EOF'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for x in (a, b):
    x.pop("sim", None)
if a != b:
    ca, cb = a.get("counters", {}), b.get("counters", {})
    diff = [k for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k)]
    print("   differs:", ", ".join(f"{k} {ca.get(k)} -> {cb.get(k)}" for k in diff[:6]) or "(outside counters)")
    sys.exit(1)
EOF
    echo "same     $r"
  else
    echo "DIFFERS  $r"
    fail=1
  fi
done
exit $fail
