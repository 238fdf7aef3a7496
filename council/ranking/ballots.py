"""Rank anyone's ballots: scores from any judges, ranked per item by the council's own aggregation.

:func:`rank_ballots` reads rows of ``item, candidate, judge, score`` (see
:mod:`council.ranking.ballot_file`), builds one score sheet per item
(:mod:`council.ranking.ballot_sheets`) and ranks each with
:func:`council.ranking.aggregation.aggregate`, carrying each judge's history
from item to item exactly as a council carries it from run to run (the
increments a ranking returns, folded with
:func:`~council.ranking.aggregation.fold_increment`). Two modes:

``two-pass`` (default)
    Pass 1 ranks the items in file order and folds every item's increments
    into each judge's history over the whole file. Pass 2 ranks each item
    again with that history minus the item's own part (a leave-one-out
    history: ``aggregate`` adds the sheet itself). Every item is calibrated
    with everything the file says about its judges, and the result does
    not depend on the order of the rows: the better estimate when the whole
    file is at hand, which it always is here.
``online``
    One pass, in file order, each item ranked with the history of the items
    before it: what a council would have ranked, run after run.

Per judge, the report gives its calibration (mean and SD of its scores),
its weight, its pooled bias flags and its position consistency; with
labels, the accuracy of the aggregate, the majority vote and each judge
(:mod:`council.ranking.label_accuracy`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from council.ranking.aggregation import METHODS, aggregate, fold_increment
from council.ranking.agreement import PAIR_SUMS, Agreement, pooled_flags
from council.ranking.ballot_file import (
    BallotError,
    BallotRows,
    Label,
    labels_from_mapping,
    read_ballots,
    read_labels,
    rows_from_mappings,
)
from council.ranking.ballot_sheets import ItemSheet, item_sheets
from council.ranking.calibration import padded_bias
from council.ranking.label_accuracy import Accuracy, check_labels, label_accuracy
from council.ranking.learned_weights import PRIOR_LABELS
from council.ranking.learning_report import LearningReport, learn_from_labels
from council.ranking.sheet import Aggregate, CandidateScore, HistoryIncrement, ReviewerHistory
from council.ranking.weights import DEFAULT_WEIGHTING, LEARNED, WEIGHTINGS, reviewer_weights

MODES = ("two-pass", "online")
"""The ranking modes, the default first (see the module docstring)."""


@dataclass(frozen=True)
class ItemRanking:
    """One item ranked: best first, how sure (``top_confidence``, ``tied_with_top``) and how much the judges agreed."""

    item: str
    ranking: list[CandidateScore]
    top_confidence: float | None
    tied_with_top: list[str]
    agreement: Agreement
    calibrated: bool
    judges: int


@dataclass(frozen=True)
class JudgeSummary:
    """One judge over the whole file: calibration, weight, bias flags and position consistency."""

    judge: str
    items: int
    scores: int
    mean: float
    sd: float
    weight: float
    bias_flags: list[str]
    #: Share of the items it played in two or more games whose top pick held in every game; None without games.
    position_consistency: float | None
    position_items: int


@dataclass(frozen=True)
class BallotReport:
    """What :func:`rank_ballots` returns; :meth:`to_dict` is its JSON form."""

    mode: str
    method: str
    weighting: str
    items: list[ItemRanking]
    judges: list[JudgeSummary]
    #: With labels: the aggregate first, then the majority vote, then each judge by name.
    accuracy: list[Accuracy] = field(default_factory=list)
    labelled_items: int = 0
    #: Labelled items absent from the ballots (their labels are not used, and said so).
    labels_without_ballots: list[str] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)
    #: With ``learn``: the learned weights and their cross-validated accuracy (then ``accuracy`` is empty:
    #: this report's rows measure every method out of sample).
    learning: LearningReport | None = None

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready data (NaN becomes None)."""
        plain = _plain(asdict(self))
        assert isinstance(plain, dict)  # a dataclass's asdict is a dict, and _plain keeps dicts dicts
        return plain


def _plain(value: object) -> object:
    if isinstance(value, float):
        return None if not math.isfinite(value) else round(value, 6)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def without_increment(total: ReviewerHistory, part: HistoryIncrement) -> ReviewerHistory | None:
    """``total`` with one item's ``part`` taken back out (Chan's merge run backwards); None when nothing is left."""
    n = total.count - part.count
    if n <= 0:
        return None
    if part.count > 0:
        mean = (total.count * total.mean - part.count * part.mean) / n
        m2 = total.m2 - part.m2 - (part.mean - mean) ** 2 * n * part.count / total.count
    else:
        mean, m2 = total.mean, total.m2
    bias = tuple(a - b for a, b in zip(padded_bias(total.bias), padded_bias(part.bias), strict=True))
    return ReviewerHistory(count=round(n), mean=float(mean), m2=float(max(m2, 0.0)),
                           resid_count=int(max(round(total.resid_count - part.resid_count), 0)),
                           resid_m2=float(max(total.resid_m2 - part.resid_m2, 0.0)), bias=bias)


def _without_probabilities(outcome: Aggregate) -> Aggregate:
    """``outcome`` without its rank probabilities, which the report does not show: candidates x candidates
    floats per item, kept for every item of a file they ran to gigabytes."""
    if outcome.confidence is None:
        return outcome
    return replace(outcome, confidence=replace(outcome.confidence, rank_probabilities={}))


def _rank(sheets: Sequence[ItemSheet], mode: str, method: str, weighting: str,
          learned: Mapping[str, float] | None = None, *, keep_histories: bool = False,
          ) -> tuple[list[Aggregate], dict[str, ReviewerHistory], list[dict[str, ReviewerHistory]]]:
    """Each item's aggregate under ``mode`` (with ``learned`` weights when given), every judge's history over
    the whole file, and, with ``keep_histories`` (learning needs them), the history each item was ranked with."""
    weighting = LEARNED if learned is not None else weighting
    history: dict[str, ReviewerHistory] = {}
    online, before = [], []
    for entry in sheets:
        outcome = _without_probabilities(aggregate(entry.sheet, history, method, with_confidence=mode == "online",
                                                   weighting=weighting, learned=learned))
        if keep_histories:
            before.append(history)
        history = {**history, **{name: fold_increment(history.get(name), increment)
                                 for name, increment in outcome.increments.items()}}
        online.append(outcome)
    if mode == "online":
        return online, history, before
    ranked, used = [], []
    for entry, first in zip(sheets, online, strict=True):
        rest = {name: without_increment(history[name], part) for name, part in first.increments.items()}
        kept = {k: v for k, v in rest.items() if v is not None}
        if keep_histories:
            used.append(kept)
        ranked.append(_without_probabilities(aggregate(entry.sheet, kept, method, weighting=weighting,
                                                       learned=learned)))
    return ranked, history, used


def _judges(sheets: Sequence[ItemSheet], history: Mapping[str, ReviewerHistory], weighting: str) -> list[JudgeSummary]:
    # Each judge's (sheet, row) pairs in one pass: looking every judge up in every sheet is judges x items.
    rows_of: dict[str, list[tuple[ItemSheet, int]]] = {}
    for entry in sheets:
        for row, name in enumerate(entry.sheet.reviewers):
            rows_of.setdefault(name, []).append((entry, row))
    out = []
    for name in sorted(rows_of):
        rows = rows_of[name]
        scores = sum(sum(1 for v in entry.sheet.scores[r] if v == v) for entry, r in rows)
        games = [entry.consistency[name] for entry, _ in rows if name in entry.consistency]
        stats = history.get(name, ReviewerHistory())
        flags = pooled_flags([name], [list(padded_bias(stats.bias))[:PAIR_SUMS]])
        out.append(JudgeSummary(
            judge=name, items=len(rows), scores=scores, mean=stats.mean if stats.count else math.nan,
            sd=stats.std if stats.count > 1 else math.nan,
            weight=reviewer_weights(weighting, [stats.resid_count], [stats.resid_m2])[0],
            bias_flags=[flag.detail for flag in flags],
            position_consistency=sum(held for _, held in games) / len(games) if games else None,
            position_items=len(games)))
    return out


def _items(sheets: Sequence[ItemSheet], outcomes: Sequence[Aggregate]) -> list[ItemRanking]:
    return [ItemRanking(
        item=entry.item, ranking=outcome.ranking,
        top_confidence=outcome.confidence.top_confidence if outcome.confidence else None,
        tied_with_top=list(outcome.confidence.tied_with_top) if outcome.confidence else [],
        agreement=outcome.agreement, calibrated=outcome.normalized,
        judges=sum(1 for row in entry.sheet.scores if any(v == v for v in row)))
        for entry, outcome in zip(sheets, outcomes, strict=True)]


def rank_ballots(
    ballots: str | os.PathLike[str] | Iterable[Mapping[str, object]], *,
    labels: str | os.PathLike[str] | Mapping[str, str | Sequence[str]] | None = None,
    mode: str = "two-pass", method: str = "calibrated", weighting: str = DEFAULT_WEIGHTING,
    learn: bool = False, prior_labels: float = PRIOR_LABELS,
) -> BallotReport:
    """Rank every item of ``ballots`` (a JSONL or CSV file, or row mappings) with the council's aggregation.

    ``labels`` (a file, or item -> best candidate or order) adds the accuracy
    table. ``mode`` is ``two-pass`` (default) or ``online``; ``method`` and
    ``weighting`` are those of the council (``review.aggregation``,
    :mod:`council.ranking.weights`). ``learn`` (needs ``labels`` and the
    ``calibrated`` method) fits the judges' weights on the labelled items,
    shrunk toward ``weighting``'s with a prior worth ``prior_labels`` items,
    ranks every item with them and reports them (:attr:`BallotReport.learning`,
    :mod:`council.ranking.learning_report`); with no labelled item the
    ranking is the default one, unchanged. A malformed row, label or option
    raises :class:`~council.ranking.ballot_file.BallotError` naming the line.
    """
    for name, value, allowed in (("mode", mode, MODES), ("method", method, METHODS),
                                 ("weighting", weighting, WEIGHTINGS)):
        if value not in allowed:
            raise BallotError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")
    if learn and labels is None:
        raise BallotError("learning the judges' weights needs labels: give --labels FILE with --learn")
    if learn and method != "calibrated":
        raise BallotError(f"--learn weights the calibrated method's judges; it cannot be used with method {method!r}")
    if not (math.isfinite(prior_labels) and prior_labels >= 0):
        raise BallotError(f"prior_labels must be a finite number of 0 or more, got {prior_labels!r}")
    rows: BallotRows = (read_ballots(ballots) if isinstance(ballots, (str, os.PathLike))
                        else rows_from_mappings(ballots))
    source = str(ballots) if isinstance(ballots, (str, os.PathLike)) else "ballots"
    sheets = item_sheets(rows.rows, source)
    outcomes, history, used = _rank(sheets, mode, method, weighting, keep_histories=learn)
    report = BallotReport(mode, method, weighting, _items(sheets, outcomes), _judges(sheets, history, weighting),
                          ignored_columns=rows.ignored_columns)
    if labels is None:
        return report
    if isinstance(labels, (str, os.PathLike)):
        known, label_source = read_labels(labels), str(labels)
    else:
        known, label_source = labels_from_mapping(labels), "labels"
    report = _with_accuracy(report, sheets, known, label_source)
    if not learn:
        return report
    tops = {item.item: item.ranking[0].member for item in report.items if item.ranking and item.judges}
    learning, weights = learn_from_labels(sheets, used, tops, [j.judge for j in report.judges],
                                          [j.weight for j in report.judges], known, prior_labels)
    items = report.items if weights is None else _items(sheets, _rank(sheets, mode, method, weighting, weights)[0])
    return replace(report, weighting=report.weighting if weights is None else LEARNED, items=items, accuracy=[],
                   learning=learning)


def _with_accuracy(report: BallotReport, sheets: Sequence[ItemSheet], labels: Mapping[str, Label],
                   source: str) -> BallotReport:
    check_labels({entry.item: entry.sheet.candidates for entry in sheets}, labels, source)
    by_item = {entry.item: entry.sheet for entry in sheets}
    tops = {item.item: item.ranking[0].member for item in report.items if item.ranking and item.judges}
    accuracy = label_accuracy(by_item, tops, labels)
    missing = sorted(item for item in labels if item not in by_item)
    return BallotReport(report.mode, report.method, report.weighting, report.items, report.judges, accuracy,
                        labelled_items=accuracy[0].items, labels_without_ballots=missing,
                        ignored_columns=report.ignored_columns)
