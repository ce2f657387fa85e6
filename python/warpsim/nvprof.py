"""nvprof CSV in its three shapes.

- `nvprof --csv --print-gpu-trace`: "Start","Duration",...,"Name", a units
  line, one row per kernel launch or memory copy ("[CUDA memcpy HtoD]").
- `nvprof --csv --print-gpu-trace --metrics M --events E`: "Device",
  "Context","Stream","Kernel", then one column per metric or event.
- `nvprof --csv --metrics M` (or `--events E`): one row per kernel and
  metric, "Device","Kernel","Invocations","Metric Name" (or "Event
  Name"),...,"Avg": averages over each kernel's invocations.
"""

from __future__ import annotations

from .csvfile import Section, parse_dims, read_sections, require_columns
from .errors import InputError
from .mapping import Mapping
from .profiles import HwKernel, HwProfile, metric_columns, read_value, unit_factor

TRACE_COLUMNS = {"Start", "Duration", "Grid X", "Grid Y", "Grid Z", "Block X", "Block Y", "Block Z",
                 "Registers Per Thread", "Static SMem", "Dynamic SMem", "Size", "Throughput", "SrcMemType",
                 "DstMemType", "Device", "Context", "Stream", "Name", "Kernel", "Correlation_ID",
                 "SrcDevice", "SrcContext", "DstDevice", "DstContext"}
SUMMARY_NAMES = ("Metric Name", "Event Name")


def looks_like_nvprof(fields: list[str]) -> bool:
    if "Invocations" in fields and "Kernel" in fields:
        return any(n in fields for n in SUMMARY_NAMES)
    return ("Name" in fields and "Duration" in fields) or fields[:4] == ["Device", "Context", "Stream", "Kernel"]


def _name_column(section: Section) -> str:
    return "Kernel" if "Kernel" in section.header else "Name"


def _dims(row: dict[str, str], prefix: str) -> tuple[int, ...] | None:
    if f"{prefix} X" not in row:
        return None
    return parse_dims(",".join(row[f"{prefix} {a}"] for a in "XYZ"))


def _read_trace(path: str, section: Section, mapping: Mapping, allow_unknown: bool) -> list[HwKernel]:
    name = _name_column(section)
    columns = metric_columns(path, section.header, section.header_line, TRACE_COLUMNS, "nvprof",
                             mapping, allow_unknown)
    units, line = {}, section.header_line
    if section.rows and not section.rows[0][1][name].strip():   # the units line
        line, units = section.rows.pop(0)
    factors = {c: (m, unit_factor(mapping, path, line, c, m, units.get(c, ""))) for c, m in columns.items()}
    kernels = []
    for n, row in section.rows:
        if row[name].startswith("[CUDA "):                      # memcpy / memset
            continue
        k = HwKernel(row[name], n, grid=_dims(row, "Grid"), block=_dims(row, "Block"))
        for column, (metric, factor) in factors.items():
            value = read_value(path, n, column, row[column], factor)
            if value is not None:
                k.values[metric.name] = value
        kernels.append(k)
    return kernels


def _read_summary(path: str, section: Section, mapping: Mapping, allow_unknown: bool,
                  kernels: dict[str, HwKernel]) -> None:
    key = next(n for n in SUMMARY_NAMES if n in section.header)
    require_columns(path, section, ["Kernel", "Invocations", key, "Avg"])
    known = mapping.by_profiler_name("nvprof")
    for n, row in section.rows:
        metric = known.get(row[key])
        if metric is None:
            if allow_unknown:
                continue
            raise InputError(path, f"unknown metric '{row[key]}' (not in {mapping.path}; pass --allow-unknown "
                             "to ignore metrics the mapping does not name)", n, key)
        k = kernels.setdefault(row["Kernel"], HwKernel(row["Kernel"], n))
        invocations = read_value(path, n, "Invocations", row["Invocations"], 1.0)
        k.invocations = max(k.invocations, int(invocations or 1))
        value = read_value(path, n, "Avg", row["Avg"], 1.0)
        if value is not None:
            k.values[metric.name] = value


def read_nvprof(path: str, mapping: Mapping, allow_unknown: bool = False) -> HwProfile:
    sections = read_sections(path, looks_like_nvprof)
    if not sections:
        raise InputError(path, "no nvprof header line: expected the output of `nvprof --csv --print-gpu-trace` "
                         "or `nvprof --csv --metrics ...`")
    summaries = [s for s in sections if "Invocations" in s.header]
    if summaries and len(summaries) != len(sections):
        raise InputError(path, "per-kernel summaries and a per-launch trace in one file: give them apart",
                         sections[-1].header_line)
    if summaries:
        by_name: dict[str, HwKernel] = {}
        for s in summaries:
            _read_summary(path, s, mapping, allow_unknown, by_name)
        return HwProfile(path, "nvprof", "Kernel", list(by_name.values()), per_launch=False)
    if len(sections) > 1:
        raise InputError(path, "a second header line: one nvprof trace per file", sections[1].header_line)
    kernels = _read_trace(path, sections[0], mapping, allow_unknown)
    return HwProfile(path, "nvprof", _name_column(sections[0]), kernels)
