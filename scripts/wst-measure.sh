#!/usr/bin/env bash
# Sizes of trace folders as text, as `xz -9` of the text, and as binary
# traces (.wst), kernel files only, with the ratios text/wst and xz/wst.
#   usage: wst-measure.sh WARPSIM_BIN TRACE_FOLDER...
#   With WST_EXEC_PROGRAMS="prog1 prog2 ..." (CUDA programs built with
#   nvcc -cudart shared) their `warpsim exec --trace-out` traces are measured too.
set -euo pipefail
bin=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
folders=("$@")
for p in ${WST_EXEC_PROGRAMS:-}; do
  out="$work/exec-$(basename "$p")"
  "$bin" exec --trace-out "$out" -- "$p" > /dev/null
  folders+=("$out")
done
printf '%-40s %12s %12s %12s %9s %9s\n' trace text xz-9 wst text/wst xz/wst
for f in "${folders[@]}"; do
  dst="$work/wst-$(basename "$f")"
  "$bin" convert "$f" "$dst" > /dev/null
  text=0 xz=0
  for k in "$f"/*.traceg; do
    text=$((text + $(stat -c %s "$k")))
    xz=$((xz + $(xz -9 -c "$k" | wc -c)))
  done
  wst=$(cat "$dst"/*.wst | wc -c)
  awk -v n="$(basename "$f")" -v t="$text" -v x="$xz" -v w="$wst" \
    'BEGIN { printf "%-40s %12d %12d %12d %9.1f %9.1f\n", n, t, x, w, t / w, x / w }'
done
