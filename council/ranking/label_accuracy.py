"""How often the aggregate, each single judge and a majority vote pick the right answer, with bootstrap intervals.

Given each item's right answer (a label), every method earns per item a
credit between 0 and 1:

- the *aggregate* ranking: 1 when its top answer is the right one;
- a *judge*: over the items where it scored the right answer and at least
  one other, 1 when its highest score is the right answer's alone, 1/k when
  k answers share its highest score and the right one is among them, else 0;
- a *majority vote*: each judge votes for its top answer (split evenly over
  a tie), the answer with most votes wins, a tie splitting the credit.

Accuracy is the mean credit; its 95% interval is a percentile bootstrap
over items (``RESAMPLES`` draws from a fixed seed, so a file gives the
same figures every time).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from council.ranking.ballot_file import BallotError, Label
from council.ranking.sheet import ScoreSheet
from council.text import visible

RESAMPLES = 2000
CONFIDENCE = 0.95
SEED = 34
BOOTSTRAP_CELLS = 2_000_000
"""Resampled values held at once by :func:`interval` (16 MB of indices), whatever the number of items."""


@dataclass(frozen=True)
class Accuracy:
    """One method's accuracy: ``kind`` is aggregate, majority or judge (then ``name`` is the judge's)."""

    kind: str
    name: str
    accuracy: float
    low: float
    high: float
    items: int


def interval(credits: Sequence[float], seed: int = SEED) -> tuple[float, float, float]:
    """Mean of ``credits`` and its percentile bootstrap interval (NaN for none)."""
    values = np.asarray(credits, dtype=float)
    if values.size == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    # Drawn a block of resamples at a time: all at once is RESAMPLES x items integers (1.6 GB for 100,000
    # labelled items). The generator yields the same numbers in blocks as in one draw, so the interval is too.
    block = max(1, BOOTSTRAP_CELLS // values.size)
    means = np.concatenate([values[rng.integers(0, values.size, size=(min(block, RESAMPLES - start), values.size))]
                            .mean(axis=1) for start in range(0, RESAMPLES, block)])
    tail = (1.0 - CONFIDENCE) / 2.0
    return float(values.mean()), float(np.quantile(means, tail)), float(np.quantile(means, 1.0 - tail))


def _credit(winners: Sequence[str], best: str) -> float:
    return 1.0 / len(winners) if best in winners else 0.0


def _tops(row: Sequence[float], names: Sequence[str]) -> list[str]:
    scored = [(v, n) for v, n in zip(row, names, strict=True) if v == v]
    if len(scored) < 2:
        return []
    high = max(v for v, _ in scored)
    return [n for v, n in scored if v == high]


def label_accuracy(sheets: Mapping[str, ScoreSheet], tops: Mapping[str, str], labels: Mapping[str, Label]
                   ) -> list[Accuracy]:
    """Accuracy of the aggregate (``tops``: item -> its top answer), the majority vote and each judge,
    over the labelled items of ``sheets``; aggregate first, then majority, then the judges by name."""
    aggregate: list[float] = []
    majority: list[float] = []
    judges: dict[str, list[float]] = {}
    for item, sheet in sheets.items():
        if item not in labels or item not in tops:
            continue
        best = labels[item].order[0]
        aggregate.append(float(tops[item] == best))
        votes = dict.fromkeys(sheet.candidates, 0.0)
        column = sheet.candidates.index(best) if best in sheet.candidates else -1
        for judge, row in zip(sheet.reviewers, sheet.scores, strict=True):
            top = _tops(row, sheet.candidates)
            for name in top:
                votes[name] += 1.0 / len(top)
            if top and column >= 0 and row[column] == row[column]:
                judges.setdefault(judge, []).append(_credit(top, best))
        most = max(votes.values()) if votes else 0.0
        majority.append(_credit([n for n, v in votes.items() if v == most], best) if most > 0 else 0.0)
    rows = [Accuracy("aggregate", "aggregate", *interval(aggregate), len(aggregate)),
            Accuracy("majority", "majority vote", *interval(majority), len(majority))]
    rows += [Accuracy("judge", name, *interval(credits), len(credits)) for name, credits in sorted(judges.items())]
    return rows


def check_labels(candidates: Mapping[str, Sequence[str]], labels: Mapping[str, Label], source: str) -> None:
    """Raise :class:`~council.ranking.ballot_file.BallotError` for a label naming an answer its item lacks."""
    for item, label in labels.items():
        if item not in candidates:
            continue
        unknown = [name for name in label.order if name not in candidates[item]]
        if unknown:
            known = [visible(name) for name in candidates[item][:10]]  # names from a file: no raw escapes
            raise BallotError(f"{source}:{label.line}: item {item!r} has no candidate {unknown[0]!r} "
                              f"(its candidates: {', '.join(known)}{' ...' if len(candidates[item]) > 10 else ''})")
