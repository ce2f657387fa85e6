#!/bin/sh
# usage: check_refusal.sh TEXT COMMAND...: passes when COMMAND exits non-zero
# and its output contains TEXT (a refusal with its reason).
expect="$1"
shift
out="$("$@" 2>&1)"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit status 0; output: $out"
  exit 1
fi
case "$out" in
  *"$expect"*) echo "refused as expected (exit status $rc): $out" ;;
  *) echo "FAIL: exit status $rc without '$expect': $out"; exit 1 ;;
esac
