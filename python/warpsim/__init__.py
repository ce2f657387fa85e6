"""warpsim's Python side: simulated runs as pandas DataFrames, and the correlator.

    import warpsim
    df = warpsim.load("results/")      # one row per kernel launch, columns as in docs/stats.md

`python3 -m warpsim correlate --sim runs/ --hw hw.csv` compares runs with a
profiler's measurements (docs/validation.md).
"""

__all__ = ["load"]


def load(path):
    """All kernel launches under `path` as a pandas DataFrame (see warpsim.runs.load).
    Imported on first use so that `python3 -m warpsim` can name missing modules itself."""
    from .runs import load as load_runs
    return load_runs(path)
