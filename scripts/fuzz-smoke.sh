#!/usr/bin/env bash
# Builds the trace-parser fuzz target with clang and runs it briefly on a
# corpus seeded from real trace lines. Non-zero exit on a crash.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${FUZZ_SECONDS:-20}"
cxx="$(command -v clang++ || command -v clang++-14 || true)"
if [[ -z "$cxx" ]]; then
  echo "fuzz-smoke: clang++ not found, skipping"
  exit 0
fi
build="$root/build-fuzz"
mkdir -p "$build"
log="$build/fuzz-smoke.log"
# Everything goes to the log; the terminal gets one line per target (or,
# on a failure, the log's tail).
fail() {
  echo "fuzz-smoke: $1 (last lines of $log:)"
  tail -n 40 "$log"
  exit 1
}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSIM_FUZZ=ON -DWARPSIM_TESTS=OFF -DWARPSIM_BENCH=OFF >"$log" 2>&1 ||
  fail "configuring the fuzz build failed"
ninja -C "$build" trace_parser_fuzz >>"$log" 2>&1 || fail "building trace_parser_fuzz failed"

# Seeds: a selector byte (tracer version / lineinfo / table) then real lines.
corpus="$root/fuzz/corpus-run"
rm -rf "$corpus" && mkdir -p "$corpus"
printf '\x02-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-binary version = 70\n-shmem base_addr = 0x00007f2b5a000000\n' > "$corpus/header"
printf '\x0a0208 ffffffff 1 R25 LDG.E 1 R8 4 1 0x7fb02d700000 4\n0248 ffffffff 0 STS 2 R0 R25 4 1 0x0 4\n0028 ffffffff 1 R3 XMAD.MRG 2 R0 R255 0\n' > "$corpus/pascal"
printf '\x0617 0010 0000000f 1 R2 LDG.E.64.SYS 1 R4 8 0 0x100 0x200 0x300 0x400\n' > "$corpus/lineinfo"
printf '\x081 0 0 3 0010 00000007 1 R1 LD.E 1 R2 4 2 0x7f0000000100 4 -8\n' > "$corpus/old"
printf '\x030010 ffffffff 1 R1 ATOM.E.ADD 2 R2 R3 4 1 0x1000 4 42\n0020 ffffffff 0 EXIT 0 0 0\n' > "$corpus/v5"
i=0
for f in "$root"/examples/traces/*/kernel-*.traceg; do
  { printf '\x0a'; grep -m 40 '^[0-9a-f]' "$f"; } > "$corpus/real$i" || true
  i=$((i + 1))
done
"$build/bin/trace_parser_fuzz" -artifact_prefix="$build/" -max_total_time="$secs" -max_len=4096 \
  -print_final_stats=1 "$corpus" >>"$log" 2>&1 || fail "trace_parser_fuzz found a crash (input saved under $build/)"
runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
cov="$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)"
echo "fuzz-smoke: trace_parser_fuzz: ${runs:-?} inputs in ${secs}s, ${cov:-cov: ?}, no crash (log: $log)"
