"""How sure a ranking is: rank probabilities from resampling the reviewers and their noise.

One run has few reviewers, each with its own noise; a ranking read off
their mean can hinge on one of them. This module redraws the run many
times: each draw picks the reviewers with replacement (a bootstrap over
reviewers) and adds to each of their scores noise of the size that
reviewer's history shows (its residual spread around the other reviewers,
shrunk toward a prior when the history is short), then ranks the
candidates by the same weighted mean. Over the draws:

- ``top_confidence``: how often the official top candidate comes first,
  which is what "how sure is the council that its top answer is the best"
  asks;
- ``rank_probabilities``: per candidate, how often it lands at each rank;
- ``tied_with_top``: candidates that beat the top one in at least
  ``1 - tie_threshold`` of the draws, when ``top_confidence`` is below
  ``tie_threshold``: the council cannot tell them apart.

The draws are fixed: one table of reviewer picks and standard-normal noise
per sheet shape, made once from a constant seed, so the same score sheet
always gives the same figures (a stored run reproduces them) and a run
pays for no random numbers (drawing 16,000 normals cost more than the rest
of the ranking). Pure numpy; it knows nothing of members, prompts or
storage.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

DRAWS = 500  # a probability to within ±0.045 (two standard errors at 0.5), for about 0.2 ms a run
PRIOR_RESIDUAL_VAR = 0.25
"""Prior residual variance (on the calibrated z scale) of a reviewer with no history."""
PRIOR_WEIGHT = 2.0
"""Pseudo-observations of that prior in each reviewer's noise estimate."""
DEFAULT_TIE_THRESHOLD = 0.6
SEED = 20261125  # the draw tables' seed: a constant, so figures never change between runs or releases


@dataclass(frozen=True)
class RankConfidence:
    """The outcome of :func:`rank_confidence` (candidate names in the official ranking order)."""

    top_confidence: float
    rank_probabilities: dict[str, list[float]]
    tied_with_top: list[str]


def noise_sd(resid_count: np.ndarray, resid_m2: np.ndarray) -> np.ndarray:
    """Each reviewer's noise, as a standard deviation: its residual variance shrunk toward the prior."""
    variance = (resid_m2 + PRIOR_WEIGHT * PRIOR_RESIDUAL_VAR) / (resid_count + PRIOR_WEIGHT)
    return np.sqrt(np.maximum(variance, 0.0))


CACHED_CELLS = 256
"""Sheets of up to this many reviewers x candidates keep their draw table (at most 1 MB each, and only the
``CACHED_SHAPES`` latest shapes): a council's few shapes cost nothing after the first run, while a file of
big items of many shapes (``council rank``) cannot pile up gigabytes of tables."""
CACHED_SHAPES = 64


def _draw_table(n_rev: int, n_cand: int, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed draws for a sheet of this shape (:func:`_make_draw_table`), kept when the sheet is small."""
    if n_rev * n_cand <= CACHED_CELLS:
        return _cached_draw_table(n_rev, n_cand, draws)
    return _make_draw_table(n_rev, n_cand, draws)


def _make_draw_table(n_rev: int, n_cand: int, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_rev, draws) reviewer picks and (n_rev, draws, n_cand) unit noise, the same for every run of this shape.

    Drawn as (draws, n_rev, ...) and stored pick-major: the weighted mean then sums
    over the first axis, which numpy does about twenty times faster than over the middle one.
    """
    rng = np.random.default_rng(SEED)
    picked = np.ascontiguousarray(rng.integers(0, n_rev, size=(draws, n_rev)).T)
    unit = np.ascontiguousarray(rng.standard_normal((draws, n_rev, n_cand)).transpose(1, 0, 2))
    picked.setflags(write=False)
    unit.setflags(write=False)
    return picked, unit


_cached_draw_table = functools.lru_cache(maxsize=CACHED_SHAPES)(_make_draw_table)


def rank_confidence(candidates: list[str], scores: np.ndarray, weights: np.ndarray, noise: np.ndarray,
                    tie_threshold: float = DEFAULT_TIE_THRESHOLD, draws: int = DRAWS) -> RankConfidence:
    """Rank probabilities of ``candidates`` (best first, as ranked) from (reviewers, candidates) ``scores``.

    ``scores`` are what the ranking averages (NaN where a reviewer gave no
    score), ``weights`` each reviewer's weight in that average, ``noise``
    each reviewer's noise (standard deviation, same scale as ``scores``).
    """
    n_rev, n_cand = scores.shape
    if n_cand == 0:
        return RankConfidence(1.0, {}, [])
    if n_rev == 0 or n_cand == 1:
        # Nothing to resample: the order stands as given, with nothing to say how sure it is.
        return RankConfidence(1.0 if n_cand == 1 else 0.0,
                              {name: [1.0 if rank == i else 0.0 for rank in range(n_cand)]
                               for i, name in enumerate(candidates)}, [])
    picked, unit = _draw_table(n_rev, n_cand, draws)
    # A missing score (or a reviewer whose noise is not a number) weighs nothing: its cell is drawn as
    # 0 with weight 0, which spares checking all draws * reviewers * candidates values one by one.
    known_noise = np.isfinite(noise)
    counted = np.isfinite(scores) & known_noise[:, None]
    cell_weight = np.where(counted, weights[:, None], 0.0)
    # np.take is the gather scores[picked], about ten times faster on these small arrays.
    drawn = (np.take(np.where(counted, scores, 0.0), picked, axis=0)
             + unit * np.take(np.where(known_noise, noise, 0.0), picked)[:, :, None])
    drawn_weights = np.take(cell_weight, picked, axis=0)  # (picks, draws, cands), as drawn
    total = drawn_weights.sum(axis=0)
    mean = np.where(total > 0, (drawn * drawn_weights).sum(axis=0) / np.maximum(total, 1e-12), -np.inf)
    # Rank by score; a tie in a draw goes to the candidate ranked higher officially (index order).
    order = np.argsort(-mean, axis=1, kind="stable")  # (draws, ranks): the candidate at each rank
    # counts[c, r]: the share of draws that put candidate c at rank r, one bincount over (c, r) pairs.
    pairs = order * n_cand + np.arange(n_cand)[None, :]
    counts = np.bincount(pairs.ravel(), minlength=n_cand * n_cand).reshape(n_cand, n_cand) / draws
    top = float(counts[0, 0])
    tied: list[str] = []
    if top < tie_threshold:
        beats_top = (mean[:, 1:] > mean[:, :1]).mean(axis=0)
        tied = [candidates[c + 1] for c in range(n_cand - 1) if beats_top[c] >= 1 - tie_threshold]
    rounded = np.round(counts, 4).tolist()
    return RankConfidence(round(top, 4), dict(zip(candidates, rounded, strict=True)), tied)
