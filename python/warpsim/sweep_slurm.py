"""The Slurm backend: the points still to run go into chunk files, one `sbatch
--array` task per chunk. A task runs its chunk's points one after another and
writes each result as results/<key>.json (write, then rename) on the shared
study folder; it never opens the database, which SQLite over NFS would not
survive. The gatherer ingests result files with the local backend's
one-transaction record, so ingesting a file twice changes nothing. A task
that is requeued or restarted skips the points whose result file exists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import sweep_db as sdb
from .errors import InputError
from .sweep_runner import assess, now, point_command, point_identity

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def write_chunks(study: Path, spec, todo, warpsim: str) -> int:
    """Chunk files for the points in `todo`; returns how many. Stale result files of these
    points (failed ones being retried, interrupted ones) go first, or workers would skip them."""
    folder = study / "slurm" / "chunks"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (study / "results").mkdir(exist_ok=True)
    size = int(spec.slurm.get("chunk", 10))
    axis_names = [a.name for a in spec.axes]
    chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    for i, points in enumerate(chunks):
        entries = []
        for p in points:
            (study / "results" / f"{p.key}.json").unlink(missing_ok=True)
            out = study / "runs" / f"{p.key}.tmp-@PID@"
            entries.append({"identity": point_identity(p), "cwd": str(spec.path.parent),
                            "command": point_command(p, spec, study, out, warpsim)})
        _write_atomic(folder / f"{i}.json", json.dumps({"axes": axis_names, "points": entries}))
    return len(chunks)


def submit(study: Path, spec, count: int, warpsim: str, extra: list[str]) -> str:
    """Submits the array; returns its job id. A refused submission is kept in the study
    (status shows it) and raised."""
    logs = study / "slurm" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    s = spec.slurm
    cmd = ["sbatch", "--parsable", f"--array=0-{count - 1}", "--job-name=warpsim-sweep",
           f"--output={logs}/%A_%a.txt", f"--export=ALL,WARPSIM_BIN={warpsim},PYTHONPATH={PACKAGE_DIR}"]
    cmd += [f"--time={s['time']}"] if "time" in s else []
    cmd += [f"--mem={s['mem']}"] if "mem" in s else []
    cmd += [f"--partition={s['partition']}"] if "partition" in s else []
    cmd += [str(a) for a in s.get("sbatch_args", [])] + extra
    worker = f"{sys.executable} -m warpsim sweep worker {study.resolve()} --chunk $SLURM_ARRAY_TASK_ID"
    try:
        done = subprocess.run(cmd + ["--wrap", worker], capture_output=True, text=True)
        refused = done.returncode != 0
        why = f"exit {done.returncode}: {done.stderr.strip()}"
    except OSError as e:
        refused, why = True, str(e)
    db = sdb.connect(study)
    if refused:
        sdb.set_study(db, slurm_job="", slurm_error=f"sbatch refused the array ({why})")
        raise InputError(study, f"sbatch refused the array ({why})")
    job = done.stdout.strip().split(";")[0]
    sdb.set_study(db, slurm_job=job, slurm_error="", slurm_chunks=str(count))
    return job


def run_chunk(study: Path, index: int) -> int:
    """In an array task: each point of chunk `index` that has no result file yet."""
    chunk = json.loads((study / "slurm" / "chunks" / f"{index}.json").read_text(encoding="utf-8"))
    for entry in chunk["points"]:
        key = entry["identity"]["key"]
        result = study / "results" / f"{key}.json"
        if result.exists():
            continue                            # done before a requeue
        tmp = study / "runs" / f"{key}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        command = [a.replace("@PID@", str(os.getpid())) for a in entry["command"]]
        started, t0 = now(), time.monotonic()
        with open(tmp / "log.txt", "wb") as log:
            rc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                cwd=entry["cwd"]).returncode
        final = study / "runs" / key
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
        row, metrics = assess(entry["identity"], final, rc, chunk["axes"])
        row.update(wall_seconds=time.monotonic() - t0, host=os.uname().nodename, started=started,
                   finished=now(), out_dir=str(final.relative_to(study)), command=json.dumps(command))
        _write_atomic(result, json.dumps({"row": row, "metrics": metrics}))
    return 0


def gather(study: Path) -> int:
    """Ingests every result file not yet recorded as it is; returns how many were new."""
    db = sdb.connect(study)
    seen = dict(db.execute("SELECT key, finished FROM runs").fetchall())
    spec_hash = dict(db.execute("SELECT key, value FROM study").fetchall()).get("spec_hash")
    new = 0
    for path in sorted((study / "results").glob("*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue                            # only whole files are renamed into place
        row = result["row"]
        if seen.get(row["key"]) == row["finished"]:
            continue
        row["spec_hash"] = row.get("spec_hash") or spec_hash
        sdb.record(db, row, result["metrics"])
        new += 1
    return new


def array_active(job: str) -> bool:
    """Whether the array still has tasks in the queue (False where squeue cannot be run)."""
    try:
        done = subprocess.run(["squeue", "-h", "-j", job, "-o", "%i"], capture_output=True, text=True)
    except OSError:
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def wait_and_gather(study: Path, job: str, poll: float = 2.0) -> None:
    """Gathers as tasks finish, until the array has left the queue, then once more."""
    while array_active(job):
        gather(study)
        time.sleep(poll)
    gather(study)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
