"""The tuning map (data/tune.toml): which microbenchmark gives each key, which
parameter a measured key sets directly, and which parameters are chosen
among candidates by simulation. Data, not code: docs/validation.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError
from .mapping import read_toml

DEFAULT_PATH = Path(__file__).with_name("data") / "tune.toml"

_BENCH_FIELDS = {"program", "args", "keys"}
_DIRECT_FIELDS = {"key", "param", "type", "digits", "relation", "probe", "stage", "refine", "tolerance",
                  "scale_with", "min", "max", "absent_from", "probe_min"}
_INDIRECT_FIELDS = {"param", "candidates", "keys", "stage", "refit", "margin"}
_RELATIONS = ("linear", "inverse")
_TYPES = ("int", "float")


@dataclass(frozen=True)
class Bench:
    program: str
    args: tuple[str, ...]
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Direct:
    """measured(key) = a * f(param) + b, f = identity or 1/x, learnt from
    simulations at the current value and at value x probe; inverted."""
    key: str
    param: str
    type: str = "int"
    digits: int = 0                # decimals kept for a float parameter
    relation: str = "linear"
    probe: float = 1.25
    stage: int = 1
    refine: int = 0                # extra secant steps when the relation is not exactly linear
    tolerance: float = 0.0         # relative error at which refining stops
    scale_with: tuple[str, ...] = ()   # parameters kept in their base ratio to this one
    min: float | None = None
    max: float | None = None
    # A base preset without `param` (a unit it does not declare) starts from
    # this parameter's value: the one that times the same instructions there.
    absent_from: str | None = None
    # The probe point is at least this: a figure that hides small values
    # (a barrier's release behind the loop around it) needs a far one.
    probe_min: float | None = None


@dataclass(frozen=True)
class Indirect:
    param: str
    candidates: tuple
    keys: tuple[str, ...]
    stage: int = 1
    refit: tuple[str, ...] = ()     # keys of [[direct]] entries fitted again under each candidate
    margin: float = 0.01            # a candidate replaces the current value only if its error is this much lower


@dataclass(frozen=True)
class TuneMap:
    benches: tuple[Bench, ...]
    direct: tuple[Direct, ...]
    indirect: tuple[Indirect, ...]
    path: str
    bench_of: dict[str, Bench] = field(default_factory=dict)
    # Keys whose figure on a real GPU is not a measurement of what the key
    # names (ptxas allocates registers, hoists or reorders the benchmark's
    # code): ignored when the results come from a native run.
    simulator_only: frozenset[str] = frozenset()

    def known_keys(self) -> set[str]:
        return set(self.bench_of)

    def stages(self) -> list[int]:
        return sorted({d.stage for d in self.direct} | {i.stage for i in self.indirect})


def _check_fields(path: str, table: dict, what: str, index: int, allowed: set[str], required: tuple[str, ...]):
    entry = f"[[{what}]] #{index + 1}"
    for name in table:
        if name not in allowed:
            raise InputError(path, f"{entry}: unknown field (allowed: {', '.join(sorted(allowed))})", column=name)
    for name in required:
        if name not in table:
            raise InputError(path, f"{entry}: missing field", column=name)


def _direct(path: str, index: int, t: dict, bench_of: dict[str, Bench]) -> Direct:
    _check_fields(path, t, "direct", index, _DIRECT_FIELDS, ("key", "param"))
    d = Direct(**{**t, "scale_with": tuple(t.get("scale_with", ()))})
    entry = f"[[direct]] #{index + 1} ({d.key})"
    if d.key not in bench_of:
        raise InputError(path, f"{entry}: no [[bench]] lists this key", column="key")
    if d.relation not in _RELATIONS:
        raise InputError(path, f"{entry}: relation must be one of {', '.join(_RELATIONS)}", column="relation")
    if d.type not in _TYPES:
        raise InputError(path, f"{entry}: type must be one of {', '.join(_TYPES)}", column="type")
    if d.probe <= 0 or d.probe == 1:
        raise InputError(path, f"{entry}: probe must be a positive factor other than 1", column="probe")
    return d


def _indirect(path: str, index: int, t: dict, bench_of: dict[str, Bench]) -> Indirect:
    _check_fields(path, t, "indirect", index, _INDIRECT_FIELDS, ("param", "candidates", "keys"))
    i = Indirect(t["param"], tuple(t["candidates"]), tuple(t["keys"]), t.get("stage", 1), tuple(t.get("refit", ())),
                 t.get("margin", 0.01))
    for key in i.keys + i.refit:
        if key not in bench_of:
            raise InputError(path, f"[[indirect]] #{index + 1} ({i.param}): no [[bench]] lists '{key}'",
                             column="keys")
    if len(i.candidates) < 2:
        raise InputError(path, f"[[indirect]] #{index + 1} ({i.param}): needs two or more candidates",
                         column="candidates")
    return i


def load_tune_map(path=None) -> TuneMap:
    path = str(path or DEFAULT_PATH)
    data = read_toml(path)
    for name in data:
        if name not in ("bench", "direct", "indirect", "simulator_only"):
            raise InputError(path, "unknown table (expected [[bench]], [[direct]], [[indirect]], simulator_only)",
                             column=name)
    benches, bench_of = [], {}
    for index, t in enumerate(data.get("bench", [])):
        _check_fields(path, t, "bench", index, _BENCH_FIELDS, ("program", "keys"))
        b = Bench(t["program"], tuple(t.get("args", ())), tuple(t["keys"]))
        for key in b.keys:
            if key in bench_of:
                raise InputError(path, f"[[bench]] #{index + 1} ({b.program}): key '{key}' already comes from "
                                       f"{bench_of[key].program}", column="keys")
            bench_of[key] = b
        benches.append(b)
    direct = tuple(_direct(path, i, t, bench_of) for i, t in enumerate(data.get("direct", [])))
    indirect = tuple(_indirect(path, i, t, bench_of) for i, t in enumerate(data.get("indirect", [])))
    direct_keys = {d.key for d in direct}
    for index, ind in enumerate(indirect):
        for key in ind.refit:
            if key not in direct_keys:
                raise InputError(path, f"[[indirect]] #{index + 1} ({ind.param}): refit key '{key}' is no "
                                       f"[[direct]] entry's key", column="refit")
    seen: dict[str, str] = {}
    for d in direct:
        if d.param in seen:
            raise InputError(path, f"parameter '{d.param}' is set by both '{seen[d.param]}' and '{d.key}'",
                             column="param")
        seen[d.param] = d.key
    simulator_only = frozenset(data.get("simulator_only", ()))
    for key in sorted(simulator_only - set(bench_of)):
        raise InputError(path, f"simulator_only: no [[bench]] lists '{key}'", column="simulator_only")
    return TuneMap(tuple(benches), direct, indirect, path, bench_of, simulator_only)
