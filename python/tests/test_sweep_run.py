"""Sweeps end to end with the built simulator: a small real sweep, a failing
point, resume after SIGKILL of a worker and of the driver, status, report,
load and per_kernel. Points are tiny synthetic kernels (a fraction of a second each)."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import warpsim
import warpsim.api

PYTHON_DIR = Path(__file__).resolve().parents[1]


def sweep(warpsim_bin, *args, check=True, cwd=None):
    env = {**os.environ, "WARPSIM_BIN": warpsim_bin, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-m", "warpsim", "sweep", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=cwd)
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def write_spec(tmp_path, axes, extra="", iterations=4):
    path = tmp_path / "study.toml"
    path.write_text(textwrap.dedent(f"""
        gpus = ["qv100"]
        {extra}
        [[workload]]
        name = "stream"
        synth = {{kind = "stream", ctas = 32, threads = 128, iterations = {iterations}}}
        [axes]
        """) + axes)
    return path


def rows(study):
    db = sqlite3.connect(study / "sweep.sqlite")
    return db.execute("SELECT key, status, error FROM runs").fetchall(), \
        [k for (k,) in db.execute("SELECT key FROM points")]


def test_small_sweep_records_loads_and_reports(tmp_path, warpsim_bin):
    spec = write_spec(tmp_path, '"gpu.sms" = [1, 4]\n"l1d.replacement" = ["lru", "fifo"]\n')
    study = tmp_path / "study"
    # a relative study folder: the points run in the spec's folder, so their paths must not be relative
    (tmp_path / "elsewhere").mkdir()
    out = sweep(warpsim_bin, "run", spec, "--out", "../study", "-j", "2", cwd=tmp_path / "elsewhere")
    assert "5 done, 0 failed, 0 pending of 5 points" in out.stdout
    df = warpsim.load(study)
    assert len(df) == 5 and set(df.status) == {"done"}
    base = df[df.baseline].iloc[0]
    assert base["gpu.sms"] == 80 and base["l1d.replacement"] == "lru"   # the qv100 preset's own values
    # 32 CTAs of a streaming kernel: one SM runs them a few at a time, four SMs share them out,
    # so a single SM needs clearly more cycles than four (same work, same instructions)
    # (beyond each kernel's fixed work: qv100's gpu.kernel_fixed_ns, 2,045 ns = 2,315 cycles at 1,132 MHz)
    runs = df[~df.baseline].set_index(["gpu.sms", "l1d.replacement"])
    fixed = 2315
    assert runs.loc[(1, "lru"), "cycles"] - fixed > 2 * (runs.loc[(4, "lru"), "cycles"] - fixed)
    assert (df.warp_insts == base.warp_insts).all()
    assert df.config_hash.nunique() == 5 and df.wall_seconds.gt(0).all()
    assert "counters.sm.0.warp_insts" in df.columns or any(c.startswith("counters.") for c in df.columns)
    kernels = warpsim.per_kernel(df)
    assert len(kernels) == 5 and kernels.cycles.sum() == df.cycles.sum()
    # a rerun finds everything done and runs nothing
    again = sweep(warpsim_bin, "run", spec, "--out", study, "-j", "2")
    assert "(0 run now)" in again.stdout
    report = sweep(warpsim_bin, "report", study, "--html", tmp_path / "r" / "report.html")
    page = (tmp_path / "r" / "report.html").read_text()
    assert "Best configuration per workload" in page and "gpu.sms</code> SMs" in page
    pngs = list((tmp_path / "r" / "report_files").glob("*.png"))
    assert len(pngs) == 3, report.stdout                    # two speedup plots and the 2 x 2 heat map
    assert (tmp_path / "r" / "report.csv").read_text().count("\n") == 6


def test_failing_points_are_recorded_with_their_message(tmp_path, warpsim_bin):
    # gpu.max_cycles = 100 stops the kernel long before its end: those points fail, the others run
    spec = write_spec(tmp_path, '"gpu.max_cycles" = [100, 100000000]\n', extra="baseline = false")
    study = tmp_path / "study"
    out = sweep(warpsim_bin, "run", spec, "--out", study, "-j", "2", check=False)
    assert out.returncode == 1 and "1 done, 1 failed" in out.stdout
    status = sweep(warpsim_bin, "status", study).stdout
    assert "done 1, running 0, failed 1, pending 0" in status
    assert "{'gpu.max_cycles': 100}" in status and "max_cycles" in status.split("failed points")[1]
    # failed points run again only when asked
    assert "(0 run now)" in sweep(warpsim_bin, "run", spec, "--out", study, check=False).stdout
    assert "(1 run now)" in sweep(warpsim_bin, "run", spec, "--out", study, "--retry-failed", check=False).stdout


def test_invalid_spec_stops_before_anything_runs(tmp_path, warpsim_bin):
    spec = write_spec(tmp_path, '"gpu.sms" = [0, 4]\n"l2.no_such" = [1]\n')
    out = sweep(warpsim_bin, "run", spec, "--out", tmp_path / "study", check=False)
    assert out.returncode == 1
    assert f"{spec}: invalid sweep spec" in out.stderr and "axis 'gpu.sms': value 0" in out.stderr
    assert "axis 'l2.no_such'" in out.stderr and not (tmp_path / "study").exists()


def _children(pid):
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _exec_done(pid):
    """Whether a child of the driver has left Python for its command: stopped
    between fork and exec, it would hold the driver inside Popen."""
    try:
        return os.readlink(f"/proc/{pid}/exe") != os.path.realpath(sys.executable)
    except OSError:
        return False


def _recorded_so_far(study):
    """The run rows, or none while the driver is still creating the database."""
    try:
        return rows(study)[0] if (study / "sweep.sqlite").exists() else []
    except sqlite3.OperationalError:
        return []


def test_killed_worker_and_driver_then_rerun_records_every_point_once(tmp_path, warpsim_bin):
    # Once a point is done, every worker is stopped (SIGSTOP) as it appears, so
    # the sweep cannot finish on its own however fast points run; points only
    # need to outlast the 20 ms polling (these take about 0.1 s on the 2-core
    # host of 2026-11-27; 64 iterations, about 0.04 s, passed 6 of 6 too).
    spec = write_spec(tmp_path, '"gpu.sms" = [1, 2, 3, 4, 5, 6, 7, 8]\n', iterations=256)
    study = tmp_path / "study"
    env = {**os.environ, "WARPSIM_BIN": warpsim_bin, "PYTHONPATH": str(PYTHON_DIR)}
    driver = subprocess.Popen([sys.executable, "-m", "warpsim", "sweep", "run", str(spec), "--out", str(study),
                               "-j", "2", "--quiet"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    stopped, killed, last = set(), set(), None
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            recorded = _recorded_so_far(study)
            if any(s == "interrupted" for _, s, _ in recorded):
                break
            children = _children(driver.pid)
            if any(s == "done" for _, s, _ in recorded):
                for w in children:
                    if w not in stopped and _exec_done(w):
                        os.kill(w, signal.SIGSTOP)
                        stopped.add(w)
                # A stopped worker dies: its point must run again. One that had
                # already finished dies as a finished process (its point is
                # done): once the driver has reaped it, another dies.
                if last is None or last not in children:
                    if candidates := [w for w in children if w in stopped and w not in killed]:
                        last = candidates[0]
                        killed.add(last)
                        os.kill(last, signal.SIGKILL)
            time.sleep(0.02)
        assert driver.poll() is None, "the sweep finished before the test could stop it: make the points longer"
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    assert killed
    recorded, planned = rows(study)
    assert 0 < len([r for r in recorded if r[1] == "done"]) < len(planned)
    assert 1 <= [s for _, s, _ in recorded].count("interrupted") <= len(killed)   # the killed workers' points
    time.sleep(0.2)                                           # PDEATHSIG reaches the orphaned workers
    status = sweep(warpsim_bin, "status", study).stdout
    assert "running 0" in status and "driver not running" in status
    sweep(warpsim_bin, "run", spec, "--out", study, "-j", "2")
    recorded, planned = rows(study)
    assert sorted(k for k, _, _ in recorded) == sorted(planned)   # every point once (key is the primary key)
    assert {s for _, s, _ in recorded} == {"done"}
    assert not list((study / "runs").glob("*.tmp-*"))
    assert sorted(p.name for p in (study / "runs").iterdir()) == sorted(planned)


def test_run_from_python_returns_the_stats(tmp_path, warpsim_bin):
    trace = Path(__file__).resolve().parents[2] / "examples/traces/vectoradd-100-32-trace"
    stats = warpsim.run(trace, gpu="qv100", set={"gpu.sms": 4}, out=str(tmp_path / "o"), warpsim=warpsim_bin)
    assert stats["complete"] and stats["gpu"]["sms"] == 4 and stats["total"]["kernels"] == 1
    assert (tmp_path / "o" / "config.toml").is_file()
    with pytest.raises(warpsim.api.SimulationError, match="gpu.smz"):
        warpsim.run(trace, set={"gpu.smz": 4}, warpsim=warpsim_bin)
