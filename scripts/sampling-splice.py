#!/usr/bin/env python3
"""Splice the CTAs of one-kernel synthetic traces into one heterogeneous kernel.

`warpsim synth` writes kernels whose CTAs all do the same work. Intra-kernel
projection (`--project-kernels`, docs/sampling.md) is tested and measured on
kernels whose CTAs do not: this script takes two or more such trace folders
of the same CTA count and block size and writes one kernel whose CTA i is CTA
i of input (i // block) % inputs, i.e. the inputs take turns every `block`
CTAs (in dispatch order). CTA ids are kept; the header is the first input's
with the largest register count of all inputs (so occupancy fits every CTA),
or --nregs if larger.

    scripts/sampling-splice.py --block 64 [--nregs N] --out DIR IN1 IN2 [IN3 ...]

The kernels' code shares PCs (each synthetic kernel starts at 0): run the
result with `--set l1i.perfect=true` so instruction fetch does not mix them.
"""

from __future__ import annotations

import argparse
import os
import re
import sys


def read_kernel(folder: str) -> tuple[list[str], list[str]]:
    """Header lines and CTA blocks (each from #BEGIN_TB to #END_TB) of kernel-1.traceg."""
    path = os.path.join(folder, "kernel-1.traceg")
    with open(path, encoding="ascii") as f:
        text = f.read()
    first = text.find("#BEGIN_TB")
    if first < 0:
        sys.exit(f"{path}: no '#BEGIN_TB': not a synthetic trace")
    blocks = re.findall(r"#BEGIN_TB.*?#END_TB\n", text[first:], flags=re.S)
    return text[:first].splitlines(keepends=True), blocks


def header_value(header: list[str], key: str, path: str) -> str:
    for line in header:
        if line.startswith(f"-{key} = "):
            return line.split("=", 1)[1].strip()
    sys.exit(f"{path}: header has no '-{key}'")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--block", type=int, required=True, help="CTAs in a row taken from one input")
    ap.add_argument("--out", required=True, help="output trace folder")
    ap.add_argument("--nregs", type=int, default=0,
                    help="registers per thread in the header (default: the inputs' largest); a larger count "
                         "leaves room for fewer CTAs per SM")
    ap.add_argument("inputs", nargs="+", help="trace folders written by `warpsim synth`")
    args = ap.parse_args()
    if len(args.inputs) < 2 or args.block < 1:
        sys.exit("sampling-splice: need --block >= 1 and at least two inputs")
    kernels = [read_kernel(d) for d in args.inputs]
    header, first_blocks = kernels[0]
    for d, (h, b) in zip(args.inputs, kernels):
        for key in ("grid dim", "block dim"):
            if header_value(h, key, d) != header_value(header, key, args.inputs[0]):
                sys.exit(f"{d}: '-{key}' differs from {args.inputs[0]}'s")
        if len(b) != len(first_blocks):
            sys.exit(f"{d}: {len(b)} CTAs, {args.inputs[0]} has {len(first_blocks)}")
    nregs = max([args.nregs] + [int(header_value(h, "nregs", d)) for d, (h, _) in zip(args.inputs, kernels)])
    out_header = [f"-nregs = {nregs}\n" if line.startswith("-nregs = ") else line for line in header]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "kernel-1.traceg"), "w", encoding="ascii") as f:
        f.writelines(out_header)
        for i in range(len(first_blocks)):
            f.write(kernels[(i // args.block) % len(kernels)][1][i])
    with open(os.path.join(args.out, "kernelslist.g"), "w", encoding="ascii") as f:
        f.write("kernel-1.traceg\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
