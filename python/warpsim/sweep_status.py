"""`warpsim sweep status`: what a study holds, and why its failed points failed."""

from __future__ import annotations

import json
from pathlib import Path

from . import sweep_db as sdb
from .sweep_runner import StudyLock


def summary(db, driver_alive: bool) -> dict:
    """Counts over the planned points. A `running` mark counts only while a driver holds the
    study; one left by a killed driver is a pending point."""
    rows = db.execute("""SELECT p.key, r.status, (SELECT 1 FROM running g WHERE g.key = p.key)
                         FROM points p LEFT JOIN runs r ON r.key = p.key""").fetchall()
    out = {"points": len(rows), "done": 0, "failed": 0, "running": 0, "pending": 0}
    for _, status, running in rows:
        if running and driver_alive:
            out["running"] += 1
        elif status in (sdb.DONE, sdb.FAILED):
            out[status] += 1
        else:
            out["pending"] += 1              # never run, or interrupted: runs on the next `sweep run`
    return out


def print_status(study: Path) -> int:
    db = sdb.connect(study)
    alive = StudyLock(study).held_elsewhere()
    s = summary(db, alive)
    spec = dict(db.execute("SELECT key, value FROM study").fetchall())
    print(f"study {study}: spec {spec.get('spec_hash', '?')}, {s['points']} points; driver "
          f"{'running' if alive else 'not running'}")
    print(f"  done {s['done']}, running {s['running']}, failed {s['failed']}, pending {s['pending']}")
    failed = db.execute("""SELECT r.key, r.workload, r.gpu, r.set_json, r.error, r.out_dir FROM runs r
                           JOIN points p ON p.key = r.key WHERE r.status = ? ORDER BY p.ordinal""",
                        (sdb.FAILED,)).fetchall()
    if failed:
        print("failed points (`warpsim sweep run SPEC --out STUDY --retry-failed` reruns them):")
    for key, workload, gpu, set_json, error, out_dir in failed:
        values = json.loads(set_json) or "baseline"
        print(f"  {key} {workload} on {Path(gpu).name} {values}: {error}  [{study / out_dir}/log.txt]")
    stopped = db.execute("""SELECT COUNT(*) FROM runs r JOIN points p ON p.key = r.key
                            WHERE r.status = ?""", (sdb.INTERRUPTED,)).fetchone()[0]
    if stopped:
        print(f"  ({stopped} of the pending points were stopped from outside and run again next time)")
    if spec.get("slurm_job") or spec.get("slurm_error"):
        print_slurm(study, db, spec)
    return 0


def print_slurm(study: Path, db, study_row: dict) -> None:
    """The study's array, a refused submission, and the tasks that ended without results."""
    if study_row.get("slurm_error"):
        print(f"slurm: {study_row['slurm_error']}")
    job = study_row.get("slurm_job")
    if not job:
        return
    from .sweep_slurm import array_active
    active = array_active(job)
    print(f"slurm: array {job} {'in the queue' if active else 'finished'}"
          + ("" if active else "; `sweep gather` has recorded what it wrote"))
    if active:
        return
    recorded = {k for (k,) in db.execute("SELECT key FROM runs WHERE status IN ('done', 'failed')")}
    for chunk in sorted((study / "slurm" / "chunks").glob("*.json"), key=lambda p: int(p.stem)):
        try:
            keys = [e["identity"]["key"] for e in json.loads(chunk.read_text(encoding="utf-8"))["points"]]
            missing = f"{len([k for k in keys if k not in recorded])} of its points"
        except (OSError, ValueError, KeyError, TypeError):
            keys, missing = None, "its points (its chunk file is unreadable)"
        if keys is None or any(k not in recorded for k in keys):
            log = study / "slurm" / "logs" / f"{job}_{chunk.stem}.txt"
            tail = log.read_text(errors="replace").strip().splitlines()[-2:] if log.exists() else ["(no log)"]
            print(f"  task {chunk.stem} ended with {missing} unrecorded (they run again on the next "
                  f"`sweep run --backend slurm`): {' | '.join(tail)}  [{log}]")
