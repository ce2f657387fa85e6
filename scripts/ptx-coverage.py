#!/usr/bin/env python3
"""PTX coverage sweep (issue 16): which instruction forms nvcc emits for our
CUDA programs, and which of them the emulator refuses.

Compiles every CUDA program of the repository (tests/cuda with its sm100,
per_thread and timed folders, examples/cuda, the sampling workloads and the suite programs; Thrust and CUB come in
through tests/cuda/thrust_algorithms.cu and cub_primitives.cu) to PTX for each --arch, lists every
opcode-with-modifiers form with its count, then has warpsim_tests decode every
kernel (PtxCoverage.DecodeEveryKernelOfTheSweep) and maps each refused
instruction back to its form.

  scripts/ptx-coverage.py --tests build/bin/warpsim_tests --work build/ptx-coverage
      [--nvcc nvcc] [--arch 80 --arch 90] [--known tests/data/ptx/known-refused.txt]

Writes WORK/forms.txt (form, count, archs, first file) and WORK/refused.txt;
prints the refused forms. Exit status 1 when a refused form is not in --known
(one form per line, '#' comments), so the ctest fails on new refusals only.
"""
import argparse
import collections
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
INSTRUCTION = re.compile(r"^\s*(?:@!?%?\w+\s+)?([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_:]+)*)(?:\s|;|$)")


def sources():
    """(source, extra nvcc flags, archs or None for all) for every program."""
    out = []
    for p in sorted((ROOT / "tests/cuda").glob("*.cu")):
        out.append((p, [], None))
    for p in sorted((ROOT / "tests/cuda/timed").glob("*.cu")):
        out.append((p, [], None))
    # tests/cuda/rdc is left out: each unit calls into the other, which only
    # the link at load time provides (its ctest runs them linked).
    for p in sorted((ROOT / "tests/cuda/per_thread").glob("*.cu")):
        out.append((p, ["--default-stream", "per-thread"], None))
    for p in sorted((ROOT / "tests/cuda/sm100").glob("*.cu")):
        out.append((p, [], ["100"]))  # its 256-bit forms exist from compute_100 on
    for p in sorted((ROOT / "examples/cuda").glob("*.cu")):
        out.append((p, [], None))
    for p in sorted((ROOT / "examples/cuda/sampling").glob("*.cu")):
        out.append((p, [], None))
    for p in sorted((ROOT / "examples/cuda/suite").glob("*.cu")):
        out.append((p, [], None))
    return out


def compile_ptx(nvcc, src, flags, arch, dest):
    dest.parent.mkdir(parents=True, exist_ok=True)
    cmd = [nvcc, "-ptx", "-O2", f"-gencode=arch=compute_{arch},code=compute_{arch}", "-I", str(src.parent),
           *flags, "-o", str(dest), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return None if r.returncode == 0 else f"{src} (compute_{arch}): nvcc failed: {r.stderr.strip()[:300]}"


def forms_of(path):
    """form -> count for the instructions of one PTX file."""
    counts = collections.Counter()
    in_call = False  # a call's operand list may span lines
    for line in path.read_text(errors="replace").splitlines():
        s = line.split("//", 1)[0].strip()
        if in_call:
            in_call = ";" not in s
            continue
        if not s or s[0] in ".{}$(" or s.endswith(":") or ".callprototype" in s:
            continue
        m = INSTRUCTION.match(s)
        if m:
            counts[m.group(1)] += 1
            in_call = m.group(1).startswith("call") and ";" not in s
    return counts


def refused_forms(refused_lines, texts):
    """form -> first message, from 'file:line: ...' decode errors."""
    out = {}
    for msg in refused_lines:
        m = re.match(r"(.+?\.ptx):(\d+):", msg)
        form = "(module)"
        if m and m.group(1) in texts:
            lines = texts[m.group(1)]
            n = int(m.group(2))
            if 0 < n <= len(lines):
                fm = INSTRUCTION.match(lines[n - 1].strip())
                if fm:
                    form = fm.group(1)
        out.setdefault(form, msg)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tests", required=True, help="the warpsim_tests binary")
    ap.add_argument("--work", required=True)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", action="append", help="compute capability (default: 80 and 90)")
    ap.add_argument("--known", help="documented refused forms; others fail")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reuse", action="store_true", help="keep the PTX files of an earlier run (no nvcc)")
    a = ap.parse_args()
    archs = a.arch or ["80", "90"]
    work = pathlib.Path(a.work)
    if not a.reuse:
        for old in work.rglob("*.ptx"):
            old.unlink()

    jobs = []
    for src, flags, only in sources():
        for arch in (only or archs):
            jobs.append((src, flags, arch, work / f"sm{arch}" / (src.stem + ".ptx")))
    failures = []
    if not a.reuse:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            failures = [f for f in pool.map(lambda j: compile_ptx(a.nvcc, *j), jobs) if f]
    for f in failures:
        print(f, file=sys.stderr)

    forms = collections.defaultdict(lambda: [0, set(), None])
    texts = {}
    for src, flags, arch, dest in jobs:
        if not dest.exists():
            continue
        texts[str(dest)] = dest.read_text(errors="replace").splitlines()
        for form, n in forms_of(dest).items():
            entry = forms[form]
            entry[0] += n
            entry[1].add(arch)
            entry[2] = entry[2] or f"{src.relative_to(ROOT)}"
    with open(work / "forms.txt", "w") as f:
        for form in sorted(forms):
            n, arch_set, first = forms[form]
            f.write(f"{form}\t{n}\t{','.join(sorted(arch_set))}\t{first}\n")

    env = dict(os.environ, WARPSIM_PTX_COVERAGE_DIR=str(work))
    r = subprocess.run([a.tests, "--gtest_filter=PtxCoverage.DecodeEveryKernelOfTheSweep"], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:], r.stderr[-3000:], file=sys.stderr)
        sys.exit("warpsim_tests failed")
    refused = [l for l in (work / "refused.txt").read_text().splitlines() if l.strip()]
    by_form = refused_forms(refused, texts)

    known = set()
    if a.known:
        for line in pathlib.Path(a.known).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                known.add(line)
    print(f"{len(jobs) - len(failures)} PTX files, {len(forms)} instruction forms, "
          f"{len(by_form)} refused ({len(refused)} instructions)")
    new = []
    for form in sorted(by_form):
        tag = "known" if form in known else "NEW"
        if form not in known:
            new.append(form)
        print(f"  refused [{tag}] {form}: {by_form[form]}")
    if failures:
        sys.exit("FAIL: nvcc could not compile every program")
    if a.known and new:
        sys.exit(f"FAIL: {len(new)} refused forms not in {a.known}")


if __name__ == "__main__":
    main()
