"""Agreement between reviewers and flags for reviewers whose scores follow position or length.

Plain floats on one run's :data:`~council.ranking.grid.Grid`, used by
:mod:`council.ranking.aggregation`. Agreement is Kendall's W (with tie
correction) when every reviewer scored the same candidates, and the mean
pairwise Kendall tau-b otherwise. A bias flag needs |Kendall tau-b| of at
least ``BIAS_THRESHOLD`` between a reviewer's scores and the slot it saw each
answer in (or the answer's length), over at least ``BIAS_MIN_ITEMS`` answers.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from council.ranking.grid import NAN, Grid, column_means, nan_to_num, row_stats

BIAS_MIN_ITEMS = 5
"""A bias flag needs at least this many scored answers from the reviewer."""
BIAS_THRESHOLD = 0.8
"""A flag needs |Kendall tau-b| of at least this. With 5 distinct scores an unbiased reviewer
reaches it by chance 8% of the time, with 6 scores 1.7%: read one flag as a hint."""


@dataclass(frozen=True)
class Agreement:
    """How far the reviewers agree; ``statistic`` names the headline number."""

    kendall_w: float | None
    mean_pairwise_tau: float | None
    statistic: str
    n_reviewers: int


@dataclass(frozen=True)
class BiasFlag:
    """A reviewer whose scores follow presentation ``position`` or answer ``length``."""

    reviewer: str
    kind: str
    correlation: float
    detail: str


def kendall_tau(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Kendall's tau-b of two equally long NaN-free sequences; NaN if undefined (a side all tied)."""
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"kendall_tau needs equal lengths, got {x.size} and {y.size}")
    with np.errstate(all="ignore"):
        sx, sy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
        den = np.sqrt(np.sum(sx * sx) * np.sum(sy * sy))
        return float(np.sum(sx * sy) / den) if den > 0 else float("nan")


def _pair_signs(rows: Grid) -> tuple[np.ndarray, np.ndarray]:
    """Per reviewer, over every pair i < j of candidates: the sign of its score of i minus j (0 unless it
    scored both), and whether it scored both; two (reviewers, pairs) arrays."""
    x = np.asarray(rows, dtype=float).reshape(len(rows), -1)
    first, second = np.triu_indices(x.shape[1], k=1)
    scored = ~np.isnan(x)
    both = scored[:, first] & scored[:, second]
    # Compared, not subtracted: the difference of two huge scores overflows, their order does not.
    a, b = x[:, first], x[:, second]
    signs = np.where(both, (a > b).astype(float) - (a < b).astype(float), 0.0)
    return signs, both.astype(float)


def _pairwise_taus(rows: Grid) -> list[float]:
    """Kendall tau-b of every two reviewers (r < s, in that order) over the candidates both scored; NaN
    where undefined (fewer than two shared candidates, or a side all tied).

    Each reviewer's concordance is counted over the pairs of candidates it
    scored, weighted by whether the other scored both too (the tau-b
    denominators). Matrix products over the candidate pairs: the counts are
    small whole numbers, exact in floats, and the work is numpy's rather than
    a Python loop per pair of reviewers and pair of candidates.
    """
    n_rev = len(rows)
    if n_rev < 2:
        return []
    signs, both = _pair_signs(rows)
    scored = (~np.isnan(np.asarray(rows, dtype=float).reshape(n_rev, -1))).astype(float)
    concordance = signs @ signs.T
    counted = (signs * signs) @ both.T  # [r, s]: pairs r ordered that s scored both of
    shared = scored @ scored.T
    den = np.sqrt(counted * counted.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        taus = np.where((den > 0) & (shared >= 2), concordance / np.where(den > 0, den, 1.0), np.nan)
    upper: list[float] = taus[np.triu_indices(n_rev, k=1)].tolist()
    return upper


def _midranks(row: Sequence[float]) -> tuple[list[float], int]:
    """Each value's rank in ``row`` (1-based, ties sharing their mean rank) and the row's sum of t^2 - 1 over
    its values (t: how many equal it), by sorting rather than comparing every pair."""
    ordered = sorted(row)
    ranks, ties = [], 0
    for v in row:
        less, equal = bisect_left(ordered, v), bisect_right(ordered, v) - bisect_left(ordered, v)
        ranks.append(1.0 + less + 0.5 * (equal - 1))
        ties += equal * equal - 1
    return ranks, ties


def _kendall_w(rows: Grid) -> float | None:
    """Kendall's W with tie correction for complete (m, n) score rows."""
    m, n = len(rows), len(rows[0])
    rank_sums = [0.0] * n
    ties = 0  # sum over items of t^2 - 1 equals the sum over tie groups of t^3 - t
    for row in rows:
        ranks, row_ties = _midranks(row)
        ties += row_ties
        for i, rank in enumerate(ranks):
            rank_sums[i] += rank
    s = sum((total - m * (n + 1) / 2.0) ** 2 for total in rank_sums)
    den = m * m * (n**3 - n) - m * ties
    return 12.0 * s / den if den > 0 else None


def agreement(x: Grid) -> Agreement:
    """Agreement among the reviewer rows of ``x`` (NaN = not scored)."""
    rows = [row for row in x if any(v == v for v in row)]
    n_rev = len(rows)
    w = None
    scored = [v == v for v in rows[0]] if rows else []
    if n_rev >= 2 and sum(scored) >= 2 and all([v == v for v in row] == scored for row in rows):
        w = _kendall_w([[v for v, ok in zip(row, scored, strict=True) if ok] for row in rows])
    taus = [tau for tau in _pairwise_taus(rows) if tau == tau]
    mean_tau = sum(taus) / len(taus) if taus else None
    statistic = "kendall_w" if w is not None else "mean_pairwise_tau" if mean_tau is not None else "none"
    return Agreement(kendall_w=w, mean_pairwise_tau=mean_tau, statistic=statistic, n_reviewers=n_rev)


def bias_flags(reviewers: Sequence[str], position: Sequence[Sequence[int]], lengths: Sequence[float],
               x: Grid) -> list[BiasFlag]:
    """Reviewers whose scores follow presentation slot or answer length."""
    flags = []
    measured = [math.isfinite(length) for length in lengths]
    for i, name in enumerate(reviewers):
        scored = [v == v for v in x[i]]
        # The answers each flag would be computed over: in a usual run a reviewer has scored too few.
        usable = {"position": [ok and slot >= 0 for ok, slot in zip(scored, position[i], strict=True)],
                  "length": [ok and m for ok, m in zip(scored, measured, strict=True)]}
        for kind in ("position", "length"):
            use = usable[kind]
            if sum(use) < BIAS_MIN_ITEMS:
                continue
            covariate = [float(c) for c, u in zip(position[i] if kind == "position" else lengths, use, strict=True)
                         if u]
            tau = kendall_tau(covariate, [v for v, u in zip(x[i], use, strict=True) if u])
            if not math.isfinite(tau) or abs(tau) < BIAS_THRESHOLD:
                continue
            if kind == "position":
                way = "earlier" if tau < 0 else "later"
                detail = f"{name} scores answers shown {way} higher (Kendall tau {tau:+.2f} over {sum(use)} slots)"
            else:
                way = "longer" if tau > 0 else "shorter"
                # Longer answers may simply be better: show whether the others see the same trend.
                mean_others, n_others = column_means([row for j, row in enumerate(x) if j != i], len(lengths))
                both = [u and n > 0 for u, n in zip(use, n_others, strict=True)]
                ctx = ""
                others_tau = (kendall_tau([v for v, b in zip(lengths, both, strict=True) if b],
                                          [v for v, b in zip(mean_others, both, strict=True) if b])
                              if sum(both) >= 2 else NAN)
                if math.isfinite(others_tau):
                    ctx = f"; the other reviewers' mean scores: {others_tau:+.2f}"
                detail = f"{name} scores {way} answers higher (Kendall tau {tau:+.2f} over {sum(use)} answers{ctx})"
            flags.append(BiasFlag(reviewer=name, kind=kind, correlation=tau, detail=detail))
    return flags


# -- bias evidence pooled across runs ------------------------------------------
# One run gives a reviewer 3-4 scores, too few to see a bias. So each run adds
# its (covariate, residual) pairs to running sums kept in the reviewer's
# history, and a flag is raised once the pooled correlation is clear.
# residual = the reviewer's score minus its own run mean, minus the mean of
# the other reviewers' centred scores for the same answer: what this reviewer
# sees that the others do not. Covariates: the slot the answer was shown in,
# and log(answer length).
POOLED_MIN_PAIRS = 20
"""A pooled flag needs at least this many (covariate, residual) pairs."""
POOLED_MIN_T = 3.0
"""... and a correlation whose t statistic r·sqrt(n-2)/sqrt(1-r²) is at least this."""
PAIR_SUMS = 12
"""Running sums per reviewer: (n, Σx, Σy, Σx², Σy², Σxy) for position, then for length."""
SELF_SUMS = 3
"""Then (n, Σd, Σd²) of the reviewer's self-differences (:mod:`council.ranking.self_preference`)."""
BIAS_SUMS = PAIR_SUMS + SELF_SUMS
"""Length of a reviewer's stored bias tuple. Older histories hold shorter tuples: missing sums read as 0."""


def bias_pairs(position: Sequence[Sequence[int]], lengths: Sequence[float], x: Grid) -> list[list[float]]:
    """Per reviewer row, ``PAIR_SUMS`` floats: this run's sums of (slot, residual) pairs, then of
    (log length, residual) pairs."""
    n_rev, n_cand = len(x), len(lengths)
    # Each reviewer's scores centred on its own mean (0 where it gave none).
    centred = [[v - mean if v == v else 0.0 for v in row] for row, (_, mean, _) in zip(x, row_stats(x), strict=True)]
    column_n = [sum(1 for row in x if row[c] == row[c]) for c in range(n_cand)]
    column_sum = [sum(row[c] for row in centred) for c in range(n_cand)]
    log_length = [math.log(max(length if math.isfinite(length) else 1.0, 1.0)) for length in lengths]
    table = []
    for r in range(n_rev):
        sums = [0.0] * PAIR_SUMS
        for c in range(n_cand):
            if x[r][c] != x[r][c] or column_n[c] < 2:
                continue
            # What this reviewer sees that the others do not: its centred score minus theirs.
            residual = centred[r][c] - (column_sum[c] - centred[r][c]) / max(column_n[c] - 1, 1)
            for offset, covariate, use in ((0, float(position[r][c]), position[r][c] >= 0),
                                           (6, log_length[c], math.isfinite(lengths[c]))):
                if use:
                    sums[offset] += 1.0
                    sums[offset + 1] += covariate
                    sums[offset + 2] += residual
                    sums[offset + 3] += covariate * covariate
                    sums[offset + 4] += residual * residual
                    sums[offset + 5] += covariate * residual
        table.append([nan_to_num(v) for v in sums])
    return table


def pooled_flags(reviewers: Sequence[str], sums: Sequence[Sequence[float] | np.ndarray]) -> list[BiasFlag]:
    """Flags from pooled sums: a clear correlation of residual with slot or length over many runs."""
    flags = []
    for name, row in zip(reviewers, sums, strict=True):
        for offset, kind in ((0, "position"), (6, "length")):
            # Plain floats: six numbers, on which numpy's scalar functions are many times slower. Overflow
            # gives inf or NaN as in numpy, and no division below can be by zero.
            n, sx, sy, sxx, syy, sxy = map(float, row[offset:offset + 6])
            if n < POOLED_MIN_PAIRS:
                continue
            vx, vy = sxx - sx * sx / n, syy - sy * sy / n
            if not (math.isfinite(vx) and math.isfinite(vy)) or vx <= 1e-12 or vy <= 1e-12:
                continue
            r = (sxy - sx * sy / n) / math.sqrt(vx * vy)
            if math.isnan(r):
                continue
            r = min(max(r, -1.0), 1.0)  # rounding can take r just past ±1, and an overflowed sum to ±inf
            t = r * math.sqrt(max(n - 2, 1) / max(1 - r * r, 1e-12))
            if abs(t) < POOLED_MIN_T:
                continue
            if kind == "position":
                way = "earlier" if r < 0 else "later"
                detail = (f"{name} scores answers shown {way} higher than the other reviewers do "
                          f"(r {r:+.2f} over {int(n)} reviews across runs)")
            else:
                way = "longer" if r > 0 else "shorter"
                detail = (f"{name} scores {way} answers higher than the other reviewers do "
                          f"(r {r:+.2f} over {int(n)} reviews across runs)")
            flags.append(BiasFlag(reviewer=name, kind=kind, correlation=float(r), detail=detail))
    return flags
