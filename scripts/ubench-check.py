#!/usr/bin/env python3
"""Runs a few microbenchmarks (ubench/) at reduced sizes under `warpsim exec
--timing` and checks their figures against what the preset's parameters imply.

    usage: ubench-check.py WARPSIM_BIN UBENCH_DIR PRESET_TOML

Each expectation says why it holds; a figure outside its range, a missing
key or a line that is neither `key=value` nor a `#` comment fails the run.
"""
import math
import os
import subprocess
import sys
import tomllib


def run(warpsim, gpu, program, *args):
    """The program's key=value lines as a dict (values as floats)."""
    cmd = [warpsim, "exec", "--gpu", gpu, "--timing", "--", program, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if out.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {out.returncode}:\n{out.stdout}{out.stderr}")
    values = {}
    for line in out.stdout.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.replace("_", "").isalnum():
            sys.exit(f"FAIL: {os.path.basename(program)}: not a key=value line: {line!r}")
        values[key] = float(value)
    return values


def main():
    warpsim, bench_dir, preset_path = sys.argv[1:4]
    gpu = os.path.splitext(os.path.basename(preset_path))[0]
    with open(preset_path, "rb") as f:
        p = tomllib.load(f)
    mhz = p["clock"]["core_mhz"]
    # Each kernel's own fixed work (gpu.kernel_fixed_cycles plus gpu.kernel_fixed_ns at the core clock),
    # inside its time between launches.
    fixed = p["gpu"].get("kernel_fixed_cycles", 0) + math.ceil(p["gpu"].get("kernel_fixed_ns", 0) * mhz / 1000 - 1e-9)
    packing = p.get("shared", {}).get("pair_packing", True)  # the built-in default unless the preset sets it
    const_latency = p["core"].get("const_latency", 8)  # the built-in default (docs/params.md) unless the preset sets it
    # An L1 sends one message per cycle; a store message is one 32 B sector
    # plus a header (icnt.header_bytes, 8 by default), taking as many flits.
    flit = p.get("icnt", {}).get("flit_bytes", 40)
    store_rate = 32 / -(-(8 + 32) // flit)
    # (program, args, key, low, high, why)
    checks = [
        ("mem_latency", ["only=1", "steps=128"], "l1_hit_latency_cycles",
         p["l1d"]["latency"], p["l1d"]["latency"] * 1.15,
         "l1d.latency is load-to-use for a hit; the LD/ST path may add a few cycles, never remove"),
        ("mem_latency", ["only=4", "steps=128"], "shared_latency_cycles",
         p["shared"]["latency"] * 0.95, p["shared"]["latency"] * 1.15,
         "shared.latency is the conflict-free shared load latency"),
        ("mem_latency", ["only=5", "steps=128"], "const_hit_latency_cycles",
         const_latency, const_latency * 1.15 + 1,
         "core.const_latency is load-to-use for a constant-cache hit (the 1 KB chain is warmed into the 2 KB cache)"),
        ("mem_latency", ["only=7", "steps=128"], "tex_hit_latency_cycles",
         p["l1d"]["latency"], p["l1d"]["latency"] * 1.15,
         "a texture hit is timed as an L1 hit, and each fetch waits for its coordinate (the previous fetch)"),
        ("units", ["only=1", "steps=256"], "fp32_latency_cycles",
         p["core"]["units"]["sp"]["latency"] * 0.95, p["core"]["units"]["sp"]["latency"] * 1.1,
         "core.units.sp.latency is issue to dependent issue of FFMA; the chain difference cancels loop setup"),
        ("launch", ["launches=8"], "kernel_launch_overhead_us",
         (p["gpu"]["kernel_launch_overhead"] + fixed) / mhz, (p["gpu"]["kernel_launch_overhead"] + fixed + 1000) / mhz,
         "a kernel queued behind another starts gpu.kernel_launch_overhead core cycles after it ends, "
         "then does the GPU's fixed per-kernel work and runs briefly (its code from the L2 on a fresh SM: a few "
         "hundred cycles)"),
        ("launch", ["launches=8"], "kernel_launch_sync_overhead_us",
         (p["gpu"]["kernel_launch_latency"] + fixed) / mhz, (p["gpu"]["kernel_launch_latency"] + fixed + 1000) / mhz,
         "after cudaDeviceSynchronize a launch waits the full gpu.kernel_launch_latency, then does the fixed "
         "per-kernel work and runs briefly"),
        ("geometry", ["only=1"], "shared_banks", p["shared"]["banks"], p["shared"]["banks"],
         "the conflict degree stops growing at a stride of shared.banks words"),
        ("store", ["reps=32", "rounds=16"], "l1_store_bytes_per_clk_per_sm_same_line", store_rate * 0.9, store_rate * 1.05,
         "a full-line warp store is four sector messages and the L1 sends one message per cycle: 32 B of data per "
         "cycle while each fits one flit (the clock reads see stores issued, not yet sent: a few % of slack)"),
        ("store", ["reps=32", "rounds=16"], "l1_store_bytes_per_clk_per_sm_partial", store_rate * 0.45, store_rate / 2 * 1.05,
         "a half-written sector still takes a whole message: half the bytes per cycle"),
        ("geometry", ["only=4"], "shared_ld128_distinct_cycles", 3.9, 4.4,
         "a 128-bit shared load of consecutive words moves in four quarter-warp wavefronts (the two-run "
         "difference reads 3.99)"),
        ("geometry", ["only=4"], "shared_ld128_uniform_cycles", *((2, 3) if packing else (3.9, 4.4)),
         "one address for every lane: with shared.pair_packing the paired lanes' registers return packed, half "
         "the wavefronts (they read 2.51: the loop's dependences keep it off 2)"),
        ("geometry", ["only=2"], "l1_sector_bytes", 32, 32,
         "the L1D is sectored in 32 B sectors (l1d.sectored = true on QV100)"),
        ("merge", ["ctas=8"], "l1_merge_requests_per_miss", p["l1d"]["mshr_max_merge"], p["l1d"]["mshr_max_merge"],
         "requests for a sector in flight beyond l1d.mshr_max_merge stall the in-order tag stage until the fill "
         "returns: the warps' own misses behind them take a second L2 round trip"),
    ]
    bad = 0
    for program, args, key, low, high, why in checks:
        values = run(warpsim, gpu, os.path.join(bench_dir, program), *args)
        got = values.get(key)
        ok = got is not None and low <= got <= high
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {key}={got} expected [{low:.2f}, {high:.2f}]: {why}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
