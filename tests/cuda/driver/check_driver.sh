#!/bin/sh
# usage: check_driver.sh COMMAND...: passes when COMMAND (the driver-API test
# program under warpsim exec) exits 0 printing PASS, and its refusals were
# explained: the PTX syntax error by module and line, the SASS-only modules
# by file and what they hold.
out="$("$@" 2>&1)"
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
for expect in 'PASS' \
    '(cuModuleLoadData from driver_launch):13:' \
    'kernels.cubin holds an ELF cubin (SASS for one real GPU), no PTX' \
    'sass_only.fatbin holds a fat binary with cubins only (entries: sm_80), no PTX' \
    'cannot open /nonexistent/kernels.ptx'; do
  case "$out" in
    *"$expect"*) ;;
    *) echo "FAIL: no '$expect' in the output"; exit 1 ;;
  esac
done
