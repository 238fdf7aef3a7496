"""Calibrated z-scores: each reviewer's statistics merged with its history, residuals, and the self-bonus correction.

The arithmetic behind :func:`council.ranking.aggregation.aggregate`'s
``calibrated`` method (see that module's docstring for the formulas), and
what every method shares with it: the stored bias sums read back from a
reviewer's history, and each reviewer's self-bonus taken off its own
answer. Pure numpy on one score sheet; it knows nothing of members,
prompts or storage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from council.ranking.agreement import BIAS_SUMS, PAIR_SUMS
from council.ranking.self_preference import run_sums, sane_sums, self_bonus, self_differences
from council.ranking.sheet import ReviewerHistory, ScoreSheet

PRIOR_SCORES = 4.0
"""kappa: pseudo-scores of the run's pooled statistics in each reviewer's mean and variance."""
_TINY = 1e-12


def sane_history(stats: ReviewerHistory | None) -> tuple[float, float, float, float, float]:
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


def history_arrays(sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None) -> np.ndarray:
    """(R, 5) float rows of count, mean, m2, resid_count, resid_m2; nonsense values read as empty."""
    rows = [sane_history((history or {}).get(name)) for name in sheet.reviewers]
    return np.array(rows, dtype=float).reshape(-1, 5)


def bias_arrays(sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None) -> np.ndarray:
    """(R, BIAS_SUMS) rows of each reviewer's stored bias sums (see :func:`stored_bias`)."""
    rows = [stored_bias((history or {}).get(name)) for name in sheet.reviewers]
    return np.array(rows, dtype=float).reshape(-1, BIAS_SUMS)


def row_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: finite mask, count, mean (0 if empty) and sum of squared deviations."""
    ok = np.isfinite(x)
    k = ok.sum(axis=1).astype(float)
    vals = np.where(ok, x, 0.0)
    mean = vals.sum(axis=1) / np.maximum(k, 1.0)
    ss = np.sum(np.where(ok, (vals - mean[:, None]) ** 2, 0.0), axis=1)
    return ok, k, mean, ss


def merge_stats(n_a: Any, mean_a: Any, m2_a: Any, n_b: Any, mean_b: Any, m2_b: Any) -> tuple[Any, Any, Any]:
    """Chan's parallel form of Welford: statistics of two groups concatenated."""
    n = n_a + n_b
    delta = mean_b - mean_a
    mean = mean_a + delta * np.divide(n_b, n, out=np.zeros_like(n), where=n > 0)
    m2 = m2_a + m2_b + delta**2 * np.divide(n_a * n_b, n, out=np.zeros_like(n), where=n > 0)
    return n, mean, m2


def calibrated_z(x: np.ndarray, hist: np.ndarray) -> np.ndarray:
    """The calibrated z-scores of ``x`` given each reviewer's :func:`history_arrays` row."""
    return calibration(x, hist)[0]


def calibration(x: np.ndarray, hist: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The calibrated z-scores, which reviewers are flat (all their z are 0) and each reviewer's sigma."""
    ok, k, mean_q, ss_q = row_stats(x)
    n, mean, m2 = merge_stats(hist[:, 0], hist[:, 1], hist[:, 2], k, mean_q, ss_q)
    m0 = float(np.mean(x[ok])) if ok.any() else 0.0
    dof = np.sum(np.maximum(k - 1, 0.0))
    v0 = float(np.sum(ss_q) / dof) if dof > 0 else 0.0
    mu = (n * mean + PRIOR_SCORES * m0) / (n + PRIOR_SCORES)
    sigma = np.sqrt((m2 + PRIOR_SCORES * v0) / (np.maximum(n - 1, 0.0) + PRIOR_SCORES))
    flat = (sigma <= _TINY) | ((n >= 2) & (m2 <= _TINY * n * (1.0 + mean**2)))
    z = (x - mu[:, None]) / np.where(flat, 1.0, sigma)[:, None]
    return np.where(ok, np.where(flat[:, None], 0.0, z), np.nan), flat, sigma


@dataclass(frozen=True)
class SelfCorrection:
    """Calibrated z and raw scores with each reviewer's self-bonus taken off its own answer, and the sums behind it."""

    z: np.ndarray
    scores: np.ndarray
    run: np.ndarray  # (R, SELF_SUMS): this run's self-difference sums
    total: np.ndarray  # (R, SELF_SUMS): the history's plus this run's
    bonus: np.ndarray  # (R,)


def self_correction(sheet: ScoreSheet, x: np.ndarray, hist: np.ndarray, bias: np.ndarray,
                    prior: float) -> SelfCorrection:
    """The calibrated z (``hist``: :func:`history_arrays`) and raw scores ``x`` with each reviewer's
    self-bonus, estimated from its stored sums (``bias``: :func:`bias_arrays`) and this run's, taken off."""
    z, flat, sigma = calibration(x, hist)
    own = sheet.own_columns
    run = run_sums(self_differences(z, own, ~flat))
    total = sane_sums(bias[:, PAIR_SUMS:]) + run
    bonus = self_bonus(total, prior)
    rows = np.flatnonzero((own >= 0) & ~flat)
    cols = own[rows]
    zc, xc = z.copy(), x.copy()
    if rows.size:
        raw_shift = bonus[rows] * sigma[rows]
        zc[rows, cols] -= bonus[rows]
        xc[rows, cols] -= np.where(np.isfinite(raw_shift), raw_shift, 0.0)
    return SelfCorrection(zc, xc, run, total, bonus)


def per_question_z(x: np.ndarray) -> np.ndarray:
    """Each reviewer's z from its own scores in ``x`` alone (population std; 0 if they are all equal)."""
    ok, k, mean_q, ss_q = row_stats(x)
    sd = np.sqrt(ss_q / np.maximum(k, 1.0))
    flat = sd <= _TINY * (1.0 + np.abs(mean_q))
    z = (x - mean_q[:, None]) / np.where(flat, 1.0, sd)[:, None]
    return np.where(ok, np.where(flat[:, None], 0.0, z), np.nan)


def z_scores(
    sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None = None, method: str = "calibrated"
) -> np.ndarray:
    """The (R, C) z-scores of ``calibrated`` or ``per_question_z`` (module docstring), NaN where no score.

    Computed whatever the number of candidates; :func:`aggregate` uses them from 3 candidates on.
    """
    if method not in ("calibrated", "per_question_z"):
        raise ValueError(f"z_scores supports calibrated and per_question_z, not {method!r}")
    with np.errstate(all="ignore"):
        x = np.where(np.isfinite(sheet.overall), sheet.overall, np.nan)
        if method == "per_question_z":
            return per_question_z(x)
        return calibrated_z(x, history_arrays(sheet, history))


def residuals(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per reviewer: count and sum of squared (z - mean z of the candidate's other reviewers)."""
    ok = np.isfinite(z)
    vals = np.where(ok, z, 0.0)
    col_n, col_sum = ok.sum(axis=0), vals.sum(axis=0)
    usable = ok & (col_n >= 2)[None, :]
    loo = (col_sum[None, :] - vals) / np.maximum(col_n[None, :] - 1, 1)
    sq = np.where(usable, (vals - loo) ** 2, 0.0)
    return usable.sum(axis=1).astype(float), sq.sum(axis=1)


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per column, the mean of the finite ``values`` weighted by their row's weight; 0 where no weight."""
    ok = np.isfinite(values)
    w = np.where(ok, weights[:, None], 0.0)
    total = w.sum(axis=0)
    return np.where(total > 0, np.sum(w * np.where(ok, values, 0.0), axis=0) / np.maximum(total, _TINY), 0.0)


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
