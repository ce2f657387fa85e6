"""The Slurm backend against a real one-node Slurm cluster (munge, slurmctld,
slurmd from Debian's slurm-wlm and munge packages), configured in a temporary
folder, started for this module and stopped after it: a 20-point sweep as a
job array, one task made to fail and then retried, a refused submission."""

import getpass
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _find(name):
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def _write_config(d: Path) -> Path:
    host, user = socket.gethostname(), getpass.getuser()
    conf = d / "slurm.conf"
    conf.write_text(textwrap.dedent(f"""\
        ClusterName=warpsimtest
        SlurmctldHost={host}
        SlurmctldPort={_free_port()}
        SlurmdPort={_free_port()}
        AuthType=auth/munge
        AuthInfo=socket={d}/munge.sock
        CredType=cred/munge
        SlurmUser={user}
        SlurmdUser={user}
        StateSaveLocation={d}/state
        SlurmdSpoolDir={d}/spool
        SlurmctldPidFile={d}/slurmctld.pid
        SlurmdPidFile={d}/slurmd.pid
        SlurmctldLogFile={d}/slurmctld.log
        SlurmdLogFile={d}/slurmd.log
        ProctrackType=proctrack/linuxproc
        TaskPlugin=task/none
        JobAcctGatherType=jobacct_gather/none
        SelectType=select/cons_tres
        SelectTypeParameters=CR_Core
        ReturnToService=2
        MpiDefault=none
        NodeName={host} CPUs={os.cpu_count()} State=UNKNOWN
        PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
        """))
    return conf


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """SLURM_CONF of a running one-node cluster; skipped where the packages are not installed."""
    missing = [n for n in DAEMONS if not _find(n)]
    if missing:
        pytest.skip(f"no {', '.join(missing)}: install Debian's slurm-wlm and munge (scripts/install-deps.sh)")
    d = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    (d / "munge.key").write_bytes(os.urandom(1024))
    os.chmod(d / "munge.key", 0o400)
    conf = _write_config(d)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    pidfiles = [d / "munged.pid", d / "slurmctld.pid", d / "slurmd.pid"]
    try:
        subprocess.run([_find("munged"), "--force", f"--socket={d}/munge.sock", f"--key-file={d}/munge.key",
                        f"--pid-file={pidfiles[0]}", f"--log-file={d}/munged.log", f"--seed-file={d}/munge.seed"],
                       check=True)
        subprocess.run([_find("slurmctld"), "-i"], env=env, check=True)
        subprocess.run([_find("slurmd")], env=env, check=True)
        _wait_for_idle_node(env, d)
        yield env
    finally:
        for pidfile in reversed(pidfiles):
            if pidfile.exists():
                try:
                    os.kill(int(pidfile.read_text().split()[0]), signal.SIGTERM)
                except (ProcessLookupError, ValueError):
                    pass


def _wait_for_idle_node(env, d: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        out = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True).stdout
        if out.strip() == "idle":
            return
        time.sleep(0.5)
    logs = "\n".join((d / f).read_text()[-800:] for f in ("slurmctld.log", "slurmd.log") if (d / f).exists())
    pytest.fail(f"the test cluster's node did not come up idle:\n{logs}")


def sweep(env, warpsim_bin, *args, check=True):
    env = {**os.environ, **env, "WARPSIM_BIN": warpsim_bin, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run([sys.executable, "-m", "warpsim", "sweep", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=240)
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def test_array_sweep_with_a_failed_task_retried(tmp_path, slurm, warpsim_bin):
    spec = tmp_path / "study.toml"
    spec.write_text(textwrap.dedent("""
        gpus = ["qv100"]
        [[workload]]
        name = "stream"
        synth = {kind = "stream", ctas = 8, threads = 64, iterations = 2}
        [axes]
        "gpu.sms" = {from = 1, to = 19, step = 1}
        [slurm]
        chunk = 5
        time = "00:05:00"
        """))
    study = tmp_path / "study"
    out = sweep(slurm, warpsim_bin, "run", spec, "--out", study, "--backend", "slurm", "--no-wait",
                "--sbatch-arg=--hold").stdout
    assert "submitted 20 points as Slurm array" in out and "(4 tasks)" in out
    job = out.split("Slurm array ")[1].split()[0]
    # task 1 cannot read its chunk: it fails, the other three run
    (study / "slurm" / "chunks" / "1.json").write_text("not json")
    subprocess.run(["scontrol", "release", job], env=slurm, check=True)
    gathered = sweep(slurm, warpsim_bin, "gather", study, "--wait", check=False)
    assert gathered.returncode == 1 and "15 done, 0 failed, 5 pending of 20 points" in gathered.stdout
    status = sweep(slurm, warpsim_bin, "status", study).stdout
    assert "pending 5" in status and "task 1 ended with its points (its chunk file is unreadable)" in status
    assert "JSONDecodeError" in status                       # the task's own last words, from its log
    # gathering again records nothing twice
    assert "gathered 0 new results" in sweep(slurm, warpsim_bin, "gather", study, check=False).stdout
    # the rerun submits only the failed task's points, waits, and gathers them
    rerun = sweep(slurm, warpsim_bin, "run", spec, "--out", study, "--backend", "slurm").stdout
    assert "submitted 5 points" in rerun and "20 done, 0 failed, 0 pending of 20 points" in rerun
    db = sqlite3.connect(study / "sweep.sqlite")
    rows = db.execute("SELECT key, status, host FROM runs").fetchall()
    planned = [k for (k,) in db.execute("SELECT key FROM points")]
    assert sorted(k for k, _, _ in rows) == sorted(planned) and {s for _, s, _ in rows} == {"done"}
    assert all(h for _, _, h in rows)
    assert len(list((study / "results").glob("*.json"))) == 20


def test_refused_submission_is_recorded(tmp_path, slurm, warpsim_bin):
    spec = tmp_path / "study.toml"
    spec.write_text('gpus = ["qv100"]\n[[workload]]\nname = "s"\nsynth = {kind = "compute", ctas = 1}\n')
    study = tmp_path / "study"
    out = sweep(slurm, warpsim_bin, "run", spec, "--out", study, "--backend", "slurm",
                "--sbatch-arg=--partition=no-such-partition", check=False)
    assert out.returncode == 1 and "sbatch refused the array" in out.stderr
    status = sweep(slurm, warpsim_bin, "status", study).stdout
    assert "slurm: sbatch refused the array" in status and "pending 1" in status


def test_a_requeued_task_skips_the_points_it_already_wrote(tmp_path, warpsim_bin):
    # no cluster needed: what a task runs, on a hand-written chunk of two points
    from warpsim import sweep_db
    trace = Path(__file__).resolve().parents[2] / "examples/traces/vectoradd-100-32-trace"
    study = tmp_path / "study"
    (study / "slurm" / "chunks").mkdir(parents=True)
    (study / "results").mkdir()
    sweep_db.connect(study).close()
    points = []
    for key, sms in (("a" * 16, 2), ("b" * 16, 4)):
        cmd = [warpsim_bin, "run", str(trace), "--set", f"gpu.sms={sms}", "--out",
               str(study / "runs" / f"{key}.tmp-@PID@"), "--format", "none", "--no-progress"]
        points.append({"identity": {"key": key, "workload": "vadd", "gpu": "qv100", "rep": 0,
                                    "set_json": f'{{"gpu.sms": {sms}}}'}, "cwd": str(tmp_path), "command": cmd})
    (study / "slurm" / "chunks" / "0.json").write_text(json.dumps({"axes": ["gpu.sms"], "points": points}))
    (study / "results" / f"{'a' * 16}.json").write_text("{}")     # written before the task was requeued
    sweep({}, warpsim_bin, "worker", study, "--chunk", "0")
    assert (study / "results" / f"{'a' * 16}.json").read_text() == "{}"   # not run again
    result = json.loads((study / "results" / f"{'b' * 16}.json").read_text())
    assert result["row"]["status"] == "done" and json.loads(result["row"]["params_json"]) == {"gpu.sms": 4}
    assert not list((study / "runs").glob("*.tmp-*"))
