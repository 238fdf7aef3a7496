"""A score sheet as plain floats: one row per reviewer, NaN where there is no score.

Every ranking module works on one run's sheet, a handful of reviewers by a
handful of answers. On arrays that small numpy's cost per call is most of
the work, so the per-run arithmetic runs on lists of floats (:data:`Grid`)
and numpy is kept for what is big: the rank resampling's draws and the
Bradley-Terry fit. This module holds the few helpers they all share; it
knows nothing of reviewers, histories or methods.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

Grid = list[list[float]]
"""Rows of floats (reviewers), one column per candidate; NaN is a missing score."""
NAN = math.nan


def finite(row: Sequence[float]) -> list[float]:
    """The scores of a row of a :data:`Grid` (NaN left out)."""
    return [v for v in row if v == v]


def as_grid(values: Any) -> Grid:
    """A :data:`Grid` of ``values`` (a numpy array or nested sequences); anything not finite becomes NaN."""
    rows = values.tolist() if isinstance(values, np.ndarray) else [list(row) for row in values]
    return [[float(v) if math.isfinite(v) else NAN for v in row] for row in rows]


def columns(grid: Grid, width: int) -> list[tuple[float, ...]]:
    """The ``width`` columns of ``grid`` (each empty when the grid has no rows)."""
    return list(zip(*grid, strict=True)) if grid else [()] * width


def column_means(grid: Grid, width: int) -> tuple[list[float], list[int]]:
    """Per column (``width`` of them): the mean of its scores (NaN where there is none) and how many there are."""
    means, counts = [], []
    for column in columns(grid, width):
        scores = finite(column)
        means.append(sum(scores) / len(scores) if scores else NAN)
        counts.append(len(scores))
    return means, counts


def row_stats(x: Grid) -> list[tuple[float, float, float]]:
    """Per row: count of scores, their mean (0 if none) and sum of squared deviations from it."""
    stats = []
    for row in x:
        values = finite(row)
        mean = sum(values) / len(values) if values else 0.0
        stats.append((float(len(values)), mean, sum((v - mean) * (v - mean) for v in values)))
    return stats


def nan_to_num(value: float) -> float:
    """0 for NaN and the largest finite float, signed, for an infinity (as ``numpy.nan_to_num``)."""
    if value != value:
        return 0.0
    if math.isinf(value):
        return math.copysign(sys.float_info.max, value)
    return value
