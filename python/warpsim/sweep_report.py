"""`warpsim sweep report`: the study's runs as CSV, and an HTML page with plots
(speedup versus each swept parameter per workload, heat maps for
two-parameter grids, the best configuration per workload)."""

from __future__ import annotations

import html
import math
from pathlib import Path

import pandas as pd

from .errors import InputError
from .sweep_load import load_study


def units_of(names: list[str]) -> dict[str, str]:
    """Each parameter's unit from the simulator's catalogue ('' when no simulator is at hand)."""
    try:
        from .sweep_params import Catalogue, warpsim_binary
        cat = Catalogue.from_binary(warpsim_binary())
    except (RuntimeError, OSError):
        return {n: "" for n in names}
    return {n: (cat.find(n).unit if cat.find(n) else "") for n in names}


def with_speedup(df: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, dict[tuple, str]]:
    """Adds `speedup` = baseline metric / metric per (workload, gpu). The baseline is the run of the
    base preset with nothing swept set; without one, the first planned point. Returns the frame and,
    per (workload, gpu), how its baseline is described."""
    df = df.copy()
    df["speedup"] = math.nan
    labels = {}
    for (w, g), rows in df[df.status == "done"].groupby(["workload", "gpu"], sort=False):
        base = rows[rows.baseline]
        label = f"the base preset {Path(g).name} as it is"
        if base.empty:
            base = rows.iloc[:1]
            label = "the first point of the design (" + ", ".join(
                f"{p}={base.iloc[0][p]}" for p in df.attrs["swept"]) + ")"
        ref = base[metric].mean()
        df.loc[rows.index, "speedup"] = ref / rows[metric]
        labels[(w, g)] = f"{label}: {metric} {ref:,.0f}"
    return df, labels


def write_report(study: Path, html_path: str | None, csv_path: str | None, metric: str) -> int:
    df = load_study(study)
    done = df[df.status == "done"]
    if done.empty:
        raise InputError(study, "no finished runs to report (`warpsim sweep status` says why)")
    if metric not in df.columns:
        raise InputError(study, f"no figure '{metric}' in the runs (e.g. cycles, elapsed_cycles, ipc)")
    swept = df.attrs["swept"]
    out_html = Path(html_path or study / "report.html")
    out_csv = Path(csv_path or out_html.with_suffix(".csv"))
    figures = out_html.with_name(out_html.stem + "_files")
    figures.mkdir(parents=True, exist_ok=True)
    df, labels = with_speedup(df, metric)
    df.to_csv(out_csv, index=False)
    units = units_of(swept)
    from .sweep_plots import heat_map, speedup_plot
    sections = []
    for (w, g), rows in df[df.status == "done"].groupby(["workload", "gpu"], sort=False):
        images = [speedup_plot(rows, p, units[p], metric, labels[(w, g)], figures) for p in swept]
        if len(swept) == 2 and _is_grid(rows, swept):
            images.append(heat_map(rows, swept, units, metric, labels[(w, g)], figures))
        sections.append(_section(w, g, labels[(w, g)], [i for i in images if i], out_html.parent))
    page = _page(df, swept, units, metric, sections, out_csv, out_html.parent)
    out_html.write_text(page, encoding="utf-8")
    print(f"wrote {out_html} and {out_csv} ({len(done)} finished runs of {len(df)})")
    return 0


def _is_grid(rows: pd.DataFrame, swept: list[str]) -> bool:
    r = rows[~rows.baseline]
    return len(r.groupby(swept).size()) == r[swept[0]].nunique() * r[swept[1]].nunique()


def best_table(df: pd.DataFrame, swept: list[str], metric: str) -> pd.DataFrame:
    """Per workload and preset: the finished configuration with the lowest metric (mean over repetitions)."""
    done = df[df.status == "done"]
    means = done.groupby(["workload", "gpu", *swept], dropna=False, sort=False)[[metric, "speedup"]].mean()
    best = means.reset_index().sort_values(metric).groupby(["workload", "gpu"], sort=False).head(1)
    best["gpu"] = best.gpu.map(lambda g: Path(g).name)
    return best.sort_values(["workload", "gpu"]).reset_index(drop=True)


def _section(workload: str, gpu: str, label: str, images: list[Path], root: Path) -> str:
    imgs = "".join(f'<img src="{html.escape(str(i.relative_to(root)))}" alt="{html.escape(i.stem)}">'
                   for i in images)
    return (f"<h2>{html.escape(workload)} on {html.escape(Path(gpu).name)}</h2>"
            f"<p>Speedup = baseline / this point; baseline: {html.escape(label)}.</p>{imgs}")


def _number(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.3f}"


def _page(df, swept, units, metric, sections, out_csv, root) -> str:
    counts = df.status.value_counts().to_dict()
    params = "".join(f"<li><code>{html.escape(p)}</code> {html.escape(units[p]) or '(no unit)'}</li>" for p in swept)
    best = best_table(df, swept, metric).to_html(index=False, float_format=_number)
    failed = df[df.status != "done"][["workload", "gpu", "status", "error"]]
    failed_html = failed.to_html(index=False) if len(failed) else "<p>none</p>"
    csv_link = str(out_csv.relative_to(root)) if out_csv.is_relative_to(root) else str(out_csv)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>warpsim sweep report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:auto}} img{{max-width:48%;margin:4px}}
table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:2px 6px}}</style></head><body>
<h1>warpsim sweep report: {html.escape(df.attrs['study'])}</h1>
<p>Runs: {', '.join(f'{v} {k}' for k, v in counts.items())}. Every run: <a href="{html.escape(csv_link)}">CSV</a>.
The figure is <code>{html.escape(metric)}</code> summed over the workload's kernels
(<code>cycles</code>: core clock cycles from each kernel's first CTA to its end, launch gaps excluded;
docs/stats.md); lower is better, so speedup above 1 means faster than the baseline.</p>
<p>Swept parameters (values are those the simulator used, from each run's effective config):</p><ul>{params}</ul>
<h2>Best configuration per workload</h2>{best}
{''.join(sections)}
<h2>Runs that did not finish</h2>{failed_html}
</body></html>
"""
