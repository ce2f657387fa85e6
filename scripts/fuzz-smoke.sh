#!/usr/bin/env bash
# Builds the fuzz targets (trace parser, PTX parser, preset loader, binary
# trace reader) with clang
# and runs each for FUZZ_SECONDS (default 10) on a corpus seeded from real
# inputs. One summary line per target; non-zero exit on a crash.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${FUZZ_SECONDS:-10}"
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
targets=(trace_parser_fuzz ptx_parser_fuzz preset_loader_fuzz wst_reader_fuzz)
ninja -C "$build" "${targets[@]}" >>"$log" 2>&1 || fail "building the fuzz targets failed"

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

# Binary traces: the real traces converted, when a warpsim binary is there
# to convert them (make test builds it first); else libFuzzer starts empty.
wst_corpus="$root/fuzz/corpus-wst"
rm -rf "$wst_corpus" && mkdir -p "$wst_corpus"
warpsim_bin="${WARPSIM_BIN:-$root/build/bin/warpsim}"
if [[ -x "$warpsim_bin" ]]; then
  for d in "$root"/examples/traces/*/; do
    "$warpsim_bin" convert "$d/kernel-1.traceg" "$wst_corpus/$(basename "$d").wst" >>"$log" 2>&1 || true
  done
fi

# PTX: the modules nvcc wrote for the PTX frontend tests.
ptx_corpus="$root/fuzz/corpus-ptx"
rm -rf "$ptx_corpus" && mkdir -p "$ptx_corpus"
cp "$root"/tests/data/ptx/*.ptx "$ptx_corpus/"

# Presets: the bundled GPU presets and a few small hostile shapes.
preset_corpus="$root/fuzz/corpus-preset"
rm -rf "$preset_corpus" && mkdir -p "$preset_corpus"
cp "$root"/configs/gpus/*.toml "$preset_corpus/"
printf 'gpu.sms = 4\n[clock]\ncore_mhz = 1500.5\n' > "$preset_corpus/small"
printf '[core.units.sp]\nlatency = 4\n[core]\nshared_carveout_kb = [0, 8]\n' > "$preset_corpus/family"
printf 'base = "qv100"\n[gpu]\ndescription = "x"\nactivity_gating = false\n' > "$preset_corpus/base"

run_target() {  # name corpus max_len
  local name="$1" dir="$2" max_len="$3" before
  before="$(wc -l <"$log")"
  "$build/bin/$name" -artifact_prefix="$build/$name-" -max_total_time="$secs" -max_len="$max_len" \
    -print_final_stats=1 "$dir" >>"$log" 2>&1 || fail "$name found a crash (input saved under $build/$name-*)"
  local runs cov
  runs="$(tail -n +"$before" "$log" | sed -n 's/^stat::number_of_executed_units: *//p' | tail -n 1)"
  cov="$(tail -n +"$before" "$log" | grep -o 'cov: [0-9]*' | tail -n 1)"
  echo "fuzz-smoke: $name: ${runs:-?} inputs in ${secs}s, ${cov:-cov: ?}, no crash (log: $log)"
}
run_target trace_parser_fuzz "$corpus" 4096
run_target ptx_parser_fuzz "$ptx_corpus" 16384
run_target preset_loader_fuzz "$preset_corpus" 4096
run_target wst_reader_fuzz "$wst_corpus" 65536
