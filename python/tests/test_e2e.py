"""End to end: the real `warpsim run` on a bundled trace, then `warpsim correlate` (the C++
CLI handing over to this package) against a hand-written ncu CSV whose cycles are 10% off."""

import json
import subprocess
from pathlib import Path

import pytest
from conftest import NCU_LAUNCH

TRACE = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces" / "vectoradd-100-32-trace"


def _run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=240, **kw)


@pytest.fixture
def simulated(warpsim_bin, tmp_path):
    if not TRACE.is_dir():
        pytest.skip(f"{TRACE} not found (the shared traces sit beside the checkout)")
    out = tmp_path / "runs" / "vectoradd"
    r = _run([warpsim_bin, "run", str(TRACE), "--gpu", "qv100", "--out", str(out), "--format", "none",
              "--no-progress"])
    assert r.returncode == 0, r.stderr
    return json.loads((out / "stats.json").read_text())


def test_report_says_ten_percent(warpsim_bin, simulated, tmp_path):
    kernel = simulated["kernels"][0]
    assert kernel["mangled_name"] == "_Z6vecAddIfEvPT_S1_S1_i"
    assert kernel["name"] == "void vecAdd<float>(float*, float*, float*, int)"
    sim_cycles = kernel["ncu"]["gpc__cycles_elapsed.max"]
    hw_cycles = round(sim_cycles / 1.1)            # the simulation runs 10% longer than "the GPU"
    metrics = ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum"]
    row = ["0", "42", "vectoradd", "host", "void vecAdd<float>(float*, float*, float*, int)", "1", "7",
           "(1024, 1, 1)", "(1, 1, 1)", "0", "6.1", f"{hw_cycles:,}", f"{kernel['warp_insts']:,}"]
    (tmp_path / "hw").mkdir()
    (tmp_path / "hw" / "vectoradd.csv").write_text("\n".join(
        ",".join(f'"{c}"' for c in cells)
        for cells in (NCU_LAUNCH + metrics, [""] * len(NCU_LAUNCH) + ["cycle", "inst"], row)) + "\n")
    report = tmp_path / "report.html"
    r = _run([warpsim_bin, "correlate", "--sim", str(tmp_path / "runs"), "--hw", str(tmp_path / "hw"),
              "--out", str(report)])
    assert r.returncode == 0, r.stderr
    cycles = next(line.split() for line in r.stdout.splitlines() if line.startswith("cycles "))
    # The measured cycles are rounded, so the error is 10% to that rounding.
    expected = f"{100 * abs(sim_cycles - hw_cycles) / hw_cycles:.1f}%"
    assert abs(100 * (sim_cycles - hw_cycles) / hw_cycles - 10) < 0.2
    assert cycles[2:4] == ["1", expected]                             # kernels, MAE
    instructions = next(line.split() for line in r.stdout.splitlines() if line.startswith("instructions "))
    assert instructions[3] == "0.0%"
    assert f"<td>{expected}</td>" in report.read_text()

