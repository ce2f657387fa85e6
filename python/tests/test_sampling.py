"""Principal kernel selection: clustering, choice of K, plans, bad input."""

import csv
import json

import numpy as np
import pytest

import warpsim.__main__ as cli
from warpsim.errors import InputError
from warpsim.sampling import FEATURES, choose, kmeans, principal_components, read_cycles, read_profile


def write_profile(path, rows, cycles=None):
    """rows: (name, {feature: value}) per launch; features not given are 0."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        header = ["ID", "Kernel Name", *FEATURES] + (["gpc__cycles_elapsed.max"] if cycles else [])
        w.writerow(header)
        for i, (name, values) in enumerate(rows):
            row = [i + 1, name, *[values.get(k, 0) for k in FEATURES]]
            w.writerow(row + ([cycles[i]] if cycles else []))
    return str(path)


# Three kinds of launch, interleaved: a stream (memory), a compute loop, a small chase.
KINDS = {
    "stream": {FEATURES[0]: 4352, FEATURES[1]: 139264, FEATURES[2]: 32, FEATURES[3]: 2048, FEATURES[4]: 2048,
               FEATURES[6]: 16384, FEATURES[7]: 16384, "launch__grid_size": 32},
    "compute": {FEATURES[0]: 7552, FEATURES[1]: 241664, FEATURES[2]: 32, "launch__grid_size": 32},
    "chase": {FEATURES[0]: 524, FEATURES[1]: 16768, FEATURES[2]: 32, FEATURES[3]: 128, FEATURES[6]: 4096,
              "launch__grid_size": 4},
}
ORDER = ["stream", "compute", "stream", "compute", "chase", "stream", "compute", "chase", "stream"]


def test_kmeans_finds_separated_clusters_and_numbers_them_by_first_launch():
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    which = [2, 0, 1, 2, 0, 1, 1, 0, 2, 2]
    points = centres[which] + rng.normal(0, 0.1, (len(which), 2))
    labels = kmeans(points, 3)
    # Same cluster <=> same label; the first launch's group is 0, the next new one 1, ...
    expect = {2: 0, 0: 1, 1: 2}
    assert list(labels) == [expect[c] for c in which]
    assert list(kmeans(points, 3)) == list(labels)  # deterministic


def test_kmeans_never_invents_groups_among_equal_points():
    points = np.array([[1.0, 2.0]] * 5 + [[3.0, 1.0]] * 4)
    assert int(kmeans(points, 6).max()) + 1 == 2


def test_principal_components_keep_the_variance_asked_for():
    rng = np.random.default_rng(2)
    base = rng.normal(size=(50, 1))
    # Ten features driven by one factor (plus tiny noise): one component explains nearly all.
    features = np.exp(base @ np.ones((1, 10)) + rng.normal(0, 1e-3, (50, 10)))
    assert principal_components(features, 0.95).shape[1] == 1
    assert principal_components(features, 1.0).shape[1] > 1


def test_one_representative_per_obvious_group(tmp_path):
    # One kernel name (say, a kernel whose mode argument picks a code path): k-means must find the groups.
    cycles = {"stream": 1000.0, "compute": 500.0, "chase": 7000.0}
    path = write_profile(tmp_path / "p.csv", [("k", KINDS[k]) for k in ORDER], [cycles[k] for k in ORDER])
    plan, tried = choose(read_profile(path), 0.01)
    assert plan.representatives == [0, 1, 4]        # first stream, first compute, first chase
    assert plan.weights == [4, 3, 2]
    assert plan.error == 0.0
    assert [len(p.weights) for p in tried] == [1, 2, 3]


def test_the_fewest_groups_within_the_target_are_kept(tmp_path):
    # Stream and compute launches take nearly the same time: one group projects within 5%.
    cycles = {"stream": 1000.0, "compute": 1010.0, "chase": 1005.0}
    path = write_profile(tmp_path / "p.csv", [("k", KINDS[k]) for k in ORDER], [cycles[k] for k in ORDER])
    plan, _ = choose(read_profile(path), 0.05)
    assert len(plan.weights) == 1 and plan.weights == [len(ORDER)]
    assert plan.error < 0.05


def test_without_a_grouping_within_the_target_the_finest_is_kept(tmp_path):
    # Each launch's time differs (caches warm up): no grouping meets 0.1%.
    path = write_profile(tmp_path / "p.csv", [(k, KINDS[k]) for k in ORDER], [100.0 * (i + 1) for i in range(9)])
    plan, tried = choose(read_profile(path), 0.001)
    assert len(plan.weights) == 3 and plan is tried[-1]


def test_cycles_from_a_stats_json_must_match_the_profile(tmp_path):
    names = [k for k in ORDER]
    stats = {"kernels": [{"name": n, "cycles": 10 * (i + 1), "complete": True} for i, n in enumerate(names[:4])]}
    (tmp_path / "s.json").write_text(json.dumps(stats))
    assert read_cycles(str(tmp_path / "s.json"), names) == {0: 10.0, 1: 20.0, 2: 30.0, 3: 40.0}
    stats["kernels"][2]["name"] = "other"
    (tmp_path / "s.json").write_text(json.dumps(stats))
    with pytest.raises(InputError, match="kernel 3 is 'other'.*not the same workload"):
        read_cycles(str(tmp_path / "s.json"), names)


def test_bad_profiles_name_the_file_line_and_column(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text('"ID","Kernel Name","smsp__inst_executed.sum"\n1,"k",5\n')
    with pytest.raises(InputError, match="bad.csv:1: missing columns: smsp__thread_inst_executed.sum"):
        read_profile(str(p))
    path = write_profile(tmp_path / "nan.csv", [("k", {**KINDS["stream"], FEATURES[3]: "lots"})])
    with pytest.raises(InputError, match=f"nan.csv:2: column '{FEATURES[3]}': 'lots' is not a number"):
        read_profile(path)


def test_plan_command_writes_the_plan_and_rejects_bad_targets(tmp_path, capsys):
    cycles = {"stream": 1000.0, "compute": 500.0, "chase": 7000.0}
    path = write_profile(tmp_path / "p.csv", [(k, KINDS[k]) for k in ORDER], [cycles[k] for k in ORDER])
    out = tmp_path / "plan.json"
    assert cli.main(["sample", "plan", path, "--target-error", "2%", "--out", str(out)]) == 0
    plan = json.loads(out.read_text())
    assert plan["launches"] == 9 and plan["names"] == ORDER
    assert [(g["representative"], g["weight"]) for g in plan["groups"]] == [(1, 4), (2, 3), (5, 2)]
    assert plan["groups"][2]["members"] == [5, 8]
    assert "3 groups for 9 launches" in capsys.readouterr().out
    for bad in ["0%", "150%", "x"]:
        assert cli.main(["sample", "plan", path, "--target-error", bad, "--out", str(tmp_path / "b.json")]) == 1
        assert "--target-error" in capsys.readouterr().err
        assert not (tmp_path / "b.json").exists()


def test_sample_plan_is_deterministic(tmp_path, capsys):
    # Launches of three kinds whose counts vary a little from launch to launch
    # (a seeded perturbation: k-means has real choices to make), planned with
    # and without cycles: the same input gives the same plan, byte for byte.
    rng = np.random.default_rng(7)
    rows = [(k, {f: v * (1 + 0.05 * rng.random()) for f, v in KINDS[k].items()}) for k in ORDER * 4]
    cycles = [{"stream": 1000.0, "compute": 500.0, "chase": 7000.0}[n] * (1 + 0.1 * rng.random()) for n, _ in rows]
    for name, cyc in (("with", cycles), ("without", None)):
        path = write_profile(tmp_path / f"{name}.csv", rows, cyc)
        outs = [tmp_path / f"{name}-{i}.json" for i in range(2)]
        for out in outs:
            assert cli.main(["sample", "plan", path, "--warmup", "1", "--out", str(out)]) == 0
        assert outs[0].read_bytes() == outs[1].read_bytes()
        assert len(json.loads(outs[0].read_text())["groups"]) >= 3   # the three kinds stay apart
    capsys.readouterr()


def test_profile_of_the_cli_has_the_features_the_plan_reads(warpsim_bin, tmp_path):
    """The feature list lives in C++ (the writer) and here (the reader): they must agree."""
    import subprocess
    trace = tmp_path / "t"
    subprocess.run([warpsim_bin, "synth", "stream", "--out", str(trace), "--ctas", "4", "--threads", "64"],
                   check=True, capture_output=True)
    subprocess.run([warpsim_bin, "profile", "--no-progress", "--out", str(tmp_path / "p.csv"), str(trace)],
                   check=True, capture_output=True)
    profile = read_profile(str(tmp_path / "p.csv"))
    assert profile.names == ["warpsim_synth_stream"]
    header = next(csv.reader(open(tmp_path / "p.csv")))
    assert header[4:] == FEATURES


def test_split_warmup_gives_each_groups_first_launches_their_own_groups():
    from warpsim.sampling import split_warmup
    labels = np.array([0, 1, 0, 1, 0, 1, 0, 2])
    # warmup 1: launch 0 (A), 1 (B), 7 (the only C) alone; A's and B's later launches stay together.
    assert list(split_warmup(labels, 1)) == [0, 1, 2, 3, 2, 3, 2, 4]
    # warmup 2: the first two of each alone; the third of A and of B represent the rest.
    assert list(split_warmup(labels, 2)) == [0, 1, 2, 3, 4, 5, 4, 6]
    assert list(split_warmup(labels, 0)) == list(labels)


def test_warmup_plan_counts_the_cold_first_launch_once(tmp_path):
    # A kernel whose first launch is slow (cold) and the rest steady: with the
    # first launch as representative the projection is far off; with one
    # warm-up launch it is exact.
    rows = [("k", KINDS["compute"])] * 10
    cycles = [3000] + [1000] * 9
    prof = read_profile(write_profile(tmp_path / "p.csv", rows, cycles))
    cold, _ = choose(prof, 0.01)
    assert cold.weights == [10] and cold.projected == 30000 and cold.known == 12000
    warm, _ = choose(prof, 0.01, warmup=1)
    assert warm.representatives == [0, 1] and warm.weights == [1, 9]
    assert warm.projected == 12000 and warm.error == 0


def test_sample_plan_rejects_a_negative_warmup(tmp_path, capsys):
    prof = write_profile(tmp_path / "p.csv", [("k", KINDS["compute"])] * 3)
    rc = cli.main(["sample", "plan", prof, "--warmup", "-1", "--out", str(tmp_path / "plan.json")])
    assert rc != 0
    assert "--warmup" in capsys.readouterr().err
    assert not (tmp_path / "plan.json").exists()


def write_two_level(path, full_rows, cheap_rows):
    """full_rows: (name, grid CTAs, features); cheap_rows: (name, grid CTAs): features left empty."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", "Grid Size", "Block Size", *FEATURES])
        for i, (name, grid, values) in enumerate(full_rows):
            w.writerow([i + 1, name, f"({grid}, 1, 1)", "(128, 1, 1)", *[values.get(k, 0) for k in FEATURES]])
        for i, (name, grid) in enumerate(cheap_rows, start=len(full_rows)):
            w.writerow([i + 1, name, f"({grid}, 1, 1)", "(128, 1, 1)", *[""] * len(FEATURES)])
    return str(path)


def test_two_level_profile_classifies_cheap_launches_into_the_groups_of_the_first(tmp_path):
    small = {**KINDS["stream"], "launch__grid_size": 16}
    big = {**KINDS["stream"], FEATURES[0]: 4352 * 64, FEATURES[1]: 139264 * 64, "launch__grid_size": 1024}
    full = [("k", 16, small), ("k", 1024, big), ("m", 4, KINDS["chase"]), ("k", 16, small)]
    # Later launches: k near 16 CTAs, k near 1024, m, and a name never seen among the first four.
    cheap = [("k", 20), ("k", 900), ("m", 4), ("n", 64), ("k", 1024), ("n", 64)]
    prof = read_profile(write_two_level(tmp_path / "p.csv", full, cheap))
    assert list(prof.full) == [True] * 4 + [False] * 6
    plan, _ = choose(prof, 0.05)
    # Groups by first launch: k-small (0), k-big (1), m (2), n (7, a group of its own).
    assert list(plan.labels) == [0, 1, 2, 0, 0, 1, 2, 3, 1, 3]
    assert plan.representatives == [0, 1, 2, 7] and plan.weights == [3, 3, 2, 2]


def test_two_level_rows_need_a_grid_and_a_block_and_some_full_rows(tmp_path):
    p = tmp_path / "bad.csv"
    path = write_two_level(p, [("k", 16, KINDS["stream"])], [("k", 16)])
    p.write_text(p.read_text().replace('"(16, 1, 1)","(128, 1, 1)",""', '"16 CTAs","(128, 1, 1)",""'))
    with pytest.raises(InputError, match="bad.csv:3: column 'Grid Size': '16 CTAs' is not a size"):
        read_profile(path)
    only_cheap = write_two_level(tmp_path / "cheap.csv", [], [("k", 16)])
    with pytest.raises(InputError, match="no launch has its features"):
        read_profile(only_cheap)


def noisy_order(rng, repeats=4):
    """ORDER repeated, each launch's counts scaled a few per cent off its kind's (as data-dependent loop
    trips would): many distinct points, three groups. Shape and divergence stay the kind's."""
    rows = []
    fixed = (FEATURES[2], "launch__grid_size")
    for _ in range(repeats):
        for kind in ORDER:
            scale = 1 + rng.uniform(-0.03, 0.03)
            rows.append((kind, {f: v if f in fixed else v * scale for f, v in KINDS[kind].items()}))
    return rows


def test_explained_share_of_known_clusters():
    from warpsim.sampling import explained
    points = np.array([[0.0, 0.0], [0.0, 0.2], [10.0, 0.0], [10.0, 0.2]])
    assert explained(points, np.array([0, 0, 0, 0])) == 0.0
    # Two groups leave only the 0.2 spread inside each: 1 - 4 * 0.01 / (4 * 25 + 4 * 0.01).
    assert explained(points, np.array([0, 0, 1, 1])) == pytest.approx(1 - 0.04 / 100.04)
    assert explained(points, np.array([0, 1, 2, 3])) == 1.0


def test_without_cycles_the_fewest_groups_explaining_the_variance_are_kept(tmp_path):
    rows = noisy_order(np.random.default_rng(3))
    prof = read_profile(write_profile(tmp_path / "p.csv", rows))
    plan, tried = choose(prof, 0.05)
    # Three kinds a few per cent apart: K = 3 explains nearly all the variance, K = 2 not 95%.
    assert plan.criterion == "cluster_variance" and plan.clusters == 3 and len(plan.weights) == 3
    assert tried[1].explained < 0.95 <= tried[2].explained
    assert plan.weights == [16, 12, 8] and plan.representatives == [0, 1, 4]
    # Asking for all of it keeps splitting the noise, up to the finest grouping.
    fine, tried = choose(prof, 0.05, cluster_variance=1.0)
    assert fine.clusters == tried[-1].clusters > 3
    assert list(choose(prof, 0.05)[0].labels) == list(plan.labels)  # deterministic


def test_kernels_with_equal_counts_but_other_names_are_not_merged(tmp_path):
    # A blur and a Sobel pass whose counts are the same: k-means sees one point.
    rows = [("blur", KINDS["stream"]), ("sobel", KINDS["stream"])] * 3 + [("chase", KINDS["chase"])]
    prof = read_profile(write_profile(tmp_path / "p.csv", rows))
    plan, _ = choose(prof, 0.05)
    assert plan.clusters == 2
    assert plan.representatives == [0, 1, 6] and plan.weights == [3, 3, 1]
    # Equal times (a model's) do not merge them either: the model's error differs from kernel to kernel.
    timed = read_profile(write_profile(tmp_path / "t.csv", rows, [100.0] * 6 + [300.0]))
    assert choose(timed, 0.05)[0].weights == [3, 3, 1]


def test_sample_plan_rejects_a_cluster_variance_out_of_range(tmp_path, capsys):
    prof = write_profile(tmp_path / "p.csv", [("k", KINDS["compute"])] * 3)
    for bad in ["0", "1.5"]:
        rc = cli.main(["sample", "plan", prof, "--cluster-variance", bad, "--out", str(tmp_path / "plan.json")])
        assert rc != 0 and "--cluster-variance" in capsys.readouterr().err
    assert not (tmp_path / "plan.json").exists()


def test_an_nsight_compute_csv_of_a_real_gpu_run_reads_with_its_cycles(tmp_path):
    from conftest import ncu_csv
    metrics = [*FEATURES, "gpc__cycles_elapsed.max"]
    units = ["inst", "inst", "", "sector", "sector", "sector", *["inst"] * 7, "", "cycle"]
    hw = {"stream": "1,000", "compute": "500", "chase": "7,000"}  # ncu prints thousands with commas
    launches = [(k, {**{m: f"{KINDS[k].get(m, 0):,}" for m in FEATURES}, "gpc__cycles_elapsed.max": hw[k]})
                for k in ORDER]
    path = ncu_csv(tmp_path / "ncu.csv", metrics, units, launches)
    prof = read_profile(str(path))
    assert prof.names == ORDER                             # the units row and ==PROF== lines are not launches
    assert prof.cycles[0] == 1000.0 and prof.cycles[4] == 7000.0
    assert prof.features[0][0] == 4352.0
    plan, _ = choose(prof, 0.01)                           # the hardware's cycles are the ground truth
    assert plan.criterion == "target_error" and plan.weights == [4, 3, 2] and plan.error == 0.0
    # The same file without one of the features: named, nothing guessed.
    short = ncu_csv(tmp_path / "short.csv", metrics[1:], units[1:],
                    [(n, {m: v for m, v in vals.items() if m != FEATURES[0]}) for n, vals in launches])
    with pytest.raises(InputError, match=f"short.csv:2: missing columns: {FEATURES[0]}"):  # after ==PROF==
        read_profile(str(short))


def test_abstract_model_cycles_choose_k_and_the_run_reports_the_groups(warpsim_bin, tmp_path):
    """profile --cycles-model abstract, sample plan, run --plan: the plan checks its groupings against the
    abstract model's cycles; the run lists each group's members and projects its totals."""
    import subprocess
    folder = tmp_path / "w"
    folder.mkdir()
    for kind in ("stream", "compute"):
        subprocess.run([warpsim_bin, "synth", kind, "--out", str(tmp_path / kind), "--ctas", "8", "--threads", "64"],
                       check=True, capture_output=True)
        (folder / f"{kind}.traceg").write_bytes((tmp_path / kind / "kernel-1.traceg").read_bytes())
    (folder / "kernelslist.g").write_text("stream.traceg\ncompute.traceg\n" * 4)
    quiet = ["--no-progress", "--set", "abstract.block_cache=off"]
    prof = tmp_path / "p.csv"
    subprocess.run([warpsim_bin, "profile", *quiet, "--cycles-model", "abstract", "--out", str(prof), str(folder)],
                   check=True, capture_output=True)
    profile = read_profile(str(prof))
    assert sorted(profile.cycles) == list(range(8)) and all(c > 0 for c in profile.cycles.values())
    plan_path = tmp_path / "plan.json"
    assert cli.main(["sample", "plan", str(prof), "--warmup", "1", "--target-error", "50%",
                     "--out", str(plan_path)]) == 0
    plan = json.loads(plan_path.read_text())
    assert plan["criterion"] == "target_error" and plan["projected_error"] <= 0.5
    out = tmp_path / "r"
    subprocess.run([warpsim_bin, "run", "--no-progress", "--format", "none", "--plan", str(plan_path),
                    "--out", str(out), str(folder)], check=True, capture_output=True)
    sampling = json.loads((out / "stats.json").read_text())["sampling"]
    assert [g["members"] for g in sampling["groups"]] == [g["members"] for g in plan["groups"]]
    assert sorted(m for g in sampling["groups"] for m in g["members"]) == list(range(1, 9))
    assert sampling["reduction"] == pytest.approx(1 / sampling["fraction_simulated"])
