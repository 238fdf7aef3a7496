"""Agreement between reviewers and flags for reviewers whose scores follow position or length.

Pure numpy, used by :mod:`council.ranking.aggregation`. Agreement is Kendall's W (with
tie correction) when every reviewer scored the same candidates, and the mean
pairwise Kendall tau-b otherwise. A bias flag needs |Kendall tau-b| of at
least ``BIAS_THRESHOLD`` between a reviewer's scores and the slot it saw each
answer in (or the answer's length), over at least ``BIAS_MIN_ITEMS`` answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two equally long NaN-free sequences; NaN if undefined (a side all tied)."""
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"kendall_tau needs equal lengths, got {x.size} and {y.size}")
    with np.errstate(all="ignore"):
        sx, sy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
        den = np.sqrt(np.sum(sx * sx) * np.sum(sy * sy))
        return float(np.sum(sx * sy) / den) if den > 0 else float("nan")


def column_means(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean of the finite entries (NaN where none) and their count.

    The mean runs over the second-to-last axis (the reviewers), so a stack of
    (reviewers, candidates) sheets, such as the rubric's dimensions, takes one call.
    """
    ok = np.isfinite(values)
    n = ok.sum(axis=-2)
    total = np.where(ok, values, 0.0).sum(axis=-2)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan), n


def _pairwise_taus(x: np.ndarray) -> np.ndarray:
    """(R, R) Kendall tau-b between reviewers over the candidates both scored; NaN where undefined."""
    ok = np.isfinite(x)
    s = np.sign(x[:, :, None] - x[:, None, :])
    s = np.where(np.isnan(s), 0.0, s)
    both = (ok[:, :, None] & ok[:, None, :]).astype(float)
    num = np.einsum("rij,sij->rs", s, s)
    den_r = np.einsum("rij,sij->rs", s * s, both)
    den = np.sqrt(den_r * den_r.T)
    shared = ok.astype(float) @ ok.T.astype(float)
    return np.where((den > 0) & (shared >= 2), num / np.where(den > 0, den, 1.0), np.nan)


def _kendall_w(ranked: np.ndarray) -> float | None:
    """Kendall's W with tie correction for complete (m, n) score rows."""
    m, n = ranked.shape
    less = np.sum(ranked[:, None, :] < ranked[:, :, None], axis=2)
    equal = np.sum(ranked[:, None, :] == ranked[:, :, None], axis=2)
    ranks = 1.0 + less + 0.5 * (equal - 1)
    ties = np.sum(equal**2 - 1)  # sum over items of t^2 - 1 equals the sum over tie groups of t^3 - t
    s = np.sum((ranks.sum(axis=0) - m * (n + 1) / 2.0) ** 2)
    den = m * m * (n**3 - n) - m * ties
    return float(12.0 * s / den) if den > 0 else None


def agreement(x: np.ndarray) -> Agreement:
    """Agreement among the reviewer rows of ``x`` (NaN = not scored)."""
    ok = np.isfinite(x)
    active = ok.any(axis=1)
    rows, scored = x[active], ok[active]
    n_rev = len(rows)
    w = None
    if n_rev >= 2 and (scored == scored[0]).all() and scored[0].sum() >= 2:
        w = _kendall_w(rows[:, scored[0]])
    # Each pair of reviewers once, in the order of np.triu_indices (which costs seven times this mask).
    pairs = np.arange(n_rev)[:, None] < np.arange(n_rev)[None, :]
    taus = _pairwise_taus(rows)[pairs]
    taus = taus[np.isfinite(taus)]
    tau = float(np.mean(taus)) if taus.size else None
    statistic = "kendall_w" if w is not None else "mean_pairwise_tau" if tau is not None else "none"
    return Agreement(kendall_w=w, mean_pairwise_tau=tau, statistic=statistic, n_reviewers=n_rev)


def bias_flags(
    reviewers: Sequence[str], position: np.ndarray, lengths: np.ndarray, x: np.ndarray
) -> list[BiasFlag]:
    """Reviewers whose scores follow presentation slot or answer length."""
    ok = np.isfinite(x)
    # The answers each flag would be computed over, for all reviewers at once: in a usual run no
    # reviewer has scored enough of them, which the loop below then learns without array work.
    usable = {"position": ok & (position >= 0), "length": ok & np.isfinite(lengths)[None, :]}
    enough = {kind: use.sum(axis=1) >= BIAS_MIN_ITEMS for kind, use in usable.items()}
    flags = []
    for i, name in enumerate(reviewers):
        for kind in ("position", "length"):
            if not enough[kind][i]:
                continue
            use = usable[kind][i]
            covariate = position[i].astype(float) if kind == "position" else lengths
            tau = kendall_tau(covariate[use], x[i][use])
            if not np.isfinite(tau) or abs(tau) < BIAS_THRESHOLD:
                continue
            if kind == "position":
                way = "earlier" if tau < 0 else "later"
                detail = f"{name} scores answers shown {way} higher (Kendall tau {tau:+.2f} over {use.sum()} slots)"
            else:
                way = "longer" if tau > 0 else "shorter"
                # Longer answers may simply be better: show whether the others see the same trend.
                mean_others, n_others = column_means(np.delete(x, i, axis=0))
                both = use & (n_others > 0)
                ctx = ""
                others_tau = kendall_tau(lengths[both], mean_others[both]) if both.sum() >= 2 else float("nan")
                if np.isfinite(others_tau):
                    ctx = f"; the other reviewers' mean scores: {others_tau:+.2f}"
                detail = f"{name} scores {way} answers higher (Kendall tau {tau:+.2f} over {use.sum()} answers{ctx})"
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


def bias_pairs(position: np.ndarray, lengths: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(R, ``PAIR_SUMS``) table: per reviewer row, this run's sums of (slot, residual) pairs, then of
    (log length, residual) pairs."""
    ok = np.isfinite(x)
    with np.errstate(all="ignore"):
        values = np.where(ok, x, 0.0)
        row_mean = values.sum(axis=1, keepdims=True) / np.maximum(ok.sum(axis=1, keepdims=True), 1)
        centred = np.where(ok, values - row_mean, 0.0)
        n_col = ok.sum(axis=0)
        others = (centred.sum(axis=0)[None, :] - centred) / np.maximum(n_col[None, :] - 1, 1)
        residual = centred - others
        measured = np.isfinite(lengths)
        loglen = np.log(np.maximum(np.where(measured, lengths, 1.0), 1.0))
        usable = ok & (n_col >= 2)[None, :]
        # Both covariates in one (2, R, C) array, so that each sum below is one array operation, not two.
        covariate, use = np.empty((2, *x.shape)), np.empty((2, *x.shape), dtype=bool)
        covariate[0], use[0] = position, usable & (position >= 0)
        covariate[1], use[1] = loglen, usable & measured  # one length per column, whoever reviewed it
        cx, cy = np.where(use, covariate, 0.0), np.where(use, residual, 0.0)
        sums = np.array([use, cx, cy, cx * cx, cy * cy, cx * cy]).sum(axis=-1)  # (6, 2, R)
        table: np.ndarray = np.nan_to_num(sums.transpose(2, 1, 0).reshape(-1, PAIR_SUMS))
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
