#!/usr/bin/env bash
# Prints why each test of the last ctest run in BUILD_DIR was skipped (ctest
# itself only says "Skipped"): the GTEST_SKIP() message, or the last line
# a skipping script printed. Usage: ctest-skips.sh BUILD_DIR
set -euo pipefail
log="${1:-.}/Testing/Temporary/LastTest.log"
[[ -f $log ]] || exit 0
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3; out = ""; reason = ""; last = ""; inout = 0; skipped = 0; grab = 0; next }
  /^Output:$/ { inout = 1; next }
  /^<end of output>$/ { inout = 0; next }
  inout && /^-+$/ && out == "" { next }
  inout {
    if (grab) { reason = reason (reason == "" ? "" : " ") $0 }
    if ($0 ~ /: Skipped$/) { grab = 1; reason = "" }
    if ($0 ~ /^\[  SKIPPED \]/) { grab = 0; skipped = 1; sub(/ ?\[  SKIPPED \].*$/, "", reason) }
    if ($0 != "") last = $0
    out = out $0 "\n"
    next
  }
  /^Test Skipped|^Skip regular expression found|[Ss]kip return code/ { skipped = 1; next }
  /^"[^"]*" end time:/ && skipped {
    gsub(/ +$/, "", reason)
    if (reason == "") reason = last
    printf "skipped: %s: %s\n", name, (reason == "" ? "(no reason printed)" : reason)
    n++
  }
  END { if (n) printf "%d test(s) skipped (reasons above)\n", n }
' "$log"
