"""From ranked ballot sheets and labels to the arrays the weight learning reads, and back to judge weights.

The bridge between :mod:`council.ranking.ballots` (sheets, the histories
each item was ranked with, the default ranking's top picks) and
:mod:`council.ranking.learning_report`: it computes each labelled item's
calibrated z-scores with the very history and self-bonus correction the
aggregation used for that item, and the per-item credits of the methods
that learn nothing (default weighting, majority vote, each single judge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from council.ranking.ballot_file import Label
from council.ranking.ballot_sheets import ItemSheet
from council.ranking.calibration import bias_rows, history_rows, self_correction
from council.ranking.learned_weights import PRIOR_LABELS, Features, features
from council.ranking.learning_report import JudgeWeight, LearningReport, learning_report
from council.ranking.self_preference import SELF_PRIOR
from council.ranking.sheet import ReviewerHistory


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
