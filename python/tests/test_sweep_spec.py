"""Sweep specs: validation names the file, the axis and the value; designs are
reproducible from their seed."""

import textwrap

import pytest

from warpsim.sweep_design import Axis, design_points
from warpsim.sweep_params import Catalogue, ParamSpec
from warpsim.sweep_spec import SpecError, load_spec

CATALOGUE = Catalogue([
    ParamSpec("gpu.sms", "int", 80, "SMs", 1, 1024),
    ParamSpec("l2.size_kb", "int", 6144, "KB", 1, 1 << 20),
    ParamSpec("clock.core_mhz", "float", 1132.0, "MHz", 1, 10000),
    ParamSpec("l1d.replacement", "string", "lru", "", None, None),
    ParamSpec("l1d.cache_global", "bool", True, "", None, None),
    ParamSpec("core.units.*.latency", "int", 4, "cycles", 1, 10000),
])
PRESETS = ["qv100", "gtx480"]


def spec_file(tmp_path, body, name="study.toml"):
    (tmp_path / "trace").mkdir(exist_ok=True)
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


WORKLOAD = '[[workload]]\nname = "t"\ntrace = "trace"\n'


def test_unknown_parameter_names_file_axis_and_suggests(tmp_path):
    path = spec_file(tmp_path, WORKLOAD + '[axes]\n"gpu.smss" = [1, 2]\n')
    with pytest.raises(SpecError) as e:
        load_spec(path, CATALOGUE, PRESETS)
    msg = str(e.value)
    assert str(path) in msg and "axis 'gpu.smss'" in msg and "did you mean 'gpu.sms'" in msg


def test_out_of_range_value_names_the_value_and_range(tmp_path):
    path = spec_file(tmp_path, WORKLOAD + '[axes]\n"gpu.sms" = [7, 14, 2000]\n')
    with pytest.raises(SpecError) as e:
        load_spec(path, CATALOGUE, PRESETS)
    assert "axis 'gpu.sms': value 2000: 2000 is outside gpu.sms's range [1, 1024] SMs" in str(e.value)


def test_every_problem_is_listed_at_once(tmp_path):
    path = spec_file(tmp_path, """
        gpus = ["qv100", "nosuchgpu"]
        model = "abstract"
        [[workload]]
        name = "gone"
        trace = "missing-folder"
        [set]
        "l1d.cache_global" = 3
        [axes]
        "clock.core_mhz" = {from = 100, to = 50, step = 10}
        "l1d.replacement" = ["lru", 4]
        "core.units.sp.latency" = [0]
        """)
    with pytest.raises(SpecError) as e:
        load_spec(path, CATALOGUE, PRESETS)
    problems = e.value.problems
    assert len(problems) == 7, problems
    joined = "\n".join(problems)
    for needle in ("'nosuchgpu'", "model: 'abstract'", "'missing-folder' does not exist",
                   "'l1d.cache_global' = 3", "axis 'clock.core_mhz': from and to",
                   "axis 'l1d.replacement': value 4", "axis 'core.units.sp.latency': value 0"):
        assert needle in joined


def test_a_key_in_the_wrong_table_is_named(tmp_path):
    # TOML puts a key written after [[workload]] into that workload: say so instead of ignoring it
    path = spec_file(tmp_path, WORKLOAD + 'repetitions = 2\n')
    with pytest.raises(SpecError, match="workload #1 't': unknown key 'repetitions'"):
        load_spec(path, CATALOGUE, PRESETS)


def test_grid_needs_discrete_axes(tmp_path):
    path = spec_file(tmp_path, WORKLOAD + '[axes]\n"clock.core_mhz" = {from = 500, to = 1500}\n')
    with pytest.raises(SpecError, match="a grid design needs listed values"):
        load_spec(path, CATALOGUE, PRESETS)


def test_ranges_expand_as_written(tmp_path):
    path = spec_file(tmp_path, WORKLOAD + """
        [axes]
        "l2.size_kb" = {from = 256, to = 1024, step = 256}
        "gpu.sms" = {from = 7, to = 56, points = 4, scale = "log"}
        "clock.core_mhz" = {from = 500, to = 1000, points = 3}
        """)
    spec = load_spec(path, CATALOGUE, PRESETS)
    values = {a.name: a.values for a in spec.axes}
    assert values["l2.size_kb"] == (256, 512, 768, 1024)
    assert values["gpu.sms"] == (7, 14, 28, 56)            # 7 * 2^i: log spacing of 4 points over 8x
    assert values["clock.core_mhz"] == (500.0, 750.0, 1000.0)
    points = spec.points()
    # the baseline plus the full grid 4 x 4 x 3, for one workload, preset and repetition
    assert len(points) == 1 + 48 and points[0].values == {}
    assert points[1].values == {"l2.size_kb": 256, "gpu.sms": 7, "clock.core_mhz": 500.0}
    assert len({p.key for p in points}) == len(points)


def test_keys_are_stable_and_follow_what_is_simulated(tmp_path):
    body = 'repetitions = 2\n' + WORKLOAD + '[axes]\n"gpu.sms" = [7, 14]\n'
    a = load_spec(spec_file(tmp_path, body), CATALOGUE, PRESETS).points()
    b = load_spec(spec_file(tmp_path, "# a comment changes the spec hash, not the points\n" + body, "b.toml"),
                  CATALOGUE, PRESETS).points()
    assert [p.key for p in a] == [p.key for p in b] and len(a) == 6
    c = load_spec(spec_file(tmp_path, body.replace("[7, 14]", "[7, 28]"), "c.toml"), CATALOGUE, PRESETS).points()
    assert len({p.key for p in a} & {p.key for p in c}) == 4   # baseline x2 and sms=7 x2 are shared


def test_one_at_a_time_varies_each_axis_alone():
    axes = [Axis("gpu.sms", (7, 14, 28)), Axis("l1d.replacement", ("lru", "fifo"))]
    assert design_points(axes, "one-at-a-time", 0, 0) == [
        {"gpu.sms": 7}, {"gpu.sms": 14}, {"gpu.sms": 28}, {"l1d.replacement": "lru"}, {"l1d.replacement": "fifo"}]


def test_latin_hypercube_puts_one_sample_in_each_stratum():
    axes = [Axis("x", (), 0.0, 1.0), Axis("y", (), 0.0, 1.0), Axis("n", tuple(range(10)), is_int=True)]
    points = design_points(axes, "lhs", 10, seed=3)
    assert len(points) == 10
    for name in ("x", "y"):
        assert sorted(int(p[name] * 10) for p in points) == list(range(10))
    assert sorted(p["n"] for p in points) == list(range(10))   # 10 levels, 10 samples: each level once


def test_sampled_designs_repeat_with_their_seed():
    axes = [Axis("gpu.sms", (), 7, 56, log=True, is_int=True), Axis("l1d.replacement", ("lru", "fifo"))]
    for kind in ("lhs", "random"):
        a = design_points(axes, kind, 8, seed=1)
        assert a == design_points(axes, kind, 8, seed=1)
        assert a != design_points(axes, kind, 8, seed=2)
        assert all(7 <= p["gpu.sms"] <= 56 and isinstance(p["gpu.sms"], int) for p in a)


def test_slurm_table_is_checked(tmp_path):
    path = spec_file(tmp_path, 'slurm = 3\n' + WORKLOAD)
    with pytest.raises(SpecError, match="slurm: expected a table, got 3"):
        load_spec(path, CATALOGUE, PRESETS)
    path = spec_file(tmp_path, WORKLOAD + '[slurm]\nchunk = 0\nqueue = "x"\n', "b.toml")
    with pytest.raises(SpecError) as e:
        load_spec(path, CATALOGUE, PRESETS)
    assert "slurm: unknown key 'queue'" in str(e.value) and "slurm.chunk: expected a whole number" in str(e.value)


def test_paths_may_name_environment_variables(tmp_path, monkeypatch):
    body = '[[workload]]\nname = "t"\ntrace = "${STUDY_TRACES}/trace"\n'
    monkeypatch.delenv("STUDY_TRACES", raising=False)
    with pytest.raises(SpecError, match="names an environment variable that is not set"):
        load_spec(spec_file(tmp_path, body), CATALOGUE, PRESETS)
    monkeypatch.setenv("STUDY_TRACES", str(tmp_path))
    spec = load_spec(spec_file(tmp_path, body, "b.toml"), CATALOGUE, PRESETS)
    assert spec.workloads[0].path == str(tmp_path / "trace")


def test_a_relative_simulator_path_is_made_absolute(monkeypatch, tmp_path):
    # points run in the spec's folder: a relative WARPSIM_BIN would name nothing there
    from warpsim.sweep_params import warpsim_binary
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WARPSIM_BIN", "build/bin/warpsim")
    assert warpsim_binary() == str(tmp_path / "build/bin/warpsim")


def test_points_get_their_share_of_the_cpus_unless_they_set_threads_or_run_one_engine(tmp_path):
    from warpsim.sweep_runner import point_command
    from warpsim.sweep_spec import Point, Spec, Workload
    w = Workload("t", "trace", path=str(tmp_path / "trace"))
    spec = Spec(tmp_path / "s.toml", "h", "s", ["qv100"], "detailed", 1, {}, [w], [])

    def command(values, base=None, threads=2):
        spec.base_set = base or {}
        return point_command(Point("k", w, "qv100", values, 0), spec, tmp_path, tmp_path / "o", "warpsim", threads)

    cmd = command({})
    assert cmd[cmd.index("--threads") + 1] == "2"
    assert "--threads" not in command({}, threads=None)
    assert "--threads" not in command({"gpu.threads": 4})                  # the point's own choice
    assert "--threads" not in command({}, base={"gpu.partitions": "one"})  # one engine takes one thread
    assert "--threads" in command({"gpu.partitions": "sm-memory"})
