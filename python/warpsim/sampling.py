"""Principal kernel selection (docs/sampling.md): group kernel launches by their
features, keep one representative per group, weigh it by the group's size.

Standardise the features, project them on the principal components that explain
a set share of their variance, cluster with k-means for K = 1..20 (groups split
by kernel name), and keep the smallest K whose projected total cycles are within
the target error of the known cycles; without known cycles, the smallest K whose
groups explain a set share of the variance. Every step is deterministic: k-means starts from farthest-first
seeds that begin at the first launch, and ties go to the earlier launch.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field

import numpy as np

from .csvfile import parse_dims
from .errors import InputError

# The features `warpsim profile` writes (Nsight Compute names); a profile of a
# real GPU (ncu --csv --page raw with these metrics) reads the same way.
FEATURES = [
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "smsp__sass_thread_inst_executed_op_global_ld.sum",
    "smsp__sass_thread_inst_executed_op_global_st.sum",
    "smsp__sass_thread_inst_executed_op_local_ld.sum",
    "smsp__sass_thread_inst_executed_op_local_st.sum",
    "smsp__sass_thread_inst_executed_op_shared_ld.sum",
    "smsp__sass_thread_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "launch__grid_size",
]
CYCLES = "gpc__cycles_elapsed.max"
MAX_GROUPS = 20


@dataclass
class Profile:
    path: str
    names: list[str]
    features: np.ndarray                      # launches x FEATURES (NaN rows: launches profiled cheaply)
    cycles: dict[int, float] = field(default_factory=dict)  # launch index (0-based) -> cycles, where known
    # Two-level profiles (`warpsim profile --full-launches J`): which launches
    # have their features, and every launch's (grid, block) sizes in threads
    # and CTAs, the cheap features the others are classified by.
    full: np.ndarray | None = None
    shapes: np.ndarray | None = None         # launches x 2: CTAs, threads per CTA


def _shape(path, line, values) -> list[float]:
    """(CTAs, threads per CTA) of a row, from its Grid Size and Block Size."""
    shape = []
    for column in ("Grid Size", "Block Size"):
        dims = parse_dims(values.get(column, ""))
        if dims is None:
            raise InputError(path, f"'{values.get(column, '')}' is not a size like (16, 1, 1) (a launch without "
                             "features is classified by its grid and block)", line, column)
        shape.append(float(dims[0] * dims[1] * dims[2]))
    return shape


def _number(path, line, column, text) -> float:
    try:
        value = float(text.replace(",", "")) if text.strip() else math.nan
    except ValueError:
        raise InputError(path, f"'{text}' is not a number", line, column) from None
    if not math.isfinite(value) or value < 0:
        raise InputError(path, f"'{text}' is not a non-negative number", line, column)
    return value


def read_profile(path: str) -> Profile:
    """Reads `warpsim profile` CSV (or ncu raw CSV with the same metric names)."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            # (line number in the file, text): ncu's ==PROF== lines are not rows but count for messages.
            lines = [(n, ln) for n, ln in enumerate(f.read().splitlines(), start=1)
                     if ln.strip() and not ln.startswith("==")]
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    if not lines:
        raise InputError(path, "empty file: expected a header with 'Kernel Name' and the feature metrics")
    header = next(csv.reader([lines[0][1]]))
    missing = [c for c in ["Kernel Name", *FEATURES] if c not in header]
    if missing:
        raise InputError(path, "missing columns: " + ", ".join(missing) +
                         " (write the profile with `warpsim profile`, or ncu with these metrics)", lines[0][0])
    names, rows, cycles, full, shapes = [], [], {}, [], []
    for number, text in lines[1:]:
        values = dict(zip(header, next(csv.reader([text]))))
        if not values.get("ID", "x").strip():
            continue  # ncu's units row
        names.append(values["Kernel Name"])
        # A row with every feature empty was profiled cheaply (two-level profile).
        cheap = all(not values.get(c, "").strip() for c in FEATURES)
        full.append(not cheap)
        shapes.append(_shape(path, number, values) if cheap or "Grid Size" in values else [math.nan, math.nan])
        rows.append([math.nan] * len(FEATURES) if cheap else
                    [_number(path, number, c, values.get(c, "")) for c in FEATURES])
        if not cheap:
            bad = [c for c, v in zip(FEATURES, rows[-1]) if math.isnan(v)]
            if bad:
                raise InputError(path, "empty value", number, bad[0])
        if CYCLES in values and values[CYCLES].strip():
            cycles[len(names) - 1] = _number(path, number, CYCLES, values[CYCLES])
    if not rows:
        raise InputError(path, "no kernel launches listed")
    if not any(full):
        raise InputError(path, "no launch has its features (a two-level profile gives them for the first launches)")
    return Profile(path, names, np.array(rows, dtype=float), cycles, np.array(full), np.array(shapes, dtype=float))


def classify(profile: Profile, labels_full: np.ndarray) -> np.ndarray:
    """Labels for every launch, given those of the launches with features.

    A launch profiled cheaply joins the group of the nearest centroid, in
    log CTAs and log threads per CTA, among the groups holding launches of
    its kernel name; a name no such group holds makes a group of its own.
    Groups are numbered again by their first launch.
    """
    full = profile.full if profile.full is not None else np.ones(len(profile.names), dtype=bool)
    if full.all():
        return labels_full
    labels = np.full(len(profile.names), -1, dtype=int)
    labels[np.flatnonzero(full)] = labels_full
    cheap = np.log1p(profile.shapes)
    centroids: dict[str, list[tuple[int, np.ndarray]]] = {}
    for g in range(int(labels_full.max()) + 1):
        members = np.flatnonzero(labels == g)
        for name in dict.fromkeys(profile.names[i] for i in members):
            same = [i for i in members if profile.names[i] == name]
            centroids.setdefault(name, []).append((g, cheap[same].mean(axis=0)))
    unseen: dict[str, int] = {}
    for i in np.flatnonzero(~full):
        options = centroids.get(profile.names[i])
        if not options:
            labels[i] = unseen.setdefault(profile.names[i], int(labels_full.max()) + 1 + len(unseen))
            continue
        distances = [float(np.sum((cheap[i] - c) ** 2)) for _, c in options]
        labels[i] = options[int(np.argmin(distances))][0]  # ties: the earlier group
    order: dict[int, int] = {}
    for label in labels:
        order.setdefault(int(label), len(order))
    return np.array([order[int(label)] for label in labels])


def read_cycles(path: str, names: list[str]) -> dict[int, float]:
    """Per-launch cycles from a simulated run's stats.json (kernels in launch order)."""
    try:
        with open(path, encoding="utf-8") as f:
            stats = json.load(f)
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise InputError(path, f"not JSON: {e.msg}", e.lineno) from None
    kernels = stats.get("kernels") if isinstance(stats, dict) else None
    if not isinstance(kernels, list):
        raise InputError(path, "no 'kernels' list (expected a warpsim stats.json)")
    cycles = {}
    for i, k in enumerate(kernels):
        if i >= len(names):
            raise InputError(path, f"kernel {i + 1} is beyond the profile's {len(names)} launches")
        if k.get("name") not in (names[i], None) and k.get("mangled_name") != names[i]:
            raise InputError(path, f"kernel {i + 1} is '{k.get('name')}', the profile's launch {i + 1} is "
                             f"'{names[i]}': not the same workload")
        if k.get("complete", True) and "cycles" in k:
            cycles[i] = float(k["cycles"])
    return cycles


def principal_components(features: np.ndarray, variance: float) -> np.ndarray:
    """Standardised features projected on the components explaining `variance` of it."""
    x = np.log1p(features)  # counts span orders of magnitude
    std = x.std(axis=0)
    keep = std > 1e-12
    if not keep.any():
        return np.zeros((len(features), 1))
    z = (x[:, keep] - x[:, keep].mean(axis=0)) / std[keep]
    u, s, _ = np.linalg.svd(z, full_matrices=False)
    share = np.cumsum(s ** 2) / np.sum(s ** 2)
    n = int(np.searchsorted(share, variance - 1e-12) + 1)
    # Signs of singular vectors are arbitrary; fix them so results do not depend on the LAPACK build.
    scores = u[:, :n] * s[:n]
    for j in range(n):
        pivot = np.argmax(np.abs(scores[:, j]))
        if scores[pivot, j] < 0:
            scores[:, j] = -scores[:, j]
    return scores


def kmeans(points: np.ndarray, k: int, iterations: int = 100) -> np.ndarray:
    """Labels 0..k-1 numbered by first appearance; farthest-first seeds from point 0."""
    seeds = [0]
    dist = np.sum((points - points[0]) ** 2, axis=1)
    # Launches with equal features may differ in the last bits after the
    # projection: closer than this they count as one point.
    same = 1e-18 + 1e-12 * float(np.sum(points ** 2)) / max(len(points), 1)
    while len(seeds) < k:
        nxt = int(np.argmax(dist))  # first index among equals
        if dist[nxt] <= same:
            break  # fewer distinct points than k
        seeds.append(nxt)
        dist = np.minimum(dist, np.sum((points - points[nxt]) ** 2, axis=1))
    centres = points[seeds].copy()
    labels = np.zeros(len(points), dtype=int)
    for _ in range(iterations):
        d = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = np.argmin(d, axis=1)
        if np.array_equal(new, labels) and _ > 0:
            break
        labels = new
        for c in range(len(centres)):
            members = points[labels == c]
            if len(members):
                centres[c] = members.mean(axis=0)
    order = {}
    for label in labels:
        order.setdefault(int(label), len(order))
    return np.array([order[int(label)] for label in labels])


def split_warmup(labels: np.ndarray, warmup: int) -> np.ndarray:
    """The first `warmup` launches of each group become groups of their own.

    A kernel's first launches run with its code and data cold; a representative
    chosen among them would carry that cost to every launch it stands for.
    Simulated on their own (weight 1) they count once, as they do in the
    program, and the next launch of the group stands for the rest.
    Groups are numbered again by their first launch.
    """
    if warmup <= 0:
        return labels
    seen: dict[int, int] = {}
    split = np.empty(len(labels), dtype=int)
    for i, label in enumerate(labels):
        n = seen.get(int(label), 0)
        seen[int(label)] = n + 1
        # Warm-up launch n of group g: its own key; the rest share the group's.
        split[i] = -(int(label) * (warmup + 1) + n + 1) if n < warmup else int(label)
    order: dict[int, int] = {}
    for key in split:
        order.setdefault(int(key), len(order))
    return np.array([order[int(key)] for key in split])


@dataclass
class Plan:
    labels: np.ndarray
    representatives: list[int]   # launch index (0-based) of each group's first member
    weights: list[int]
    projected: float | None = None
    known: float | None = None
    clusters: int = 0                # k-means K (groups before splits by name and warm-up)
    explained: float | None = None   # share of the feature variance the k-means groups explain
    criterion: str = ""              # what chose it: target_error, finest or cluster_variance

    @property
    def error(self) -> float | None:
        if self.projected is None or not self.known:
            return None
        return abs(self.projected - self.known) / self.known


def plan_for(labels: np.ndarray, cycles: dict[int, float]) -> Plan:
    groups = int(labels.max()) + 1
    reps = [int(np.argmax(labels == g)) for g in range(groups)]
    weights = [int(np.sum(labels == g)) for g in range(groups)]
    plan = Plan(labels, reps, weights)
    if cycles and all(r in cycles for r in reps):
        known = [i for i in cycles]
        # Each launch with known cycles is estimated by its representative's.
        plan.known = sum(cycles[i] for i in known)
        plan.projected = sum(cycles[reps[labels[i]]] for i in known)
    return plan


def explained(points: np.ndarray, labels: np.ndarray) -> float:
    """Share of the points' variance that the grouping explains: 1 - within-group / total sum of squares."""
    total = float(np.sum((points - points.mean(axis=0)) ** 2))
    if total <= 0:
        return 1.0
    within = sum(float(np.sum((points[labels == g] - points[labels == g].mean(axis=0)) ** 2))
                 for g in range(int(labels.max()) + 1))
    return 1.0 - within / total


def split_names(labels: np.ndarray, names: list[str]) -> np.ndarray:
    """Each group split by kernel name (groups numbered again by first launch).

    Two kernels whose counts look alike (a blur and a Sobel filter over the
    same image) run different code: without cycles nothing would tell them
    apart, and with a model's cycles (`profile --cycles-model`) the model's
    error differs from kernel to kernel, so two kernels it times alike may
    not be alike. Launches of one kernel share its code and the model's bias."""
    order: dict[tuple[int, str], int] = {}
    return np.array([order.setdefault((int(label), names[i]), len(order)) for i, label in enumerate(labels)])


def choose(profile: Profile, target_error: float, variance: float = 0.95,
           cycles: dict[int, float] | None = None, warmup: int = 0,
           cluster_variance: float = 0.95) -> tuple[Plan, list[Plan]]:
    """The plan with the fewest groups within the target error, and every plan tried.

    Groups never mix kernel names (split_names). `warmup`: launches of each
    group simulated on their own before its representative (split_warmup).
    When no plan can be checked against cycles, K is the smallest whose
    k-means groups explain `cluster_variance` of the principal components'
    variance (`Plan.criterion` says which rule chose)."""
    known = cycles if cycles is not None else profile.cycles
    full = profile.full if profile.full is not None else np.ones(len(profile.names), dtype=bool)
    scores = principal_components(profile.features[full], variance)
    tried, clusters = [], 0
    for k in range(1, min(MAX_GROUPS, len(scores)) + 1):
        labels = kmeans(scores, k)
        if int(labels.max()) + 1 <= clusters:
            break  # no more distinct groups to find
        clusters = int(labels.max()) + 1
        plan = plan_for(split_warmup(split_names(classify(profile, labels), profile.names), warmup), known)
        plan.explained, plan.clusters = explained(scores, labels), clusters
        tried.append(plan)
        if plan.error is not None and plan.error <= target_error:
            plan.criterion = "target_error"
            return plan, tried
    if any(p.error is not None for p in tried):
        # No grouping met the target: the finest one found, one group per
        # distinct behaviour; a coarser grouping that lands closer by chance
        # is not trusted.
        plan = tried[-1]
        plan.criterion = "finest"
    else:
        # Nothing could be checked: the smallest K explaining the share asked for.
        plan = next(p for p in tried if p.explained >= cluster_variance - 1e-12 or p is tried[-1])
        plan.criterion = "cluster_variance"
    return plan, tried


def plan_json(profile: Profile, plan: Plan, target_error: float, tried: list[Plan], warmup: int = 0,
              cluster_variance: float | None = None) -> dict:
    groups = []
    for g, (rep, weight) in enumerate(zip(plan.representatives, plan.weights)):
        members = [int(i) + 1 for i in np.flatnonzero(plan.labels == g)]
        groups.append({"group": g, "representative": rep + 1, "weight": weight,
                       "name": profile.names[rep], "members": members})
    return {
        "version": 1,
        "profile": profile.path,
        "launches": len(profile.names),
        "names": profile.names,
        "target_error": target_error,
        "warmup": warmup,
        "cluster_variance": cluster_variance,
        "criterion": plan.criterion,
        "explained": plan.explained,
        "projected_error": plan.error,
        "groups": groups,
        "clusters": plan.clusters,
        "tried": [{"clusters": p.clusters, "groups": len(p.weights), "error": p.error, "explained": p.explained}
                  for p in tried],
    }


def parse_error(text: str) -> float:
    t = text.strip()
    value = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    if not 0 < value < 1:
        raise ValueError
    return value
