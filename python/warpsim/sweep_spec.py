"""A sweep spec (TOML): workloads, base presets, parameter axes and the design
that picks points from them. Everything is checked before anything runs
(docs/dse.md, 'The spec')."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError
from .sweep_design import Axis, design_points

MODELS = ("detailed",)                       # the only timing model warpsim has today
DESIGNS = ("grid", "one-at-a-time", "random", "lhs")
SYNTH_OPTIONS = ("ctas", "threads", "iterations", "footprint", "stride", "chains", "binary-version")
SYNTH_KINDS = ("stream", "chase", "compute")
SLURM_KEYS = ("chunk", "time", "mem", "partition", "sbatch_args")


class SpecError(InputError):
    """Every problem found in a spec, one per line, each naming the file and the field."""

    def __init__(self, path, problems: list[str]):
        self.problems = problems
        super().__init__(path, "invalid sweep spec:\n  " + "\n  ".join(problems))


@dataclass(frozen=True)
class Workload:
    name: str
    kind: str                       # trace, program or synth
    path: str = ""                  # trace folder or program (absolute)
    args: tuple = ()                # program arguments
    synth: tuple = ()               # (option, value) pairs for `warpsim synth`

    def identity(self) -> dict:
        return {"name": self.name, "kind": self.kind, "path": self.path, "args": list(self.args),
                "synth": [list(p) for p in self.synth]}


@dataclass(frozen=True)
class Point:
    key: str                        # stable identity: same spec entry -> same key on every rerun
    workload: Workload
    gpu: str
    values: dict                    # the swept parameters' values ({} for the baseline point)
    rep: int


@dataclass
class Spec:
    path: Path
    hash: str
    name: str
    gpus: list[str]
    model: str
    repetitions: int
    base_set: dict
    workloads: list[Workload]
    axes: list[Axis]
    design: str = "grid"
    samples: int = 0
    seed: int = 0
    baseline: bool = True
    slurm: dict = field(default_factory=dict)

    def points(self) -> list[Point]:
        configs = design_points(self.axes, self.design, self.samples, self.seed)
        if self.baseline:
            configs = [{}] + configs
        out = []
        for w in self.workloads:
            for gpu in self.gpus:
                for values in configs:
                    for rep in range(self.repetitions):
                        out.append(Point(point_key(w, gpu, values, rep, self), w, gpu, values, rep))
        return out


def point_key(w: Workload, gpu: str, values: dict, rep: int, spec: Spec) -> str:
    ident = {"workload": w.identity(), "gpu": gpu, "set": values, "rep": rep, "base": spec.base_set,
             "model": spec.model}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]


def load_spec(path: str | Path, catalogue, presets: list[str]) -> Spec:
    """Reads and checks the spec; raises SpecError listing every problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        doc = tomllib.loads(raw.decode("utf-8"))
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(path, f"not valid TOML: {e}") from None
    problems: list[str] = []
    known = {"name", "gpus", "model", "repetitions", "set", "workload", "axes", "design", "baseline", "slurm"}
    problems += [f"unknown top-level key '{k}' (known: {', '.join(sorted(known))})" for k in doc if k not in known]
    base = path.parent
    spec = Spec(path=path, hash=hashlib.sha256(raw).hexdigest()[:16], name=str(doc.get("name", path.stem)),
                gpus=_gpus(doc.get("gpus", ["qv100"]), base, presets, problems),
                model=_model(doc.get("model", "detailed"), problems),
                repetitions=_positive(doc.get("repetitions", 1), "repetitions", problems),
                base_set=_base_set(doc.get("set", {}), catalogue, problems),
                workloads=_workloads(doc.get("workload", []), base, problems),
                axes=_axes(doc.get("axes", {}), catalogue, problems),
                baseline=bool(doc.get("baseline", True)), slurm=_table(doc, "slurm", problems))
    _design(doc.get("design", {}), spec, problems)
    problems += _slurm(spec.slurm)
    if not spec.axes and not spec.baseline and not problems:
        problems.append("nothing to run: no axes, and baseline = false")
    if problems:
        raise SpecError(path, problems)
    return spec


def _table(doc: dict, key: str, problems: list[str]) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        problems.append(f"{key}: expected a table, got {value!r}")
        return {}
    return value


def _positive(v, where: str, problems: list[str]) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        problems.append(f"{where}: expected a whole number >= 1, got {v!r}")
        return 1
    return v


def _gpus(gpus, base: Path, presets: list[str], problems: list[str]) -> list[str]:
    if isinstance(gpus, str):
        gpus = [gpus]
    out = []
    for g in gpus if isinstance(gpus, list) else []:
        if g in presets:
            out.append(g)
        elif (base / str(g)).is_file():
            out.append(str((base / g).resolve()))
        else:
            problems.append(f"gpus: '{g}' is neither a preset ({', '.join(presets)}) nor a TOML file")
    if not out and not problems:
        problems.append("gpus: name at least one base preset")
    return out


def _model(model, problems: list[str]) -> str:
    if model not in MODELS:
        problems.append(f"model: '{model}' is not available (this warpsim has: {', '.join(MODELS)})")
    return str(model)


def _base_set(table, catalogue, problems: list[str]) -> dict:
    if not isinstance(table, dict):
        problems.append("set: expected a table of parameter = value")
        return {}
    for key, value in table.items():
        if (why := catalogue.check(key, value)) is not None:
            problems.append(f"set: '{key}' = {value!r}: {why}")
    return dict(table)


def _workloads(entries, base: Path, problems: list[str]) -> list[Workload]:
    if not entries:
        problems.append("workload: name at least one [[workload]] (trace, program or synth)")
    out, names = [], set()
    for i, e in enumerate(entries):
        where = f"workload #{i + 1}" + (f" '{e.get('name')}'" if isinstance(e, dict) and "name" in e else "")
        w = _workload(e, base, where, problems) if isinstance(e, dict) else None
        if w is None:
            continue
        if w.name in names:
            problems.append(f"{where}: the name '{w.name}' is used twice")
        names.add(w.name)
        out.append(w)
    return out


def _workload(e: dict, base: Path, where: str, problems: list[str]) -> Workload | None:
    for k in sorted(set(e) - {"name", "trace", "program", "synth", "args"}):
        problems.append(f"{where}: unknown key '{k}' (known: name, trace, program, args, synth)")
    kinds = [k for k in ("trace", "program", "synth") if k in e]
    if len(kinds) != 1:
        problems.append(f"{where}: give exactly one of trace, program or synth")
        return None
    kind = kinds[0]
    name = str(e.get("name") or (Path(str(e[kind])).name if kind != "synth" else ""))
    if not name:
        problems.append(f"{where}: a synth workload needs a name")
        return None
    if kind == "synth":
        return _synth(e["synth"], name, where, problems)
    written = os.path.expandvars(str(e[kind]))          # "${WARPSIM_BUILD}/examples/cuda/reduction"
    if "$" in written:
        problems.append(f"{where}: {kind} '{e[kind]}' names an environment variable that is not set")
        return None
    target = (base / written).resolve()
    if not target.exists():
        problems.append(f"{where}: {kind} '{written}' does not exist (paths are relative to the spec's folder)")
    args = e.get("args", [])
    if kind == "trace" and args:
        problems.append(f"{where}: args apply only to a program")
    return Workload(name, kind, str(target), tuple(str(a) for a in args))


def _synth(table, name: str, where: str, problems: list[str]) -> Workload | None:
    if not isinstance(table, dict) or table.get("kind") not in SYNTH_KINDS:
        problems.append(f"{where}: synth needs kind = one of {', '.join(SYNTH_KINDS)}")
        return None
    opts = []
    for k, v in table.items():
        if k == "kind":
            continue
        if k not in SYNTH_OPTIONS:
            problems.append(f"{where}: unknown synth option '{k}' (known: {', '.join(SYNTH_OPTIONS)})")
        elif not isinstance(v, int) or isinstance(v, bool) or v < 1:
            problems.append(f"{where}: synth option '{k}' must be a whole number >= 1, got {v!r}")
        else:
            opts.append((k, v))
    return Workload(name, "synth", synth=(("kind", table["kind"]), *sorted(opts)))


def _axes(table, catalogue, problems: list[str]) -> list[Axis]:
    if not isinstance(table, dict):
        problems.append("axes: expected a table of \"parameter\" = values")
        return []
    axes = []
    for key, entry in table.items():
        param = catalogue.find(key)
        is_int = param is not None and param.type == "int"
        axis, why = Axis.parse(key, entry, is_int)
        if axis is None:
            problems.append(f"axis '{key}': {why}")
            continue
        bad = [(v, catalogue.check(key, v)) for v in axis.checkable_values()]
        for v, why in bad:
            if why is not None:
                problems.append(f"axis '{key}': value {v!r}: {why}")
                break                          # one message per axis: the rest say the same
        axes.append(axis)
    return axes


def _design(table, spec: Spec, problems: list[str]) -> None:
    if not isinstance(table, dict):
        problems.append("design: expected a table (kind, samples, seed)")
        return
    spec.design = table.get("kind", "grid")
    if spec.design not in DESIGNS:
        problems.append(f"design.kind: '{spec.design}' is not one of {', '.join(DESIGNS)}")
        return
    spec.seed = table.get("seed", 0)
    if not isinstance(spec.seed, int) or isinstance(spec.seed, bool):
        problems.append(f"design.seed: expected a whole number, got {spec.seed!r}")
    if spec.design in ("grid", "one-at-a-time"):
        for a in spec.axes:
            if a.continuous:
                problems.append(f"axis '{a.name}': a {spec.design} design needs listed values, a step or a "
                                "number of points")
        return
    spec.samples = _positive(table.get("samples", 0), "design.samples", problems)


def _slurm(table: dict) -> list[str]:
    problems = [f"slurm: unknown key '{k}' (known: {', '.join(SLURM_KEYS)})" for k in table if k not in SLURM_KEYS]
    chunk = table.get("chunk", 10)
    if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
        problems.append(f"slurm.chunk: expected a whole number >= 1, got {chunk!r}")
    if not isinstance(table.get("sbatch_args", []), list):
        problems.append("slurm.sbatch_args: expected a list of sbatch options")
    return problems
