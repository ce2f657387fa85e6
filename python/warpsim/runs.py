"""Simulated runs: warpsim's stats.json files as pandas DataFrames (docs/stats.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .errors import InputError

SCHEMA = "warpsim-stats/1"


@dataclass
class Run:
    workload: str        # the run folder's name
    path: str            # its stats.json
    stats: dict          # the whole file

    @property
    def kernels(self) -> list[dict]:
        return self.stats["kernels"]


def read_run(folder: str | Path, workload: str | None = None) -> Run:
    folder = Path(folder)
    path = folder / "stats.json" if folder.is_dir() else folder
    try:
        stats = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise InputError(path, f"not JSON: {e.msg}", e.lineno) from None
    if not isinstance(stats, dict) or stats.get("schema") != SCHEMA:
        raise InputError(path, f"not a warpsim stats file (expected \"schema\": \"{SCHEMA}\")")
    name = workload or (folder.name if folder.is_dir() else folder.parent.name)
    return Run(name, str(path), stats)


def find_runs(sim: str | Path) -> list[Run]:
    """`sim` is one run folder (it holds stats.json) or a folder of run folders, one per workload."""
    sim = Path(sim)
    if sim.is_file() or (sim / "stats.json").is_file():
        return [read_run(sim)]
    if not sim.is_dir():
        raise InputError(sim, "no such folder")
    runs = [read_run(d) for d in sorted(sim.iterdir()) if (d / "stats.json").is_file()]
    if not runs:
        raise InputError(sim, "holds no stats.json, and no folder under it does (run `warpsim run ... --out DIR`)")
    return runs


def _flatten(prefix: str, obj, row: dict) -> None:
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(name + ".", value, row)
        elif isinstance(value, list):
            row[name] = tuple(value)
        else:
            row[name] = value


def kernels_frame(run: Run) -> pd.DataFrame:
    """One row per kernel launch, in launch order; nested objects become dotted columns
    (`l2.hits`, `ncu.dram__sectors_read.sum`)."""
    rows = []
    for index, kernel in enumerate(run.kernels):
        row = {"workload": run.workload, "launch": index}
        _flatten("", kernel, row)
        rows.append(row)
    return pd.DataFrame(rows)


def load(path: str | Path) -> pd.DataFrame:
    """All kernel launches under `path` (one run folder, a stats.json, or a folder of run folders)."""
    frames = [kernels_frame(r) for r in find_runs(path)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
