"""The simulator's parameter catalogue (`warpsim params --json`), for checking a
sweep spec before anything runs."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from dataclasses import dataclass


def warpsim_binary() -> str:
    """$WARPSIM_BIN (the C++ CLI sets it when it hands `warpsim sweep` to Python), else `warpsim` on PATH."""
    path = os.environ.get("WARPSIM_BIN") or shutil.which("warpsim")
    if not path:
        raise RuntimeError("no warpsim binary: set WARPSIM_BIN or put warpsim on PATH")
    # Absolute: sweep points run in the spec's folder, not in ours.
    return os.path.abspath(path) if os.sep in path else path


@dataclass(frozen=True)
class ParamSpec:
    name: str            # may hold '*' segments (a family, e.g. core.units.*.latency)
    type: str            # int, float, bool, string, int list
    default: object
    unit: str
    min: float | None
    max: float | None


def _segments_match(pattern: str, key: str) -> bool:
    a, b = pattern.split("."), key.split(".")
    return len(a) == len(b) and all(p == "*" or p == k for p, k in zip(a, b))


class Catalogue:
    def __init__(self, params: list[ParamSpec]):
        self._exact = {p.name: p for p in params if "*" not in p.name}
        self._families = [p for p in params if "*" in p.name]

    @classmethod
    def from_binary(cls, warpsim: str) -> "Catalogue":
        done = subprocess.run([warpsim, "params", "--json"], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"`{warpsim} params --json` failed (exit {done.returncode}): {done.stderr.strip()}")
        doc = json.loads(done.stdout)
        return cls([ParamSpec(p["name"], p["type"], p["default"], p["unit"], p["min"], p["max"])
                    for p in doc["params"]])

    def find(self, key: str) -> ParamSpec | None:
        return self._exact.get(key) or next((p for p in self._families if _segments_match(p.name, key)), None)

    def nearest(self, key: str) -> str | None:
        import difflib
        names = list(self._exact) + [p.name for p in self._families]
        close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
        return close[0] if close else None

    def check(self, key: str, value) -> str | None:
        """Why `value` cannot be given to parameter `key`, or None when it can."""
        p = self.find(key)
        if p is None:
            hint = self.nearest(key)
            return f"unknown parameter '{key}'" + (f", did you mean '{hint}'?" if hint else
                                                     " (`warpsim params` lists them)")
        return _type_error(p, value) or _range_error(p, value)


def _type_error(p: ParamSpec, value) -> str | None:
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "string": isinstance(value, str),
        "int list": isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
    }.get(p.type, True)
    return None if ok else f"{p.name} is {'an' if p.type[0] in 'i' else 'a'} {p.type}, not {value!r}"


def _range_error(p: ParamSpec, value) -> str | None:
    values = value if isinstance(value, list) else [value]
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        low = -math.inf if p.min is None else p.min
        high = math.inf if p.max is None else p.max
        if not low <= v <= high:
            bounds = f"[{'' if p.min is None else _num(p.min)}, {'' if p.max is None else _num(p.max)}]"
            return f"{v} is outside {p.name}'s range {bounds}" + (f" {p.unit}" if p.unit else "")
    return None


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
