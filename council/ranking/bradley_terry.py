"""Bradley-Terry strengths from the pairwise preferences implied by reviewers' scores.

Job: turn one run's (reviewers, candidates) score matrix into one centred
log-strength per candidate. Each reviewer's scores are read as pairwise
preferences: for every pair of candidates it scored, the higher score wins
and a tie gives half a win to each. Pooling all reviewers' preferences, the
model P(i beats j) = 1 / (1 + exp(theta_j - theta_i)) is fitted by maximum a
posteriori with a Gaussian ridge prior theta ~ N(0, 1 / ``RIDGE``)::

    maximize  sum_ij W_ij * log sigmoid(theta_i - theta_j)  -  RIDGE / 2 * sum_i theta_i^2

(W_ij: wins of i over j). The objective is strictly concave, so the maximum
is unique; a candidate that never loses stays finite, and the gradient sums
to -RIDGE * sum(theta), so the solution is centred (sum 0) by itself.
Newton's method with step halving finds it in 4-8 iterations for 4-8
candidates: deterministic, no random start.

Must not know: who the reviewers or candidates are, reviewer histories or
calibration, self-reviews, configuration, storage. Score magnitudes are
thrown away on purpose (see ``../shared/research/aggregation.md``: with full
score lists BT behaves like Borda).
"""

from __future__ import annotations

import numpy as np

RIDGE = 0.1
"""Precision of the N(0, 1/RIDGE) prior on each log-strength: keeps a candidate that never loses finite."""
TOLERANCE = 1e-6
"""The fit stops after a step that moves no log-strength more than this: Newton converges
quadratically, so the error left is of the order of its square (about 1e-12)."""
MAX_ITERATIONS = 100
"""Newton steps at most (the fit converges in far fewer; this only bounds pathological input)."""


def pairwise_wins(scores: np.ndarray) -> np.ndarray:
    """(C, C) wins W[i, j] of candidate i over j, summed over the reviewer rows of ``scores``.

    Non-finite scores are ignored; a tie adds 0.5 to both W[i, j] and W[j, i].
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"scores must be a (reviewers, candidates) matrix, got shape {x.shape}")
    ok = np.isfinite(x)
    vals = np.where(ok, x, 0.0)
    both = ok[:, :, None] & ok[:, None, :]
    wins: np.ndarray = (both & (vals[:, :, None] > vals[:, None, :])).sum(axis=0).astype(float)
    ties: np.ndarray = (both & (vals[:, :, None] == vals[:, None, :])).sum(axis=0).astype(float)
    np.fill_diagonal(ties, 0.0)
    return wins + 0.5 * ties


def _evaluate(theta: np.ndarray, wins: np.ndarray, ridge: float) -> tuple[float, np.ndarray]:
    """The penalized log-likelihood at ``theta`` and the (C, C) matrix of P(i beats j)."""
    with np.errstate(over="ignore"):
        odds = np.exp(theta[None, :] - theta[:, None])  # exp(theta_j - theta_i)
        value = -float(np.sum(wins * np.log1p(odds))) - 0.5 * ridge * float(theta @ theta)
    return value, 1.0 / (1.0 + odds)


def fit(wins: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray, int]:
    """Centred log-strengths maximizing the ridge-penalized BT likelihood of ``wins``; and the Newton steps taken.

    ``ridge`` must be positive. Candidates without comparisons get 0.
    """
    w = np.asarray(wins, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if not ridge > 0:
        raise ValueError(f"ridge must be positive, got {ridge}")
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    np.fill_diagonal(w, 0.0)
    n = w.shape[0]
    theta = np.zeros(n)
    if n == 0:
        return theta, 0
    games = w + w.T
    won = w.sum(axis=1)
    diagonal = np.arange(n) * (n + 1)
    steps = 0
    current, p = _evaluate(theta, w, ridge)
    for steps in range(1, MAX_ITERATIONS + 1):  # noqa: B007 - the count of steps is returned
        weighted = games * p
        gradient = won - weighted.sum(axis=1) - ridge * theta
        curvature = weighted * p.T  # games * p * (1 - p)
        # Minus the Hessian: a weighted graph Laplacian plus ridge * I, positive definite.
        precision = -curvature
        precision.flat[diagonal] += curvature.sum(axis=1) + ridge
        step = np.linalg.solve(precision, gradient)
        size = 1.0
        while True:  # Step halving keeps every step an ascent; near the optimum the full step is taken.
            trial = theta + size * step
            value, p_trial = _evaluate(trial, w, ridge)
            if value >= current - 1e-12 * (1.0 + abs(current)) or size < 1e-6:
                break
            size *= 0.5
        theta, current, p = trial, value, p_trial
        if float(np.max(np.abs(step))) * size < TOLERANCE:
            break
    return theta - theta.mean(), steps


def bradley_terry(scores: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Centred BT log-strength of each candidate (column) of a (reviewers, candidates) score matrix."""
    return fit(pairwise_wins(scores), ridge)[0]
