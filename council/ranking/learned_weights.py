"""Judge weights learned from labelled items: a ridge-regularised choice model on the judges' calibrated z-scores.

For a labelled item i with candidates c, judge r's calibrated z-score
``z_irc`` (the same z the ``calibrated`` aggregation averages; a judge's
games averaged and its dimensions folded into the overall score before
that, as :mod:`council.ranking.ballot_sheets` does) enters a conditional
logit::

    P(c is right | item i) = exp(s_ic) / sum_c' exp(s_ic'),   s_ic = sum_r beta_r * z_irc

(a missing score counts 0; on two answers this is a logistic regression on
each judge's z margin). The weights are fitted in two steps by Newton's
method, both deterministic:

1. the temperature ``alpha`` of the default weights ``w0`` (``beta = alpha *
   w0``, a one-parameter fit with a tiny ridge), so the prior speaks on the
   scale the labels imply;
2. ``beta`` itself, maximising the log-likelihood minus
   ``(lambda / 2) * |beta - alpha * w0|^2`` with ``lambda = prior_labels *
   iota``, where ``iota`` is the mean Fisher information one labelled item
   gives one weight when all its answers are equally likely (the most an
   item can tell about a weight, near enough). The prior is worth
   ``prior_labels`` labelled items whatever the scale of the z-scores, so
   with 10 labels it dominates, with 200 the labels do.

Weights are kept non-negative (a judge pushed below 0 is fixed at 0 and
the rest refitted: a ranking does not count a judge backwards) and are
reported scaled to the same total as ``w0``, so an unchanged judge reads
as its default weight. Ranking uses them as the ``calibrated`` method uses
any weights: the weighted mean of the z-scores of the judges who scored
the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PRIOR_LABELS = 5.0
"""How many labelled items the prior centred on the default weights is worth."""
_NEWTON_STEPS = 50
_TOLERANCE = 1e-9
_TINY_RIDGE = 1e-3
_TIE = 1e-9


@dataclass(frozen=True)
class Features:
    """The labelled (or any) items as arrays: ``z`` (items, judges, candidates), NaN where no score or no
    candidate; ``valid`` (items, candidates) marks real candidates; ``best`` the right column (-1 unknown)."""

    z: np.ndarray
    valid: np.ndarray
    best: np.ndarray

    def subset(self, rows: np.ndarray | Sequence[int]) -> Features:
        """The items at ``rows`` (a bootstrap draw may repeat one)."""
        index = np.asarray(rows, dtype=int)
        return Features(self.z[index], self.valid[index], self.best[index])

    @property
    def items(self) -> int:
        """How many items."""
        return int(self.z.shape[0])


def features(grids: Sequence[np.ndarray], best: Sequence[int], judges: int) -> Features:
    """Stack per-item (judges, candidates) z grids of different widths into :class:`Features`."""
    width = max((grid.shape[1] for grid in grids), default=1)
    z = np.full((len(grids), judges, width), np.nan)
    valid = np.zeros((len(grids), width), dtype=bool)
    for i, grid in enumerate(grids):
        z[i, :, :grid.shape[1]] = grid
        valid[i, :grid.shape[1]] = True
    return Features(z, valid, np.asarray(best, dtype=int))


def _probabilities(x: np.ndarray, valid: np.ndarray, beta: np.ndarray) -> np.ndarray:
    logits = np.einsum("ijc,j->ic", x, beta)
    logits = np.where(valid, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    normalised: np.ndarray = p / p.sum(axis=1, keepdims=True)
    return normalised


def _gradient_hessian(x: np.ndarray, valid: np.ndarray, best: np.ndarray, beta: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, float]:
    """Gradient and Hessian of the log-likelihood of the right answers, and the log-likelihood."""
    p = _probabilities(x, valid, beta)
    rows = np.arange(x.shape[0])
    chosen = x[rows, :, best]  # (items, judges)
    expected = np.einsum("ijc,ic->ij", x, p)
    gradient = (chosen - expected).sum(axis=0)
    second = np.einsum("ijc,ikc,ic->jk", x, x, p)
    hessian = -(second - expected.T @ expected)
    loglik = float(np.log(np.maximum(p[rows, best], 1e-300)).sum())
    return gradient, hessian, loglik


def information(data: Features) -> float:
    """Mean Fisher information one item gives one weight where every answer is as likely (``beta`` = 0).

    The prior's scale. Taken at 0, not at the prior's centre: labels that the default weights already
    separate send the temperature, and with it the centre, so far out that the information there is nil,
    and a prior scaled by it would vanish just when there is least to learn from."""
    x = np.nan_to_num(data.z)
    _, hessian, _ = _gradient_hessian(x, data.valid, data.best, np.zeros(x.shape[1]))
    return float(max(-np.trace(hessian) / (data.items * max(x.shape[1], 1)), 1e-6))


def _objective(x: np.ndarray, valid: np.ndarray, best: np.ndarray, beta: np.ndarray, center: np.ndarray,
               ridge: float) -> float:
    p = _probabilities(x, valid, beta)
    loglik = float(np.log(np.maximum(p[np.arange(x.shape[0]), best], 1e-300)).sum())
    return loglik - 0.5 * ridge * float(((beta - center) ** 2).sum())


def _newton(x: np.ndarray, valid: np.ndarray, best: np.ndarray, start: np.ndarray, center: np.ndarray,
            ridge: float, free: np.ndarray) -> np.ndarray:
    """Maximise loglik - ridge/2 |beta - center|^2 over the ``free`` weights (the others stay at 0).

    The objective is concave and the ridge keeps it strictly so; a step that would lower it is halved
    (separable labels would otherwise send a full Newton step far past the optimum)."""
    ridge = max(ridge, _TINY_RIDGE)
    beta = np.where(free, start, 0.0)
    current = _objective(x, valid, best, beta, center, ridge)
    for _ in range(_NEWTON_STEPS):
        gradient, hessian, _ = _gradient_hessian(x, valid, best, beta)
        gradient = (gradient - ridge * (beta - center))[free]
        hessian = (hessian - ridge * np.eye(beta.size))[np.ix_(free, free)]
        step = np.linalg.lstsq(hessian, -gradient, rcond=None)[0]
        for _ in range(30):
            trial = beta.copy()
            trial[free] += step
            value = _objective(x, valid, best, trial, center, ridge)
            if value >= current - 1e-12:
                break
            step = step / 2.0
        else:
            break
        beta, current = trial, value
        if float(np.abs(step).max(initial=0.0)) < _TOLERANCE:
            break
    return beta


def fit_weights(data: Features, default: Sequence[float], prior_labels: float = PRIOR_LABELS) -> np.ndarray:
    """Each judge's learned weight (scaled to the default weights' total); the default itself without items."""
    w0 = np.asarray(default, dtype=float)
    if data.items == 0 or w0.sum() <= 0:
        return w0.copy()
    x, best = np.nan_to_num(data.z), data.best
    # Step 1: the temperature of the default weights, one number.
    direction = np.einsum("ijc,j->ic", x, w0)[:, None, :]  # one "judge": the default mix
    alpha = _newton(direction, data.valid, best, np.zeros(1), np.zeros(1), _TINY_RIDGE, np.ones(1, dtype=bool))
    center = max(float(alpha[0]), 0.0) * w0
    ridge = prior_labels * information(data)
    free = np.ones(w0.size, dtype=bool)
    beta = center.copy()
    for _ in range(w0.size):
        beta = _newton(x, data.valid, best, beta, center, ridge, free)
        negative = free & (beta < 0)
        if not negative.any():
            break
        free &= ~negative
        beta = np.where(free, beta, 0.0)
    beta = np.maximum(beta, 0.0)
    if beta.sum() <= 0:
        return w0.copy()
    scaled: np.ndarray = beta * (w0.sum() / beta.sum())
    return scaled


def scores(data: Features, weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """Per item and candidate, the weighted mean z of the judges who scored it (0 for none; -inf no candidate)."""
    w = np.asarray(weights, dtype=float)[None, :, None]
    scored = ~np.isnan(data.z)
    total = (w * scored).sum(axis=1)
    weighted = (w * np.nan_to_num(data.z)).sum(axis=1)
    means = np.divide(weighted, total, out=np.zeros_like(weighted), where=total > 0)
    return np.where(data.valid, means, -np.inf)


def credits(data: Features, weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """Per item, 1 when the weighted ranking's top answer is the right one (1/k when k tie at the top)."""
    s = scores(data, weights)
    top = s >= s.max(axis=1, keepdims=True) - _TIE
    right = top[np.arange(data.items), data.best]
    return np.where(right, 1.0 / top.sum(axis=1), 0.0)
