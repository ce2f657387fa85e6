"""Nsight Compute CSV: `ncu --csv --page raw`, one row per kernel launch.

The header names the launch columns ("ID", ..., "Kernel Name", ..., "CC")
and then one column per metric; the line under it gives each metric's unit
(empty under the launch columns); then one row per profiled launch.
"""

from __future__ import annotations

from .csvfile import Section, parse_dims, read_sections, require_columns
from .errors import InputError
from .mapping import Mapping
from .profiles import HwKernel, HwProfile, metric_columns, read_value, unit_factor

LAUNCH_COLUMNS = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                  "Block Size", "Grid Size", "Device", "CC"}
NAME = "Kernel Name"


def looks_like_ncu(fields: list[str]) -> bool:
    # Only the first column is needed to find the header, so that a header
    # without "Kernel Name" is reported as such rather than as no header.
    return len(fields) > 1 and fields[0] == "ID"


def _units(section: Section) -> tuple[dict[str, str], int | None]:
    """The units row, if the first row is one (its launch columns are empty)."""
    if section.rows and not section.rows[0][1][NAME].strip() and not section.rows[0][1]["ID"].strip():
        line, row = section.rows.pop(0)
        return row, line
    return {}, None


def _launch(path: str, line: int, row: dict[str, str], factors: dict) -> HwKernel:
    if not row[NAME].strip():
        raise InputError(path, "empty kernel name", line, NAME)
    k = HwKernel(row[NAME], line, grid=parse_dims(row.get("Grid Size", "")),
                 block=parse_dims(row.get("Block Size", "")))
    for column, (metric, factor) in factors.items():
        value = read_value(path, line, column, row[column], factor)
        if value is not None:
            k.values[metric.name] = value
    return k


def read_ncu(path: str, mapping: Mapping, allow_unknown: bool = False) -> HwProfile:
    sections = read_sections(path, looks_like_ncu)
    if not sections:
        raise InputError(path, "no ncu header line (\"ID\",...,\"Kernel Name\",...): expected the output of "
                         "`ncu --csv --page raw`")
    if len(sections) > 1:
        raise InputError(path, "a second header line: one ncu CSV per file", sections[1].header_line)
    section = sections[0]
    require_columns(path, section, ["ID", NAME])
    columns = metric_columns(path, section.header, section.header_line, LAUNCH_COLUMNS, "ncu",
                             mapping, allow_unknown)
    if not columns:
        raise InputError(path, "no metric the mapping knows (see docs/validation.md for the --metrics list)",
                         section.header_line)
    units, units_line = _units(section)
    line = units_line or section.header_line
    factors = {c: (m, unit_factor(mapping, path, line, c, m, units.get(c, ""))) for c, m in columns.items()}
    kernels = [_launch(path, n, row, factors) for n, row in section.rows]
    return HwProfile(path, "ncu", NAME, kernels)
