"""Kernel names as the simulator and the profilers print them, reduced to one key.

Traces carry mangled names (`_Z8mult_gpuIfEvPT_S1_S1_ii`); ncu prints them
demangled by default (`void mult_gpu<float>(float *, ...)`), or as the bare
function (`--print-kernel-base function`), or mangled; nvprof demangles and
may cut long names short with `...`. The key is the unqualified function
name, which all of these spell the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelName:
    base: str        # unqualified function name, template arguments dropped
    truncated: bool  # the printed name was cut short: `base` is only a prefix

    def matches(self, sim_base: str) -> bool:
        return sim_base.startswith(self.base) if self.truncated else sim_base == self.base


def _source_name(s: str, i: int) -> tuple[str, int]:
    """Reads an Itanium <length><identifier> at i."""
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    n = int(s[i:j])
    return s[j:j + n], j + n


def _skip_template_args(s: str, i: int) -> int:
    """i is at the 'I' that opens template arguments; returns the index after its 'E'."""
    depth, i = 0, i
    while i < len(s):
        c = s[i]
        if c.isdigit():
            _, i = _source_name(s, i)
            continue
        if c == "L":                 # a literal such as Li256E: its digits are a value, not a length
            i = s.index("E", i) + 1
            continue
        if c in "IN":
            depth += 1
        elif c == "E":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _mangled_base(s: str) -> str:
    i = 2
    if s.startswith("L", i):         # internal linkage (static kernels)
        i += 1
    if s.startswith("St", i):
        i += 2
    if i < len(s) and s[i].isdigit():
        return _source_name(s, i)[0]
    if not s.startswith("N", i):
        return s
    i += 1
    last = ""
    while i < len(s) and s[i] != "E":
        c = s[i]
        if c.isdigit():
            last, i = _source_name(s, i)
        elif c == "I":
            i = _skip_template_args(s, i)
        elif c == "S":               # a substitution (S_, S0_, St, ...): a prefix we do not need
            i = i + 2 if s[i + 1].isalpha() else s.index("_", i) + 1
        elif c in "rVKRO":           # qualifiers of a member function
            i += 1
        else:
            break
    return last or s


def _demangled_base(s: str) -> str:
    s = s.replace("(anonymous namespace)", "anonymous_namespace")
    for stop in "(<":
        if stop in s:
            s = s[: s.index(stop)]
    s = s.strip().split()[-1] if s.strip() else s
    return s.split("::")[-1]


def kernel_name(printed: str) -> KernelName:
    """The matching key for a kernel name in any of the forms above."""
    s = printed.strip()
    truncated = s.endswith("...") and not s.endswith("(...)")
    if truncated:
        s = s[:-3]
    try:
        base = _mangled_base(s) if s.startswith("_Z") else _demangled_base(s)
    except (ValueError, IndexError):  # a mangled name cut short: keep what we have
        base = s
    # A name cut inside its parameter list still has its whole function name.
    return KernelName(base, truncated and "(" not in s and "<" not in s)
