#!/usr/bin/env python3
"""Tuner round trip (ctest `ubench.tune_roundtrip`): run the microbenchmarks
under a preset that differs from its base in latencies, sizes, clocks and a
bandwidth-setting parameter, tune from their output with `warpsim tune`, and
check that the tuned preset recovers them.

    usage: tune-roundtrip.py WARPSIM_BIN UBENCH_DIR [WORK_DIR]

Reduced size: the GPU is QV100 cut to 8 SMs and 4 memory channels (`small`,
written beside the target), so that every benchmark simulates in seconds.
Targets (issue 15): latencies, sizes and clocks exactly; bandwidths
re-simulated under the tuned preset within 5% of the measured figures.
"""
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from warpsim.tune_map import load_tune_map  # noqa: E402

SMALL = """# QV100 cut to 8 SMs and 4 memory channels (192 KB of L2 each, as QV100).
base = "qv100"
[gpu]
sms = 8
memory_bus_bits = 512
[l2]
channels = 4
size_kb = 768
"""

# What the tuner must find, flattened; each differs from qv100 (15). The L2 and
# crossbar clocks move with the core clock (the tuner keeps their ratio).
TARGET = {
    "clock.core_mhz": 1245.0, "clock.l2_mhz": 1245.0, "clock.icnt_mhz": 1245.0,
    "l1d.latency": 33, "shared.latency": 24, "core.const_latency": 11,
    "core.units.sp.latency": 5, "core.units.dp.latency": 10, "core.units.sfu.latency": 24, "core.units.sp.ii": 4,
    "shared.banks": 16, "gpu.kernel_launch_overhead": 1500, "gpu.kernel_launch_latency": 4000,
    "l2.latency": 190, "clock.dram_mhz": 1000.0,
}
# Latencies, sizes and clocks exactly. The DRAM clock only through the
# bandwidth it gives: the short stream's figure scatters by ~1% between
# neighbouring clocks, so several clocks read the measured figure.
EXACT = [p for p in TARGET if p != "clock.dram_mhz"]
BANDWIDTH_KEYS = ["dram_bandwidth_gbps_ld128", "l2_bandwidth_bytes_per_clk_ld128"]
MEASURED_KEYS = ["core_clock_mhz", "l1_hit_latency_cycles", "shared_latency_cycles", "const_hit_latency_cycles",
                 "fp32_latency_cycles", "fp64_latency_cycles", "sfu_rsqrt_latency_cycles", "shared_banks",
                 "fp32_throughput_ops_per_clk_per_sm",
                 "kernel_launch_overhead_us", "kernel_launch_sync_overhead_us", "l2_hit_latency_cycles",
                 *BANDWIDTH_KEYS]


def toml_text(flat, base):
    tables = {}
    for param, value in flat.items():
        table, _, name = param.rpartition(".")
        tables.setdefault(table, []).append(f"{name} = {value!r}")
    return f'base = "{base}"\n' + "".join(f"\n[{t}]\n" + "\n".join(v) + "\n" for t, v in tables.items())


def measure(warpsim, bench_dir, preset, out):
    """The microbenchmarks the measured keys need, as scripts/ubench-run.sh writes them."""
    tmap = load_tune_map()
    benches = list(dict.fromkeys(tmap.bench_of[k] for k in MEASURED_KEYS))
    lines = ["# warpsim microbenchmark results (tune round trip)", f"# gpu: {preset}"]
    for b in benches:
        cmd = [warpsim, "exec", "--gpu", str(preset), "--timing", "--", str(Path(bench_dir) / b.program), *b.args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
        lines.append(f"# {b.program} {' '.join(b.args)}")
        lines += [l for l in done.stdout.splitlines() if "=" in l and l.split("=")[0] in b.keys]
    Path(out).write_text("\n".join(lines) + "\n")


def report_rows(stdout):
    """key -> (measured, base, tuned) from the report's table."""
    rows = {}
    for line in stdout.splitlines():
        cells = line.split()
        if len(cells) == 5 and cells[0] in MEASURED_KEYS:
            rows[cells[0]] = tuple(None if c == "-" else float(c) for c in cells[1:4])
    return rows


def main():
    warpsim, bench_dir = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:                       # kept for a look afterwards
        Path(sys.argv[3]).mkdir(parents=True, exist_ok=True)
        sys.exit(round_trip(warpsim, bench_dir, Path(sys.argv[3])))
    with tempfile.TemporaryDirectory(prefix="warpsim-tune-rt-") as work:
        sys.exit(round_trip(warpsim, bench_dir, Path(work)))


def round_trip(warpsim, bench_dir, work):
    (work / "small.toml").write_text(SMALL)
    (work / "target.toml").write_text(toml_text(TARGET, "small"))
    measure(warpsim, bench_dir, work / "target.toml", work / "measured.txt")
    cmd = [warpsim, "tune", "--measured", str(work / "measured.txt"), "--base", str(work / "small.toml"),
           "--out", str(work / "tuned.toml"), "--bench-dir", bench_dir, "--verify", "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print(done.stdout, end="")
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    with open(work / "tuned.toml", "rb") as f:
        tuned = tomllib.load(f)
    bad = 0
    if tuned.get("base") != "small":
        print(f"FAIL base = {tuned.get('base')!r}, expected 'small' (the base file sits beside the output)")
        bad += 1
    for param in EXACT:
        node = tuned
        for part in param.split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        ok = node == TARGET[param]
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {param} = {node!r}, target {TARGET[param]!r} (exact)")
    print(f"info clock.dram_mhz = {tuned.get('clock', {}).get('dram_mhz')}, target {TARGET['clock.dram_mhz']} "
          f"(checked through the bandwidth below)")
    rows = report_rows(done.stdout)
    for key in BANDWIDTH_KEYS:
        measured, _, got = rows.get(key, (None, None, None))
        ok = measured is not None and got is not None and abs(got - measured) <= 0.05 * measured
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {key}: tuned preset reads {got}, measured {measured} (within 5%)")
    return 1 if bad else 0


if __name__ == "__main__":
    main()
