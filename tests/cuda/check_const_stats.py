#!/usr/bin/env python3
"""Runs tests/cuda/constant_cache under `warpsim exec --timing` and checks
that its __constant__ reads were constant-cache loads, not L1D reads.

usage: check_const_stats.py WARPSIM_BIN WORK_DIR PROGRAM

The kernel (2 CTAs x 64 threads: 4 warps) has four ld.const per thread
(weights[i], offsets[0], weights[offsets[0]], offsets[1]) and one more
constant load, its parameter (ld.param, an LDC of the launch's parameter
bank). So: 4 x 5 = 20 warp constant loads; per warp 32 + 1 + 1 + 1 + 1 = 36
distinct addresses; the only L1D traffic is the result store; the
__constant__ lines were read from the L2 (two sectors per 64 B line), the
bank line from the bank level (l1c.bank_latency: no sectors), once on each
of the 2 SMs that ran a CTA.
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


want = {"ldst.const_accesses": 20, "l1c.loads": 20, "l1c.addresses": 4 * 36, "l1d.reads": 0,
        "ldst.l1_accesses": 4}  # one 128 B store line per warp
bad = [f"{k}: {total(k)}, expected {v}" for k, v in want.items() if total(k) != v]
# Each SM that ran a CTA read the 256 B weights table's lines it used and the
# offsets line from the L2, and its bank line from the bank level.
bank_fills = 2
if total("l1c.fills") <= bank_fills or total("l1c.sectors") != 2 * (total("l1c.fills") - bank_fills):
    bad.append(f"l1c.fills {total('l1c.fills')}, l1c.sectors {total('l1c.sectors')}: expected 2 sectors per fill "
               f"but the {bank_fills} bank lines'")
for line in bad:
    print("FAIL:", line)
print("constant loads: " + ", ".join(f"{k}={total(k)}" for k in [*want, "l1c.fills", "l1c.hits", "l1c.misses"]))
sys.exit(1 if bad else 0)
