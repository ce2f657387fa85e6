#!/usr/bin/env python3
"""Measures what `warpsim sweep run` adds per point (docs/dse.md, issue 20's
targets): N points of the 100-thread vectoradd trace, one per gpu.sms value,
at -j JOBS. Prints the driver's own CPU time per point, the simulations' CPU
time, the sum of the points' wall times, and the wall time not spent inside a
point: (wall - sum of point walls / jobs) / points.

    WARPSIM_BIN=build/bin/warpsim PYTHONPATH=python python3 scripts/sweep-overhead.py [JOBS] [POINTS]
"""
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from warpsim.__main__ import main

jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 2
points = int(sys.argv[2]) if len(sys.argv) > 2 else 100
trace = Path(__file__).resolve().parents[1] / "examples/traces/vectoradd-100-32-trace"
with tempfile.TemporaryDirectory(prefix="warpsim-sweep-overhead-") as tmp:
    spec = Path(tmp) / "overhead.toml"
    spec.write_text(f'baseline = false\n[[workload]]\nname = "vadd"\ntrace = "{trace}"\n'
                    f'[axes]\n"gpu.sms" = {{from = 1, to = {points}, step = 1}}\n')
    t0 = time.monotonic()
    rc = main(["sweep", "run", str(spec), "--out", f"{tmp}/study", "-j", str(jobs), "--quiet"])
    wall = time.monotonic() - t0
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    n, point_walls = sqlite3.connect(f"{tmp}/study/sweep.sqlite").execute(
        "SELECT COUNT(*), SUM(wall_seconds) FROM runs WHERE status = 'done'").fetchone()
driver = me.ru_utime + me.ru_stime
sims = kids.ru_utime + kids.ru_stime
print(f"exit {rc}: {n} points at -j {jobs}: wall {wall:.2f} s; driver CPU {driver:.2f} s "
      f"({driver / max(n, 1) * 1000:.1f} ms a point); simulations' CPU {sims:.2f} s, "
      f"(all CPU) / jobs {(driver + sims) / jobs:.2f} s; sum of point walls {point_walls:.2f} s; wall outside points {(wall - (point_walls or 0) / jobs) / max(n, 1) * 1000:.1f} ms a point")
