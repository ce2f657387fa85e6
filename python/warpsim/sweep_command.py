"""`warpsim sweep run|status|report`: argument parsing and the top of each command."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import sweep_db as sdb
from .errors import InputError


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="sweep_command", required=True)
    r = sub.add_parser("run", help="run (or resume) a sweep", description="Run every point of a sweep spec that "
                       "is not recorded yet; rerunning resumes (docs/dse.md).")
    r.add_argument("spec", help="the sweep spec (TOML)")
    r.add_argument("--out", required=True, help="the study folder (database, one folder per run)")
    r.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="simulations at once (default: the cores, %(default)s)")
    r.add_argument("--retry-failed", action="store_true", help="also rerun the points that failed before")
    r.add_argument("--backend", choices=["local", "slurm"], default="local",
                   help="where points run: local processes, or a Slurm job array (default: %(default)s)")
    r.add_argument("--check", action="store_true", help="check the spec and list the points; run nothing")
    r.add_argument("--no-wait", action="store_true", help="slurm: submit and return (gather later)")
    r.add_argument("--sbatch-arg", action="append", metavar="OPT",
                   help="slurm: one more sbatch option, e.g. --sbatch-arg=--account=me (repeatable)")
    r.add_argument("--quiet", action="store_true", help="no progress line")
    g = sub.add_parser("gather", help="slurm: record the result files the array's tasks wrote")
    g.add_argument("study", help="the study folder")
    g.add_argument("--wait", action="store_true", help="gather until the study's array has left the queue")
    w = sub.add_parser("worker", help="slurm: run one chunk of points (what each array task runs)")
    w.add_argument("study", help="the study folder")
    w.add_argument("--chunk", type=int, required=True, help="the chunk index ($SLURM_ARRAY_TASK_ID)")
    s = sub.add_parser("status", help="done / running / failed / pending points of a study")
    s.add_argument("study", help="the study folder")
    rep = sub.add_parser("report", help="CSV and an HTML page with plots")
    rep.add_argument("study", help="the study folder")
    rep.add_argument("--html", help="HTML page to write (default: STUDY/report.html)")
    rep.add_argument("--csv", help="CSV to write (default: beside the HTML page, report.csv)")
    rep.add_argument("--metric", default="cycles",
                     help="the figure plotted as speedup, lower is better (default: %(default)s)")


def run(args) -> int:
    try:
        return _dispatch(args)
    except RuntimeError as e:                    # no simulator to ask, or it failed to answer
        print(f"warpsim sweep: error: {e}", file=sys.stderr)
        return 1


def _dispatch(args) -> int:
    if args.sweep_command == "status":
        from .sweep_status import print_status
        return print_status(_study(args.study))
    if args.sweep_command == "report":
        from .deps import missing_message, missing_modules
        if missing := missing_modules():
            print(missing_message(missing), file=sys.stderr)
            return 3
        from .sweep_report import write_report
        return write_report(_study(args.study), args.html, args.csv, args.metric)
    if args.sweep_command == "gather":
        return gather_command(args)
    if args.sweep_command == "worker":
        from .sweep_slurm import run_chunk
        return run_chunk(_study(args.study), args.chunk)
    return run_sweep(args)


def _study(folder: str) -> Path:
    if not sdb.is_study(folder):
        raise InputError(folder, f"not a sweep study (no {sdb.DB_NAME}; make one with `warpsim sweep run`)")
    return Path(folder)


def list_presets(warpsim: str) -> list[str]:
    done = subprocess.run([warpsim, "presets"], capture_output=True, text=True)
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def run_sweep(args) -> int:
    from .sweep_params import Catalogue, warpsim_binary
    from .sweep_runner import StudyLock, prepare_synth
    from .sweep_spec import load_spec
    warpsim = warpsim_binary()
    spec = load_spec(args.spec, Catalogue.from_binary(warpsim), list_presets(warpsim))
    points = spec.points()
    if args.check:
        for p in points:
            print(f"{p.key}  {p.workload.name:<16} {Path(p.gpu).name:<8} rep {p.rep}  {p.values or 'baseline'}")
        print(f"{args.spec}: {len(points)} points")
        return 0
    study = Path(args.out).resolve()        # workers run in the spec's folder: their paths must be absolute
    study.mkdir(parents=True, exist_ok=True)
    if not StudyLock(study).acquire():
        raise InputError(study, "another `warpsim sweep run` is driving this study")
    db = sdb.connect(study)
    _refuse_while_array_runs(study, db)
    sdb.clear_running(db)
    for stale in (study / "runs").glob("*.tmp-*"):      # left by a killed driver or task; none writes them now
        shutil.rmtree(stale, ignore_errors=True)
    sdb.plan(db, spec.hash, spec.path.read_text(encoding="utf-8"), points)
    if args.backend == "slurm":
        from .sweep_slurm import gather
        gather(study)                                    # results of an earlier array count as finished
    finished = sdb.finished_keys(db, args.retry_failed)
    todo = [p for p in points if p.key not in finished]
    if any(p.workload.kind == "synth" for p in todo):
        prepare_synth(study, spec, warpsim)
    if args.backend == "slurm":
        return _run_slurm(args, spec, study, todo, warpsim)
    return _run_local(args, spec, study, db, todo, len(points) - len(todo), warpsim)


def _refuse_while_array_runs(study: Path, db) -> None:
    job = dict(db.execute("SELECT key, value FROM study").fetchall()).get("slurm_job")
    if job:
        from .sweep_slurm import array_active
        if array_active(job):
            raise InputError(study, f"Slurm array {job} of this study is still running (`warpsim sweep gather "
                                    f"{study} --wait` waits for it; scancel {job} stops it)")


def _run_local(args, spec, study, db, todo, skipped, warpsim) -> int:
    from .sweep_runner import LocalRunner
    try:
        counts = LocalRunner(spec, study, warpsim, args.jobs, args.quiet).run(db, todo, skipped)
    except KeyboardInterrupt:
        print("sweep: stopped; the points in flight run again on the next `warpsim sweep run`", file=sys.stderr)
        return 130
    return _final_line(db, study, f"{sum(counts.values())} run now")


def _run_slurm(args, spec, study, todo, warpsim) -> int:
    from .sweep_slurm import submit, wait_and_gather, write_chunks
    db = sdb.connect(study)
    if not todo:
        return _final_line(db, study, "nothing to submit")
    count = write_chunks(study, spec, todo, warpsim)
    job = submit(study, spec, count, warpsim, args.sbatch_arg or [])
    print(f"sweep: submitted {len(todo)} points as Slurm array {job} ({count} tasks)")
    if args.no_wait:
        print(f"sweep: `warpsim sweep gather {study} --wait` collects the results")
        return 0
    wait_and_gather(study, job)
    return _final_line(db, study, f"array {job}")


def _final_line(db, study, what: str) -> int:
    from .sweep_status import summary
    s = summary(db, driver_alive=False)
    print(f"sweep: {s['done']} done, {s['failed']} failed, {s['pending']} pending of {s['points']} points "
          f"({what}); `warpsim sweep status {study}` lists failures")
    return 1 if s["failed"] or s["pending"] else 0


def gather_command(args) -> int:
    from .sweep_slurm import gather, wait_and_gather
    study = _study(args.study)
    job = dict(sdb.connect(study).execute("SELECT key, value FROM study").fetchall()).get("slurm_job")
    if args.wait and job:
        wait_and_gather(study, job)
    else:
        print(f"sweep: gathered {gather(study)} new results")
    return _final_line(sdb.connect(study), study, "gathered")
