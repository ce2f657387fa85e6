"""docs/metric-mapping.md, generated from the mapping so the two cannot drift apart."""

from __future__ import annotations

from .mapping import Mapping


def _code(name: str | None) -> str:
    return f"`{name}`" if name else "-"


def _sim_source(m) -> str:
    if m.ratio:
        return f"{m.ratio[0]} / {m.ratio[1]}"
    text = _code(m.sim)
    if m.sim_divide_by:
        text += f" / `{m.sim_divide_by}`"
    if m.sim_per:
        text += f" / `{m.sim_per}`"
    if m.sim_multiply != 1.0:
        text += f" x {m.sim_multiply:g}"
    return text


def ncu_metric_list(mapping: Mapping) -> str:
    return ",".join(m.ncu for m in mapping.measured() if m.ncu)


def mapping_markdown(mapping: Mapping) -> str:
    lines = [
        "# Metric mapping (generated)",
        "",
        "What `warpsim correlate` compares, generated from `python/warpsim/data/metrics.toml` by",
        "`python3 -m warpsim mapping --markdown > docs/metric-mapping.md` (run with `PYTHONPATH=python`).",
        "Edit the TOML file, not this page. How to measure and correlate: `docs/validation.md`.",
        "",
        "| metric | unit | compared as | warpsim (stats.json kernel) | ncu | nvprof | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in mapping.metrics:
        nvprof = _code(m.nvprof) + (f" / `{m.nvprof_divide_by}`" if m.nvprof and m.nvprof_divide_by else "")
        if m.ratio:
            ncu = nvprof = "(ratio)"
        else:
            ncu = _code(m.ncu)
        compared = {"count": "relative error", "percent": "difference in points"}.get(m.kind, "difference")
        lines.append(f"| {m.name} | {m.unit} | {compared} | {_sim_source(m)} | {ncu} | {nvprof} | {m.note} |")
    lines += ["", "The `ncu --metrics` list that measures all of them:", "", "```",
              ncu_metric_list(mapping), "```", ""]
    return "\n".join(lines)
