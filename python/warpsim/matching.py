"""Pairs measured kernel launches with simulated ones: by name, then launch order within a name."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .names import kernel_name
from .profiles import HwKernel, HwProfile
from .runs import Run


@dataclass
class Pair:
    workload: str
    hw: HwKernel
    sim: list[int]            # indices into the run's kernels (several for a per-kernel summary)


@dataclass
class Unmatched:
    side: str                 # "hw": a measured kernel with no simulated one; "sim": the other way
    path: str                 # the CSV (hw) or stats.json (sim)
    line: int | None          # the CSV row (hw)
    name: str                 # kernel name, or the file's name when a whole file has no counterpart
    reason: str
    column: str | None = None  # the CSV column holding the name

    @property
    def where(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


@dataclass
class Matching:
    pairs: list[Pair] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _resolve(hw: HwKernel, sim_bases: set[str]) -> tuple[str | None, str]:
    """The simulated base name this measured kernel stands for, or None and why not."""
    key = kernel_name(hw.name)
    candidates = sorted(b for b in sim_bases if key.matches(b))
    if len(candidates) == 1:
        return candidates[0], ""
    if not candidates:
        return None, f"no simulated kernel named '{key.base}'"
    return None, f"the cut-short name matches several simulated kernels ({', '.join(candidates)})"


def _launch_mismatch(hw: HwKernel, sim_kernel: dict) -> str:
    for what, measured in (("grid", hw.grid), ("block", hw.block)):
        simulated = tuple(sim_kernel.get(what, ()))
        if measured is not None and simulated and measured != simulated:
            return f"{what} {measured} differs from the simulated launch's {simulated}"
    return ""


def _sim_name(kernel: dict) -> str:
    """The trace's own (mangled) name where stats.json keeps it beside the demangled `name`."""
    return kernel.get("mangled_name") or kernel["name"]


def _match_launches(run: Run, profile: HwProfile, result: Matching) -> None:
    sim_by_base: dict[str, list[int]] = defaultdict(list)
    for i, k in enumerate(run.kernels):
        sim_by_base[kernel_name(_sim_name(k)).base].append(i)
    taken: dict[str, int] = defaultdict(int)
    used: set[int] = set()
    for hw in profile.kernels:
        base, why = _resolve(hw, set(sim_by_base))
        if base is not None and taken[base] >= len(sim_by_base[base]):
            base, why = None, f"more measured launches of '{base}' than the {len(sim_by_base[base])} simulated"
        if base is None:
            result.unmatched.append(Unmatched("hw", profile.path, hw.line, hw.name, why, profile.name_column))
            continue
        index = sim_by_base[base][taken[base]]
        taken[base] += 1
        mismatch = _launch_mismatch(hw, run.kernels[index])
        if mismatch:
            result.unmatched.append(Unmatched("hw", profile.path, hw.line, hw.name, mismatch, profile.name_column))
            continue
        used.add(index)
        result.pairs.append(Pair(run.workload, hw, [index]))
    _unmatched_sim(run, profile, used, result)


def _match_summaries(run: Run, profile: HwProfile, result: Matching) -> None:
    bases = [kernel_name(_sim_name(k)).base for k in run.kernels]
    used: set[int] = set()
    rows_for: dict[str, int] = {}
    for hw in profile.kernels:
        base, why = _resolve(hw, set(bases))
        if base is not None and base in rows_for:
            # Template instances share a function name; averages cannot be split between them.
            base, why = None, f"line {rows_for[base]} already stands for every simulated '{base}'"
        if base is None:
            result.unmatched.append(Unmatched("hw", profile.path, hw.line, hw.name, why, profile.name_column))
            continue
        rows_for[base] = hw.line
        indices = [i for i, b in enumerate(bases) if b == base]
        if len(indices) != hw.invocations:
            result.notes.append(f"{profile.path}:{hw.line}: '{base}' ran {hw.invocations} times on the GPU and "
                                f"{len(indices)} times in the simulation; comparing averages")
        used.update(indices)
        result.pairs.append(Pair(run.workload, hw, indices))
    _unmatched_sim(run, profile, used, result)


def _unmatched_sim(run: Run, profile: HwProfile, used: set[int], result: Matching) -> None:
    for i, k in enumerate(run.kernels):
        if i not in used:
            result.unmatched.append(Unmatched("sim", run.path, None, k["name"],
                                              f"kernel {i} (id {k.get('id')}) has no measured launch in {profile.path}"))


def match(run: Run, profile: HwProfile, result: Matching) -> None:
    """Adds this workload's pairs and leftovers to `result`."""
    if profile.per_launch:
        _match_launches(run, profile, result)
    else:
        _match_summaries(run, profile, result)
