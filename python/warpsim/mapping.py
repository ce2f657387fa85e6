"""The metric mapping (data/metrics.toml): our name <-> ncu name <-> nvprof name."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError

DEFAULT_PATH = Path(__file__).with_name("data") / "metrics.toml"

_METRIC_KEYS = {
    "name", "title", "unit", "kind", "sim", "ncu", "nvprof", "ratio", "note",
    "sim_divide_by", "sim_multiply", "nvprof_divide_by", "sim_per", "optional", "hw_unit",
}
_REQUIRED = ("name", "title", "unit", "kind")
_KINDS = ("count", "percent", "difference")
_SI_PREFIXES = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass(frozen=True)
class Metric:
    name: str
    title: str
    unit: str
    kind: str                      # "count": relative errors; "percent": point differences;
                                   # "difference": differences in the metric's unit (ratios near 0)
    sim: str | None = None         # dotted path in a stats.json kernel object
    ncu: str | None = None
    nvprof: str | None = None
    ratio: tuple[str, str] | None = None
    note: str = ""
    sim_divide_by: str | None = None
    sim_multiply: float = 1.0
    nvprof_divide_by: str | None = None
    sim_per: str | None = None     # a path in the same kernel object the sim value is divided by
    optional: bool = False         # kernels without the sim value are left out, not an error
    hw_unit: str | None = None     # the unit the profiler prints for it, where that is not `unit`

    def profiler_name(self, fmt: str) -> str | None:
        return self.ncu if fmt == "ncu" else self.nvprof


@dataclass(frozen=True)
class Mapping:
    metrics: tuple[Metric, ...]
    units: dict[str, tuple[str, float]]
    path: str

    def by_name(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    def measured(self) -> list[Metric]:
        return [m for m in self.metrics if m.ratio is None]

    def by_profiler_name(self, fmt: str) -> dict[str, Metric]:
        return {m.profiler_name(fmt): m for m in self.measured() if m.profiler_name(fmt)}

    def unit_scale(self, unit: str) -> tuple[str, float] | None:
        """(base unit, factor) for a unit string the profiler printed, or None."""
        unit = unit.strip()
        if unit in self.units:
            return self.units[unit]
        if unit[:1] in _SI_PREFIXES and unit[1:] in self.units:
            base, factor = self.units[unit[1:]]
            return base, factor * _SI_PREFIXES[unit[0]]
        return None


def _metric(path: str, index: int, entry: dict) -> Metric:
    label = f"[[metric]] #{index + 1}" + (f" ('{entry['name']}')" if "name" in entry else "")
    unknown = sorted(set(entry) - _METRIC_KEYS)
    if unknown:
        raise InputError(path, f"{label}: unknown key '{unknown[0]}' (known: {', '.join(sorted(_METRIC_KEYS))})")
    for key in _REQUIRED:
        if key not in entry:
            raise InputError(path, f"{label}: missing key '{key}'")
    if entry["kind"] not in _KINDS:
        raise InputError(path, f"{label}: kind '{entry['kind']}' is not one of {', '.join(_KINDS)}")
    if "optional" in entry and not isinstance(entry["optional"], bool):
        raise InputError(path, f"{label}: 'optional' must be true or false")
    if ("ratio" in entry) == ("sim" in entry):
        raise InputError(path, f"{label}: give exactly one of 'sim' (a measured metric) and 'ratio'")
    fields = dict(entry)
    if "ratio" in fields:
        if len(fields["ratio"]) != 2:
            raise InputError(path, f"{label}: 'ratio' must name two metrics")
        fields["ratio"] = tuple(fields["ratio"])
    return Metric(**fields)


def _check_ratios(path: str, metrics: list[Metric]) -> None:
    names = [m.name for m in metrics]
    for m in metrics:
        if names.count(m.name) > 1:
            raise InputError(path, f"metric '{m.name}' is declared twice")
        for part in m.ratio or ():
            if part not in names or metrics[names.index(part)].ratio is not None:
                raise InputError(path, f"metric '{m.name}': ratio names '{part}', which is not a measured metric")


def read_toml(path: str) -> dict:
    """A TOML file as a dict; unreadable or invalid: an error naming the file."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(path, str(e)) from None


def load_mapping(path: str | Path = DEFAULT_PATH) -> Mapping:
    path = str(path)
    doc = read_toml(path)
    unknown = sorted(set(doc) - {"metric", "units"})
    if unknown:
        raise InputError(path, f"unknown table '{unknown[0]}' (known: metric, units)")
    metrics = [_metric(path, i, e) for i, e in enumerate(doc.get("metric", []))]
    _check_ratios(path, metrics)
    units = {k: (v[0], float(v[1])) for k, v in doc.get("units", {}).items()}
    return Mapping(tuple(metrics), units, path)
