"""The study's SQLite database: the planned points, one row per finished run
with every stats.json figure, and the points in flight. One writer (the
driver or the gatherer); every record is one transaction, so a killed driver
leaves a point either recorded whole or not at all."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

DB_NAME = "sweep.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS points (
  key TEXT PRIMARY KEY, workload TEXT, gpu TEXT, rep INTEGER, set_json TEXT, ordinal INTEGER);
CREATE TABLE IF NOT EXISTS runs (
  key TEXT PRIMARY KEY, spec_hash TEXT, workload TEXT, gpu TEXT, rep INTEGER, set_json TEXT,
  params_json TEXT, config_hash TEXT, status TEXT, error TEXT, exit_code INTEGER, wall_seconds REAL,
  host TEXT, started TEXT, finished TEXT, out_dir TEXT, command TEXT, stats_json TEXT);
CREATE TABLE IF NOT EXISTS metrics (key TEXT, name TEXT, value REAL, PRIMARY KEY (key, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS running (key TEXT PRIMARY KEY, host TEXT, pid INTEGER, started TEXT);
"""

# Statuses a run row can hold. `interrupted`: stopped from outside (a signal to
# the worker, the driver stopping); such a point runs again on the next `run`.
DONE, FAILED, INTERRUPTED = "done", "failed", "interrupted"

RUN_COLUMNS = ("key", "spec_hash", "workload", "gpu", "rep", "set_json", "params_json", "config_hash", "status",
               "error", "exit_code", "wall_seconds", "host", "started", "finished", "out_dir", "command",
               "stats_json")


def connect(folder: str | Path) -> sqlite3.Connection:
    db = sqlite3.connect(Path(folder) / DB_NAME, timeout=60, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")     # readers (status, report) never block the writer
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    return db


def is_study(folder: str | Path) -> bool:
    return (Path(folder) / DB_NAME).is_file()


def plan(db: sqlite3.Connection, spec_hash: str, spec_text: str, points) -> None:
    """Replaces the planned points with this spec's (finished runs stay, whatever spec made them)."""
    with _transaction(db):
        db.execute("DELETE FROM points")
        db.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?, ?)",
                       [(p.key, p.workload.name, p.gpu, p.rep, json.dumps(p.values, sort_keys=True), i)
                        for i, p in enumerate(points)])
        db.executemany("INSERT OR REPLACE INTO study VALUES (?, ?)",
                       [("spec_hash", spec_hash), ("spec_text", spec_text)])


def set_study(db: sqlite3.Connection, **values: str) -> None:
    db.executemany("INSERT OR REPLACE INTO study VALUES (?, ?)", list(values.items()))


def finished_keys(db: sqlite3.Connection, retry_failed: bool) -> set[str]:
    """Points a rerun skips: done ones, and failed ones unless retried."""
    wanted = (DONE,) if retry_failed else (DONE, FAILED)
    marks = ",".join("?" * len(wanted))
    return {k for (k,) in db.execute(f"SELECT key FROM runs WHERE status IN ({marks})", wanted)}


def mark_running(db: sqlite3.Connection, key: str, host: str, pid: int, started: str) -> None:
    db.execute("INSERT OR REPLACE INTO running VALUES (?, ?, ?, ?)", (key, host, pid, started))


def clear_running(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM running")


def record(db: sqlite3.Connection, row: dict, metrics: dict[str, float]) -> None:
    """One finished run, its figures, and the end of its `running` mark, all or nothing."""
    with _transaction(db):
        db.execute(f"INSERT OR REPLACE INTO runs ({','.join(RUN_COLUMNS)}) VALUES ({','.join('?' * len(RUN_COLUMNS))})",
                   [row.get(c) for c in RUN_COLUMNS])
        db.execute("DELETE FROM metrics WHERE key = ?", (row["key"],))
        db.executemany("INSERT INTO metrics VALUES (?, ?, ?)", [(row["key"], n, v) for n, v in metrics.items()])
        db.execute("DELETE FROM running WHERE key = ?", (row["key"],))


class _transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, tb):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        return False


def flatten_stats(stats: dict) -> dict[str, float]:
    """Every number of a stats.json outside the per-kernel list, by dotted name; the run totals
    (total.cycles, total.ipc, ...) also without their prefix, as `cycles`, `ipc`, ..."""
    out: dict[str, float] = {}

    def walk(prefix: str, obj) -> None:
        for k, v in obj.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(name + ".", v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                out[name] = float(v)

    walk("", {k: v for k, v in stats.items() if k not in ("kernels", "gpu")})
    for k, v in stats.get("total", {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.setdefault(k, float(v))
    return out
