"""`warpsim tune`: measured microbenchmark figures -> preset parameters.

Directly measured parameters: the relation between the parameter and its
figure is learnt by simulating the figure's microbenchmark at the current
value and at a second one (measured = a * f(param) + b), then inverted for
the measured figure. Parameters that no figure shows alone are chosen among
candidates by simulating each and keeping the smallest error. Stages run in
order, each under the base plus what earlier stages tuned (an L2 latency
figure includes the L1's path, so the L1 is tuned first).
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .measured import Measured
from .tune_map import Bench, Direct, Indirect, TuneMap

Value = int | float | str


class TuneError(Exception):
    """The tuner cannot go on (a figure that does not move with its parameter, a failed simulation)."""


@dataclass(frozen=True)
class Run:
    """One simulation: a microbenchmark under the base plus these overrides."""
    bench: Bench
    overrides: tuple[tuple[str, Value], ...]


@dataclass
class Result:
    figures: dict[str, float]
    config: dict[str, Value] = field(default_factory=dict)   # effective parameters, where the simulator gives them


class Simulator(Protocol):
    def run(self, runs: list[Run]) -> list[Result]:
        """Results in the order of `runs` (the simulator may run them in parallel)."""


@dataclass
class Fit:
    """How one direct parameter was found: the simulated points and the answer."""
    direct: Direct
    points: list[tuple[Value, float]]       # (parameter value, simulated figure)
    measured: float
    value: Value
    predicted: float                        # the fitted relation's figure at `value`


@dataclass
class Choice:
    indirect: Indirect
    errors: list[tuple[Value, float]]        # (candidate, mean relative error over the keys)
    keys: list[str]
    value: Value


@dataclass
class Outcome:
    base: dict[str, Value]                   # the base's effective parameters
    tuned: dict[str, Value]                  # every parameter the tuner set (equal to the base's or not)
    notes: dict[str, str]                    # parameter -> why (the comment in the preset)
    fits: list[Fit]
    choices: list[Choice]
    base_figures: dict[str, float]
    tuned_figures: dict[str, float] | None = None

    def changed(self) -> dict[str, Value]:
        return {p: v for p, v in self.tuned.items() if self.base.get(p) != v}


def round_value(d: Direct, value: float) -> Value:
    if d.min is not None:
        value = max(value, d.min)
    if d.max is not None:
        value = min(value, d.max)
    return int(round(value)) if d.type == "int" else round(float(value), d.digits)


def _x(d: Direct, value: float) -> float:
    """The relation's abscissa: the value itself, or its reciprocal (a rate set by an interval)."""
    return 1.0 / float(value) if d.relation == "inverse" else float(value)


def _from_x(d: Direct, x: float) -> float:
    if d.relation == "inverse":
        if x <= 0:
            raise TuneError(f"{d.key}: the fitted relation gives no positive {d.param}")
        return 1.0 / x
    return x


def invert(d: Direct, p: tuple[Value, float], q: tuple[Value, float], measured: float) -> tuple[float, float]:
    """The (unrounded) parameter value whose figure the line through p and q
    puts at `measured`, and that line as (a, b) over the relation's abscissa."""
    (v0, m0), (v1, m1) = p, q
    x0, x1 = _x(d, v0), _x(d, v1)
    if x0 == x1 or m0 == m1:
        raise TuneError(f"{d.key} does not change with {d.param} ({v0} -> {m0:g}, {v1} -> {m1:g}): "
                        f"it cannot set that parameter here")
    a = (m1 - m0) / (x1 - x0)
    b = m0 - a * x0
    return _from_x(d, (measured - b) / a), (a, b)


def probe_value(d: Direct, current: Value) -> Value:
    """A second point for the fit, `probe` times the current value (at least one step away)."""
    v = round_value(d, float(current) * d.probe)
    if d.probe_min is not None and float(v) < d.probe_min:
        v = round_value(d, d.probe_min)
    if v == current:
        step = 1 if d.type == "int" else 10.0 ** -d.digits
        v = round_value(d, float(current) + (step if d.probe > 1 else -step))
    return v


class Tuner:
    def __init__(self, tmap: TuneMap, measured: Measured, sim: Simulator,
                 log: Callable[[str], None] = lambda s: None):
        self.tmap, self.measured, self.sim, self.log = tmap, measured, sim, log
        self.base: dict[str, Value] = {}
        self.tuned: dict[str, Value] = {}
        self.notes: dict[str, str] = {}
        self.fits: list[Fit] = []
        self.choices: list[Choice] = []
        self._memo: dict[Run, Result] = {}
        self._lock = threading.Lock()     # candidates are tried from several threads

    # -- simulation -------------------------------------------------------

    def overrides(self, extra: dict[str, Value] | None = None) -> tuple[tuple[str, Value], ...]:
        """The --set list: tuned values and `extra`, less those equal to the
        base's (so that equal configurations share one simulation)."""
        merged = {**self.tuned, **(extra or {})}
        return tuple(sorted((p, v) for p, v in merged.items() if self.base.get(p) != v))

    def simulate(self, runs: list[Run]) -> list[Result]:
        """Runs what has not been run in this invocation (one batch, in parallel)."""
        with self._lock:
            todo = list(dict.fromkeys(r for r in runs if r not in self._memo))
        if todo:
            results = self.sim.run(todo)
            with self._lock:
                for run, result in zip(todo, results):
                    self._memo[run] = result
                    if not self.base and not run.overrides and result.config:
                        self.base = dict(result.config)
        with self._lock:
            return [self._memo[r] for r in runs]

    def figure(self, run: Run, key: str) -> float:
        figures = self._memo[run].figures
        if key not in figures:
            raise TuneError(f"{run.bench.program} {' '.join(run.bench.args)} printed no {key} "
                            f"(overrides: {dict(run.overrides) or 'none'})")
        return figures[key]

    def measured_keys(self) -> list[str]:
        return list(self.measured.values)

    # -- directs ----------------------------------------------------------

    def with_scaled(self, d: Direct, value: Value) -> dict[str, Value]:
        """`param = value` and the parameters that keep their base ratio to it."""
        out = {d.param: value}
        for other in d.scale_with:
            ratio = float(self.base[other]) / float(self.base[d.param])
            out[other] = round(float(value) * ratio, max(d.digits, 1))
        return out

    def current(self, param: str) -> Value:
        if param in self.tuned:
            return self.tuned[param]
        if param not in self.base:
            for d in self.tmap.direct:
                if d.param == param and d.absent_from in self.base:
                    return self.base[d.absent_from]
            raise TuneError(f"the simulator's effective configuration has no parameter '{param}'")
        return self.base[param]

    def tune_directs(self, directs: list[Direct]) -> None:
        for fit in self.fit_directs(directs):
            self.accept(fit)

    def fit_directs(self, directs: list[Direct], extra: dict[str, Value] | None = None) -> list[Fit]:
        """Fits each direct parameter under the tuned values plus `extra`
        (a candidate being tried); changes nothing."""
        if not directs:
            return []
        extra = extra or {}
        starts = {d.key: (self.current(d.param), probe_value(d, self.current(d.param))) for d in directs}
        runs = {}
        for d in directs:
            v0, v1 = starts[d.key]
            bench = self.tmap.bench_of[d.key]
            runs[d.key] = (Run(bench, self.overrides(extra)),
                           Run(bench, self.overrides({**extra, **self.with_scaled(d, v1)})))
        self.simulate([r for pair in runs.values() for r in pair])
        fits = []
        for d in directs:
            (v0, v1), (r0, r1) = starts[d.key], runs[d.key]
            points = [(v0, self.figure(r0, d.key)), (v1, self.figure(r1, d.key))]
            fits.append(self.solve(d, points))
        for _ in range(max((d.refine for d in directs), default=0)):
            fits = self.refine_step(fits, extra)
        return [self.best_point(f) for f in fits]

    @staticmethod
    def best_point(fit: Fit) -> Fit:
        """After refining, a simulated value whose figure is nearer the
        measured one than the last answer's prediction is trusted over it (a
        figure that scatters can send a secant step astray)."""
        if not fit.direct.refine:
            return fit
        value, figure = min(fit.points, key=lambda p: abs(p[1] - fit.measured))
        simulated = dict(fit.points)
        if fit.value in simulated and abs(figure - fit.measured) < abs(simulated[fit.value] - fit.measured):
            return Fit(fit.direct, fit.points, fit.measured, value, figure)
        return fit

    def solve(self, d: Direct, points: list[tuple[Value, float]]) -> Fit:
        """Inverts the line through the two points nearest the measured figure."""
        m = self.measured.values[d.key]
        near = sorted(points, key=lambda p: abs(p[1] - m))[:2]
        raw, (a, b) = invert(d, near[0], near[1], m)
        value = round_value(d, raw)
        return Fit(d, points, m, value, a * _x(d, value) + b)

    def refine_step(self, fits: list[Fit], extra: dict[str, Value]) -> list[Fit]:
        """One secant step for the fits whose relation is not exactly a line:
        simulate at the answer, and solve again with that point."""
        pending = []
        for fit in fits:
            d = fit.direct
            tried = {v for v, _ in fit.points}
            if len(fit.points) - 2 < d.refine and fit.value not in tried:
                overrides = self.overrides({**extra, **self.with_scaled(d, fit.value)})
                pending.append((fit, Run(self.tmap.bench_of[d.key], overrides)))
        self.simulate([run for _, run in pending])
        out = {id(f): f for f in fits}
        for fit, run in pending:
            got = self.figure(run, fit.direct.key)
            points = fit.points + [(fit.value, got)]
            if abs(got - fit.measured) <= fit.direct.tolerance * abs(fit.measured):
                out[id(fit)] = Fit(fit.direct, points, fit.measured, fit.value, got)
            else:
                out[id(fit)] = self.solve(fit.direct, points)
        return [out[id(f)] for f in fits]

    def accept(self, fit: Fit) -> None:
        d = fit.direct
        for param, value in self.with_scaled(d, fit.value).items():
            self.tuned[param] = value
            self.notes[param] = (f"{d.key} = {fit.measured:g} measured" if param == d.param
                                 else f"kept in the base's ratio to {d.param}")
        base_point = next((m for v, m in fit.points if v == self.base.get(d.param)), None)
        if base_point is not None:
            self.notes[d.param] += f"; {d.param} = {self.base[d.param]} reads {base_point:g}"
        self.fits = [f for f in self.fits if f.direct.param != d.param] + [fit]   # a refit replaces its first fit
        self.log(f"tune: {d.param} = {fit.value} from {d.key} = {fit.measured:g} "
                 f"(simulated: {', '.join(f'{v} -> {m:g}' for v, m in fit.points)})")

    # -- indirects ----------------------------------------------------------

    def choose(self, indirects: list[Indirect]) -> None:
        """Each indirect parameter, one after the other: every candidate gets
        its own fit of the `refit` parameters (a scheduler's bandwidth would
        otherwise be absorbed by whatever the DRAM clock was fitted under),
        then the smallest mean error over the keys wins."""
        for ind in indirects:
            keys = [k for k in ind.keys if k in self.measured.values]
            if keys:
                self.choose_one(ind, keys)

    def try_candidate(self, ind: Indirect, keys: list[str], candidate: Value) -> tuple[float, list[Fit]]:
        refit = [d for d in self.tmap.direct if d.key in ind.refit and d.key in self.measured.values]
        fits = self.fit_directs(refit, {ind.param: candidate})
        extra = {ind.param: candidate}
        for fit in fits:
            extra.update(self.with_scaled(fit.direct, fit.value))
        runs = [Run(self.tmap.bench_of[k], self.overrides(extra)) for k in keys]
        self.simulate(runs)
        rel = [abs(self.figure(r, k) - self.measured.values[k]) / abs(self.measured.values[k])
               for r, k in zip(runs, keys)]
        return sum(rel) / len(rel), fits

    def try_or_reject(self, ind: Indirect, keys: list[str], candidate: Value) -> tuple[float, list[Fit]]:
        """A candidate whose refit fails (no clock gives the figure) loses."""
        try:
            return self.try_candidate(ind, keys, candidate)
        except TuneError as e:
            self.log(f"tune: {ind.param} = {candidate} rejected: {e}")
            return math.inf, []

    def choose_one(self, ind: Indirect, keys: list[str]) -> None:
        # Candidates in parallel: each is a chain of dependent simulations
        # (the refit's secant steps); the simulator caps how many run at once.
        with ThreadPoolExecutor(max_workers=len(ind.candidates)) as pool:
            results = list(pool.map(lambda c: self.try_or_reject(ind, keys, c), ind.candidates))
        tried = dict(zip(ind.candidates, results))
        errors = [(c, err) for c, (err, _) in tried.items()]
        incumbent = self.current(ind.param)
        best = min(errors, key=lambda e: (e[1], e[0] != incumbent))
        # Figures scatter by a few tenths of a percent with any change; a
        # candidate must beat the current value by the margin to replace it.
        current = dict(errors).get(incumbent, math.inf)
        value = best[0] if best[1] < current - ind.margin else incumbent
        self.choices.append(Choice(ind, errors, keys, value))
        self.tuned[ind.param] = value
        for fit in tried[value][1]:
            self.accept(fit)
        table = ", ".join(f"{c}: {e * 100:.2f}%" for c, e in errors)
        self.notes[ind.param] = f"chosen by simulation, mean error over {', '.join(keys)}: {table}"
        self.log(f"tune: {ind.param} = {value} ({table})")

    # -- the whole run --------------------------------------------------------

    def base_runs(self) -> dict[str, float]:
        benches = list(dict.fromkeys(self.tmap.bench_of[k] for k in self.measured_keys()))
        runs = [Run(b, ()) for b in benches]
        self.simulate(runs)
        return {k: self.figure(Run(self.tmap.bench_of[k], ()), k) for k in self.measured_keys()}

    def tune(self) -> Outcome:
        base_figures = self.base_runs()
        if not self.base:
            raise TuneError("the simulator reported no effective configuration for the base")
        for stage in self.tmap.stages():
            self.tune_directs([d for d in self.tmap.direct if d.stage == stage and d.key in self.measured.values])
            self.choose([i for i in self.tmap.indirect if i.stage == stage])
        return Outcome(self.base, dict(self.tuned), dict(self.notes), self.fits, self.choices, base_figures)

    def verify(self, outcome: Outcome) -> dict[str, float]:
        """Every measured key re-simulated under the base plus the tuned parameters."""
        overrides = tuple(sorted(outcome.changed().items()))
        runs = {k: Run(self.tmap.bench_of[k], overrides) for k in self.measured_keys()}
        self.simulate(list(runs.values()))
        return {k: self.figure(r, k) for k, r in runs.items()}
