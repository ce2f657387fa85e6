"""The sweep report's plots (matplotlib, PNG)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def _file(folder: Path, *parts: str) -> Path:
    tag = hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]
    safe = "-".join(p.replace("/", "_").replace(".", "_") for p in parts[:3] if p)[:60]
    return folder / f"{safe}-{tag}.png"


def _numeric(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def _axis_label(param: str, unit: str) -> str:
    return f"{param} ({unit})" if unit else param


def speedup_plot(rows: pd.DataFrame, param: str, unit: str, metric: str, baseline: str, folder: Path) -> Path | None:
    """Speedup versus one parameter: a dot per run, a line through the median at each value
    (the median over the other swept parameters), the baseline as a dashed line at 1. In a
    one-at-a-time study only the points that vary this parameter, and the baseline, are drawn."""
    varied = rows[~rows.baseline].varied
    one_at_a_time = len(varied) > 0 and not varied.str.contains(",").any()
    points = rows[(rows.varied == param) | rows.baseline] if one_at_a_time else rows[~rows.baseline]
    points = points[points[param].notna()]
    if points.empty:
        return None
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    numeric = _numeric(points[param])
    x = points[param] if numeric else points[param].astype(str)
    ax.scatter(x, points.speedup, s=14, alpha=0.5, label="one configuration")
    med = points.assign(_x=x).groupby("_x", sort=True).speedup.median()
    ax.plot(med.index, med.values, marker="o",
            label="median over repetitions" if one_at_a_time else "median over the other parameters")
    ax.axhline(1.0, linestyle="--", color="grey", label="baseline")
    base = rows[rows.baseline]
    if not base.empty and numeric and pd.notna(base[param].iloc[0]):
        ax.axvline(base[param].iloc[0], linestyle=":", color="grey")
    if numeric and points[param].min() > 0 and points[param].max() / points[param].min() >= 8:
        ax.set_xscale("log", base=2)
        levels = sorted(points[param].unique())
        if len(levels) <= 12:                       # label the swept values themselves, not powers of two
            ax.set_xticks(levels, [f"{v:g}" for v in levels])
            ax.minorticks_off()
    ax.set_xlabel(_axis_label(param, unit))
    ax.set_ylabel(f"speedup ({metric}: baseline / point)")
    ax.set_title(f"{rows.workload.iloc[0]}: speedup vs {param}", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = _file(folder, rows.workload.iloc[0], Path(rows.gpu.iloc[0]).name, param, baseline)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def heat_map(rows: pd.DataFrame, swept: list[str], units: dict, metric: str, baseline: str, folder: Path) -> Path:
    """Mean speedup over a two-parameter grid, each cell labelled with its value."""
    a, b = swept
    grid = rows[~rows.baseline].pivot_table(index=a, columns=b, values="speedup", aggfunc="mean")
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    im = ax.imshow(grid.values, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns], fontsize=8)
    ax.set_yticks(range(len(grid.index)), [str(i) for i in grid.index], fontsize=8)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            ax.text(j, i, f"{grid.values[i, j]:.2f}", ha="center", va="center", fontsize=7, color="white")
    ax.set_xlabel(_axis_label(b, units.get(b, "")))
    ax.set_ylabel(_axis_label(a, units.get(a, "")))
    fig.colorbar(im, ax=ax, label=f"speedup ({metric}: baseline / point)")
    ax.set_title(f"{rows.workload.iloc[0]}: speedup over {a} x {b}", fontsize=10)
    fig.tight_layout()
    path = _file(folder, rows.workload.iloc[0], Path(rows.gpu.iloc[0]).name, "heat", baseline)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
