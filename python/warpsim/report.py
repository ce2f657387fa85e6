"""The correlation report: a text summary, an HTML page with scatter plots, a per-kernel CSV.

Files are written to a temporary name beside the target and renamed at the
end, so a failed run never leaves a half-written report.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: plots only go to files
import matplotlib.pyplot as plt  # noqa: E402

from .correlate import Correlation, format_value  # noqa: E402
from .mapping import Metric  # noqa: E402


def mae_unit(metric: Metric) -> str:
    return {"count": "%", "percent": " pts"}.get(metric.kind, " " + metric.unit)


def summary_rows(c: Correlation) -> list[list[str]]:
    rows = []
    for m in c.metrics():
        a = c.summary[m.name]
        digits = 2 if m.kind == "difference" else 1
        rows.append([m.name, m.unit, str(a.n), format_value(a.mae, digits) + mae_unit(m),
                     format_value(a.nrmse, 3), format_value(a.pearson, 3)])
    return rows


SUMMARY_HEADER = ["metric", "unit", "kernels", "MAE", "NRMSE", "Pearson r"]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def text_summary(c: Correlation) -> str:
    rows = [SUMMARY_HEADER] + summary_rows(c)
    widths = [max(len(r[i]) for r in rows) for i in range(len(SUMMARY_HEADER))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths)))
             for r in rows]
    lines.append(f"matched {_count(len(c.matching.pairs), 'kernel')} in {_count(len(c.by_workload), 'workload')}; "
                 f"{len(c.matching.unmatched)} unmatched")
    return "\n".join(lines) + "\n"


def scatter_png(c: Correlation, metric: Metric) -> bytes:
    """Hardware on x, simulation on y, the x = y line; log axes for counts, linear 0-100 for percentages."""
    rows = c.values[c.values.metric == metric.name]
    fig, ax = plt.subplots(figsize=(4.2, 4.0), dpi=100)
    log = metric.kind == "count"
    if log:
        rows = rows[(rows.hw > 0) & (rows.sim > 0)]   # log axes have no place for 0
    for workload, g in rows.groupby("workload", sort=False):
        ax.scatter(g["hw"], g["sim"], s=14, label=workload)
    if log and len(rows):
        lo, hi = min(rows.hw.min(), rows.sim.min()) / 1.5, max(rows.hw.max(), rows.sim.max()) * 1.5
        ax.set_xscale("log")
        ax.set_yscale("log")
    else:
        lo, hi = 0.0, 100.0 if metric.kind == "percent" else max(1.0, rows.hw.max(), rows.sim.max())
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"hardware ({metric.unit})")
    ax.set_ylabel(f"warpsim ({metric.unit})")
    ax.set_title(metric.title, fontsize=10)
    if rows["workload"].nunique() > 1:
        ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _workload_rows(c: Correlation) -> tuple[list[str], list[list[str]]]:
    metrics = c.metrics()
    header = ["workload", "kernels"] + [f"{m.name} MAE" for m in metrics]
    rows = []
    for workload, by_metric in c.by_workload.items():
        n = sum(1 for p in c.matching.pairs if p.workload == workload)
        cells = [format_value(by_metric[m.name].mae) + mae_unit(m) if m.name in by_metric else ""
                 for m in metrics]
        rows.append([workload, str(n)] + cells)
    return header, rows


def _number(x: float) -> str:
    """Counts in full with separators (12,345), other values to four significant digits."""
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:,.4g}"


def _kernel_rows(c: Correlation) -> list[list[str]]:
    kinds = {m.name: m.kind for m in c.mapping.metrics}
    rows = []
    for r in c.values.itertuples():
        kind = kinds[r.metric]
        err = ("n/a" if math.isnan(r.error) else f"{100 * r.error:+.1f}%" if kind == "count"
               else f"{r.error:+.1f} pts" if kind == "percent" else f"{r.error:+.2f}")
        rows.append([r.workload, r.launch, r.kernel, r.metric, _number(r.hw), _number(r.sim), err])
    return rows


STYLE = ("body{font-family:sans-serif;margin:2em;color:#222} table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right} td:first-child{text-align:left}"
         "figure{display:inline-block;margin:0.5em}")


def _caption(c: Correlation, metric: Metric) -> str:
    rows = c.values[c.values.metric == metric.name]
    zeros = int(((rows.hw <= 0) | (rows.sim <= 0)).sum()) if metric.kind == "count" else 0
    hidden = f"{_count(zeros, 'kernel')} with a zero value not shown" if zeros else ""
    return "; ".join(t for t in (metric.note, hidden) if t)


def html_report(c: Correlation) -> str:
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>warpsim correlation</title>"
             f"<style>{STYLE}</style></head><body><h1>warpsim correlation</h1>",
             f"<p>Simulated: <code>{html.escape(c.sim)}</code>; measured: <code>{html.escape(c.hw)}</code> "
             f"({', '.join(sorted({p.format for p in c.profiles}))}); metric mapping: "
             f"<code>{html.escape(c.mapping.path)}</code>.</p>",
             "<p>MAE is the mean absolute relative error for counts and the mean absolute difference in "
             "percentage points for rates; NRMSE is the root-mean-square error over the mean measured value.</p>",
             "<h2>Summary</h2>", _table(SUMMARY_HEADER, summary_rows(c)),
             "<h2>Per workload</h2>", _table(*_workload_rows(c)), "<h2>Scatter plots</h2>"]
    for m in c.metrics():
        png = base64.b64encode(scatter_png(c, m)).decode("ascii")
        parts.append(f"<figure><img alt='{html.escape(m.title)}' src='data:image/png;base64,{png}'>"
                     f"<figcaption>{html.escape(_caption(c, m))}</figcaption></figure>")
    if c.matching.unmatched or c.matching.notes:
        items = [f"{u.where}: {u.name}: {u.reason}" for u in c.matching.unmatched] + c.matching.notes
        parts.append("<h2>Unmatched kernels and notes</h2><ul>"
                     + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
    parts.append("<h2>Per kernel</h2>")
    parts.append(_table(["workload", "launch", "kernel", "metric", "hw", "sim", "error"], _kernel_rows(c)))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_atomically(path: str | Path, text: str) -> None:
    """Writes to a temporary file beside `path`, then renames it into place."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_report(c: Correlation, out: str | Path, kernels_csv: str | Path | None = None) -> None:
    """Builds everything in memory first, so an error leaves no file behind."""
    page = html_report(c)
    table = c.values.to_csv(index=False) if kernels_csv else None
    write_atomically(out, page)
    if kernels_csv:
        write_atomically(kernels_csv, table)
