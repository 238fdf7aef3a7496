"""Calibrated z-scores: each reviewer's statistics merged with its history, residuals, and the self-bonus correction.

The arithmetic behind :func:`council.ranking.aggregation.aggregate`'s
``calibrated`` method (see that module's docstring for the formulas), and
what every method shares with it: the stored bias sums read back from a
reviewer's history, and each reviewer's self-bonus taken off its own
answer. It knows nothing of members, prompts or storage.

Plain floats in lists (:data:`Grid`: one row per reviewer, NaN where there
is no score), not numpy: a sheet is a handful of reviewers by a handful of
answers, and on arrays that small numpy's cost per call was most of the
work (the calibration took 99 µs in numpy, 13 µs as written here).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from council.ranking.agreement import BIAS_SUMS, PAIR_SUMS
from council.ranking.grid import Grid, columns, finite, row_stats
from council.ranking.self_preference import run_sums, sane_sums, self_bonus, self_differences
from council.ranking.sheet import ReviewerHistory, ScoreSheet

PRIOR_SCORES = 4.0
"""kappa: pseudo-scores of the run's pooled statistics in each reviewer's mean and variance."""
_TINY = 1e-12
NAN = math.nan

HistoryRow = tuple[float, float, float, float, float]
"""count, mean, m2, resid_count, resid_m2 of one reviewer's stored statistics."""


def sane_history(stats: ReviewerHistory | None) -> HistoryRow:
    """count, mean, m2, resid_count, resid_m2 of stored statistics; nonsense parts read as empty."""
    if stats is None:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    scores = (float(stats.count), float(stats.mean), float(stats.m2))
    resid = (float(stats.resid_count), float(stats.resid_m2))
    if not (all(map(math.isfinite, scores)) and scores[0] >= 1 and scores[2] >= 0):
        scores = (0.0, 0.0, 0.0)
    if not (all(map(math.isfinite, resid)) and resid[0] >= 1 and resid[1] >= 0):
        resid = (0.0, 0.0)
    return (*scores, *resid)


def history_rows(sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None) -> list[HistoryRow]:
    """Each reviewer's :func:`sane_history` row, in the sheet's reviewer order."""
    return [sane_history((history or {}).get(name)) for name in sheet.reviewers]


def bias_rows(sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None) -> list[tuple[float, ...]]:
    """Each reviewer's stored bias sums (see :func:`stored_bias`), in the sheet's reviewer order."""
    return [stored_bias((history or {}).get(name)) for name in sheet.reviewers]


def merge_stats(n_a: float, mean_a: float, m2_a: float, n_b: float, mean_b: float,
                m2_b: float) -> tuple[float, float, float]:
    """Chan's parallel form of Welford: statistics of two groups concatenated."""
    n = n_a + n_b
    delta = mean_b - mean_a
    if n <= 0:
        return n, mean_a, m2_a + m2_b
    return n, mean_a + delta * (n_b / n), m2_a + m2_b + delta * delta * (n_a * n_b / n)


def calibration(x: Grid, hist: Sequence[HistoryRow]) -> tuple[Grid, list[bool], list[float]]:
    """The calibrated z-scores of ``x`` given each reviewer's history row, which reviewers are flat
    (all their z are 0), and each reviewer's sigma."""
    stats = row_stats(x)
    scores = [v for row in x for v in finite(row)]
    m0 = sum(scores) / len(scores) if scores else 0.0
    dof = sum(max(k - 1.0, 0.0) for k, _, _ in stats)
    v0 = sum(ss for _, _, ss in stats) / dof if dof > 0 else 0.0
    z, flat, sigma = [], [], []
    for row, (k, mean_q, ss_q), (h_n, h_mean, h_m2, _, _) in zip(x, stats, hist, strict=True):
        n, mean, m2 = merge_stats(h_n, h_mean, h_m2, k, mean_q, ss_q)
        mu = (n * mean + PRIOR_SCORES * m0) / (n + PRIOR_SCORES)
        variance = (m2 + PRIOR_SCORES * v0) / (max(n - 1.0, 0.0) + PRIOR_SCORES)
        sd = math.sqrt(variance) if variance >= 0 else NAN  # NaN stays NaN, as an overflowed sum leaves it
        # Never varied: the sigma of a reviewer whose scores (history and sheet) are all one value.
        is_flat = sd <= _TINY or (n >= 2 and m2 <= _TINY * n * (1.0 + mean * mean))
        z.append([NAN if v != v else 0.0 if is_flat else (v - mu) / sd for v in row])
        flat.append(is_flat)
        sigma.append(sd)
    return z, flat, sigma


@dataclass(frozen=True)
class SelfCorrection:
    """Calibrated z and raw scores with each reviewer's self-bonus taken off its own answer, and the sums behind it."""

    z: Grid
    scores: Grid
    run: list[tuple[float, float, float]]  # this run's self-difference sums, one (n, Σd, Σd²) per reviewer
    total: list[tuple[float, float, float]]  # the history's plus this run's
    bonus: list[float]


def self_correction(sheet: ScoreSheet, x: Grid, hist: Sequence[HistoryRow], bias: Sequence[Sequence[float]],
                    prior: float) -> SelfCorrection:
    """The calibrated z (``hist``: :func:`history_rows`) and raw scores ``x`` with each reviewer's
    self-bonus, estimated from its stored sums (``bias``: :func:`bias_rows`) and this run's, taken off."""
    z, flat, sigma = calibration(x, hist)
    own = sheet.own_columns
    run = run_sums(self_differences(z, own, [not f for f in flat]))
    stored = sane_sums([row[PAIR_SUMS:] for row in bias])
    total = [(a[0] + b[0], a[1] + b[1], a[2] + b[2]) for a, b in zip(stored, run, strict=True)]
    bonus = self_bonus(total, prior)
    zc, xc = [list(row) for row in z], [list(row) for row in x]
    for r, column in enumerate(own):
        if column >= 0 and not flat[r]:
            zc[r][column] -= bonus[r]
            raw_shift = bonus[r] * sigma[r]
            xc[r][column] -= raw_shift if math.isfinite(raw_shift) else 0.0
    return SelfCorrection(zc, xc, run, total, bonus)


def per_question_z(x: Grid) -> Grid:
    """Each reviewer's z from its own scores in ``x`` alone (population std; 0 if they are all equal)."""
    z = []
    for row, (k, mean, ss) in zip(x, row_stats(x), strict=True):
        sd = math.sqrt(ss / max(k, 1.0))
        is_flat = sd <= _TINY * (1.0 + abs(mean))
        z.append([NAN if v != v else 0.0 if is_flat else (v - mean) / sd for v in row])
    return z


def z_scores(
    sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None = None, method: str = "calibrated"
) -> np.ndarray:
    """The (R, C) z-scores of ``calibrated`` or ``per_question_z`` (module docstring), NaN where no score.

    Computed whatever the number of candidates; :func:`aggregate` uses them from 3 candidates on.
    """
    if method not in ("calibrated", "per_question_z"):
        raise ValueError(f"z_scores supports calibrated and per_question_z, not {method!r}")
    x = sheet.scores
    z = per_question_z(x) if method == "per_question_z" else calibration(x, history_rows(sheet, history))[0]
    return np.array(z, dtype=float).reshape(sheet.overall.shape)


def residuals(z: Grid) -> tuple[list[float], list[float]]:
    """Per reviewer: count and sum of squared (z - mean z of the candidate's other reviewers)."""
    count = [0.0] * len(z)
    squares = [0.0] * len(z)
    for column in zip(*z, strict=True):
        scored = [(r, v) for r, v in enumerate(column) if v == v]
        if len(scored) < 2:
            continue
        total = sum(v for _, v in scored)
        for r, v in scored:
            others = (total - v) / (len(scored) - 1)
            count[r] += 1.0
            squares[r] += (v - others) * (v - others)
    return count, squares


def weighted_mean(values: Grid, weights: Sequence[float], width: int) -> list[float]:
    """Per column (``width`` of them), the mean of the scored ``values`` weighted by their row's weight;
    0 where no weight."""
    means = []
    for column in columns(values, width):
        total = sum(w for w, v in zip(weights, column, strict=True) if v == v)
        weighted = sum(w * v for w, v in zip(weights, column, strict=True) if v == v)
        means.append(weighted / max(total, _TINY) if total > 0 else 0.0)
    return means


def padded_bias(values: tuple[float, ...] | list[float]) -> tuple[float, ...]:
    """``BIAS_SUMS`` floats: a shorter tuple (an older history's) padded with 0, a longer one cut."""
    kept = tuple(map(float, values[:BIAS_SUMS]))
    return kept + (0.0,) * (BIAS_SUMS - len(kept))


def stored_bias(stats: ReviewerHistory | None) -> tuple[float, ...]:
    """The stored bias sums, ``BIAS_SUMS`` long (missing sums read as 0); all 0 if any is not a finite number."""
    try:
        values = padded_bias(tuple(stats.bias)) if stats is not None else ()
    except (TypeError, ValueError):
        values = ()
    if len(values) != BIAS_SUMS or not all(map(math.isfinite, values)):
        return (0.0,) * BIAS_SUMS
    return values
