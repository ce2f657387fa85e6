"""The correlator on a hand-written ncu CSV whose errors are known: expected MAE, NRMSE and
Pearson r are worked out here from the numbers written below, not taken from the program."""

import math

import pytest
from conftest import ncu_csv, sim_kernel, write_run

from warpsim.__main__ import main
from warpsim.correlate import correlate

METRICS = ["gpc__cycles_elapsed.max", "smsp__inst_executed.sum", "lts__t_sector_hit_rate.pct"]
UNITS = ["cycle", "inst", "%"]

# Three launches: vecAdd, scale, vecAdd. Simulated and measured values:
SIM_CYCLES, HW_CYCLES = [1000, 2000, 4000], [1100, 1600, 4000]
SIM_L2, HW_L2 = [50.0, 80.0, 100.0], [40.0, 80.0, 90.0]
INSTS = [500, 900, 2000]   # identical on both sides


@pytest.fixture
def inputs(tmp_path):
    names = ["_Z6vecAddPfS_S_i", "_Z5scalePfi", "_Z6vecAddPfS_S_i"]
    kernels = [sim_kernel(n, c, i, l2_hit=h) for n, c, i, h in zip(names, SIM_CYCLES, INSTS, SIM_L2)]
    run = write_run(tmp_path / "runs" / "app", kernels)
    printed = ["vecAdd(float*, float*, float*, int)", "scale(float*, int)", "vecAdd(float*, float*, float*, int)"]
    launches = [(n, {METRICS[0]: f"{c:,}", METRICS[1]: f"{i:,}", METRICS[2]: f"{h}"})
                for n, c, i, h in zip(printed, HW_CYCLES, INSTS, HW_L2)]
    hw = ncu_csv(tmp_path / "hw.csv", METRICS, UNITS, launches)
    return run, hw


def test_cycles_errors_match_hand_computation(inputs):
    run, hw = inputs
    c = correlate(str(run), str(hw))
    a = c.summary["cycles"]
    # Relative errors (sim - hw) / hw: -100/1100, +400/1600, 0/4000.
    assert a.n == 3
    assert a.mae == pytest.approx((100 / 1100 + 400 / 1600 + 0) / 3 * 100)        # 11.36 %
    rmse = math.sqrt((100 ** 2 + 400 ** 2 + 0 ** 2) / 3)
    assert a.nrmse == pytest.approx(rmse / ((1100 + 1600 + 4000) / 3))             # 0.1066
    mx, my = sum(HW_CYCLES) / 3, sum(SIM_CYCLES) / 3
    sxy = sum((x - mx) * (y - my) for x, y in zip(HW_CYCLES, SIM_CYCLES))
    sxx = sum((x - mx) ** 2 for x in HW_CYCLES)
    syy = sum((y - my) ** 2 for y in SIM_CYCLES)
    assert a.pearson == pytest.approx(sxy / math.sqrt(sxx * syy))                  # 0.985
    assert a.pearson == pytest.approx(0.98533, abs=1e-4)


def test_hit_rates_compare_in_points(inputs):
    run, hw = inputs
    a = correlate(str(run), str(hw)).summary["l2_hit_rate"]
    assert a.mae == pytest.approx((10 + 0 + 10) / 3)        # |50-40|, |80-80|, |100-90|


def test_equal_values_have_no_error_and_ipc_is_derived_on_both_sides(inputs):
    run, hw = inputs
    c = correlate(str(run), str(hw))
    assert c.summary["instructions"].mae == 0
    assert c.summary["instructions"].pearson == pytest.approx(1.0)
    ipc = c.values[c.values.metric == "ipc"]
    assert list(ipc.hw) == pytest.approx([i / h for i, h in zip(INSTS, HW_CYCLES)])
    assert list(ipc.sim) == pytest.approx([i / s for i, s in zip(INSTS, SIM_CYCLES)])
    # ipc = insts / cycles with equal insts: sim/hw - 1 = hw_cycles/sim_cycles - 1.
    assert c.summary["ipc"].mae == pytest.approx((abs(1100 / 1000 - 1) + abs(1600 / 2000 - 1) + 0) / 3 * 100)


def test_matches_by_name_then_launch_order(inputs):
    run, hw = inputs
    c = correlate(str(run), str(hw))
    cycles = c.values[c.values.metric == "cycles"]
    assert list(cycles.launch) == ["0", "1", "2"]
    assert list(cycles.hw) == HW_CYCLES


def test_metrics_not_measured_are_not_compared(inputs):
    run, hw = inputs
    c = correlate(str(run), str(hw))
    assert set(c.summary) == {"cycles", "instructions", "l2_hit_rate", "ipc"}


def test_cli_prints_summary_and_writes_report(inputs, tmp_path, capsys):
    run, hw = inputs
    out, table = tmp_path / "r.html", tmp_path / "k.csv"
    assert main(["correlate", "--sim", str(run), "--hw", str(hw), "--out", str(out),
                 "--kernels-csv", str(table)]) == 0
    text = capsys.readouterr().out
    cycles_line = next(line for line in text.splitlines() if line.startswith("cycles "))
    assert "11.4%" in cycles_line and "0.107" in cycles_line and "0.985" in cycles_line
    page = out.read_text()
    assert page.count("<img ") == 4 and "data:image/png;base64," in page
    assert "11.4%" in page
    assert len(table.read_text().splitlines()) == 1 + 3 * 4     # header + 3 kernels x 4 metrics


def test_run_that_stopped_early_is_noted(tmp_path):
    run = write_run(tmp_path / "app", [sim_kernel("_Z1kv", 100, 1)])
    stats = run / "stats.json"
    stats.write_text(stats.read_text().replace('"complete": true, "error": null',
                                               '"complete": false, "error": "deadlock"'))
    hw = ncu_csv(tmp_path / "hw.csv", METRICS[:1], UNITS[:1], [("k", {METRICS[0]: "100"})])
    c = correlate(str(run), str(hw))
    assert c.matching.notes == [f"{stats}: the simulation stopped early (deadlock); it holds only the 1 kernels "
                                "that finished"]


def test_plot_caption_counts_zero_values(tmp_path):
    from warpsim.report import _caption
    run = write_run(tmp_path / "app", [sim_kernel("_Z1kv", 100, 1, dram_reads=0), sim_kernel("_Z1kv", 100, 1,
                                                                                             dram_reads=8)])
    m = ["dram__sectors_read.sum"]
    hw = ncu_csv(tmp_path / "hw.csv", m, ["sector"], [("k", {m[0]: "0"}), ("k", {m[0]: "8"})])
    c = correlate(str(run), str(hw))
    assert _caption(c, c.mapping.by_name("dram_read_sectors")) == "1 kernel with a zero value not shown"


def test_same_inputs_give_the_same_report(inputs, tmp_path):
    run, hw = inputs
    pages = []
    for name in ("a.html", "b.html"):
        assert main(["correlate", "--sim", str(run), "--hw", str(hw), "--out", str(tmp_path / name)]) == 0
        pages.append((tmp_path / name).read_bytes())
    assert pages[0] == pages[1]


def test_runs_with_demangled_names_match_as_before(tmp_path):
    """stats.json gives `name` demangled and the trace's name as `mangled_name`: launches pair up as they
    did when `name` was mangled."""
    kernels = []
    for c, i in zip(SIM_CYCLES, INSTS):
        k = sim_kernel("void vecAdd<float>(float*, float*, float*, int)", c, i)
        k["mangled_name"] = "_Z6vecAddIfEvPT_S1_S1_i"
        kernels.append(k)
    run = write_run(tmp_path / "runs" / "app", kernels)
    launches = [("void vecAdd<float>(float*, float*, float*, int)", {METRICS[0]: f"{c:,}", METRICS[1]: f"{i:,}",
                                                                      METRICS[2]: "50"})
                for c, i in zip(HW_CYCLES, INSTS)]
    c = correlate(str(run), str(ncu_csv(tmp_path / "hw.csv", METRICS, UNITS, launches)))
    assert c.summary["cycles"].n == 3
    assert not c.matching.unmatched
