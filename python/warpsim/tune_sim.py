"""Runs microbenchmarks under `warpsim exec --timing` for the tuner, several at
once (each simulation is single-threaded)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .cli_args import set_argument
from .tune import Result, Run, TuneError

_FIGURE = re.compile(r"([a-z0-9_]+)=(\S+)")


def parse_figures(stdout: str) -> dict[str, float]:
    """The program's key=value lines (warpsim's own summary is on stderr)."""
    figures = {}
    for line in stdout.splitlines():
        m = _FIGURE.fullmatch(line.strip())
        if m:
            try:
                figures[m.group(1)] = float(m.group(2))
            except ValueError:
                pass
    return figures


class WarpsimSimulator:
    def __init__(self, warpsim: str, gpu: str, bench_dir: str, jobs: int, log=lambda s: None):
        self.warpsim, self.gpu, self.bench_dir, self.jobs, self.log = warpsim, gpu, bench_dir, jobs, log
        self.count = 0
        # At most `jobs` simulations at once, however many threads ask.
        self._slots = threading.Semaphore(max(1, jobs))
        self._lock = threading.Lock()

    def command(self, run: Run, out_dir: str) -> list[str]:
        cmd = [self.warpsim, "exec", "--gpu", self.gpu, "--timing", "--out", out_dir]
        for param, value in run.overrides:
            cmd += ["--set", set_argument(param, value)]
        program = Path(self.bench_dir) / run.bench.program
        if not program.is_file():
            raise TuneError(f"no microbenchmark {program} (build them with `make ubench`, or pass --bench-dir)")
        return cmd + ["--", str(program), *run.bench.args]

    def one(self, run: Run) -> Result:
        with tempfile.TemporaryDirectory(prefix="warpsim-tune-") as out_dir:
            cmd = self.command(run, out_dir)
            with self._slots:
                done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
                raise TuneError(f"simulation failed (exit {done.returncode}): {shlex.join(cmd)}\n{tail}")
            config = {}
            path = Path(out_dir) / "config.toml"
            if path.is_file():
                with open(path, "rb") as f:
                    config = tomllib.load(f)
        with self._lock:
            self.count += 1
        self.log(f"tune: ran {run.bench.program} {' '.join(run.bench.args)}"
                 + (f" with {', '.join(set_argument(p, v) for p, v in run.overrides)}" if run.overrides else ""))
        return Result(parse_figures(done.stdout), config)

    def run(self, runs: list[Run]) -> list[Result]:
        if not runs:
            return []
        with ThreadPoolExecutor(max_workers=max(1, min(self.jobs, len(runs)))) as pool:
            return list(pool.map(self.one, runs))


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
