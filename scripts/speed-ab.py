#!/usr/bin/env python3
"""Compares simulation speed of warpsim binaries on one trace.

    scripts/speed-ab.py TRACE BIN [BIN...]   (N=7 runs each, interleaved)

Prints each binary's minimum CPU seconds (user + system) of `warpsim run`
over N runs, and the warp instructions per second that gives. Runs are
interleaved so that drift in the host's speed hits every binary alike.
"""
import json, os, resource, subprocess, sys, tempfile

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    trace, bins = sys.argv[1], sys.argv[2:]
    n = int(os.environ.get("N", 7))
    gpu = os.environ.get("GPU", "qv100")
    best = {b: float("inf") for b in bins}
    warp_insts = 0
    with tempfile.TemporaryDirectory() as out:
        for _ in range(n):
            for b in bins:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([b, "run", trace, "--gpu", gpu, "--format", "none", "--no-progress", "--out", out],
                               stdout=subprocess.DEVNULL, check=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                best[b] = min(best[b], cpu)
                with open(os.path.join(out, "stats.json")) as f:
                    warp_insts = json.load(f)["total"]["warp_insts"]
    for b in bins:
        print(f"{best[b]:.3f} s  {warp_insts / best[b] / 1e3:.0f}K warp insts/s  {b}")

if __name__ == "__main__":
    main()
