"""warpsim.load: stats.json files as one DataFrame row per kernel launch."""

from conftest import sim_kernel, write_run

import warpsim


def test_one_row_per_launch_over_workloads(tmp_path):
    write_run(tmp_path / "b", [sim_kernel("_Z1kv", 10, 1)])
    write_run(tmp_path / "a", [sim_kernel("_Z1kv", 20, 2), sim_kernel("_Z1jv", 30, 3)])
    (tmp_path / "notes").mkdir()                          # a folder without stats.json is not a run
    df = warpsim.load(tmp_path)
    assert list(df.workload) == ["a", "a", "b"] and list(df.launch) == [0, 1, 0]
    assert list(df["ncu.gpc__cycles_elapsed.max"]) == [20, 30, 10]
    assert df.loc[0, "grid"] == (100, 1, 1)


def test_single_run_folder(tmp_path):
    df = warpsim.load(write_run(tmp_path / "run", [sim_kernel("_Z1kv", 10, 1)]))
    assert list(df.workload) == ["run"] and df.loc[0, "warp_insts"] == 1
