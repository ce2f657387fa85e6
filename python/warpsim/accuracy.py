"""Error statistics between measured (hw) and simulated (sim) values of one metric."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Accuracy:
    n: int            # pairs compared
    mae: float        # count metrics: mean |sim - hw| / hw in %; percent and difference metrics: mean |sim - hw|
    nrmse: float      # sqrt(mean((sim - hw)^2)) / mean(hw)
    pearson: float    # correlation of sim with hw; NaN with fewer than 2 pairs or a constant side
    skipped: int = 0  # count metrics: pairs left out of `mae` because hw was 0 and sim was not


def errors(hw: np.ndarray, sim: np.ndarray, kind: str) -> np.ndarray:
    """Per-pair error: relative (a fraction) for counts, a difference for percentages (points) and
    "difference" metrics (their unit). NaN where a count's measured value is 0 and the simulated one is not."""
    if kind != "count":
        return sim - hw
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (sim - hw) / hw
    return np.where((hw == 0) & (sim == 0), 0.0, np.where(hw == 0, np.nan, rel))


def pearson(hw: np.ndarray, sim: np.ndarray) -> float:
    if len(hw) < 2 or np.std(hw) == 0 or np.std(sim) == 0:
        return math.nan
    return float(np.corrcoef(hw, sim)[0, 1])


def accuracy(hw, sim, kind: str) -> Accuracy:
    hw = np.asarray(hw, dtype=float)
    sim = np.asarray(sim, dtype=float)
    if len(hw) == 0:
        return Accuracy(0, math.nan, math.nan, math.nan)
    err = errors(hw, sim, kind)
    finite = err[~np.isnan(err)]
    scale = 100.0 if kind == "count" else 1.0
    mae = float(np.mean(np.abs(finite)) * scale) if len(finite) else math.nan
    mean_hw = float(np.mean(hw))
    rmse = float(np.sqrt(np.mean((sim - hw) ** 2)))
    nrmse = rmse / mean_hw if mean_hw != 0 else math.nan
    return Accuracy(len(hw), mae, nrmse, pearson(hw, sim), int(np.isnan(err).sum()))
