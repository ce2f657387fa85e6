"""Bad input stops with a message naming the file, row and column, and writes nothing."""

import pytest
from conftest import ncu_csv, sim_kernel, write_run

from warpsim.__main__ import main
from warpsim.correlate import correlate
from warpsim.errors import InputError
from warpsim.mapping import load_mapping

CYC = ["gpc__cycles_elapsed.max"]


@pytest.fixture
def run(tmp_path):
    return write_run(tmp_path / "runs" / "app", [sim_kernel("_Z6vecAddPfS_S_i", 1000, 10)])


def _error(run, hw, **kw) -> InputError:
    with pytest.raises(InputError) as e:
        correlate(str(run), str(hw), **kw)
    return e.value


def test_csv_without_kernel_name_column(run, tmp_path):
    hw = tmp_path / "hw.csv"
    hw.write_text('==PROF== x\n"ID","Process ID","Kernel","gpc__cycles_elapsed.max"\n"0","1","vecAdd","1000"\n')
    e = _error(run, hw)
    assert (e.path, e.line, e.column) == (str(hw), 2, "Kernel Name")
    assert str(e).startswith(f"{hw}:2: column 'Kernel Name': missing from the header")


def test_kernel_that_does_not_match(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd(float*)", {CYC[0]: "900"}),
                                                        ("reduce(float*)", {CYC[0]: "5"})])
    e = _error(run, hw)
    # Line 1 is ncu's chatter, 2 the header, 3 the units, 4 vecAdd, 5 reduce.
    assert (e.line, e.column) == (5, "Kernel Name")
    assert "no simulated kernel named 'reduce'" in str(e) and "--allow-unmatched" in str(e)


def test_simulated_kernel_without_measurement(tmp_path):
    run = write_run(tmp_path / "app", [sim_kernel("_Z6vecAddPfS_S_i", 1000, 10)] * 2)
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd", {CYC[0]: "900"})])
    e = _error(run, hw)
    assert e.path == str(run / "stats.json") and "kernel 1 (id 2) has no measured launch" in str(e)


def test_allow_unmatched_correlates_the_rest(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd", {CYC[0]: "800"}), ("reduce", {CYC[0]: "5"})])
    c = correlate(str(run), str(hw), allow_unmatched=True)
    assert c.summary["cycles"].n == 1 and c.summary["cycles"].mae == pytest.approx(25.0)   # 1000 vs 800
    assert [u.name for u in c.matching.unmatched] == ["reduce"]


def test_no_match_at_all_is_an_error_even_when_allowed(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("reduce", {CYC[0]: "5"})])
    assert "no measured kernel matches" in str(_error(run, hw, allow_unmatched=True))


def test_grid_that_differs_is_not_paired(tmp_path):
    run = write_run(tmp_path / "app", [sim_kernel("_Z6vecAddPfS_S_i", 1000, 10, grid=(50, 1, 1))])
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd", {CYC[0]: "900"})])
    e = _error(run, hw)
    assert e.line == 4 and "grid (100, 1, 1) differs from the simulated launch's (50, 1, 1)" in str(e)


def test_unknown_metric_column(run, tmp_path):
    metrics = CYC + ["sm__made_up.sum"]
    hw = ncu_csv(tmp_path / "hw.csv", metrics, ["cycle", ""], [("vecAdd", {metrics[0]: "900", metrics[1]: "1"})])
    e = _error(run, hw)
    assert (e.line, e.column) == (2, "sm__made_up.sum") and "--allow-unknown" in str(e)
    assert correlate(str(run), str(hw), allow_unknown=True).summary["cycles"].n == 1


def test_value_that_is_not_a_number(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd", {CYC[0]: "12x"})])
    e = _error(run, hw)
    assert (e.line, e.column) == (4, CYC[0]) and "'12x' is not a number" in str(e)


def test_unit_that_is_not_the_metrics(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["byte"], [("vecAdd", {CYC[0]: "1"})])
    e = _error(run, hw)
    assert (e.line, e.column) == (3, CYC[0]) and "unknown unit 'byte'" in str(e)


def test_row_with_missing_fields(run, tmp_path):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("vecAdd", {CYC[0]: "1"})])
    hw.write_text(hw.read_text() + '"1","7","app"\n')
    e = _error(run, hw)
    assert e.line == 6 and "3 fields where the header on line 2 has 12" in str(e)


def test_mapping_with_unknown_key(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text('[[metric]]\nname = "cycles"\ntitle = "t"\nunit = "cycle"\nkind = "count"\nsim = "cycles"\n'
                   'nvprf = "elapsed_cycles_sm"\n')
    with pytest.raises(InputError) as e:
        load_mapping(bad)
    assert str(e.value) == f"{bad}: [[metric]] #1 ('cycles'): unknown key 'nvprf' (known: hw_unit, kind, name, " \
                           "ncu, note, nvprof, nvprof_divide_by, optional, ratio, sim, sim_divide_by, sim_multiply, " \
                           "sim_per, title, unit)"


def test_sim_folder_without_runs(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as e:
        correlate(str(tmp_path / "empty"), str(tmp_path / "hw.csv"))
    assert "holds no stats.json" in str(e.value)


def test_failed_run_writes_nothing_and_keeps_an_old_report(run, tmp_path, capsys):
    hw = ncu_csv(tmp_path / "hw.csv", CYC, ["cycle"], [("reduce", {CYC[0]: "5"})])
    out = tmp_path / "report" / "r.html"
    out.parent.mkdir()
    out.write_text("old report")
    assert main(["correlate", "--sim", str(run), "--hw", str(hw), "--out", str(out)]) == 1
    assert f"warpsim correlate: error: {hw}:4: column 'Kernel Name'" in capsys.readouterr().err
    assert out.read_text() == "old report"
    assert sorted(p.name for p in out.parent.iterdir()) == ["r.html"]     # no temporary left behind
