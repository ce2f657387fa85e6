"""What `warpsim tune` writes: the preset (only what differs from the base,
each value with the figure it came from) and the report on stdout."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .tune import Outcome, Value


def toml_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def preset_text(outcome: Outcome, base: str, source: str) -> str:
    """`base = ...` and a table per parameter group, in the order tuned."""
    lines = [f"# Tuned by `warpsim tune` from {source}.",
             "# Only parameters that differ from the base; each says which figure set it.",
             f"base = {toml_value(base)}"]
    tables: dict[str, list[str]] = {}
    for param, value in outcome.changed().items():
        table, _, name = param.rpartition(".")
        note = outcome.notes.get(param, "")
        tables.setdefault(table, []).append(f"{name} = {toml_value(value)}" + (f"  # {note}" if note else ""))
    for table, entries in tables.items():
        lines += ["", f"[{table}]", *entries]
    return "\n".join(lines) + "\n"


def write_atomically(path: str, text: str) -> None:
    """Writes a temporary file beside `path` and renames it, so that a failure
    leaves no half-written preset (and an older one as it was)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


def report_text(outcome: Outcome, measured: dict[str, float]) -> str:
    """Per key: measured, the base's figure, the tuned preset's (with --verify) and its error."""
    tuned = outcome.tuned_figures or {}
    rows = [("key", "measured", "base", "tuned", "error")]
    for key, m in measured.items():
        t = tuned.get(key)
        err = "-" if t is None or m == 0 else f"{(t - m) / abs(m) * 100:+.2f}%"
        rows.append((key, _num(m), _num(outcome.base_figures.get(key)), _num(t), err))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
           for r in rows]
    out.append("")
    out.append("parameters set directly (simulated points: value -> figure):")
    for fit in outcome.fits:
        pts = ", ".join(f"{v} -> {f:g}" for v, f in fit.points)
        out.append(f"  {fit.direct.param} = {fit.value}  from {fit.direct.key} = {fit.measured:g}  ({pts})")
    if outcome.choices:
        out.append("parameters chosen by simulation (mean relative error over the keys):")
    for ch in outcome.choices:
        out.append(f"  {ch.indirect.param} = {ch.value}  over {', '.join(ch.keys)}")
        for cand, err in ch.errors:
            out.append(f"    {str(cand):<12} {err * 100:7.2f}%" + ("  <- kept" if cand == ch.value else ""))
    return "\n".join(out) + "\n"
