"""Self-preference: how much a reviewer favours its own answer, learnt across runs and subtracted before ranking.

Job: with ``review.include_self`` on, a reviewer scores its own answer. On
the calibrated z scale, its *self-difference* in one run is its z for its own
answer minus the mean z the other reviewers gave that same answer. Each run
adds (1, d, d²) to three running sums kept at the end of the reviewer's
stored bias tuple (``SELF_SUMS`` after the position and length sums of
:mod:`council.ranking.agreement`; an older, shorter tuple reads as zeros).
The estimate shrinks the mean toward 0 while there are few runs::

    bonus_r = sum_d / (n + SELF_PRIOR)

and :mod:`council.ranking.aggregation` subtracts it from the reviewer's
own-answer z (or, for the methods that work on raw scores, ``bonus_r``
times the reviewer's calibrated standard deviation). A flag of kind
``self_preference`` names a reviewer whose bonus is material: at least
``SELF_FLAG_MIN_RUNS`` runs, a t statistic of the mean difference of at
least ``POOLED_MIN_T`` and ``|bonus| >= SELF_FLAG_MIN_BONUS``.

Must not know: how z-scores are computed (the caller passes them), which
method ranks, reviewer names beyond the flags' text, configuration, storage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from council.ranking.agreement import POOLED_MIN_T, SELF_SUMS, BiasFlag

SELF_PRIOR = 3.0
"""k: pseudo-runs of "no self-bonus" in the estimate, which includes the current run. One run's
difference is noisy (even for a constant bonus it varies by about +-0.3 z between runs, since every
reviewer is calibrated on its own statistics), so a reviewer's first self-review is corrected by 1/4
of its difference, after 9 runs by 10/13 of the mean difference, after 30 by 31/34. On
``scripts/bench_aggregation.py`` scenarios P and S (seed 1, not the reported one) k = 0.5-3 gave the
same tau, k = 10 and 30 less in S; 3 is the most cautious of the best."""
SELF_FLAG_MIN_RUNS = 5
"""A self_preference flag needs this many runs in which the reviewer scored its own answer."""
SELF_FLAG_MIN_BONUS = 0.25
"""... and an estimated bonus of at least this many of the reviewer's standard deviations."""


def self_differences(z: np.ndarray, own: np.ndarray, usable: np.ndarray | None = None) -> np.ndarray:
    """Per reviewer row of ``z``: its z for its own answer (column ``own[r]``, -1 for none) minus the
    mean z of the other reviewers of that answer; NaN where there is no such pair or ``usable[r]`` is false."""
    z = np.asarray(z, dtype=float)
    own = np.asarray(own, dtype=int)
    n_rev, n_cand = z.shape
    out = np.full(n_rev, np.nan)
    if n_rev == 0 or n_cand == 0:
        return out
    ok = np.isfinite(z)
    vals = np.where(ok, z, 0.0)
    col_n, col_sum = ok.sum(axis=0), vals.sum(axis=0)
    rows = np.arange(n_rev)
    has = (own >= 0) & (own < n_cand)
    col = np.where(has, own, 0)
    mine = vals[rows, col]
    has &= ok[rows, col] & (col_n[col] >= 2)
    if usable is not None:
        has &= np.asarray(usable, dtype=bool)
    with np.errstate(all="ignore"):
        others = (col_sum[col] - mine) / np.maximum(col_n[col] - 1, 1)
        out[has] = (mine - others)[has]
    return out


def run_sums(differences: np.ndarray) -> np.ndarray:
    """(R, SELF_SUMS) rows (1, d, d²) of this run's self-differences; zeros where there is none."""
    d = np.asarray(differences, dtype=float)
    ok = np.isfinite(d)
    v = np.where(ok, d, 0.0)
    return np.stack([ok.astype(float), v, v * v], axis=1) if d.size else np.zeros((0, SELF_SUMS))


def sane_sums(rows: np.ndarray) -> np.ndarray:
    """Stored (n, Σd, Σd²) rows, (R, SELF_SUMS); a row with anything non-finite, a count below 1
    or a negative sum of squares reads as no data (zeros)."""
    rows = np.asarray(rows, dtype=float).reshape(-1, SELF_SUMS)
    sane = np.isfinite(rows).all(axis=1) & (rows[:, 0] >= 1) & (rows[:, 2] >= 0)
    return np.where(sane[:, None], rows, 0.0)


def self_bonus(sums: np.ndarray, prior: float = SELF_PRIOR) -> np.ndarray:
    """Per row of (n, Σd, Σd²) sums: the shrunk bonus Σd / (n + prior); 0 without data or with an infinite prior."""
    sums = np.asarray(sums, dtype=float).reshape(-1, SELF_SUMS)
    if math.isinf(prior):
        return np.zeros(sums.shape[0])
    with np.errstate(all="ignore"):
        bonus = sums[:, 1] / (sums[:, 0] + max(float(prior), 0.0))
    return np.where((sums[:, 0] > 0) & np.isfinite(bonus), bonus, 0.0)


def self_flags(reviewers: Sequence[str], sums: np.ndarray, prior: float = SELF_PRIOR) -> list[BiasFlag]:
    """``self_preference`` flags for the reviewers whose self-bonus is material (module docstring).

    A flag's ``correlation`` carries the estimated bonus in standard deviations, not a correlation.
    """
    sums = np.asarray(sums, dtype=float).reshape(-1, SELF_SUMS)
    bonus = self_bonus(sums, prior)
    flags = []
    # Plain floats: a handful of numbers per reviewer, for which numpy scalars are slow.
    for name, (n, total, squares), b in zip(reviewers, sums.tolist(), bonus.tolist(), strict=True):
        if n < SELF_FLAG_MIN_RUNS or abs(b) < SELF_FLAG_MIN_BONUS:
            continue
        mean = total / n
        standard_error = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1) / n)
        t = mean / standard_error if standard_error > 0 else math.copysign(math.inf, mean)
        if abs(t) < POOLED_MIN_T:
            continue
        way = "above" if b > 0 else "below"
        detail = (f"{name} scores its own answer {abs(b):.2f} standard deviations {way} what the other reviewers "
                  f"give it (estimated over {int(n)} runs; subtracted before ranking)")
        flags.append(BiasFlag(reviewer=name, kind="self_preference", correlation=float(b), detail=detail))
    return flags
