#!/usr/bin/env python3
"""Runs tests/cuda/constant_cache under `warpsim exec --timing` and checks
that its __constant__ reads were constant-cache loads, not L1D reads.

usage: check_const_stats.py WARPSIM_BIN WORK_DIR PROGRAM

The kernel (2 CTAs x 64 threads: 4 warps) has four ld.const per thread
(weights[i], offsets[0], weights[offsets[0]], offsets[1]) and no other load
but its parameter (ld.param, timed as a MOV). So: 4 x 4 = 16 warp constant
loads; per warp 32 + 1 + 1 + 1 = 35 distinct addresses; the only L1D traffic
is the result store; and the constant lines were read from the L2.
"""
import json
import shutil
import subprocess
import sys

binary, work, program = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
run = subprocess.run([binary, "exec", "--timing", "--out", work, "--", program], capture_output=True, text=True)
if run.returncode != 0 or "PASS" not in run.stdout:
    sys.exit(f"FAIL: program run failed (rc {run.returncode}):\n{run.stdout}{run.stderr}")
counters = json.load(open(f"{work}/stats.json"))["counters"]


def total(leaf):
    return sum(v for k, v in counters.items() if k.startswith("sm.") and k.endswith("." + leaf))


want = {"ldst.const_accesses": 16, "l1c.loads": 16, "l1c.addresses": 4 * 35, "l1d.reads": 0,
        "ldst.l1_accesses": 4}  # one 128 B store line per warp
bad = [f"{k}: {total(k)}, expected {v}" for k, v in want.items() if total(k) != v]
# Each SM that ran a CTA read the 256 B weights table's lines it used and the offsets line.
if total("l1c.fills") == 0 or total("l1c.sectors") != 2 * total("l1c.fills"):
    bad.append(f"l1c.fills {total('l1c.fills')}, l1c.sectors {total('l1c.sectors')}: expected 2 sectors per fill")
for line in bad:
    print("FAIL:", line)
print("constant loads: " + ", ".join(f"{k}={total(k)}" for k in [*want, "l1c.fills", "l1c.hits", "l1c.misses"]))
sys.exit(1 if bad else 0)
