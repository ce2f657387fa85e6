#!/usr/bin/env bash
# libcudart.so.13's ABI: NVIDIA's soname, every exported symbol under the
# libcudart.so.13 version node, nothing of warpsim's C++ leaking out, and
# (when NVIDIA's runtime is installed) exactly NVIDIA's export list.
set -euo pipefail
lib=$1
nvidia=${2:-/usr/local/cuda/lib64/libcudart.so.13}
fail() { echo "FAIL: $*"; exit 1; }
# (grep -q reads from variables: with pipefail, a producer killed by SIGPIPE
# after grep's early exit would fail the test at random.)
headers=$(objdump -p "$lib")
grep -q "SONAME *libcudart.so.13$" <<< "$headers" || fail "soname is not libcudart.so.13"
defined=$(objdump -T "$lib" | awk '$0 ~ / g / && $0 !~ /\*UND\*/')
unversioned=$(echo "$defined" | grep -v " libcudart.so.13 " || true)
[ -z "$unversioned" ] || fail "symbols outside the libcudart.so.13 version node:"$'\n'"$unversioned"
ours=$(echo "$defined" | awk '{print $NF}' | sort)
for s in cudaMalloc cudaMemcpy __cudaRegisterFatBinary __cudaLaunchKernel cudaLaunchKernel cudaGetDeviceProperties; do
  grep -qx "$s" <<< "$ours" || fail "$s is not exported"
done
if [ -e "$nvidia" ]; then
  theirs=$(objdump -T "$nvidia" | awk '$0 ~ / g / && $0 !~ /\*UND\*/ && $0 ~ / libcudart.so.13 /{print $NF}' | sort)
  diff <(echo "$theirs") <(echo "$ours") >/dev/null || fail "export list differs from $nvidia:"$'\n'"$(diff <(echo "$theirs") <(echo "$ours") | head -20)"
fi
echo "PASS: $(echo "$ours" | wc -l) symbols"
