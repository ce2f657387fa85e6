#!/usr/bin/env python3
"""Runs tests/cuda/timed/array_sweeps under `warpsim exec --timing` and checks
the peak RSS of the run against a bound (issue 17 item 1).

usage: check_exec_rss.py WARPSIM_BIN WORK_DIR PROGRAM SWEEPS BOUND_MB

Four CTAs of 8 warps sweep a 16 KiB shared array SWEEPS times: each warp
executes 16 loads per sweep (32 lane addresses each, 256 B as the timing
model sees them). When every executed instruction was kept until its CTA
ended, 6,000 sweeps (3.2 million warp instructions) took a peak RSS of
1,032,604 KiB (docs/exec.md, "Host memory"); with instructions dropped once
the SM has issued them, memory is what the model itself needs (about 14 MB
for 4 SMs) whatever SWEEPS is.
"""
import resource
import shutil
import subprocess
import sys

binary, work, program, sweeps, bound_mb = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
shutil.rmtree(work, ignore_errors=True)
run = subprocess.run([binary, "exec", "--timing", "--set", "gpu.sms=4", "--out", work, "--", program, sweeps],
                     capture_output=True, text=True)
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # Linux: KiB
if run.returncode != 0 or "PASS" not in run.stdout:
    sys.exit(f"FAIL: program run failed (rc {run.returncode}):\n{run.stdout}{run.stderr}")
print(f"array_sweeps {sweeps} sweeps under exec --timing: peak RSS {peak_mb:.0f} MB (bound {bound_mb:.0f} MB)")
if peak_mb > bound_mb:
    sys.exit(f"FAIL: peak RSS {peak_mb:.0f} MB is over the bound {bound_mb:.0f} MB")
