"""Parameter axes and the designs that pick points from them: the full grid,
one axis at a time, or random / Latin-hypercube samples drawn with a seed (the
same seed gives the same points on every machine)."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple = ()              # discrete levels; empty for a continuous axis
    low: float = 0.0                # continuous axis bounds (sampled designs only)
    high: float = 0.0
    log: bool = False
    is_int: bool = False

    @property
    def continuous(self) -> bool:
        return not self.values

    @staticmethod
    def parse(name: str, entry, is_int: bool) -> tuple["Axis | None", str]:
        """An axis from a list or a {from, to, step | points, scale} table; (None, why) when malformed."""
        if isinstance(entry, list):
            return (Axis(name, tuple(entry), is_int=is_int), "") if entry else (None, "an empty list of values")
        if not isinstance(entry, dict):
            return None, f"expected a list or a table {{from, to, step | points, scale}}, got {entry!r}"
        unknown = set(entry) - {"from", "to", "step", "points", "scale"}
        if unknown:
            return None, f"unknown key(s) {', '.join(sorted(unknown))} (known: from, to, step, points, scale)"
        low, high, scale = entry.get("from"), entry.get("to"), entry.get("scale", "linear")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (low, high)) or low > high:
            return None, "from and to must be numbers with from <= to"
        if scale not in ("linear", "log") or (scale == "log" and low <= 0):
            return None, "scale is linear or log (log needs from > 0)"
        if "step" in entry and "points" in entry:
            return None, "give step or points, not both"
        if "step" in entry:
            return _stepped(name, low, high, entry["step"], scale, is_int)
        if "points" in entry:
            return _spaced(name, low, high, entry["points"], scale == "log", is_int)
        return Axis(name, (), low, high, scale == "log", is_int), ""

    def checkable_values(self) -> list:
        return list(self.values) if self.values else [_cast(self.low, self.is_int), _cast(self.high, self.is_int)]

    def at(self, u: float):
        """The level at fraction u in [0, 1) of the axis."""
        if self.values:
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        if self.log:
            return _cast(math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))), self.is_int)
        return _cast(self.low + u * (self.high - self.low), self.is_int)


def _cast(x: float, is_int: bool):
    return int(round(x)) if is_int else x


def _dedupe(values) -> tuple:
    return tuple(dict.fromkeys(values))


def _stepped(name, low, high, step, scale, is_int):
    if not isinstance(step, (int, float)) or isinstance(step, bool) or step <= 0:
        return None, f"step must be a number > 0, got {step!r}"
    if scale == "log":                         # step is the factor between neighbours
        if step <= 1:
            return None, "a log scale's step is a factor > 1"
        n = int(math.floor(math.log(high / low) / math.log(step) + 1e-9)) + 1
        values = [low * step ** i for i in range(n)]
    else:
        n = int(math.floor((high - low) / step + 1e-9)) + 1
        values = [low + i * step for i in range(n)]
    return Axis(name, _dedupe(_cast(v, is_int) if is_int else _tidy(v) for v in values), is_int=is_int), ""


def _spaced(name, low, high, points, log, is_int):
    if not isinstance(points, int) or isinstance(points, bool) or points < 2:
        return None, f"points must be a whole number >= 2, got {points!r}"
    probe = Axis(name, (), low, high, log, is_int)
    values = [probe.at(i / (points - 1)) if i < points - 1 else _cast(high, is_int) for i in range(points)]
    return Axis(name, _dedupe(v if is_int else _tidy(v) for v in values), is_int=is_int), ""


def _tidy(x: float) -> float:
    """Drops float noise (0.30000000000000004) so that values print and hash as written."""
    return float(f"{x:.12g}")


def design_points(axes: list[Axis], kind: str, samples: int, seed: int) -> list[dict]:
    """The configurations to simulate: one {parameter: value} per point, in a stable order."""
    if not axes:
        return []
    if kind == "grid":
        return [dict(zip((a.name for a in axes), combo)) for combo in itertools.product(*(a.values for a in axes))]
    if kind == "one-at-a-time":                # each axis alone, the others left at the preset's values
        return [{a.name: v} for a in axes for v in a.values]
    rng = random.Random(seed)
    if kind == "random":
        fractions = [[rng.random() for _ in axes] for _ in range(samples)]
    else:
        fractions = _latin_hypercube(len(axes), samples, rng)
    points, seen = [], set()
    for row in fractions:
        point = {a.name: a.at(u) for a, u in zip(axes, row)}
        ident = tuple(point.values())
        if ident not in seen:                  # discrete levels can repeat; simulating twice adds nothing
            seen.add(ident)
            points.append(point)
    return points


def _latin_hypercube(dims: int, n: int, rng: random.Random) -> list[list[float]]:
    """n samples in [0, 1)^dims with exactly one sample in each of the n strata of every dimension."""
    columns = []
    for _ in range(dims):
        strata = list(range(n))
        rng.shuffle(strata)
        columns.append([(s + rng.random()) / n for s in strata])
    return [[columns[d][i] for d in range(dims)] for i in range(n)]
