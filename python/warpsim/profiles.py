"""Hardware measurements from a profiler CSV, one entry per kernel launch (or per kernel)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .csvfile import parse_number
from .errors import InputError
from .mapping import Mapping, Metric


@dataclass
class HwKernel:
    name: str                    # as the profiler printed it
    line: int                    # file line of its row (first row for per-kernel summaries)
    values: dict[str, float] = field(default_factory=dict)   # metric name -> value in the metric's unit
    grid: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    invocations: int = 1         # > 1: nvprof's per-kernel summary, values are averages


@dataclass
class HwProfile:
    path: str
    format: str                  # "ncu" or "nvprof"
    name_column: str             # the column kernel names came from (for messages)
    kernels: list[HwKernel]
    per_launch: bool = True      # False: one entry per kernel name (nvprof summary)


def unit_factor(mapping: Mapping, path: str, line: int, column: str, metric: Metric, unit: str) -> float:
    """The factor that takes a value printed in `unit` to the metric's unit."""
    if metric.hw_unit is not None and unit.strip() == metric.hw_unit:
        return 1.0  # the profiler's label for this metric (ncu prints warp cycles per issue as 'inst')
    scale = mapping.unit_scale(unit)
    if scale is None:
        raise InputError(path, f"unknown unit '{unit}' (known: {', '.join(sorted(u for u in mapping.units if u))}; "
                         f"add it to [units] in {mapping.path})", line, column)
    base, factor = scale
    if base and base != metric.unit:
        raise InputError(path, f"unit '{unit}' is not a unit of {metric.name} ({metric.unit})", line, column)
    return factor


def metric_columns(path: str, header: list[str], header_line: int, fixed: set[str], fmt: str,
                   mapping: Mapping, allow_unknown: bool) -> dict[str, Metric]:
    """The header's metric columns that the mapping knows; others are an error unless allowed."""
    known = mapping.by_profiler_name(fmt)
    found: dict[str, Metric] = {}
    for column in header:
        if column in known:
            found[column] = known[column]
        elif column not in fixed and not allow_unknown:
            raise InputError(path, f"unknown metric (not in {mapping.path}; pass --allow-unknown to "
                             "ignore columns the mapping does not name)", header_line, column)
    return found


def read_value(path: str, line: int, column: str, text: str, factor: float) -> float | None:
    value = parse_number(path, line, column, text)
    return None if value is None else value * factor
