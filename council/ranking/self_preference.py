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
from typing import Any

import numpy as np

from council.ranking.agreement import POOLED_MIN_T, SELF_SUMS, BiasFlag
from council.ranking.grid import NAN, as_grid

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


def self_differences(z: Any, own: Sequence[int], usable: Sequence[bool] | None = None) -> list[float]:
    """Per reviewer row of ``z``: its z for its own answer (column ``own[r]``, -1 for none) minus the
    mean z of the other reviewers of that answer; NaN where there is no such pair or ``usable[r]`` is false."""
    z = as_grid(z)
    own = [int(column) for column in own]
    n_cand = len(z[0]) if z else 0
    out = []
    for r, column in enumerate(own):
        scored = [row[column] for row in z if row[column] == row[column]] if 0 <= column < n_cand else []
        mine = z[r][column] if 0 <= column < n_cand else NAN
        if mine != mine or len(scored) < 2 or (usable is not None and not usable[r]):
            out.append(NAN)
            continue
        out.append(mine - (sum(scored) - mine) / (len(scored) - 1))
    return out


def run_sums(differences: Sequence[float]) -> list[tuple[float, float, float]]:
    """(1, d, d²) per reviewer for this run's self-difference d; zeros where there is none."""
    return [(1.0, d, d * d) if math.isfinite(d) else (0.0, 0.0, 0.0) for d in map(float, differences)]


def sane_sums(rows: Any) -> list[tuple[float, float, float]]:
    """Stored (n, Σd, Σd²) rows; a row with anything non-finite, a count below 1 or a negative sum of
    squares reads as no data (zeros)."""
    sane = []
    for row in _rows(rows):
        n, total, squares = map(float, row)
        ok = all(map(math.isfinite, (n, total, squares))) and n >= 1 and squares >= 0
        sane.append((n, total, squares) if ok else (0.0, 0.0, 0.0))
    return sane


def self_bonus(sums: Any, prior: float = SELF_PRIOR) -> list[float]:
    """Per row of (n, Σd, Σd²) sums: the shrunk bonus Σd / (n + prior); 0 without data or with an infinite prior."""
    rows = _rows(sums)
    if math.isinf(prior):
        return [0.0] * len(rows)
    bonus = []
    for n, total, _ in rows:
        value = total / (n + max(float(prior), 0.0)) if n > 0 else 0.0
        bonus.append(value if math.isfinite(value) else 0.0)
    return bonus


def _rows(sums: Any) -> list[list[float]]:
    # Rows of SELF_SUMS floats, from a list of rows or an (R, SELF_SUMS) array.
    if isinstance(sums, np.ndarray):
        return [[float(v) for v in row] for row in sums.reshape(-1, SELF_SUMS).tolist()]
    return [[float(v) for v in row] for row in sums]


def self_flags(reviewers: Sequence[str], sums: Any, prior: float = SELF_PRIOR) -> list[BiasFlag]:
    """``self_preference`` flags for the reviewers whose self-bonus is material (module docstring).

    A flag's ``correlation`` carries the estimated bonus in standard deviations, not a correlation.
    """
    rows = _rows(sums)
    flags = []
    for name, (n, total, squares), b in zip(reviewers, rows, self_bonus(rows, prior), strict=True):
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
