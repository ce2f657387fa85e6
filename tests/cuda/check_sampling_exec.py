#!/usr/bin/env python3
"""Kernel sampling of a CUDA program (docs/sampling.md): `warpsim profile --
PROGRAM`, `warpsim sample plan`, `warpsim exec --timing --plan`, a plan
made for another program refused, and `profile --cycles-model abstract`.

usage: check_sampling_exec.py WARPSIM_BIN WORK_DIR PROGRAM_DIR

mlp_train launches 8 kernels per training step for 40 steps (320 launches
of 6 names); the loss it checks is computed by every launch, so it is right
under a plan only if the launches that are not timed still run.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

binary, work, programs = sys.argv[1:4]
mlp, jacobi = os.path.join(programs, "mlp_train"), os.path.join(programs, "jacobi")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def check(cond, what, r=None):
    if not cond:
        sys.exit(f"FAIL: {what}" + (f"\n{r.stdout}{r.stderr}" if r else ""))


# 1. Features from a functional run: one row per launch, in launch order.
prof = os.path.join(work, "prof.csv")
r = run("profile", "--no-progress", "--out", prof, "--", mlp)
check(r.returncode == 0 and "mlp_train: correct" in r.stdout, "profile run of mlp_train", r)
with open(prof, newline="") as f:
    rows = list(csv.DictReader(f))
LAUNCHES = 8 * 40
check(len(rows) == LAUNCHES, f"profile has {len(rows)} rows, not {LAUNCHES}")
check([int(x["ID"]) for x in rows] == list(range(1, LAUNCHES + 1)), "profile IDs are not 1..N")
names = [x["Kernel Name"] for x in rows]
# Names as the runtime sees them (mangled), as a trace's are.
check(names[0] == names[1] and "dense_forward" in names[0] and "softmax_grad" in names[2], f"names {names[:3]}")
# The first layer: 32 x 64 outputs, one thread each (2048 threads, 128 per CTA: 16 CTAs).
check(rows[0]["launch__grid_size"] == "16", f"dense_forward grid {rows[0]['launch__grid_size']}")
# softmax_grad: one global atomic per thread of one 32-thread warp.
check(rows[2]["smsp__sass_inst_executed_op_global_atom.sum"] == "1", "softmax_grad atomics")

# A program that launches nothing leaves no CSV, and says so.
r = run("profile", "--no-progress", "--out", os.path.join(work, "none.csv"), "--", "true")
check(r.returncode != 0 and "launched no kernel" in r.stderr, "profile of a program without kernels", r)

# 2. The plan (one warm-up launch per group) and the run under it.
plan = os.path.join(work, "plan.json")
r = run("sample", "plan", prof, "--warmup", "1", "--out", plan)
check(r.returncode == 0, "sample plan", r)
doc = json.load(open(plan))
out = os.path.join(work, "sampled")
r = run("exec", "--timing", "--plan", plan, "--out", out, "--", mlp)
check(r.returncode == 0 and "mlp_train: correct" in r.stdout, "exec --timing --plan: the program's result", r)
stats = json.load(open(os.path.join(out, "stats.json")))
s = stats["sampling"]
check(s["launches"] == LAUNCHES and s["complete"] and stats["complete"], "sampling section complete", r)
reps = sorted(g["representative"] for g in doc["groups"])
check([k["id"] for k in stats["kernels"]] == reps, f"timed launches {[k['id'] for k in stats['kernels']]} != {reps}")
projected = sum(g["cycles"] * g["weight"] for g in s["groups"])
check(abs(s["projected"]["cycles"] - projected) < 0.5, "projected cycles = sum of representative x weight")
check(sum(g["weight"] for g in s["groups"]) == LAUNCHES, "weights cover the launches")

# 3. Plans of another program: refused, naming the file and the field.
r = run("exec", "--timing", "--plan", plan, "--out", os.path.join(work, "other"), "--", jacobi)
check(r.returncode != 0, "a plan of another program is refused", r)
check(f"{os.path.abspath(plan)}: field 'names': launch 1 is '{names[0]}' in the plan" in r.stderr,
      "the error names the plan and the field", r)
other = json.load(open(os.path.join(work, "other", "stats.json")))
check(not other["complete"] and "field 'names'" in other["error"], "stats.json records the refusal")
# A plan with launches the program never makes: known only at exit.
longer = dict(doc, names=doc["names"] + [names[0]], launches=LAUNCHES + 1)
longer["groups"] = [dict(g) for g in doc["groups"]]
longer["groups"][-1]["weight"] += 1
longer["groups"][-1]["members"] = longer["groups"][-1]["members"] + [LAUNCHES + 1]
with open(os.path.join(work, "longer.json"), "w") as f:
    json.dump(longer, f)
r = run("exec", "--timing", "--plan", os.path.join(work, "longer.json"), "--out", os.path.join(work, "longer"),
        "--", mlp)
check(r.returncode != 0 and f"field 'launches': the plan has {LAUNCHES + 1} launches, the workload {LAUNCHES}"
      in r.stderr,
      "a plan longer than the program is refused at exit", r)
check("field 'launches'" in json.load(open(os.path.join(work, "longer", "stats.json")))["error"],
      "stats.json records the short program")
# --plan needs --timing; a malformed plan is refused before the program starts.
r = run("exec", "--plan", plan, "--", mlp)
check(r.returncode != 0 and "needs --timing" in r.stderr and "mlp_train" not in r.stdout, "--plan without --timing", r)
with open(os.path.join(work, "bad.json"), "w") as f:
    f.write('{"version": 1, "names": ["a"], "launches": 1, "groups": []}')
r = run("exec", "--timing", "--plan", os.path.join(work, "bad.json"), "--", mlp)
check(r.returncode != 0 and "bad.json: field 'groups' is empty" in r.stderr and "mlp_train" not in r.stdout,
      "a malformed plan", r)

# 4. Cycles from the abstract model: a second, timed run of the program adds
# each launch's cycles, and the plan checks its groupings against them.
prof = os.path.join(work, "jacobi.csv")
r = run("profile", "--no-progress", "--cycles-model", "abstract", "--set", "abstract.block_cache=off", "--out", prof,
        "--", jacobi)
check(r.returncode == 0 and "abstract model" in r.stdout, "profile --cycles-model abstract of jacobi", r)
with open(prof, newline="") as f:
    rows = list(csv.DictReader(f))
check(len(rows) == 180 and all(int(x["gpc__cycles_elapsed.max"]) > 0 for x in rows), "jacobi: cycles of 180 launches")
r = run("sample", "plan", prof, "--warmup", "2", "--out", os.path.join(work, "jacobi-plan.json"))
doc = json.load(open(os.path.join(work, "jacobi-plan.json")))
check(r.returncode == 0 and doc["criterion"] == "target_error" and doc["projected_error"] <= 0.05,
      "jacobi: plan within 5% of the abstract model's cycles", r)
print("PASS")
