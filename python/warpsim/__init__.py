"""warpsim's Python side: simulated runs and sweep studies as pandas DataFrames,
one simulation from Python, and the correlator.

    import warpsim
    df = warpsim.load("results/")      # plain output folders: one row per kernel launch (docs/stats.md)
    df = warpsim.load("study/")        # a sweep study: one row per run, a column per swept parameter
    k = warpsim.per_kernel(df)         # a study's runs expanded to one row per kernel launch
    stats = warpsim.run("traces/mm", gpu="qv100", set={"gpu.sms": 40})

`python3 -m warpsim correlate --sim runs/ --hw hw.csv` compares runs with a
profiler's measurements (docs/validation.md); `warpsim sweep` runs studies (docs/dse.md).
"""

__all__ = ["load", "per_kernel", "run"]


def load(path):
    """A sweep study folder (it holds sweep.sqlite) as one row per run (warpsim.sweep_load.load_study);
    otherwise all kernel launches under `path` (warpsim.runs.load).
    Imported on first use so that `python3 -m warpsim` can name missing modules itself."""
    from .sweep_db import is_study
    if is_study(path):
        from .sweep_load import load_study
        return load_study(path)
    from .runs import load as load_runs
    return load_runs(path)


def per_kernel(df):
    """One row per kernel launch from a study's run table (see warpsim.sweep_load.per_kernel)."""
    from .sweep_load import per_kernel as expand
    return expand(df)


def run(workload, gpu="qv100", set=None, args=(), out=None, warpsim=None):
    """Simulates one workload through the CLI and returns its stats.json as a dict (warpsim.api.run)."""
    from .api import run as run_one
    return run_one(workload, gpu=gpu, set=set, args=args, out=out, warpsim=warpsim)
