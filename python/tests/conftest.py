"""Puts the package on the path, and builds small simulated runs and profiler CSVs by hand."""

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def sim_kernel(name, cycles, insts, grid=(100, 1, 1), block=(32, 1, 1), l1_hit=0.0, l2_hit=0.0,
               l2_reads=0, dram_reads=0, launch_latency=0):
    """A stats.json kernel object with the fields the correlator reads (docs/stats.md)."""
    return {
        "name": name, "id": 0, "grid": list(grid), "block": list(block), "binary_version": 70,
        "cycles": cycles + launch_latency, "warp_insts": insts, "thread_insts": insts * 32,
        "ncu": {
            "gpc__cycles_elapsed.max": cycles, "smsp__inst_executed.sum": insts,
            "smsp__thread_inst_executed.sum": insts * 32,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 0, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 0,
            "l1tex__t_sector_hit_rate.pct": l1_hit, "lts__t_sectors_op_read.sum": l2_reads,
            "lts__t_sectors_op_write.sum": 0, "lts__t_sector_hit_rate.pct": l2_hit,
            "dram__sectors_read.sum": dram_reads, "dram__sectors_write.sum": 0,
        },
    }


def write_run(folder: Path, kernels, sms=80, core_mhz=1000.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i, k in enumerate(kernels):
        k["id"] = i + 1
    stats = {"schema": "warpsim-stats/1", "complete": True, "error": None, "workload": str(folder),
             "gpu": {"preset": "qv100", "sms": sms, "core_mhz": core_mhz}, "kernels": kernels}
    (folder / "stats.json").write_text(json.dumps(stats))
    return folder


NCU_LAUNCH = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC"]


def ncu_csv(path: Path, metrics, units, launches, preamble=("==PROF== Connected to process 7 (/app)",)):
    """An `ncu --csv --page raw` file: header, units line, one row per (name, {metric: text}) launch."""
    def line(cells):
        return ",".join('"' + c + '"' for c in cells)
    rows = list(preamble) + [line(NCU_LAUNCH + list(metrics)), line([""] * len(NCU_LAUNCH) + list(units))]
    for i, (name, values) in enumerate(launches):
        fixed = [str(i), "7", "app", "host", name, "1", "7", "(32, 1, 1)", "(100, 1, 1)", "0", "7.0"]
        rows.append(line(fixed + [values[m] for m in metrics]))
    path.write_text("\n".join(rows) + "\n==PROF== Disconnected from process 7\n")
    return path


@pytest.fixture
def warpsim_bin():
    """The built CLI, from WARPSIM_BIN (set by the ctest entry) or the default build folder."""
    path = os.environ.get("WARPSIM_BIN") or str(Path(__file__).resolve().parents[2] / "build/bin/warpsim")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no warpsim binary at {path} (build first, or set WARPSIM_BIN)")
    return path
