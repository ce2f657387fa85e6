#!/usr/bin/env bash
# Runs a CUDA program under `warpsim exec --timing --trace-out`, replays the
# written trace with `warpsim run`, and checks that every kernel simulates to
# the same cycles and instruction counts both ways.
# With WARPSIM_CHECK_BINARY=1 the trace is written as binary kernel files
# (--binary, docs/trace-format.md) and replayed from those. WARPSIM_CHECK_SET
# ("key=value key=value") sets parameters for both runs.
#   usage: [WARPSIM_CHECK_GPU=preset] [WARPSIM_CHECK_BINARY=1] [WARPSIM_CHECK_SET=...] exec-replay-check.sh WARPSIM_BIN WORK_DIR PROGRAM [ARGS...]
set -euo pipefail
bin=$1 work=$2
gpu=${WARPSIM_CHECK_GPU:-qv100}   # preset for both runs
binary=()
[ "${WARPSIM_CHECK_BINARY:-}" = 1 ] && binary=(--binary)
sets=()
for kv in ${WARPSIM_CHECK_SET:-}; do sets+=(--set "$kv"); done
shift 2
rm -rf "$work"
mkdir -p "$work"
"$bin" exec --gpu "$gpu" "${sets[@]}" --timing --out "$work/exec" --trace-out "$work/trace" "${binary[@]}" -- "$@" > "$work/program.out"
if [ ${#binary[@]} -gt 0 ] && ! grep -q '^kernel-1\.wst$' "$work/trace/kernelslist.g"; then
  echo "FAIL: --binary wrote no kernel-1.wst"; exit 1
fi
"$bin" run "$work/trace" --gpu "$gpu" "${sets[@]}" --out "$work/replay" --format none --no-progress
python3 - "$work/exec/stats.json" "$work/replay/stats.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ka, kb = a["kernels"], b["kernels"]
if len(ka) != len(kb) or not ka:
    sys.exit(f"kernel count differs or is zero: exec {len(ka)}, replay {len(kb)}")
bad = 0
for x, y in zip(ka, kb):
    for f in ("name", "cycles", "launch_gap_cycles", "warp_insts", "thread_insts"):
        if x[f] != y[f]:
            print(f"kernel {x['id']} {x['name']}: {f} exec {x[f]} replay {y[f]}")
            bad += 1
    print(f"kernel {x['id']} {x['name'][:40]}: {x['cycles']} cycles, {x['warp_insts']} warp insts (exec == replay)" if not bad else "")
sys.exit(1 if bad else 0)
PY
