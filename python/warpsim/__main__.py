"""python3 -m warpsim correlate|mapping|sample|tune|sweep ... (also `warpsim correlate ...`, `warpsim tune ...`,
`warpsim sample ...`, `warpsim sweep ...`)."""

from __future__ import annotations

import argparse
import sys

from .deps import missing_message, missing_modules


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="warpsim", description="warpsim's Python tools")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("correlate", help="compare simulated runs with profiler measurements",
                       description="Compare warpsim runs with Nsight Compute or nvprof CSV, per metric "
                                   "(docs/validation.md).")
    c.add_argument("--sim", required=True,
                   help="a run folder (holding stats.json) or a folder of run folders, one per workload")
    c.add_argument("--hw", required=True,
                   help="the profiler CSV, or a folder holding <workload>.csv for each run folder")
    c.add_argument("--hw-format", choices=["auto", "ncu", "nvprof"], default="auto",
                   help="profiler that wrote the CSV (default: recognised from its header)")
    c.add_argument("--out", default="correlation.html", help="HTML report to write (default: %(default)s)")
    c.add_argument("--kernels-csv", help="also write every compared value, one row per kernel and metric")
    c.add_argument("--mapping", help="metric mapping TOML (default: the package's data/metrics.toml)")
    c.add_argument("--allow-unknown", action="store_true",
                   help="ignore CSV metrics the mapping does not name (e.g. an `ncu --set full` profile)")
    c.add_argument("--allow-unmatched", action="store_true",
                   help="correlate the kernels that match and list the others, instead of stopping")
    t = sub.add_parser("tune", help="turn measured microbenchmark figures into a preset",
                       description="Tune a preset from microbenchmark results (scripts/ubench-run.sh): "
                                   "parameters measured directly are found by simulating their benchmark at two "
                                   "values and inverting; scheduler, DRAM scheduler and hashing are chosen by "
                                   "simulating the candidates on the bandwidth benchmarks (docs/validation.md, "
                                   "'Tuning a preset').")
    from .tune_command import add_arguments
    add_arguments(t)
    s = sub.add_parser("sample", help="kernel sampling: choose representative kernels (docs/sampling.md)")
    from .sample_command import add_arguments as add_sample_arguments
    add_sample_arguments(s)
    sw = sub.add_parser("sweep", help="design-space sweeps: run, status, report",
                        description="Design-space sweeps from a TOML spec into a study folder (docs/dse.md).")
    from .sweep_command import add_arguments as add_sweep_arguments
    add_sweep_arguments(sw)
    m = sub.add_parser("mapping", help="print the metric mapping")
    m.add_argument("--markdown", action="store_true", help="as the Markdown page docs/metric-mapping.md")
    m.add_argument("--mapping", help="metric mapping TOML (default: the package's)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    missing = missing_modules() if args.command == "correlate" else []
    if missing:
        print(missing_message(missing), file=sys.stderr)
        return 3
    from .errors import InputError
    try:
        if args.command == "mapping":
            from .mapping_doc import mapping_markdown
            from .mapping import DEFAULT_PATH, load_mapping
            print(mapping_markdown(load_mapping(args.mapping or DEFAULT_PATH)), end="")
            return 0
        if args.command == "sample":
            from .sample_command import run as sample_run
            return sample_run(args)
        if args.command == "tune":
            from .tune_command import run as tune_run
            return tune_run(args)
        if args.command == "sweep":
            from .sweep_command import run as sweep_run
            return sweep_run(args)
        from .correlate import correlate
        from .report import text_summary, write_report
        result = correlate(args.sim, args.hw, args.hw_format, args.mapping, args.allow_unknown,
                           args.allow_unmatched)
        write_report(result, args.out, args.kernels_csv)
    except InputError as e:
        print(f"warpsim {args.command}: error: {e}", file=sys.stderr)
        return 1
    print(text_summary(result), end="")
    for u in result.matching.unmatched:
        print(f"warpsim correlate: unmatched: {u.where}: {u.name}: {u.reason}", file=sys.stderr)
    for note in result.matching.notes:
        print(f"warpsim correlate: note: {note}", file=sys.stderr)
    print(f"wrote {args.out}" + (f" and {args.kernels_csv}" if args.kernels_csv else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
