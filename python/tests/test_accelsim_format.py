"""`warpsim run --format accelsim` against the regular expressions Accel-Sim's
util/job_launching/get_stats.py applies (stats/example_stats.yml, with the
development branch's additions): every one must find a line whose captured
value is a number, and the run must end with the line get_stats.py takes as
proof that the simulation finished. The expressions are written out here
(they are the facts the output has to meet); docs/stats.md maps each to the
warpsim counter behind it."""

import re
import subprocess
from pathlib import Path

import pytest

TRACES = Path(__file__).resolve().parents[2] / "examples" / "traces"

# get_stats.py: collect_aggregate (running totals, diffed per kernel),
# collect_abs (per kernel) and collect_rates.
AGGREGATE = [
    r"gpu_tot_sim_insn\s*=\s*(.*)",
    r"gpgpu_simulation_time\s*=.*\(([0-9]+) sec\).*",
    r"gpu_tot_sim_cycle\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)",
    r"\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)",
    r"\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[MSHR_HIT\]\s*=\s*(.*)",
    r"gpgpu_n_tot_w_icount\s*=\s*(.*)",
    r"total dram reads\s*=\s*(.*)",
    r"total dram writes\s*=\s*(.*)",
    r"kernel_launch_uid\s*=\s*(.*)",
    r"gpgpu_n_shmem_bkconflict\s*=\s*(.*)",
    r"gpgpu_n_l1cache_bkconflict\s*=\s*(.*)",
]
ABSOLUTE = [
    r"gpu_ipc\s*=\s*(.*)",
    r"gpu_occupancy\s*=\s*(.*)%",
    r"L2_BW\s*=\s*(.*)+GB\/Sec",
]
RATES = [
    r"gpgpu_simulation_rate\s+=\s+(.*)\s+\(inst\/sec\)",
    r"gpgpu_simulation_rate\s+=\s+(.*)\s+\(cycle\/sec\)",
    r"gpgpu_silicon_slowdown\s*=\s*(.*)x",
    r"gpu_tot_ipc\s*=\s*(.*)",
]
PATTERNS = AGGREGATE + ABSOLUTE + RATES
EXIT_LINE = r"GPGPU-Sim: \*\*\* exit detected \*\*\*"
KERNEL_LINE = r"kernel_name\s+=\s+(.*)"
# Under Python 3 the group of `(.*)+` ends on an empty repetition, so this
# pattern captures "" from any line, Accel-Sim's own included; the line is
# still checked with the pattern, and its number with this one.
L2_BW_VALUE = r"L2_BW\s*=\s*(\S+)\s*GB\/Sec"


_OUTPUTS = {}


def _accelsim(warpsim_bin, trace, *extra):
    """The printed lines of one run (each distinct run made once per session)."""
    key = (warpsim_bin, trace) + extra
    if key not in _OUTPUTS:
        _OUTPUTS[key] = _run_accelsim(warpsim_bin, trace, *extra)
    return _OUTPUTS[key]


def _run_accelsim(warpsim_bin, trace, *extra):
    r = subprocess.run([warpsim_bin, "run", str(TRACES / trace), "--format", "accelsim", "--no-progress", *extra],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def _last_value(lines, pattern):
    """The value get_stats.py would take: the last line the pattern finds, group 1 stripped."""
    token = re.compile(pattern)
    for line in reversed(lines):
        m = token.search(line.rstrip())
        if m is not None:
            return m.group(1).strip()
    return None


def test_python_regex_quirk_is_real():
    assert re.search(ABSOLUTE[2], "L2_BW  =     123.4567 GB/Sec").group(1) == ""


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_finds_a_number(warpsim_bin, pattern):
    lines = _accelsim(warpsim_bin, "matrixmul-32-32-trace")
    value = _last_value(lines, pattern)
    assert value is not None, f"no line matches {pattern}"
    if pattern == ABSOLUTE[2]:
        value = _last_value(lines, L2_BW_VALUE)
    float(value)  # a number, as get_stats.py and its tables expect


def test_exit_line_is_present_and_values_are_ours(warpsim_bin):
    lines = _accelsim(warpsim_bin, "matrixmul-32-32-trace", "--gpu", "qv100")
    assert any(re.match(EXIT_LINE, line) for line in lines)
    assert _last_value(lines, KERNEL_LINE) == "_Z8mult_gpuIfEvPT_S1_S1_ii"  # mangled, as Accel-Sim keeps it
    # A thread instruction is a warp instruction's active lane: between 1
    # and 32 of them for each warp instruction (the trace's 4,416).
    warp = int(_last_value(lines, r"gpgpu_n_tot_w_icount\s*=\s*(.*)"))
    assert warp == 4416
    assert warp < int(_last_value(lines, PATTERNS[0])) <= 32 * warp
    # One CTA of 32 warps on an SM with 64 warp slots: at most 50% occupancy
    # while the CTA is resident, less while its warps finish.
    occupancy = float(_last_value(lines, ABSOLUTE[1]))
    assert 0 < occupancy <= 50.0
    # Hits never exceed accesses; the breakdown agrees with the totals.
    l1_reads = int(_last_value(lines, AGGREGATE[7]))
    l1_writes = int(_last_value(lines, AGGREGATE[10]))
    assert int(_last_value(lines, AGGREGATE[8])) <= l1_reads
    assert l1_reads + l1_writes == int(_last_value(lines, r"L1D_total_cache_accesses\s*=\s*(.*)"))
    l2_reads, l2_writes = int(_last_value(lines, AGGREGATE[4])), int(_last_value(lines, AGGREGATE[6]))
    assert l2_reads + l2_writes == int(_last_value(lines, r"L2_total_cache_accesses\s*=\s*(.*)"))
    # L2_BW = 32 B x sectors over the kernel time at the core clock (1132 MHz).
    cycles = int(_last_value(lines, r"gpu_sim_cycle\s*=\s*(.*)"))
    expected = 32 * (l2_reads + l2_writes) / (cycles / 1132e6) / 1e9
    assert float(_last_value(lines, L2_BW_VALUE)) == pytest.approx(expected, rel=1e-3)
    # matrixmul keeps its tiles in registers and reads global memory only.
    assert int(_last_value(lines, AGGREGATE[16])) == 0


def test_a_run_that_fails_has_no_exit_line(warpsim_bin, tmp_path):
    trace = tmp_path / "t"
    trace.mkdir()
    src = (TRACES / "vectoradd-100-32-trace" / "kernel-1.traceg").read_text().splitlines()
    # Cut the kernel's instructions short in the middle of a warp's record.
    (trace / "kernel-1.traceg").write_text("\n".join(src[: len(src) // 2] + ["garbage line"]) + "\n")
    (trace / "kernelslist.g").write_text("kernel-1.traceg\n")
    r = subprocess.run([warpsim_bin, "run", str(trace), "--format", "accelsim", "--no-progress"],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode != 0
    assert not any(re.match(EXIT_LINE, line) for line in r.stdout.splitlines())
