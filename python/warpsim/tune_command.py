"""`warpsim tune --measured FILE --base PRESET --out FILE`: the command around
the tuner (tune.py); docs/validation.md, "Tuning a preset"."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from .errors import InputError
from .measured import Measured, parse_measured
from .tune import Tuner, TuneError
from .tune_map import TuneMap, load_tune_map
from .tune_output import preset_text, report_text, write_atomically
from .tune_sim import WarpsimSimulator, default_jobs


def add_arguments(t) -> None:
    t.add_argument("--measured", required=True, help="key=value results (scripts/ubench-run.sh)")
    t.add_argument("--base", default="qv100", help="preset to start from: a name or a TOML file (default: %(default)s)")
    t.add_argument("--out", required=True, help="the preset to write (only what differs from the base)")
    t.add_argument("--verify", action="store_true",
                   help="re-simulate every measured key under the tuned preset and report the error")
    t.add_argument("-j", "--jobs", type=int, default=default_jobs(),
                   help="simulations run at once (default: the processors available, %(default)s)")
    t.add_argument("--warpsim", default=os.environ.get("WARPSIM_BIN", "warpsim"),
                   help="the warpsim binary (default: the one that started this command)")
    t.add_argument("--bench-dir", help="the built microbenchmarks (default: ../ubench beside the warpsim binary's "
                                       "folder, i.e. build/ubench)")
    t.add_argument("--map", help="tuning map TOML (default: the package's data/tune.toml)")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def base_reference(base: str, out: str) -> str:
    """What the written preset's `base =` says: a preset name as is; a file by
    its stem when the output sits beside it, else by its absolute path
    (without .toml, as the loader adds it)."""
    if not base.endswith(".toml") and os.path.sep not in base:
        return base
    path = Path(base).resolve()
    if path.parent == Path(out).resolve().parent:
        return path.stem
    return str(path.with_suffix(""))


def drop_simulator_only(measured: Measured, tmap: TuneMap, log) -> Measured:
    """Results of a native run (`# gpu: ... (native)`, scripts/ubench-run.sh
    --native) lose the keys that are no measurement on real hardware."""
    if not measured.gpu.endswith("(native)"):
        return measured
    dropped = [k for k in measured.values if k in tmap.simulator_only]
    for key in dropped:
        log(f"tune: {key} ignored: {measured.path}:{measured.lines[key]} comes from a native run, and on real "
            f"hardware this benchmark does not measure what the key names (docs/validation.md)")
    keep = {k: v for k, v in measured.values.items() if k not in tmap.simulator_only}
    return replace(measured, values=keep, lines={k: measured.lines[k] for k in keep})


def run(args) -> int:
    tmap = load_tune_map(args.map)
    measured = parse_measured(args.measured, tmap.known_keys())
    log = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    measured = drop_simulator_only(measured, tmap, log)
    out_dir = Path(args.out).resolve().parent
    if not out_dir.is_dir():
        raise InputError(args.out, f"folder {out_dir} does not exist")
    if os.path.sep in args.base or args.base.endswith(".toml"):
        if not Path(args.base).is_file():
            raise InputError(args.base, "no such preset file")
    bench_dir = args.bench_dir or str(Path(args.warpsim).resolve().parent.parent / "ubench")
    sim = WarpsimSimulator(args.warpsim, args.base, bench_dir, args.jobs, log)
    tuner = Tuner(tmap, measured, sim, log)
    try:
        outcome = tuner.tune()
        if args.verify:
            outcome.tuned_figures = tuner.verify(outcome)
    except TuneError as e:
        print(f"warpsim tune: error: {e}", file=sys.stderr)
        return 1
    source = os.path.basename(measured.path) + (f" ({measured.gpu})" if measured.gpu else "")
    write_atomically(args.out, preset_text(outcome, base_reference(args.base, args.out), source))
    print(report_text(outcome, measured.values), end="")
    print(f"wrote {args.out} ({len(outcome.changed())} parameters differ from {args.base}; "
          f"{sim.count} simulations)")
    return 0
