"""`warpsim sample plan PROFILE --target-error 5% --out plan.json` (docs/sampling.md)."""

from __future__ import annotations

import argparse
import json
import os
import tempfile

from .errors import InputError


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    plan = sub.add_parser("plan", help="group kernel launches and pick representatives",
                          description="Group the launches of a `warpsim profile` CSV by their features (PCA, "
                                      "k-means; groups never mix kernel names), pick each group's first launch as "
                                      "its representative and keep the fewest groups whose projected cycles are "
                                      "within the target error of the known cycles (--cycles, or the profile's "
                                      "gpc__cycles_elapsed.max from ncu or `warpsim profile --cycles-model`); "
                                      "without cycles, the fewest explaining --cluster-variance of the variance.")
    plan.add_argument("profile", help="CSV from `warpsim profile` (or ncu --csv --page raw with its metrics)")
    plan.add_argument("--out", required=True, help="plan JSON to write")
    plan.add_argument("--target-error", default="5%", help="largest projection error, e.g. 5%% or 0.05 "
                                                           "(default: %(default)s)")
    plan.add_argument("--cycles", help="per-launch cycles to check projections against: a warpsim stats.json "
                                       "(all or the first launches); default: the profile's "
                                       "gpc__cycles_elapsed.max column if it has one")
    plan.add_argument("--warmup", type=int, default=0,
                      help="launches of each group simulated on their own (weight 1) before the one that stands "
                           "for the rest: the first launches of a kernel run with cold code and data "
                           "(default: %(default)s, the first launch represents its group)")
    plan.add_argument("--variance", type=float, default=0.95,
                      help="share of the feature variance the principal components keep (default: %(default)s)")
    plan.add_argument("--cluster-variance", type=float, default=0.95,
                      help="without cycles to check against: the smallest K whose groups explain this share of "
                           "the components' variance (default: %(default)s; 1 keeps the finest grouping)")


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".plan-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    # numpy only here: `warpsim tune` and the others parse their arguments without it.
    from .sampling import choose, parse_error, plan_json, read_cycles, read_profile
    try:
        target = parse_error(args.target_error)
    except ValueError:
        raise InputError("--target-error", f"'{args.target_error}' is not an error between 0 and 100%") from None
    if not 0 < args.variance <= 1:
        raise InputError("--variance", f"{args.variance} is not a share in (0, 1]")
    if not 0 < args.cluster_variance <= 1:
        raise InputError("--cluster-variance", f"{args.cluster_variance} is not a share in (0, 1]")
    if not 0 <= args.warmup <= 100:
        raise InputError("--warmup", f"{args.warmup} is not a number of launches in [0, 100]")
    profile = read_profile(args.profile)
    cycles = read_cycles(args.cycles, profile.names) if args.cycles else None
    plan, tried = choose(profile, target, args.variance, cycles, args.warmup, args.cluster_variance)
    doc = plan_json(profile, plan, target, tried, args.warmup, args.cluster_variance)
    _write_atomic(args.out, json.dumps(doc, indent=1) + "\n")
    launches = len(profile.names)
    print(f"{len(plan.weights)} groups for {launches} launches: {len(plan.weights)} to simulate "
          f"({100.0 * len(plan.weights) / launches:.1f}% of the launches)")
    print(f"{'group':>5} {'weight':>6} {'representative':>14}  name")
    for g in doc["groups"]:
        print(f"{g['group']:>5} {g['weight']:>6} {g['representative']:>14}  {g['name'][:60]}")
    if plan.error is None:
        print(f"projection not checked: no cycles for the representatives (give --cycles, or profile with "
              f"--cycles-model abstract); K = {plan.clusters}, the fewest k-means groups explaining "
              f"{100 * args.cluster_variance:g}% of the feature variance ({100 * plan.explained:.1f}%)")
    else:
        within = "within" if plan.error <= target else "NOT within"
        print(f"projected cycles {plan.projected:.0f} vs known {plan.known:.0f}: error "
              f"{100 * plan.error:.2f}% ({within} the target {100 * target:g}%)")
    print(f"wrote {args.out}")
    return 0
