#!/usr/bin/env python3
"""Cycles ptxas puts between an ISETP and the branch that tests its predicate,
and after a branch.

Reads the control bits of Volta-and-later cubins (`nvcc -cubin -arch=sm_XY`),
as scripts/sass-lsu-spacing.py does: for each guarded BRA or EXIT, the stall
counts summed from the ISETP that writes its predicate (found within the 14
instructions before it), and the branch's own stall count (its warp's next
instruction waits that long). docs/architecture.md, "Branches";
core.branch_predicate_latency and core.branch_resolve_cycles. A third line
does the same for every guarded instruction, by kind (branch, LD/ST unit,
S2R, other): ptxas keeps each at least as far from its ISETP as a branch.
(20 = 20 or more in every line.)

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
# Low 9 bits of LD/ST-unit opcodes (LDG, STG, LDS, STS, LDL, STL, ATOMS, RED, ATOMG, SHFL) and S2R.
LSU = {0x181, 0x186, 0x184, 0x188, 0x183, 0x187, 0x18C, 0x18E, 0x1A8, 0x189}
S2R = 0x119


def kind_of(lo):
    if lo & 0xFFF in BRANCHES:
        return "branch"
    return "LD/ST" if lo & 0x1FF in LSU else "S2R" if lo & 0x1FF == S2R else "other"


def gap_from_isetp(code, b):
    """Stall counts from the ISETP writing instruction b's guard to b (None: none in the 14 before it)."""
    guard, gap = (code[b][0] >> 12) & 7, 0
    for a in range(b - 1, max(b - 15, -1), -1):
        la, ha = code[a]
        gap += _lsu.stall(ha)
        if la & 0x1FF == ISETP and (ha >> 17) & 7 == guard:  # its first predicate destination
            return gap
    return None


def main(paths):
    if not paths:
        sys.exit(__doc__)
    own = collections.Counter()
    by_kind = collections.defaultdict(collections.Counter)
    for path in paths:
        for code in _lsu.text_sections(path):
            for b, (lo, hi) in enumerate(code):
                if (lo >> 12) & 7 == NO_GUARD:
                    continue
                kind, gap = kind_of(lo), gap_from_isetp(code, b)
                if gap is not None:
                    by_kind[kind][min(gap, 20)] += 1
                if kind == "branch":
                    own[_lsu.stall(hi)] += 1
    gaps = by_kind["branch"]
    print(f"ISETP -> guarded branch, {sum(gaps.values())} pairs (20 = 20 or more): {dict(sorted(gaps.items()))}")
    print(f"guarded branch's own stall count, {sum(own.values())} branches: {dict(sorted(own.items()))}")
    for kind, g in sorted(by_kind.items()):
        if kind != "branch" and g:
            print(f"ISETP -> guarded {kind}, {sum(g.values())} pairs, closest {min(g)}: {dict(sorted(g.items()))}")

if __name__ == "__main__":
    main(sys.argv[1:])
