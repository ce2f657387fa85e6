"""The tuner without warpsim: parsing, the map, the inversion, staging and the
choice among candidates, against a fake simulator whose figures are known
functions of the parameters."""

import math
import tomllib

import pytest

from warpsim.__main__ import main
from warpsim.errors import InputError
from warpsim.measured import parse_measured
from warpsim.tune import Result, Tuner, TuneError, invert, probe_value
from warpsim.tune_map import Direct, load_tune_map
from warpsim.tune_output import preset_text, report_text, write_atomically

BASE = {"clock.core_mhz": 1000.0, "clock.l2_mhz": 1000.0, "clock.icnt_mhz": 500.0, "l1d.latency": 28,
        "l2.latency": 160, "core.units.sp.ii": 2, "clock.dram_mhz": 850.0, "dram.scheduler": "frfcfs",
        "l2.slice_hash": "ipoly", "core.scheduler": "gto", "shared.banks": 32}

MAP = """
[[bench]]
program = "clocks"
keys = ["core_clock_mhz"]
[[bench]]
program = "lat"
keys = ["l1_hit_latency_cycles", "l2_hit_latency_cycles"]
[[bench]]
program = "units"
keys = ["fp32_throughput_ops_per_clk_per_sm"]
[[bench]]
program = "bw"
keys = ["dram_bandwidth_gbps_ld128", "dram_bandwidth_gbps_ld32"]
[[bench]]
program = "geo"
keys = ["shared_banks", "l1_line_bytes"]

[[direct]]
key = "core_clock_mhz"
param = "clock.core_mhz"
type = "float"
digits = 1
scale_with = ["clock.icnt_mhz", "clock.l2_mhz"]
stage = 1
[[direct]]
key = "l1_hit_latency_cycles"
param = "l1d.latency"
stage = 2
[[direct]]
key = "l2_hit_latency_cycles"
param = "l2.latency"
stage = 3
[[direct]]
key = "fp32_throughput_ops_per_clk_per_sm"
param = "core.units.sp.ii"
relation = "inverse"
probe = 2.0
stage = 2
[[direct]]
key = "shared_banks"
param = "shared.banks"
probe = 0.5
stage = 2
[[direct]]
key = "dram_bandwidth_gbps_ld128"
param = "clock.dram_mhz"
type = "float"
digits = 1
refine = 3
tolerance = 0.001
stage = 4
[[indirect]]
param = "dram.scheduler"
candidates = ["frfcfs", "fcfs"]
keys = ["dram_bandwidth_gbps_ld32"]
refit = ["dram_bandwidth_gbps_ld128"]
stage = 5
"""


def dram_gbps(p):
    # Saturating in the clock (not a line), and 15% lower without row-hit-first scheduling.
    return 1200.0 * (1 - math.exp(-p["clock.dram_mhz"] / 700.0)) * (1.0 if p["dram.scheduler"] == "frfcfs" else 0.85)


def figures(p):
    """What the fake GPU 'measures' under parameters p."""
    return {
        "core_clock_mhz": p["clock.core_mhz"],
        # 2 cycles of LD/ST path on top of the L1's latency; an L2 hit pays the L1 too.
        "l1_hit_latency_cycles": p["l1d.latency"] + 2,
        "l2_hit_latency_cycles": p["l2.latency"] + p["l1d.latency"] + 25 * p["clock.core_mhz"] / p["clock.l2_mhz"],
        "fp32_throughput_ops_per_clk_per_sm": 128.0 / p["core.units.sp.ii"] * 0.98,
        "dram_bandwidth_gbps_ld128": dram_gbps(p),
        # Narrow loads keep fewer requests to one row queued: the in-order
        # scheduler loses more there, which is what tells the two apart once
        # the clock has been fitted under each.
        "dram_bandwidth_gbps_ld32": dram_gbps(p) * (0.95 if p["dram.scheduler"] == "frfcfs" else 0.7),
        "shared_banks": float(p["shared.banks"]),
        "l1_line_bytes": 128.0,
    }


class FakeSim:
    def __init__(self):
        self.runs = []

    def run(self, runs):
        self.runs += runs
        out = []
        for r in runs:
            p = {**BASE, **dict(r.overrides)}
            out.append(Result({k: figures(p)[k] for k in r.bench.keys}, dict(BASE)))
        return out


@pytest.fixture
def tmap(tmp_path):
    path = tmp_path / "map.toml"
    path.write_text(MAP)
    return load_tune_map(path)


def measured_file(tmp_path, values, name="m.txt"):
    path = tmp_path / name
    path.write_text("# warpsim microbenchmark results\n# gpu: fake\n\n"
                    + "".join(f"# prog\n{k}={v}\n" for k, v in values.items()))
    return path


TARGET = {**BASE, "clock.core_mhz": 1200.0, "clock.l2_mhz": 1200.0, "clock.icnt_mhz": 600.0, "l1d.latency": 33,
          "l2.latency": 190, "core.units.sp.ii": 4, "clock.dram_mhz": 1000.0, "dram.scheduler": "fcfs",
          "shared.banks": 16}


def test_parse_keeps_values_lines_and_gpu(tmp_path, tmap):
    m = parse_measured(measured_file(tmp_path, {"l1_hit_latency_cycles": 30, "shared_banks": 32}), tmap.known_keys())
    assert m.values == {"l1_hit_latency_cycles": 30.0, "shared_banks": 32.0}
    assert m.lines == {"l1_hit_latency_cycles": 5, "shared_banks": 7}   # 3 header lines, then comment/value pairs
    assert m.gpu == "fake"


@pytest.mark.parametrize("text,line,column,words", [
    ("l1_hit_latency_cycles=30\nmade_up_key=4\n", 2, "made_up_key", "unknown key"),
    ("# c\nl1_hit_latency_cycles=3x\n", 2, "l1_hit_latency_cycles", "'3x' is not a number"),
    ("l1_hit_latency_cycles=nan\n", 1, "l1_hit_latency_cycles", "not a finite number"),
    ("l1_hit_latency_cycles 30\n", 1, None, "not a key=value line"),
    ("l1_hit_latency_cycles=30\nl1_hit_latency_cycles=31\n", 2, "l1_hit_latency_cycles", "repeated key (first on line 1)"),
    ("# only comments\n", None, None, "no key=value lines"),
])
def test_bad_measurement_file(tmp_path, tmap, text, line, column, words):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        parse_measured(path, tmap.known_keys())
    assert (e.value.path, e.value.line, e.value.column) == (str(path), line, column)
    assert words in str(e.value)
    assert str(e.value).startswith(f"{path}:{line}:" if line else f"{path}:")


def test_cli_unknown_key_names_file_line_key_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "m.txt"
    path.write_text("# gpu: x\nl1_hit_latency_cycles=30\nl1_hit_latncy_cycles=31\n")
    out = tmp_path / "mine.toml"
    out.write_text("# an older preset\n")
    assert main(["tune", "--measured", str(path), "--out", str(out), "--warpsim", "/nonexistent"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3: column 'l1_hit_latncy_cycles': unknown key" in err
    assert out.read_text() == "# an older preset\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.txt", "mine.toml"]


def test_the_package_map_knows_every_documented_key():
    tmap = load_tune_map()
    for key in ("l1_hit_latency_cycles", "dram_bandwidth_gbps_ld64", "tensor_mma_latency_cycles"):
        assert key in tmap.known_keys()
    assert {d.param for d in tmap.direct} >= {"l1d.latency", "l2.latency", "clock.core_mhz", "clock.dram_mhz"}


def test_the_package_map_knows_every_key_the_microbenchmarks_print():
    # A results file from scripts/ubench-run.sh holds every key; one the map
    # lacks would stop `warpsim tune` ("unknown key").
    import re
    from pathlib import Path
    ubench = Path(__file__).resolve().parents[2] / "ubench"
    printed = {m for f in ubench.glob("*.cu") for m in re.findall(r'emit\("([a-z0-9_]+)"', f.read_text())}
    assert len(printed) > 40
    assert sorted(printed - set(load_tune_map().known_keys())) == []


@pytest.mark.parametrize("table,field,words", [
    ('[[bench]]\nprogram = "a"\nkeys = ["k"]\nflavour = 1\n', "flavour", "[[bench]] #1: unknown field"),
    ('[[bench]]\nprogram = "a"\nkeys = ["k"]\n[[direct]]\nkey = "other"\nparam = "x.y"\n', "key",
     "no [[bench]] lists this key"),
    ('[[bench]]\nprogram = "a"\nkeys = ["k"]\n[[direct]]\nkey = "k"\nparam = "x.y"\nrelation = "cubic"\n',
     "relation", "relation must be one of"),
    ('[[bench]]\nprogram = "a"\n', "keys", "missing field"),
])
def test_bad_map(tmp_path, table, field, words):
    path = tmp_path / "map.toml"
    path.write_text(table)
    with pytest.raises(InputError) as e:
        load_tune_map(path)
    assert e.value.column == field and words in str(e.value) and str(path) in str(e.value)


def test_invert_linear_and_inverse():
    lin = Direct(key="k", param="p")
    # figure = 2 * p + 3: points (10, 23) and (20, 43); 33 is p = 15.
    assert invert(lin, (10, 23.0), (20, 43.0), 33.0)[0] == pytest.approx(15.0)
    inv = Direct(key="k", param="p", relation="inverse")
    # figure = 128 / p: from p = 2 and 4, 32 is p = 4 exactly and 16 is p = 8 (extrapolated).
    assert invert(inv, (2, 64.0), (4, 32.0), 16.0)[0] == pytest.approx(8.0)
    with pytest.raises(TuneError, match="does not change with p"):
        invert(lin, (10, 5.0), (20, 5.0), 7.0)


def test_probe_moves_at_least_one_step():
    assert probe_value(Direct(key="k", param="p", probe=1.25), 2) == 3    # 2.5 rounds to 2: one step up instead
    assert probe_value(Direct(key="k", param="p", probe=0.5), 32) == 16
    # probe_min: a figure that hides small values (a barrier's release behind its loop) probes far.
    assert probe_value(Direct(key="k", param="p", probe=2.0, probe_min=8), 0) == 8
    assert probe_value(Direct(key="k", param="p", probe=2.0, probe_min=8), 11) == 22
    assert probe_value(Direct(key="k", param="p", type="float", digits=1), 1000.0) == 1250.0


def test_tuner_recovers_the_target(tmp_path, tmap):
    measured = parse_measured(measured_file(tmp_path, figures(TARGET)), tmap.known_keys())
    sim = FakeSim()
    outcome = Tuner(tmap, measured, sim).tune()
    t = outcome.tuned
    # Latencies exactly: the L2 figure includes the L1's latency and the clock
    # ratio, which stages 1 and 2 set before stage 3 fits it.
    assert (t["l1d.latency"], t["l2.latency"], t["core.units.sp.ii"], t["shared.banks"]) == (33, 190, 4, 16)
    assert t["clock.core_mhz"] == 1200.0
    assert (t["clock.l2_mhz"], t["clock.icnt_mhz"]) == (1200.0, 600.0)    # the base's ratios
    assert t["dram.scheduler"] == "fcfs"
    # The bandwidth curve saturates, so the line through the first two points
    # misses; the secant steps bring it within 0.1% of the target's figure.
    assert dram_gbps({**TARGET, "clock.dram_mhz": t["clock.dram_mhz"]}) == pytest.approx(
        figures(TARGET)["dram_bandwidth_gbps_ld128"], rel=0.002)
    choice = outcome.choices[0]
    assert dict(choice.errors)["fcfs"] < 0.002 < dict(choice.errors)["frfcfs"]
    assert [f.direct.param for f in outcome.fits].count("clock.dram_mhz") == 1   # the refit under fcfs replaced it
    # l1_line_bytes is not in the measured file's keys here, so its bench never ran.
    assert all(r.bench.program != "geo" or "shared_banks" in r.bench.keys for r in sim.runs)


def test_tuner_runs_each_simulation_once(tmp_path, tmap):
    measured = parse_measured(measured_file(tmp_path, {"l1_hit_latency_cycles": 30.0}), tmap.known_keys())
    sim = FakeSim()
    outcome = Tuner(tmap, measured, sim).tune()
    # The base run (shared by the base figures and the fit) and the probe at 28 x 1.25 = 35.
    assert len(sim.runs) == 2 and len(set(sim.runs)) == 2
    assert outcome.tuned == {"l1d.latency": 28} and outcome.changed() == {}


def test_preset_holds_only_changes_with_their_figures(tmp_path, tmap):
    measured = parse_measured(measured_file(tmp_path, figures(TARGET)), tmap.known_keys())
    tuner = Tuner(tmap, measured, FakeSim())
    outcome = tuner.tune()
    outcome.tuned_figures = tuner.verify(outcome)
    text = preset_text(outcome, "qv100", "m.txt")
    data = tomllib.loads(text)
    assert data["base"] == "qv100"
    assert data["l1d"] == {"latency": 33} and data["core"]["units"]["sp"] == {"ii": 4}
    assert "shared_banks = 16 measured" in text and "l1_hit_latency_cycles = 35 measured" in text
    assert "chosen by simulation" in text and "fcfs:" in text
    report = report_text(outcome, measured.values)
    line = next(l for l in report.splitlines() if l.startswith("l1_hit_latency_cycles"))
    assert line.split() == ["l1_hit_latency_cycles", "35", "30", "35", "+0.00%"]


def test_write_atomically_keeps_the_old_file_on_failure(tmp_path):
    out = tmp_path / "p.toml"
    out.write_text("old\n")

    class Boom(str):
        def __str__(self):
            raise RuntimeError("boom")
    write_atomically(str(out), "new\n")
    assert out.read_text() == "new\n"
    with pytest.raises(TypeError):
        write_atomically(str(out), None)       # fails while writing
    assert out.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.toml"]


def test_simulator_command_and_figures(tmp_path):
    from warpsim.tune import Run
    from warpsim.tune_map import Bench
    from warpsim.tune_sim import WarpsimSimulator, parse_figures
    (tmp_path / "mem_latency").write_text("")
    sim = WarpsimSimulator("/bin/warpsim", "qv100", str(tmp_path), 2)
    run = Run(Bench("mem_latency", ("only=1",), ("l1_hit_latency_cycles",)),
              (("l1d.latency", 33), ("l1d.sectored", False)))
    assert sim.command(run, "/tmp/o") == [
        "/bin/warpsim", "exec", "--gpu", "qv100", "--timing", "--out", "/tmp/o", "--set", "l1d.latency=33",
        "--set", "l1d.sectored=false", "--", str(tmp_path / "mem_latency"), "only=1"]
    with pytest.raises(TuneError, match="make ubench"):
        sim.command(Run(Bench("units", (), ()), ()), "/tmp/o")
    # Comments, blank lines and anything else the program prints are not figures.
    assert parse_figures("# units\nfp32_latency_cycles=4.09\n\nwarpsim: note\nshared_banks=32\n") == {
        "fp32_latency_cycles": 4.09, "shared_banks": 32.0}


def test_base_reference(tmp_path):
    from warpsim.tune_command import base_reference
    assert base_reference("qv100", str(tmp_path / "mine.toml")) == "qv100"
    # A base file beside the output by its stem; elsewhere by its absolute path without .toml.
    assert base_reference(str(tmp_path / "small.toml"), str(tmp_path / "mine.toml")) == "small"
    other = tmp_path / "sub"
    other.mkdir()
    assert base_reference(str(tmp_path / "small.toml"), str(other / "mine.toml")) == str(tmp_path / "small")


def test_native_results_lose_the_simulator_only_keys(tmp_path):
    """The H100's native results hold `shared_banks=0` (ptxas spreads the
    benchmark's conflicting accesses): tuned as measured it set 1 bank. A
    native file loses such keys with a message naming the line; the same
    file from a simulator keeps them."""
    from warpsim.tune_command import drop_simulator_only
    tmap = load_tune_map()
    assert "shared_banks" in tmap.simulator_only and "l1_hit_latency_cycles" not in tmap.simulator_only
    body = "l1_hit_latency_cycles=32\nshared_banks=0\n"
    native = tmp_path / "native.txt"
    native.write_text("# gpu: NVIDIA H100 80GB HBM3 (native)\n" + body)
    said = []
    m = drop_simulator_only(parse_measured(native, tmap.known_keys()), tmap, said.append)
    assert m.values == {"l1_hit_latency_cycles": 32.0}
    assert len(said) == 1 and "shared_banks" in said[0] and "native.txt:3" in said[0]
    simulated = tmp_path / "sim.txt"
    simulated.write_text("# gpu: qv100 (warpsim)\n" + body)
    kept = drop_simulator_only(parse_measured(simulated, tmap.known_keys()), tmap, said.append)
    assert kept.values == {"l1_hit_latency_cycles": 32.0, "shared_banks": 0.0}


def test_map_refuses_an_unknown_simulator_only_key(tmp_path):
    p = tmp_path / "map.toml"
    p.write_text('simulator_only = ["no_such_key"]\n' + MAP)
    with pytest.raises(InputError, match="no_such_key"):
        load_tune_map(p)
