"""Stall-reason metrics: a simulated per-kernel count divided by the kernel's instructions is compared,
as a difference in warp cycles per instruction, with ncu's ratio column (printed with unit 'inst');
a kernel without stall counts (the abstract model) is left out. Expected values worked out here."""

import pytest
from conftest import ncu_csv, sim_kernel, write_run

from warpsim.correlate import correlate

LONG = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
LATENCY = "smsp__average_warp_latency_per_inst_issued.ratio"


def test_stall_ratio_is_compared_as_a_difference_per_instruction(tmp_path):
    a = sim_kernel("_Z1av", 1000, 100)
    a["stall"] = {"long_scoreboard": 1200, "total": 2500}   # 12 and 25 warp cycles per instruction
    b = sim_kernel("_Z1bv", 1000, 200)
    b["stall"] = {"long_scoreboard": 0, "total": 1000}      # 0 and 5
    c = sim_kernel("_Z1cv", 1000, 50)                       # no stall object: left out
    run = write_run(tmp_path / "runs" / "app", [a, b, c])
    launches = [("a()", {LONG: "10.50", LATENCY: "30"}), ("b()", {LONG: "1.5", LATENCY: "4"}),
                ("c()", {LONG: "3", LATENCY: "9"})]
    hw = ncu_csv(tmp_path / "hw.csv", [LONG, LATENCY], ["inst", "cycle"], launches)
    corr = correlate(str(run), str(hw), allow_unknown=True)
    s = corr.summary["stall_long_scoreboard"]
    assert s.n == 2
    assert s.mae == pytest.approx((1.5 + 1.5) / 2)          # |12 - 10.5|, |0 - 1.5|
    lat = corr.summary["warp_latency"]
    assert lat.mae == pytest.approx((5 + 1) / 2)            # |25 - 30|, |5 - 4|
    rows = corr.values[corr.values.metric == "stall_long_scoreboard"]
    assert sorted(rows.error.round(6)) == [-1.5, 1.5]
