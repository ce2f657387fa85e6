#!/usr/bin/env python3
"""Cycles ptxas puts between one warp's consecutive memory instructions.

Reads the control bits of Volta-and-later cubins (`nvcc -cubin -arch=sm_XY`):
each 128-bit instruction's stall count (bits 105-108) is the cycles the warp
waits before its next instruction. For each LD/ST-unit instruction followed,
within its basic block, by another, sums the stall counts between them and
prints the distribution per pair of kinds (docs/architecture.md, "Memory
issue spacing"; core.lsu_issue_interval); the same for each constant load
(LDC) and the next LDC (core.ldc_issue_interval).

  for f in examples/cuda/suite/*.cu examples/cuda/sampling/*.cu; do
    nvcc -cubin -O2 -arch=sm_90 -Iexamples/cuda -o /tmp/$(basename $f .cu).cubin $f; done
  scripts/sass-lsu-spacing.py /tmp/*.cubin
"""
import collections
import struct
import sys

# Opcode (low 9 bits of the first word) of the LD/ST-unit instructions.
MEMORY = {0x181: "LDG", 0x186: "STG", 0x184: "LDS", 0x188: "STS", 0x183: "LDL", 0x187: "STL",
          0x1A8: "ATOMG", 0x18E: "RED", 0x18C: "ATOMS", 0x1A9: "ATOM"}
LDC = 0xB82  # shares the low bits of another kind; paired only with LDCs
# Control flow ends the search (BRA, EXIT, BAR, BSYNC, CALL, RET and kin).
CONTROL = {0x147, 0x14D, 0x11D, 0x141, 0x144, 0x150, 0x118}


def text_sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        sys.exit(f"{path}: not an ELF file (a cubin from nvcc -cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * entsize) for i in range(count)]
    names_at = heads[strndx][4]
    for name, _, _, _, off, size in heads:
        end = data.index(b"\0", names_at + name)
        if data[names_at + name:end].startswith(b".text."):
            yield [struct.unpack_from("<QQ", data, off + i) for i in range(0, size, 16)]


def kind(lo):
    return "LDC" if lo & 0xFFF == LDC else MEMORY.get(lo & 0x1FF)


def stall(hi):
    return (hi >> 41) & 0xF


def main(paths):
    if not paths:
        sys.exit(__doc__)
    pairs = collections.defaultdict(collections.Counter)
    for path in paths:
        for code in text_sections(path):
            for a, (lo, hi) in enumerate(code):
                first = kind(lo)
                if not first:
                    continue
                gap = stall(hi)
                for lo2, hi2 in code[a + 1:a + 12]:
                    if lo2 & 0x1FF in CONTROL:
                        break
                    second = kind(lo2)
                    if second and (first == "LDC") == (second == "LDC"):
                        pairs[(first, second)][min(gap, 16)] += 1
                        break
                    gap += stall(hi2)
    total = sum(sum(c.values()) for c in pairs.values())
    print(f"{total} pairs; cycles between them (16 = 16 or more):")
    for (a, b), c in sorted(pairs.items(), key=lambda p: -sum(p[1].values())):
        print(f"  {a:>5} -> {b:<5} n={sum(c.values()):5d} min={min(c)} {dict(sorted(c.items()))}")


if __name__ == "__main__":
    main(sys.argv[1:])
