"""ctest demo.check: runs `make demo`'s script on the built binary and checks
that what it shows is what it says: the streaming copy reads its data from
DRAM on QV100 and from the L2 on A100, the compute kernel moves no data and
runs faster on A100 by about its SM and clock advantage, every kernel's own
time dwarfs the launch latency, and the table labels its units.
Usage: demo_check.py SOURCE_DIR BUILD_DIR"""

import json
import subprocess
import sys
from pathlib import Path

src, build = Path(sys.argv[1]), Path(sys.argv[2])
run = subprocess.run(["bash", "scripts/demo.sh", str(build)], cwd=src, capture_output=True, text=True, timeout=900)
print(run.stdout)
assert run.returncode == 0, run.stderr
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def kernel(workload, gpu):
    s = json.loads((build / "demo" / f"results-{workload}-{gpu}" / "stats.json").read_text())
    return s["kernels"][0]


for label in ("(us)", "(thr/clk)", "(sectors)", "(core)"):
    check(label in run.stdout, f"the summary labels its units: {label} missing")
check(f"stats: {build}/demo/results-" in run.stdout, "one line says where the stats are")

# 16 MiB of floats read once = 524,288 sectors of 32 B.
sectors = (16 << 20) // 32
qv, a100 = kernel("stream", "qv100"), kernel("stream", "a100")
check(qv["dram"]["reads"] >= 0.9 * sectors, f"stream on qv100 reads DRAM: {qv['dram']['reads']} sectors")
check(a100["dram"]["reads"] <= 0.01 * sectors, f"stream on a100 stays in its 40 MB L2: {a100['dram']['reads']}")
check(a100["l2"]["read_hits"] >= 0.99 * a100["l2"]["reads"], "stream on a100 hits the L2")

cq, ca = kernel("compute", "qv100"), kernel("compute", "a100")
for k in (cq, ca):
    check(k["l1d"]["accesses"] == 0 and k["dram"]["writes"] == 0, "compute moves no data")
tq, ta = cq["cycles"] / 1132.0, ca["cycles"] / 1410.0
# At most the issue-rate advantage (48 instead of 64 warps per SM, 1410
# instead of 1132 MHz: 1.66x); less, as A100's register file conflicts.
check(1.2 <= tq / ta <= 1.67, f"compute: a100 faster, by at most 64/48 x 1410/1132 = 1.66x; got {tq / ta:.2f}x")


def conflict_cycles(workload, gpu):
    s = json.loads((build / "demo" / f"results-{workload}-{gpu}" / "stats.json").read_text())
    return sum(v for name, v in s["counters"].items() if name.endswith(".regfile.bank_conflict_cycles"))


check(conflict_cycles("compute", "qv100") == 0, "qv100 reads two operands per bank and cycle: no conflict")
check(conflict_cycles("compute", "a100") > 0, "a100 reads one operand per bank and cycle: FFMAs conflict")
check("register-bank conflict cycles" in run.stdout, "the closing lines name the counter that explains compute")

for name, k in (("stream qv100", qv), ("stream a100", a100), ("compute qv100", cq), ("compute a100", ca)):
    check(k["cycles"] >= 3 * k["launch_gap_cycles"], f"{name}: {k['cycles']} kernel cycles vs a launch gap of "
                                                      f"{k['launch_gap_cycles']}")

if failures:
    print("demo check failed:\n  " + "\n  ".join(failures), file=sys.stderr)
    sys.exit(1)
print("demo check passed")
