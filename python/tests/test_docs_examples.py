"""docs/stats.md shows the output of one real command: run that command and
check that every value the page shows is what warpsim prints now (host-time
figures aside). A change to the model that moves a number fails here until
the page is updated."""

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "stats.md"
# Lines whose values measure the host, not the simulated GPU.
FIX = ("\nUpdate the example in docs/stats.md: run the `$ warpsim run ...` command it shows and paste what it "
       "prints, and the matching fields of its stats.json.")
HOST_TIME = re.compile(r"^(gpgpu_simulation_time|gpgpu_simulation_rate|gpgpu_silicon_slowdown)\b")


def _blocks(text):
    """(language, body) of every fenced block of the page."""
    return re.findall(r"```(\w*)\n(.*?)```", text, re.S)


def _example():
    """The `$ warpsim ...` command, its printed lines and the abridged stats.json."""
    blocks = _blocks(DOC.read_text())
    for i, (_, body) in enumerate(blocks):
        if body.startswith("$ warpsim run "):
            command, *printed = body.rstrip("\n").split("\n")
            json_doc = next(json.loads(b) for lang, b in blocks[i + 1:] if lang == "json" and b.lstrip()[0] == "{")
            return shlex.split(command[2:]), printed, json_doc
    raise AssertionError("docs/stats.md has no `$ warpsim run` example")


def _compare(doc, real, path, problems):
    """Every value the page shows must equal the real one; "..." stands for what it leaves out."""
    if doc == "..." or (isinstance(doc, dict) and set(doc) == {"..."}):
        return
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "...":
                continue
            if key not in real:
                problems.append(f"{path}.{key}: not in the real stats.json")
            else:
                _compare(value, real[key], f"{path}.{key}", problems)
    elif isinstance(doc, list) and isinstance(real, list):
        if len(doc) != len(real):
            problems.append(f"{path}: the page shows {len(doc)} entries, warpsim writes {len(real)}")
        for i, (d, r) in enumerate(zip(doc, real)):
            _compare(d, r, f"{path}[{i}]", problems)
    elif path.startswith(".sim") and (isinstance(doc, float) or path == ".sim.host_threads"):
        return  # host time, and threads taken from the host's CPUs
    elif doc != real:
        problems.append(f"{path}: the page says {doc!r}, warpsim writes {real!r}")


def test_stats_page_example_is_what_warpsim_prints(warpsim_bin, tmp_path):
    argv, printed, json_doc = _example()
    out = tmp_path / "mm"
    argv = [warpsim_bin] + argv[1:]
    argv[argv.index("--out") + 1] = str(out)
    r = subprocess.run(argv + ["--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    real = r.stdout.rstrip("\n").split("\n")
    assert len(real) == len(printed), "the page shows a different number of lines:\n" + r.stdout + FIX
    for shown, actual in zip(printed, real):
        if HOST_TIME.match(shown):
            assert HOST_TIME.match(actual) and actual.split("=")[0] == shown.split("=")[0]
        else:
            assert shown == actual, FIX
    problems = []
    _compare(json_doc, json.loads((out / "stats.json").read_text()), "", problems)
    assert not problems, "docs/stats.md's stats.json differs:\n" + "\n".join(problems) + FIX
