#!/usr/bin/env python3
"""Cycles ptxas puts between a fixed-latency instruction and its first reader.

Reads Volta-and-later cubins (`nvcc -cubin -arch=sm_XY`). Each 128-bit
instruction's control bits hold its stall count (bits 105-108: cycles before
the warp's next instruction) and its write scoreboard (bits 110-112; 7: none,
so a fixed-latency result that ptxas times by stall counts alone). For each
such instruction of the FMA pipe (FFMA, FMUL, FADD, IMAD...) or the ALU pipe
(IADD3, LOP3, ISETP, SHF, LEA, SEL, MOV...) whose result a later instruction
of its basic block reads, sums the stall counts from it to that reader and
prints the distribution per kind of reader: the same pipe, the other pipe,
or the LD/ST unit (LDG, STG, LDS, STS, ATOMS, RED, SHFL...). The smallest sum
is the hardware's latency for that pair (core.lsu_operand_latency;
docs/architecture.md, "Operand latency of memory instructions").

  for f in examples/cuda/suite/*.cu; do
    nvcc -cubin -O2 -arch=sm_75 -Iexamples/cuda -o /tmp/$(basename $f .cu).cubin $f; done
  scripts/sass-operand-latency.py /tmp/*.cubin

Register fields (Rd bits 16-23, Ra 24-31, Rb 32-39, Rc 64-71) are read for the
opcodes listed below only; others end the search, so an unlisted reader or
writer in between is never mistaken for none.
"""
import collections
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("lsu_spacing", os.path.join(_here, "sass-lsu-spacing.py"))
_lsu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lsu)

# Opcodes (low 9 bits of the first word) by pipe.
FMA_PIPE = {0x023: "FFMA", 0x020: "FMUL", 0x021: "FADD", 0x024: "IMAD", 0x025: "IMAD.WIDE", 0x027: "IMAD.HI"}
ALU_PIPE = {0x010: "IADD3", 0x012: "LOP3", 0x00C: "ISETP", 0x00B: "FSETP", 0x019: "SHF", 0x011: "LEA",
            0x007: "SEL", 0x008: "FSEL", 0x009: "FMNMX", 0x002: "MOV", 0x016: "PRMT", 0x017: "IMNMX"}
LSU = {0x181: "LDG", 0x186: "STG", 0x184: "LDS", 0x188: "STS", 0x183: "LDL", 0x187: "STL",
       0x18C: "ATOMS", 0x18E: "RED", 0x1A8: "ATOMG", 0x189: "SHFL"}
THREE_SOURCES = {0x023, 0x024, 0x025, 0x027, 0x010, 0x012, 0x019, 0x016}
NO_DESTINATION = {0x00C, 0x00B, 0x186, 0x188, 0x187, 0x18E}
ADDRESS_64 = {0x181, 0x186, 0x18E, 0x1A8}  # a register pair holds the address
STORED_DATA = {0x186, 0x188, 0x187, 0x18E, 0x1A8}  # Rb is read too (stored data)
RZ = 255
SEARCH = 32  # instructions looked at after the producer


def decode(w0, w1):
    """(opcode, pipe, registers read, registers written, stall count, write scoreboard)."""
    op, form = w0 & 0x1FF, (w0 >> 9) & 7
    rd, ra, rb, rc = (w0 >> 16) & 0xFF, (w0 >> 24) & 0xFF, (w0 >> 32) & 0xFF, w1 & 0xFF
    ctl = w1 >> 41
    stall, wbar = ctl & 0xF, (ctl >> 5) & 7
    pipe = "fma" if op in FMA_PIPE else "alu" if op in ALU_PIPE else "lsu" if op in LSU else None
    reads = set()
    if pipe in ("fma", "alu"):
        if op != 0x002:  # MOV's Ra field is unused
            reads.add(ra)
        if form == 1:  # register-register form: Rb is a register
            reads.add(rb)
        if op in THREE_SOURCES and form in (1, 2, 4, 6):
            reads.add(rc)
        if op == 0x025:
            reads.add(rc + 1)
    elif pipe == "lsu":
        reads |= {ra, ra + 1} if op in ADDRESS_64 else {ra}
        if op in STORED_DATA:
            reads.add(rb)
    reads.discard(RZ)
    writes = set()
    if pipe and op not in NO_DESTINATION and rd != RZ:
        writes = {rd, rd + 1} if op == 0x025 else {rd}
    return op, pipe, reads, writes, stall, wbar


def first_readers(code):
    """Yields (producer pipe, reader pipe, cycles) for each fixed-latency result read in its block."""
    insts = [decode(w0, w1) for w0, w1 in code]
    for i, (op, pipe, _, writes, stall, wbar) in enumerate(insts):
        if pipe not in ("fma", "alu") or not writes or wbar != 7:
            continue
        live, cycles = set(writes), stall
        for op2, pipe2, reads2, writes2, stall2, _ in insts[i + 1:i + 1 + SEARCH]:
            if op2 in _lsu.CONTROL or pipe2 is None:
                break
            if live & reads2:
                yield pipe, pipe2, cycles
                break
            live -= writes2
            if not live:
                break
            cycles += stall2


def main(paths):
    if not paths:
        sys.exit(__doc__)
    dist = collections.defaultdict(collections.Counter)
    for path in paths:
        for code in _lsu.text_sections(path):
            for producer, reader, cycles in first_readers(code):
                kind = "LD/ST unit" if reader == "lsu" else "same pipe" if reader == producer else "other pipe"
                dist[kind][cycles] += 1
    for kind in ("same pipe", "other pipe", "LD/ST unit"):
        c = dist[kind]
        if not c:
            continue
        spread = " ".join(f"{k}:{c[k]}" for k in sorted(c) if k <= 12)
        print(f"{kind:10s} pairs {sum(c.values()):6d}  fewest cycles {min(c):2d}  "
              f"most common {c.most_common(1)[0][0]:2d}   ({spread})")


if __name__ == "__main__":
    main(sys.argv[1:])
