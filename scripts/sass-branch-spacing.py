#!/usr/bin/env python3
"""Cycles ptxas puts between an ISETP and the branch that tests its predicate,
and after a branch.

Reads the control bits of Volta-and-later cubins (`nvcc -cubin -arch=sm_XY`),
as scripts/sass-lsu-spacing.py does: for each guarded BRA or EXIT, the stall
counts summed from the ISETP that writes its predicate (found within the 14
instructions before it), and the branch's own stall count (its warp's next
instruction waits that long). docs/architecture.md, "Branches";
core.branch_predicate_latency and core.branch_resolve_cycles.

  scripts/sass-branch-spacing.py /tmp/*.cubin
"""
import collections
import importlib.util
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "lsu_spacing", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sass-lsu-spacing.py"))
_lsu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lsu)

BRANCHES = {0x947: "BRA", 0x94D: "EXIT"}
ISETP = 0x00C  # low 9 bits: ISETP with register, immediate or constant operand
NO_GUARD = 7   # PT


def main(paths):
    if not paths:
        sys.exit(__doc__)
    gaps, own = collections.Counter(), collections.Counter()
    for path in paths:
        for code in _lsu.text_sections(path):
            for b, (lo, hi) in enumerate(code):
                if lo & 0xFFF not in BRANCHES or (lo >> 12) & 7 == NO_GUARD:
                    continue
                own[_lsu.stall(hi)] += 1
                guard, gap = (lo >> 12) & 7, 0
                for a in range(b - 1, max(b - 15, -1), -1):
                    la, ha = code[a]
                    gap += _lsu.stall(ha)
                    if la & 0x1FF == ISETP and (ha >> 17) & 7 == guard:  # its first predicate destination
                        gaps[min(gap, 20)] += 1
                        break
    print(f"ISETP -> guarded branch, {sum(gaps.values())} pairs (20 = 20 or more): {dict(sorted(gaps.items()))}")
    print(f"guarded branch's own stall count, {sum(own.values())} branches: {dict(sorted(own.items()))}")


if __name__ == "__main__":
    main(sys.argv[1:])
