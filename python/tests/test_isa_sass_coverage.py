"""Every opcode of real Hopper code is in the sm_90 opcode table: the SASS of
every program and microbenchmark that the H100 loans ran (cuobjdump of nvcc
13's sm_90 code, examples/hw/h100-2026-11-26-stalls/sass.tar.xz). An NVBit
trace of such code names these opcodes; one the table lacks stops the run."""

import re
import tarfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DUMPS = ROOT / "examples/hw/h100-2026-11-26-stalls/sass.tar.xz"
# A SASS line: /*0a30*/  [@P0 |@!UP1 ]OPCODE.MODS operands ;
LINE = re.compile(r"^\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def table_opcodes(version: str) -> set[str]:
    table = tomllib.loads((ROOT / "isa" / f"sm_{version}.toml").read_text())
    ops = {op for group in table.get("group", []) for op in group["ops"]}
    base = table.get("base")
    return ops | table_opcodes(base.removeprefix("sm_")) if base else ops


def dump_opcodes() -> dict[str, str]:
    """Opcode -> the first dump that has it."""
    seen = {}
    with tarfile.open(DUMPS) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith(".sass"):
                continue
            for line in tar.extractfile(member).read().decode(errors="replace").splitlines():
                if m := LINE.match(line):
                    seen.setdefault(m.group(1), member.name)
    return seen


def test_every_opcode_of_the_h100_dumps_is_in_the_sm_90_table():
    seen = dump_opcodes()
    assert len(seen) > 90, "the dumps hold about a hundred distinct opcodes"
    known = table_opcodes("90")
    missing = {op: where for op, where in seen.items() if op not in known}
    assert not missing, f"opcodes of sm_90 code that isa/sm_90.toml (with its bases) lacks: {missing}"
