"""The local backend: one `warpsim run`/`exec` process per point, at most N at
once, each in its own folder; the driver alone writes the database.

A point's process writes into runs/<key>.tmp-<pid>; only when it has exited
does the driver move the folder to runs/<key> and record the row (one
transaction). Workers die with the driver (PR_SET_PDEATHSIG), so a killed
driver leaves only temporary folders, removed by the next run."""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import tomllib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import sweep_db as sdb
from .errors import InputError
from .sweep_progress import Progress
from .sweep_spec import Point, Spec
from .cli_args import set_argument

# Signals that mean "stopped from outside", not "the workload failed": the point runs again.
OUTSIDE_SIGNALS = {signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _die_with_parent(parent: int) -> None:
    """In the child before exec: be killed when the driver dies, however it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)          # PR_SET_PDEATHSIG
    if os.getppid() != parent:                           # the driver died before prctl took hold
        os._exit(1)


# util-linux's setpriv sets the same death signal and then execs the simulator;
# without a preexec_fn Python starts children with vfork, tens of ms cheaper a point.
SETPRIV = shutil.which("setpriv")


def spawn(cmd: list[str], log, cwd) -> subprocess.Popen:
    if SETPRIV:
        return subprocess.Popen([SETPRIV, "--pdeathsig", "KILL", "--", *cmd], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, cwd=cwd)
    parent = os.getpid()
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                            preexec_fn=lambda: _die_with_parent(parent))


def synth_folder(study: Path, workload) -> Path:
    digest = hashlib.sha256(json.dumps(workload.identity(), sort_keys=True).encode()).hexdigest()[:8]
    return study / "workloads" / f"{workload.name}-{digest}"


def prepare_synth(study: Path, spec: Spec, warpsim: str) -> None:
    """Writes each synth workload's trace once (atomically: a half-written trace is never used)."""
    for w in spec.workloads:
        folder = synth_folder(study, w)
        if w.kind != "synth" or folder.is_dir():
            continue
        tmp = folder.with_name(folder.name + f".tmp-{os.getpid()}")
        opts = dict(w.synth)
        cmd = [warpsim, "synth", opts.pop("kind"), "--out", str(tmp)]
        for k, v in opts.items():
            cmd += [f"--{k}", str(v)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise InputError(spec.path, f"workload '{w.name}': `{' '.join(cmd)}` failed: {done.stderr.strip()}")
        tmp.rename(folder)


def point_command(p: Point, spec: Spec, study: Path, out_dir: Path, warpsim: str,
                  threads: int | None = None) -> list[str]:
    """The warpsim command of a point; `threads`: its share of the host's CPUs (--threads), unless the
    point sets gpu.threads itself or runs one engine (results do not depend on it)."""
    sets = []
    values = {**spec.base_set, **p.values}
    for k, v in values.items():
        sets += ["--set", set_argument(k, v)]
    if threads and "gpu.threads" not in values and str(values.get("gpu.partitions", "")) != "one":
        sets += ["--threads", str(threads)]
    w = p.workload
    if w.kind == "program":
        return [warpsim, "exec", "--timing", "--gpu", p.gpu, *sets, "--out", str(out_dir), "--", w.path, *w.args]
    trace = w.path if w.kind == "trace" else str(synth_folder(study, w))
    return [warpsim, "run", trace, "--gpu", p.gpu, *sets, "--out", str(out_dir), "--format", "none",
            "--no-progress"]


@dataclass
class Attempt:
    point: Point
    proc: subprocess.Popen
    tmp: Path
    command: list[str]
    started: str
    t0: float


class StudyLock:
    """One driver per study folder; `status` asks it whether a driver is alive."""

    def __init__(self, study: Path):
        self.path = study / "driver.lock"

    def acquire(self) -> bool:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            return False
        return True

    def held_elsewhere(self) -> bool:
        if not self.path.exists():
            return False
        if self.acquire():
            os.close(self.fd)                    # closing drops our lock again
            return False
        return True


class LocalRunner:
    def __init__(self, spec: Spec, study: Path, warpsim: str, jobs: int, quiet: bool = False):
        self.spec, self.study, self.warpsim, self.jobs = spec, study, warpsim, max(1, jobs)
        self.host = socket.gethostname()
        self.quiet = quiet
        # Points run `jobs` at a time; each gets its share of the CPUs, so that
        # their simulation threads do not outnumber the cores.
        self.threads = max(1, len(os.sched_getaffinity(0)) // self.jobs)
        self.inflight: dict[int, Attempt] = {}

    def run(self, db, todo: list[Point], skipped: int) -> dict[str, int]:
        (self.study / "runs").mkdir(exist_ok=True)
        progress = Progress(len(todo) + skipped, skipped, self.jobs, quiet=self.quiet)
        counts = {sdb.DONE: 0, sdb.FAILED: 0, sdb.INTERRUPTED: 0}
        queue = list(reversed(todo))
        try:
            while queue or self.inflight:
                while queue and len(self.inflight) < self.jobs:
                    self._launch(db, queue.pop())
                progress.update(counts, len(self.inflight))
                counts[self._collect(db, self._reap())] += 1
        except KeyboardInterrupt:
            self._stop_all()
            raise
        finally:
            progress.finish(counts)
        return counts

    def _launch(self, db, p: Point) -> None:
        tmp = self.study / "runs" / f"{p.key}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        cmd = point_command(p, self.spec, self.study, tmp, self.warpsim, self.threads)
        with open(tmp / "log.txt", "wb") as log:
            proc = spawn(cmd, log, self.spec.path.parent)
        started = now()
        sdb.mark_running(db, p.key, self.host, proc.pid, started)
        self.inflight[proc.pid] = Attempt(p, proc, tmp, cmd, started, time.monotonic())

    def _reap(self) -> Attempt:
        pid, status = os.waitpid(-1, 0)
        attempt = self.inflight.pop(pid)
        attempt.proc.returncode = os.waitstatus_to_exitcode(status)
        return attempt

    def _collect(self, db, a: Attempt) -> str:
        wall = time.monotonic() - a.t0
        final = self.study / "runs" / a.point.key
        shutil.rmtree(final, ignore_errors=True)
        a.tmp.rename(final)
        row, metrics = assess(point_identity(a.point), final, a.proc.returncode, [x.name for x in self.spec.axes])
        row.update(spec_hash=self.spec.hash, wall_seconds=wall, host=self.host, started=a.started,
                   finished=now(), out_dir=str(final.relative_to(self.study)), command=json.dumps(a.command))
        sdb.record(db, row, metrics)
        return row["status"]

    def _stop_all(self) -> None:
        for a in self.inflight.values():
            a.proc.terminate()
        for a in self.inflight.values():
            a.proc.wait()


def point_identity(p: Point) -> dict:
    """What a run row says about its point (also what a Slurm chunk file carries)."""
    return {"key": p.key, "workload": p.workload.name, "gpu": p.gpu, "rep": p.rep,
            "set_json": json.dumps(p.values, sort_keys=True)}


def assess(identity: dict, folder: Path, rc: int, axis_names: list[str]) -> tuple[dict, dict]:
    """The run row and figures of a point whose process exited with `rc`."""
    stats = _read_json(folder / "stats.json")
    row = {**identity, "exit_code": rc, "stats_json": json.dumps(stats) if stats else None}
    config_path = folder / "config.toml"
    if config_path.is_file():
        row["config_hash"] = hashlib.sha256(config_path.read_bytes()).hexdigest()[:16]
        row["params_json"] = json.dumps(effective_values(config_path, axis_names))
    outside = (rc < 0 and -rc in OUTSIDE_SIGNALS) or (rc > 128 and rc - 128 in OUTSIDE_SIGNALS) or \
        bool(stats and stats.get("signal"))
    if outside:
        name = signal.Signals(-rc).name if rc < 0 else (stats or {}).get("signal") or f"exit {rc}"
        row.update(status=sdb.INTERRUPTED, error=f"stopped from outside ({name}); runs again on the next "
                                                 "`warpsim sweep run`")
    elif rc == 0 and stats and stats.get("complete"):
        row.update(status=sdb.DONE, error=None)
    else:
        why = (stats or {}).get("error") or _log_tail(folder / "log.txt") or "no output"
        how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"
        row.update(status=sdb.FAILED, error=f"{how}: {why}")
    metrics = sdb.flatten_stats(stats) if stats else {}
    return row, metrics


def effective_values(config_path: Path, names: list[str]) -> dict:
    """The values the simulator used for `names`, from the run's effective config (config.toml)."""
    # The dump writes one flat key a line ("gpu.sms" = 80  # SMs; origin): parse just those lines,
    # a whole-file TOML parse costs more than a short simulation.
    wanted = {f'"{n}" = ': n for n in names}
    out = dict.fromkeys(names)
    with open(config_path, encoding="utf-8") as f:
        for line in f:
            head = line[:line.find("=") + 2]
            if head in wanted:
                out[wanted[head]] = tomllib.loads("v" + line[line.find("=") - 1:])["v"]
    return out


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _log_tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return " | ".join(text.splitlines()[-lines:])
