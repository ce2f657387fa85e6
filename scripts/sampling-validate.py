#!/usr/bin/env python3
"""Kernel sampling against full simulation (docs/sampling.md, "Validation").

For each workload of the suite (CUDA programs from examples/cuda/sampling,
run under `warpsim exec --timing`, and phased synthetic traces under
`warpsim run`): simulate it whole, then, for each mode, profile it, make a
plan with `warpsim sample plan` and simulate it under the plan. The plan
never sees the full run: in mode `variance` it gets no cycles (K: the
fewest groups explaining --cluster-variance of the feature variance, split
by kernel name); in mode `abstract` the profile times every launch with the
abstract model (`profile --cycles-model abstract`) and the plan keeps the
fewest groups whose projection of those cycles is within --target-error.
Prints one markdown table per mode, a row per workload:
warp instructions simulated (full vs sampled, the reduction), projected vs
full cycles (error in points), host time, and the two naive baselines with
the same data: "first N instructions" (N = the warp instructions the sampled
run simulated; cycles so far scaled by total/N instructions) and "first
kernel of each name" (its cycles times the launches of that name). Both
baselines are computed from the full run's per-kernel results: a run
stopped after N instructions, or one that simulates the first launch of
each name, sees exactly those kernels first (nothing before them differs).

    scripts/sampling-validate.py [--build build] [--work DIR] [--gpu qv100] [--warmup 2]
                                 [--modes variance abstract] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = ["jacobi", "cg_solver", "mlp_train", "bfs", "image_pipeline"]

# Phased synthetic traces: (name, kernels {key: synth arguments}, launch order).
SYNTH = {
    "stream": ["stream", "--ctas", "40", "--threads", "128", "--iterations", "4", "--footprint", "1048576"],
    "stream_big": ["stream", "--ctas", "160", "--threads", "128", "--iterations", "4", "--footprint", "4194304"],
    "compute": ["compute", "--ctas", "40", "--threads", "128", "--iterations", "8"],
    "compute_long": ["compute", "--ctas", "80", "--threads", "128", "--iterations", "24"],
    "chase": ["chase", "--ctas", "4", "--threads", "32", "--iterations", "16", "--footprint", "1048576"],
}
TRACES = [
    ("synth_phases", (["stream"] * 20 + ["compute"] * 20 + ["chase"] * 10 + ["stream"] * 20) * 2),
    ("synth_alternate", ["stream", "compute"] * 60),
    ("synth_sizes", ["stream", "stream_big", "compute"] * 30),
    ("synth_period3", ["chase", "compute", "compute_long"] * 40),
    ("synth_ramp", (["compute"] * 5 + ["compute_long"] * 5 + ["stream_big"] * 2) * 12),
]


@dataclass
class Row:
    mode: str
    name: str
    launches: int
    groups: int
    sim_launches: int
    full_insts: float
    sim_insts: float
    full_cycles: float
    projected: float
    full_time: tuple[float, float]      # (wall, CPU) seconds
    sampled_time: tuple[float, float]
    profile_time: tuple[float, float]   # profile and plan
    first_n_error: float
    first_name_error: float
    first_name_reduction: float
    plan_estimate: float | None        # the plan's own error estimate (against the model's cycles), points


def run(cmd: list[str], log: str) -> tuple[float, float]:
    """(wall, CPU) seconds of the command. On a machine others share, CPU
    time (user + system of the command and its children) is the steadier
    measure of the work; wall time is what a user waits on an idle one."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(log, "w") as out:
        rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        sys.exit(f"sampling-validate: {' '.join(cmd)} failed ({rc}); see {log}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kernels(stats_path: str) -> list[dict]:
    with open(stats_path) as f:
        return json.load(f)["kernels"]


def first_n_projection(ks: list[dict], budget: float) -> float:
    """Cycles of the first `budget` warp instructions, scaled to all of them."""
    total = sum(k["warp_insts"] for k in ks)
    insts = cycles = 0.0
    for k in ks:
        take = min(1.0, (budget - insts) / k["warp_insts"]) if k["warp_insts"] else 1.0
        insts += take * k["warp_insts"]
        cycles += take * k["cycles"]
        if insts >= budget:
            break
    return cycles * total / insts


def first_of_name(ks: list[dict]) -> tuple[float, float]:
    """(projected cycles, warp instructions simulated) when the first launch of each name stands for all."""
    first: dict[str, dict] = {}
    count: dict[str, int] = {}
    for k in ks:
        first.setdefault(k["name"], k)
        count[k["name"]] = count.get(k["name"], 0) + 1
    return (sum(first[n]["cycles"] * count[n] for n in first), sum(first[n]["warp_insts"] for n in first))


def full_run(name: str, work: str, full_cmd) -> tuple[str, tuple[float, float]]:
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d, run(full_cmd(os.path.join(d, "full")), os.path.join(d, "full.log"))


def evaluate(mode: str, name: str, d: str, full_time, profile_cmd, sampled_cmd, args) -> Row:
    """One mode's profile, plan and sampled run of a workload already run whole in `d`."""
    m = os.path.join(d, mode)
    shutil.rmtree(m, ignore_errors=True)
    os.makedirs(m)
    extra = ["--cycles-model", "abstract", "--set", "abstract.block_cache=off"] if mode == "abstract" else []
    profile_time = run(profile_cmd(os.path.join(m, "prof.csv"), extra), os.path.join(m, "profile.log"))
    plan = os.path.join(m, "plan.json")
    plan_time = run([args.warpsim, "sample", "plan", os.path.join(m, "prof.csv"), "--warmup", str(args.warmup),
                     "--target-error", args.target_error, "--cluster-variance", str(args.cluster_variance),
                     "--out", plan], os.path.join(m, "plan.log"))
    profile_time = (profile_time[0] + plan_time[0], profile_time[1] + plan_time[1])
    sampled_time = run(sampled_cmd(plan, os.path.join(m, "sampled")), os.path.join(m, "sampled.log"))
    ks = kernels(os.path.join(d, "full", "stats.json"))
    with open(os.path.join(m, "sampled", "stats.json")) as f:
        s = json.load(f)["sampling"]
    with open(plan) as f:
        estimate = json.load(f)["projected_error"]
    full_cycles = float(sum(k["cycles"] for k in ks))
    full_insts = float(sum(k["warp_insts"] for k in ks))
    sim_insts = float(s["simulated"]["warp_insts"])
    by_name, name_insts = first_of_name(ks)
    err = lambda p: 100.0 * (p - full_cycles) / full_cycles
    return Row(mode, name, len(ks), len(s["groups"]), s["launches_simulated"], full_insts, sim_insts, full_cycles,
               s["projected"]["cycles"], full_time, sampled_time, profile_time,
               err(first_n_projection(ks, sim_insts)), err(by_name), full_insts / name_insts,
               None if estimate is None else 100.0 * estimate)


def evaluate_modes(name: str, full_cmd, profile_cmd, sampled_cmd, args) -> list[Row]:
    d, full_time = full_run(name, args.work, full_cmd)
    return [evaluate(mode, name, d, full_time, profile_cmd, sampled_cmd, args) for mode in args.modes]


def cuda_rows(prog: str, args) -> list[Row]:
    exe = os.path.join(args.build, "examples", "sampling", prog)
    if not os.access(exe, os.X_OK):
        sys.exit(f"sampling-validate: {exe} not built (make build; it needs nvcc)")
    w = args.warpsim
    return evaluate_modes(prog,
                          lambda out: [w, "exec", "--gpu", args.gpu, "--timing", "--out", out, "--", exe],
                          lambda csv, extra: [w, "profile", "--no-progress", "--gpu", args.gpu, *extra, "--out", csv,
                                              "--", exe],
                          lambda plan, out: [w, "exec", "--gpu", args.gpu, "--timing", "--plan", plan, "--out", out,
                                             "--", exe], args)


def synth_traces(args) -> str:
    folder = os.path.join(args.work, "synth-kernels")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for key, spec in SYNTH.items():
        tmp = os.path.join(folder, key)
        run([args.warpsim, "synth", *spec, "--out", tmp], os.path.join(folder, key + ".log"))
        os.replace(os.path.join(tmp, "kernel-1.traceg"), os.path.join(folder, key + ".traceg"))
    return folder


def trace_rows(name: str, order: list[str], kernels_dir: str, args) -> list[Row]:
    d = os.path.join(args.work, name + "-trace")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for key in set(order):
        os.symlink(os.path.join(kernels_dir, key + ".traceg"), os.path.join(d, key + ".traceg"))
    with open(os.path.join(d, "kernelslist.g"), "w") as f:
        f.writelines(key + ".traceg\n" for key in order)
    w = args.warpsim
    return evaluate_modes(name,
                          lambda out: [w, "run", d, "--gpu", args.gpu, "--no-progress", "--format", "none", "--out",
                                       out],
                          lambda csv, extra: [w, "profile", "--no-progress", "--gpu", args.gpu, *extra, "--out", csv,
                                              d],
                          lambda plan, out: [w, "run", d, "--gpu", args.gpu, "--no-progress", "--format", "none",
                                             "--plan", plan, "--out", out], args)


def table(rows: list[Row], cpu: int) -> str:
    what = "CPU" if cpu else "wall"
    lines = ["| workload | launches | groups (simulated launches) | warp insts full | sampled | reduction | "
             "cycles full | projected | error (plan's estimate) | first-N error | first-of-name error (reduction) | "
             f"host {what} s full | sampled (+profile) | speedup |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    full = lambda r: r.full_time[cpu]
    sampled = lambda r: r.sampled_time[cpu]
    prof = lambda r: r.profile_time[cpu]
    estimate = lambda r: "-" if r.plan_estimate is None else f"{r.plan_estimate:.1f}"
    for r in rows:
        err = 100.0 * (r.projected - r.full_cycles) / r.full_cycles
        lines.append(f"| {r.name} | {r.launches} | {r.groups} ({r.sim_launches}) | {r.full_insts:,.0f} | "
                     f"{r.sim_insts:,.0f} | {r.full_insts / r.sim_insts:.1f}x | {r.full_cycles:,.0f} | "
                     f"{r.projected:,.0f} | {err:+.1f} ({estimate(r)}) | {r.first_n_error:+.1f} | "
                     f"{r.first_name_error:+.1f} ({r.first_name_reduction:.1f}x) | {full(r):.1f} | "
                     f"{sampled(r):.1f} (+{prof(r):.1f}) | "
                     f"{full(r) / sampled(r):.1f}x ({full(r) / (sampled(r) + prof(r)):.1f}x) |")
    geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    errs = [abs(100.0 * (r.projected - r.full_cycles) / r.full_cycles) for r in rows]
    lines.append("")
    lines.append(f"geomean reduction {geo([r.full_insts / r.sim_insts for r in rows]):.1f}x; |error| mean "
                 f"{sum(errs) / len(errs):.2f} points, worst {max(errs):.2f}; first-N |error| mean "
                 f"{sum(abs(r.first_n_error) for r in rows) / len(rows):.2f}, worst "
                 f"{max(abs(r.first_n_error) for r in rows):.2f}; first-of-name |error| mean "
                 f"{sum(abs(r.first_name_error) for r in rows) / len(rows):.2f}, worst "
                 f"{max(abs(r.first_name_error) for r in rows):.2f}; host {what} speedup geomean "
                 f"{geo([full(r) / sampled(r) for r in rows]):.1f}x (sampled run), "
                 f"{geo([full(r) / (sampled(r) + prof(r)) for r in rows]):.1f}x (with profile and plan); "
                 f"{what} seconds in all {sum(full(r) + sampled(r) + prof(r) for r in rows):.0f}")
    return "\n".join(lines)


def abstract_cost(rows: list[Row]) -> str:
    """Host CPU seconds of the abstract model's pass: the abstract mode's profile (features, the abstract
    run, the plan) less the variance mode's (features and the plan), against the full detailed run."""
    lines = ["| workload | host CPU s full (detailed) | profile | profile + abstract pass | abstract pass | "
             "full / abstract pass |", "|---|---|---|---|---|---|"]
    plain = {r.name: r for r in rows if r.mode == "variance"}
    ratios = []
    for r in (r for r in rows if r.mode == "abstract"):
        p = plain[r.name]
        extra = max(r.profile_time[1] - p.profile_time[1], 1e-3)
        ratios.append(r.full_time[1] / extra)
        lines.append(f"| {r.name} | {r.full_time[1]:.1f} | {p.profile_time[1]:.1f} | {r.profile_time[1]:.1f} | "
                     f"{extra:.1f} | {ratios[-1]:.1f}x |")
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    lines.append("")
    lines.append(f"abstract pass geomean {geo:.1f}x cheaper than the full detailed run (CPU)")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build folder (default: %(default)s)")
    p.add_argument("--work", default="/tmp/warpsim-sampling-validate", help="scratch folder (default: %(default)s)")
    p.add_argument("--gpu", default="qv100", help="preset (default: %(default)s)")
    p.add_argument("--warmup", type=int, default=2, help="sample plan --warmup (default: %(default)s)")
    p.add_argument("--target-error", default="5%", help="sample plan --target-error (default: %(default)s)")
    p.add_argument("--cluster-variance", type=float, default=0.95,
                   help="sample plan --cluster-variance (default: %(default)s)")
    p.add_argument("--modes", nargs="+", choices=["variance", "abstract"], default=["variance", "abstract"],
                   help="what the plan chooses K by (default: both)")
    p.add_argument("--only", nargs="*", help="workload names to run (default: all)")
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    args.warpsim = os.path.join(args.build, "bin", "warpsim")
    os.makedirs(args.work, exist_ok=True)
    wanted = lambda n: not args.only or n in args.only
    rows = []
    for prog in PROGRAMS:
        if wanted(prog):
            rows += cuda_rows(prog, args)
            print(f"done: {prog}", file=sys.stderr)
    kernels_dir = synth_traces(args) if any(wanted(n) for n, _ in TRACES) else ""
    for name, order in TRACES:
        if wanted(name):
            rows += trace_rows(name, order, kernels_dir, args)
            print(f"done: {name}", file=sys.stderr)
    if not rows:
        sys.exit("sampling-validate: no workload selected")
    if {"variance", "abstract"} <= set(args.modes):
        print(abstract_cost(rows))
        print()
    for mode in args.modes:
        print(f"## mode {mode}\n")
        print(table([r for r in rows if r.mode == mode], cpu=1))
        print()
        print(table([r for r in rows if r.mode == mode], cpu=0))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
