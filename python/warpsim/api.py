"""warpsim.run: one simulation from Python, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from .sweep_params import warpsim_binary
from .cli_args import set_argument


class SimulationError(RuntimeError):
    """The simulator exited with an error; the message holds its last lines."""


def run(workload, gpu: str = "qv100", set: dict | None = None, args=(), out: str | None = None,
        warpsim: str | None = None) -> dict:
    """Simulates `workload` and returns its stats.json as a dict (docs/stats.md).

    `workload` is a trace folder or kernelslist.g (`warpsim run`), or a CUDA program, run with `args`
    under `warpsim exec --timing`. `set` overrides parameters ({"gpu.sms": 40}); `out` keeps the
    output folder (else a temporary one is used and removed)."""
    warpsim = warpsim or warpsim_binary()
    sets = [a for k, v in (set or {}).items() for a in ("--set", set_argument(k, v))]
    path = Path(workload)
    program = path.is_file() and path.name != "kernelslist.g" and os.access(path, os.X_OK)
    with tempfile.TemporaryDirectory(prefix="warpsim-run-") as tmp:
        folder = out or tmp
        if program:
            cmd = [warpsim, "exec", "--timing", "--gpu", gpu, *sets, "--out", folder, "--", str(path),
                   *map(str, args)]
        else:
            cmd = [warpsim, "run", str(path), "--gpu", gpu, *sets, "--out", folder, "--format", "none",
                   "--no-progress"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
            raise SimulationError(f"{' '.join(cmd)} failed (exit {done.returncode}):\n{tail}")
        return json.loads((Path(folder) / "stats.json").read_text(encoding="utf-8"))
