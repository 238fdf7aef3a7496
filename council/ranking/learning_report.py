"""How well weights learned from labels rank, measured only on items they were not fitted on.

:func:`learning_report` takes the labelled items as
:class:`~council.ranking.learned_weights.Features` and gives:

- the learned weights (fitted on every labelled item) beside the default
  ones, each with a 95% percentile interval over ``WEIGHT_RESAMPLES``
  bootstrap draws of the labelled items;
- the accuracy of the learned weights by k-fold cross-validation (each fold
  ranked with weights fitted on the other folds, never on itself), beside
  the same items' accuracy under the default weighting, equal weights, a
  majority vote and every single judge (none of which is fitted, so their
  accuracy on the labelled items is already out of sample), each with its
  bootstrap interval;
- a learning curve: for label counts of 10, 20, 50, 100, ... (while at least
  ``MIN_HELD_OUT`` labelled items are left over), ``CURVE_REPEATS`` random
  subsets of that many labels train the weights and the rest of the
  labelled items test them against the default weighting; ``labels_needed``
  is the smallest count from which the learned weights' mean held-out
  accuracy stays above the default's at every larger count measured.

Everything draws from fixed seeds: a file gives the same report every time.

:func:`learn_from_labels` is the entry from :mod:`council.ranking.ballots`:
it computes each labelled item's calibrated z-scores with the very history
and self-bonus correction the aggregation used for that item, and the
per-item credits of the methods that learn nothing (default weighting,
majority vote, each single judge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from council.ranking.ballot_file import Label
from council.ranking.ballot_sheets import ItemSheet
from council.ranking.calibration import bias_rows, history_rows, self_correction
from council.ranking.label_accuracy import Accuracy, interval
from council.ranking.learned_weights import PRIOR_LABELS, Features, credits, features, fit_weights
from council.ranking.self_preference import SELF_PRIOR
from council.ranking.sheet import ReviewerHistory

FOLDS = 5
WEIGHT_RESAMPLES = 200
CURVE_COUNTS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
CURVE_REPEATS = 20
MIN_HELD_OUT = 10
SEED = 46


@dataclass(frozen=True)
class JudgeWeight:
    """One judge's default weight and the weight the labels taught, with the latter's 95% bootstrap interval."""

    judge: str
    default: float
    learned: float
    low: float
    high: float


@dataclass(frozen=True)
class CurvePoint:
    """Mean held-out accuracy over ``repeats`` random subsets of ``labels`` labelled items."""

    labels: int
    repeats: int
    held_out: int
    learned: float
    default: float

    @property
    def gain(self) -> float:
        """Learned minus default."""
        return self.learned - self.default


@dataclass(frozen=True)
class LearningReport:
    """What ``--learn`` adds to a ballot report (see the module docstring)."""

    labelled_items: int
    folds: int
    prior_labels: float
    weights: list[JudgeWeight]
    #: Learned (cross-validated) first, then default, equal, majority vote and each judge.
    cross_validated: list[Accuracy]
    curve: list[CurvePoint]
    #: The fewest labels from which the learned weights beat the default on held-out items; None if never.
    labels_needed: int | None


def folds(items: int, seed: int = SEED) -> list[np.ndarray]:
    """Up to ``FOLDS`` disjoint test folds of a seeded shuffle of ``items`` (none for fewer than 2)."""
    if items < 2:
        return []
    order = np.random.default_rng(seed).permutation(items)
    return [part for part in np.array_split(order, min(FOLDS, items)) if part.size]


def cross_validated_credits(data: Features, default: Sequence[float], prior_labels: float) -> np.ndarray:
    """Per labelled item, the learned ranking's credit with weights fitted on the other folds only."""
    out = np.full(data.items, np.nan)
    everything = np.arange(data.items)
    for test in folds(data.items):
        train = np.setdiff1d(everything, test)
        weights = fit_weights(data.subset(train), default, prior_labels)
        out[test] = credits(data.subset(test), weights)
    return out


def _weights(data: Features, judges: Sequence[str], default: Sequence[float], prior_labels: float
             ) -> list[JudgeWeight]:
    learned = fit_weights(data, default, prior_labels)
    rng = np.random.default_rng([SEED, 1])
    draws = np.array([fit_weights(data.subset(rng.integers(0, data.items, data.items)), default, prior_labels)
                      for _ in range(WEIGHT_RESAMPLES)]) if data.items else np.empty((0, len(judges)))
    out = []
    for r, judge in enumerate(judges):
        low, high = (np.quantile(draws[:, r], [0.025, 0.975]) if draws.size else (learned[r], learned[r]))
        out.append(JudgeWeight(judge, float(default[r]), float(learned[r]), float(low), float(high)))
    return out


def learning_curve(data: Features, default: Sequence[float], default_credits: np.ndarray, prior_labels: float
                   ) -> list[CurvePoint]:
    """Held-out accuracy of learned against default weights for each label count (module docstring)."""
    points = []
    for count in CURVE_COUNTS:
        if data.items - count < MIN_HELD_OUT:
            break
        rng = np.random.default_rng([SEED, 2, count])
        learned, fixed = [], []
        for _ in range(CURVE_REPEATS):
            order = rng.permutation(data.items)
            train, test = order[:count], order[count:]
            weights = fit_weights(data.subset(train), default, prior_labels)
            learned.append(float(credits(data.subset(test), weights).mean()))
            fixed.append(float(default_credits[test].mean()))
        points.append(CurvePoint(count, CURVE_REPEATS, data.items - count, float(np.mean(learned)),
                                 float(np.mean(fixed))))
    return points


def labels_needed(curve: Sequence[CurvePoint]) -> int | None:
    """The smallest label count from which every measured count has the learned weights ahead."""
    needed = None
    for point in reversed(curve):
        if point.gain <= 0:
            break
        needed = point.labels
    return needed


def _row(kind: str, name: str, values: np.ndarray) -> Accuracy:
    kept = values[~np.isnan(values)]
    return Accuracy(kind, name, *interval(kept.tolist()), int(kept.size))


def learning_report(data: Features, judges: Sequence[str], default: Sequence[float], default_credits: np.ndarray,
                    fixed_credits: Mapping[str, np.ndarray], judge_credits: Mapping[str, np.ndarray], *,
                    prior_labels: float = PRIOR_LABELS) -> LearningReport:
    """The report for ``data`` (the labelled items). ``default_credits`` are the default ranking's credits on
    them; ``fixed_credits`` other unfitted methods' (name -> credits, e.g. the majority vote); ``judge_credits``
    each judge's (NaN where the judge did not score the right answer and another)."""
    learned = cross_validated_credits(data, default, prior_labels)
    rows = [_row("learned", "learned weights (cross-validated)", learned),
            _row("default", "default weights", default_credits),
            _row("equal", "equal weights", credits(data, np.ones(len(judges))))]
    rows += [_row("majority" if name == "majority vote" else "fixed", name, values)
             for name, values in fixed_credits.items()]
    rows += [_row("judge", name, values) for name, values in sorted(judge_credits.items())]
    curve = learning_curve(data, default, default_credits, prior_labels)
    return LearningReport(data.items, len(folds(data.items)), prior_labels,
                          _weights(data, judges, default, prior_labels), rows, curve, labels_needed(curve))


def _z_grid(entry: ItemSheet, history: Mapping[str, ReviewerHistory], judges: Sequence[str]) -> np.ndarray:
    """The item's calibrated z (all judges by ``judges`` order, NaN for one absent), as ``aggregate`` has it."""
    sheet = entry.sheet
    corrected = self_correction(sheet, sheet.scores, history_rows(sheet, history), bias_rows(sheet, history),
                                SELF_PRIOR)
    grid = np.full((len(judges), len(sheet.candidates)), np.nan)
    where = {name: r for r, name in enumerate(judges)}
    for name, row in zip(sheet.reviewers, corrected.z, strict=True):
        grid[where[name]] = row
    return grid


def _top_credit(row: np.ndarray, best: int) -> float:
    """Credit of a score row's top pick: 1/k when the right column is among k tied at the top; NaN when the
    row does not score the right answer and another."""
    scored = ~np.isnan(row)
    if scored.sum() < 2 or not scored[best]:
        return float("nan")
    top = scored & (row == np.nanmax(row))
    return 1.0 / int(top.sum()) if top[best] else 0.0


def _majority_credit(overall: np.ndarray, best: int) -> float:
    votes = np.zeros(overall.shape[1])
    for row in overall:
        scored = ~np.isnan(row)
        if scored.sum() < 2:
            continue
        top = scored & (row == np.nanmax(row))
        votes += top / top.sum()
    if votes.max() <= 0:
        return 0.0
    winners = votes == votes.max()
    return 1.0 / int(winners.sum()) if winners[best] else 0.0


def learn_from_labels(sheets: Sequence[ItemSheet], histories: Sequence[Mapping[str, ReviewerHistory]],
                      tops: Mapping[str, str], judges: Sequence[str], default: Sequence[float],
                      labels: Mapping[str, Label], prior_labels: float = PRIOR_LABELS
                      ) -> tuple[LearningReport, dict[str, float] | None]:
    """The learning report over the labelled items of ``sheets``, and the learned weights by judge (None when
    no item is labelled: then the default weighting ranks, unchanged)."""
    grids, best, default_credits, majority = [], [], [], []
    judge_credits: dict[str, list[float]] = {name: [] for name in judges}
    for entry, history in zip(sheets, histories, strict=True):
        label = labels.get(entry.item)
        if label is None or entry.item not in tops or label.order[0] not in entry.sheet.candidates:
            continue
        column = entry.sheet.candidates.index(label.order[0])
        grids.append(_z_grid(entry, history, judges))
        best.append(column)
        default_credits.append(float(tops[entry.item] == label.order[0]))
        overall = np.asarray(entry.sheet.overall, dtype=float)
        majority.append(_majority_credit(overall, column))
        rows = dict(zip(entry.sheet.reviewers, overall, strict=True))
        for name in judges:
            judge_credits[name].append(_top_credit(rows[name], column) if name in rows else float("nan"))
    if not grids:
        return _nothing_learned(judges, default, prior_labels), None
    data: Features = features(grids, best, len(judges))
    report = learning_report(data, judges, default, np.array(default_credits),
                             {"majority vote": np.array(majority)},
                             {name: np.array(values) for name, values in judge_credits.items()},
                             prior_labels=prior_labels)
    return report, {weight.judge: weight.learned for weight in report.weights}


def _nothing_learned(judges: Sequence[str], default: Sequence[float], prior_labels: float) -> LearningReport:
    return LearningReport(0, 0, prior_labels, [JudgeWeight(name, w, w, w, w) for name, w in
                                               zip(judges, default, strict=True)], [], [], None)
