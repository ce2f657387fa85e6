"""`warpsim correlate`: simulated runs against profiler measurements, per metric."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .accuracy import Accuracy, accuracy, errors
from .errors import InputError
from .mapping import Mapping, Metric, load_mapping
from .matching import Matching, Unmatched, match
from .ncu import looks_like_ncu, read_ncu
from .nvprof import looks_like_nvprof, read_nvprof
from .profiles import HwProfile
from .runs import Run, find_runs

READERS = {"ncu": read_ncu, "nvprof": read_nvprof}


@dataclass
class Correlation:
    sim: str
    hw: str
    mapping: Mapping
    profiles: list[HwProfile]
    matching: Matching
    values: pd.DataFrame                     # one row per (pair, metric): workload, kernel, launch, metric, hw, sim, error
    summary: dict[str, Accuracy]             # metric -> accuracy over every pair
    by_workload: dict[str, dict[str, Accuracy]] = field(default_factory=dict)

    def metrics(self) -> list[Metric]:
        present = set(self.values["metric"]) if len(self.values) else set()
        return [m for m in self.mapping.metrics if m.name in present]


def lookup(obj: dict, path: str):
    """obj['a']['b.c'] for 'a.b.c': keys may hold dots (ncu names), so try each split."""
    if path in obj:
        return obj[path]
    for i, c in enumerate(path):
        if c == "." and isinstance(obj.get(path[:i]), dict):
            found = lookup(obj[path[:i]], path[i + 1:])
            if found is not None:
                return found
    return None


def detect_format(path: str) -> str:
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = next(csv.reader([line]), [])
                if looks_like_ncu(fields):
                    return "ncu"
                if looks_like_nvprof(fields):
                    return "nvprof"
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    raise InputError(path, "neither an ncu nor an nvprof CSV header found (give --hw-format to say which)")


def _hw_files(hw: str, runs: list[Run]) -> tuple[dict[str, str], list[str]]:
    """workload -> CSV path, and CSVs that name no simulated workload."""
    p = Path(hw)
    if p.is_file():
        if len(runs) > 1:
            raise InputError(hw, f"one CSV for {len(runs)} simulated workloads: give --hw a folder holding "
                             f"<workload>.csv for each ({', '.join(r.workload for r in runs)})")
        return {runs[0].workload: hw}, []
    if not p.is_dir():
        raise InputError(hw, "no such file or folder")
    csvs = {f.stem: str(f) for f in sorted(p.glob("*.csv"))}
    if not csvs:
        raise InputError(hw, "holds no .csv file")
    names = {r.workload for r in runs}
    return {w: f for w, f in csvs.items() if w in names}, [f for w, f in csvs.items() if w not in names]


def _sim_value(run: Run, kernel: dict, metric: Metric) -> float | None:
    value = lookup(kernel, metric.sim)
    if value is None and metric.optional:
        return None
    if value is None:
        raise InputError(run.path, f"kernel '{kernel.get('name')}' has no '{metric.sim}' (from metric "
                         f"'{metric.name}' in the mapping)")
    for divisor in (lookup(run.stats, metric.sim_divide_by) if metric.sim_divide_by else 1,
                    lookup(kernel, metric.sim_per) if metric.sim_per else 1):
        if not divisor:
            return None
        value = value / divisor
    return value * metric.sim_multiply


def _pair_values(run: Run, pair, profile: HwProfile, mapping: Mapping) -> dict[str, tuple[float, float]]:
    """metric -> (hw, sim) for one pair, ratios included."""
    out: dict[str, tuple[float, float]] = {}
    for m in mapping.measured():
        hw = pair.hw.values.get(m.name)
        if hw is None:
            continue
        if profile.format == "nvprof" and m.nvprof_divide_by:
            hw = hw / lookup(run.stats, m.nvprof_divide_by)
        sims = [_sim_value(run, run.kernels[i], m) for i in pair.sim]
        if any(s is None for s in sims):
            continue
        out[m.name] = (hw, sum(sims) / len(sims))
    for m in mapping.metrics:
        if m.ratio and all(p in out for p in m.ratio):
            (hw_a, sim_a), (hw_b, sim_b) = out[m.ratio[0]], out[m.ratio[1]]
            if hw_b and sim_b:
                out[m.name] = (hw_a / hw_b, sim_a / sim_b)
    return out


def _values_frame(runs: dict[str, Run], profiles: dict[str, HwProfile], matching: Matching,
                  mapping: Mapping) -> pd.DataFrame:
    kinds = {m.name: m.kind for m in mapping.metrics}
    rows = []
    for pair in matching.pairs:
        run, profile = runs[pair.workload], profiles[pair.workload]
        launch = ",".join(str(i) for i in pair.sim)
        for metric, (hw, sim) in _pair_values(run, pair, profile, mapping).items():
            rows.append({"workload": pair.workload, "kernel": pair.hw.name, "launch": launch,
                         "hw_line": pair.hw.line, "metric": metric, "hw": hw, "sim": sim})
    frame = pd.DataFrame(rows, columns=["workload", "kernel", "launch", "hw_line", "metric", "hw", "sim"])
    frame["error"] = float("nan")
    for metric, group in frame.groupby("metric"):
        frame.loc[group.index, "error"] = errors(group["hw"].to_numpy(float), group["sim"].to_numpy(float),
                                                 kinds[metric])
    return frame


def _check_matching(matching: Matching, profiles: dict[str, HwProfile], allow_unmatched: bool) -> None:
    hint = f"({len(matching.unmatched)} unmatched in all; pass --allow-unmatched to correlate the rest)"
    if matching.unmatched and not allow_unmatched:
        u = matching.unmatched[0]
        what = "kernel" if u.side == "hw" else "simulated kernel"
        raise InputError(u.path, f"{what} '{u.name}': {u.reason} {hint}", u.line, u.column)
    if not matching.pairs:
        raise InputError(", ".join(p.path for p in profiles.values()) or "--hw",
                         "no measured kernel matches a simulated one")


def correlate(sim: str, hw: str, hw_format: str = "auto", mapping_path: str | None = None,
              allow_unknown: bool = False, allow_unmatched: bool = False) -> Correlation:
    mapping = load_mapping(mapping_path) if mapping_path else load_mapping()
    runs = {r.workload: r for r in find_runs(sim)}
    files, orphans = _hw_files(hw, list(runs.values()))
    matching = Matching()
    for f in orphans:
        matching.unmatched.append(_orphan(f, "hw", "no simulated workload of that name under " + sim))
    profiles: dict[str, HwProfile] = {}
    for workload, run in runs.items():
        if not run.stats.get("complete", True):
            matching.notes.append(f"{run.path}: the simulation stopped early ({run.stats.get('error')}); "
                                  f"it holds only the {len(run.kernels)} kernels that finished")
        if workload not in files:
            matching.unmatched.append(_orphan(run.path, "sim", f"no {workload}.csv in {hw}"))
            continue
        fmt = detect_format(files[workload]) if hw_format == "auto" else hw_format
        profiles[workload] = READERS[fmt](files[workload], mapping, allow_unknown)
        match(run, profiles[workload], matching)
    _check_matching(matching, profiles, allow_unmatched)
    values = _values_frame(runs, profiles, matching, mapping)
    summary = {m: _accuracy(values[values.metric == m], mapping) for m in values["metric"].unique()}
    by_workload = {w: {m: _accuracy(g[g.metric == m], mapping) for m in g["metric"].unique()}
                   for w, g in values.groupby("workload", sort=False)}
    return Correlation(sim, hw, mapping, list(profiles.values()), matching, values, summary, by_workload)


def _orphan(path: str, side: str, reason: str) -> Unmatched:
    return Unmatched(side, path, None, Path(path).name, reason)


def _accuracy(rows: pd.DataFrame, mapping: Mapping) -> Accuracy:
    name = rows["metric"].iloc[0] if len(rows) else None
    kind = mapping.by_name(name).kind if name else "count"
    return accuracy(rows["hw"].to_numpy(), rows["sim"].to_numpy(), kind)


def format_value(value: float, digits: int = 1) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.{digits}f}"
