"""A sweep study as pandas DataFrames: one row per run, or one per kernel launch."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from . import sweep_db as sdb

RUN_FIELDS = ("key", "workload", "gpu", "rep", "status", "error", "exit_code", "wall_seconds", "host",
              "config_hash", "spec_hash", "started", "finished", "out_dir")


def load_study(folder: str | Path) -> pd.DataFrame:
    """One row per recorded run: its identity and status, `varied` (the swept parameters this point sets,
    comma-separated), `baseline` (it sets none), a column per
    swept parameter holding the value the simulator used (from the run's effective config), and a
    column per stats.json figure (`cycles`, `ipc`, `l2.hits`, `counters.<name>`, ...)."""
    db = sdb.connect(folder)
    runs = pd.read_sql_query(f"SELECT {', '.join(RUN_FIELDS)}, set_json, params_json FROM runs", db)
    runs["varied"] = [",".join(sorted(json.loads(v))) for v in runs.pop("set_json")]
    runs["baseline"] = runs.varied == ""
    params = pd.DataFrame([json.loads(p) if p else {} for p in runs.pop("params_json")], index=runs.index)
    metrics = pd.read_sql_query("SELECT key, name, value FROM metrics", db)
    wide = metrics.pivot(index="key", columns="name", values="value") if len(metrics) else pd.DataFrame()
    wide = wide.drop(columns=[c for c in wide.columns if c in params.columns or c in runs.columns])
    df = pd.concat([runs, params], axis=1).merge(wide, left_on="key", right_index=True, how="left")
    order = dict(db.execute("SELECT key, ordinal FROM points").fetchall())
    df["_order"] = df.key.map(order).fillna(len(order))
    df = df.sort_values(["_order", "key"]).drop(columns="_order").reset_index(drop=True)
    df.attrs["study"] = str(folder)
    df.attrs["swept"] = list(params.columns)
    return df


def per_kernel(df: pd.DataFrame) -> pd.DataFrame:
    """A run table from load(study) expanded to one row per kernel launch (the run's identity and
    swept values repeated, the kernel's figures as in warpsim.load of a plain folder). A table that is
    already one row per launch (load of plain output folders) comes back as it is."""
    if "launch" in df.columns or "study" not in df.attrs:
        return df
    from .runs import Run, kernels_frame
    db = sdb.connect(df.attrs["study"])
    stats = dict(db.execute("SELECT key, stats_json FROM runs WHERE stats_json IS NOT NULL").fetchall())
    keep = ["key", "workload", "gpu", "rep", "status", "varied", "baseline", *df.attrs.get("swept", [])]
    frames = []
    for _, row in df[keep].iterrows():
        if row.key not in stats:
            continue
        k = kernels_frame(Run(row.workload, row.key, json.loads(stats[row.key])))
        for col in keep:
            if col != "workload":
                k[col] = row[col]
        frames.append(k)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=keep)
