"""Reading profiler CSV: find the header among the tool's chatter, keep line numbers."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

from .errors import InputError


@dataclass
class Section:
    """One table in a profiler CSV: a header line and the rows under it."""
    header: list[str]
    header_line: int
    rows: list[tuple[int, dict[str, str]]]   # (file line, column -> text)


def _is_chatter(line: str) -> bool:
    # ncu prints "==PROF== ...", nvprof "==1234== ..."; the program's own output may be anywhere.
    return line.startswith("==") or not line.strip()


def read_sections(path: str, is_header) -> list[Section]:
    """Splits the file into tables; `is_header(fields)` says which lines start one."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    sections: list[Section] = []
    for number, text in enumerate(lines, start=1):
        if _is_chatter(text):
            continue
        fields = next(csv.reader([text]))
        if is_header(fields):
            sections.append(Section(fields, number, []))
        elif sections and len(fields) == len(sections[-1].header):
            sections[-1].rows.append((number, dict(zip(sections[-1].header, fields))))
        elif sections:
            raise InputError(path, f"{len(fields)} fields where the header on line "
                             f"{sections[-1].header_line} has {len(sections[-1].header)}", number)
    return sections


def require_columns(path: str, section: Section, columns: list[str]) -> None:
    for c in columns:
        if c not in section.header:
            raise InputError(path, f"missing from the header (it has: {', '.join(section.header[:12])}"
                             f"{', ...' if len(section.header) > 12 else ''})", section.header_line, c)


def parse_number(path: str, line: int, column: str, text: str) -> float | None:
    """A profiler number: thousands separators allowed, a trailing '%' dropped; n/a is missing."""
    t = text.strip().replace(",", "")
    if t.endswith("%"):
        t = t[:-1]
    if t in ("", "n/a", "N/A", "-"):
        return None
    return finite_float(path, t, line, column, shown=text)


def finite_float(path, text: str, line: int | None, column: str | None, shown: str | None = None) -> float:
    """`text` as a finite float, or an error naming the file, line and column
    (quoting `shown`, the text as the file had it, if given)."""
    shown = text if shown is None else shown
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, f"'{shown}' is not a number", line, column) from None
    if not math.isfinite(value):
        raise InputError(path, f"'{shown}' is not a finite number", line, column)
    return value


def parse_dims(text: str) -> tuple[int, ...] | None:
    """'(256, 1, 1)' -> (256, 1, 1); None if the text is not a dimension triple."""
    parts = text.strip().strip("()").split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        return None
    return dims if len(dims) == 3 else None
