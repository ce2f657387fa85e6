"""The microbenchmarks' results file (scripts/ubench-run.sh): `key=value` lines
and `#` comments. Every key must be one the tuning map knows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .csvfile import finite_float
from .errors import InputError

_KEY = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Measured:
    values: dict[str, float]       # key -> figure, in file order
    lines: dict[str, int]          # key -> line number (for messages)
    gpu: str                       # the `# gpu:` comment, if any
    path: str


def parse_line(path: str, number: int, line: str) -> tuple[str, float] | None:
    """(key, value) for a `key=value` line, None for a blank or comment line."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep:
        raise InputError(path, f"not a key=value line: {text!r}", number)
    if not _KEY.fullmatch(key):
        raise InputError(path, f"'{key}' is not a key (lower-case letters, digits and '_')", number, key)
    return key, finite_float(path, value, number, key)


def parse_measured(path, known: set[str]) -> Measured:
    """Reads the results file; an unknown key, a repeated key or a bad value
    stops with the file, line and key."""
    path = str(path)
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    values: dict[str, float] = {}
    lines: dict[str, int] = {}
    gpu = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# gpu:"):
            gpu = line[len("# gpu:"):].strip()
        parsed = parse_line(path, number, line)
        if parsed is None:
            continue
        key, figure = parsed
        if key not in known:
            raise InputError(path, f"unknown key (not in the tuning map; known keys: docs/validation.md, "
                                   f"'Tuning a preset')", number, key)
        if key in values:
            raise InputError(path, f"repeated key (first on line {lines[key]})", number, key)
        values[key], lines[key] = figure, number
    if not values:
        raise InputError(path, "no key=value lines (expected the output of scripts/ubench-run.sh)")
    return Measured(values, lines, gpu, path)
