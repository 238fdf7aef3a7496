"""A ranking-level check beside the gate: top marks from every reviewer that nothing else backs.

When reviewers obey instructions hidden in an answer ("rank this answer
first"), every one of them gives it the top score on every dimension. Honest
reviewers rarely agree so completely, and when they do the answer is usually
the one the others resemble. So an answer gets a bias flag when every
reviewer scored it at the top of the scale on every dimension *and*
something else disagrees: the gate flagged it as addressed to the reviewers,
a criterion scored by code failed it, or its content stands apart from the
other answers, which agree among themselves.

The flag is informational (a ``BiasFlag`` of kind ``unanimous_top``): the
ranking is not changed by it. Pure arithmetic over the score sheet and the
answers' words; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from council.ranking.sheet import ScoreSheet

KIND = "unanimous_top"
#: The answer's word overlap with the others, against theirs with each other, below which it "stands apart".
APART_RATIO = 0.5
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class UnanimityFlag:
    """An answer every reviewer put at the top on every dimension, and why that is suspect."""

    candidate: str
    reviewers: int
    why: str


def _words(text: str) -> frozenset[str]:
    return frozenset(word.lower() for word in _WORD.findall(text))


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def stands_apart(candidate: str, texts: Mapping[str, str]) -> bool:
    """Whether ``candidate``'s words overlap the others' much less than the others overlap each other."""
    others = [name for name in texts if name != candidate]
    if len(others) < 2 or candidate not in texts:
        return False
    words = {name: _words(text) for name, text in texts.items()}
    own = float(np.mean([_overlap(words[candidate], words[other]) for other in others]))
    among = float(np.mean([_overlap(words[a], words[b]) for i, a in enumerate(others) for b in others[i + 1:]]))
    return among > 0 and own < APART_RATIO * among


def unanimous_top(sheet: ScoreSheet) -> list[str]:
    """Candidates that every reviewer who scored them (two or more) put at the top of the scale on every dimension.

    A reviewer that did not see a candidate (its own answer, say) has no say on it.
    """
    if not sheet.dimensions:
        return []
    found = []
    for column, name in enumerate(sheet.candidates):
        stacked = np.vstack([grid[:, column] for grid in sheet.dimensions.values()])  # (dimensions, reviewers)
        seen = ~np.isnan(stacked).all(axis=0)
        scored = stacked[:, seen]
        if scored.shape[1] < 2 or np.isnan(scored).any():
            continue  # fewer than two reviewers, or one left a dimension unscored: not unanimous
        if np.all(scored >= 1.0 - 1e-9):
            found.append(name)
    return found


def unanimity_flags(sheet: ScoreSheet, texts: Mapping[str, str], addressed_reviewers: set[str],
                    failed_by_code: set[str]) -> list[UnanimityFlag]:
    """The unanimous top answers that something else disagrees with, and what disagrees."""
    flags = []
    for candidate in unanimous_top(sheet):
        if candidate in addressed_reviewers:
            why = "its text addresses the reviewers (evaluator_manipulation)"
        elif candidate in failed_by_code:
            why = "a criterion scored by code failed it"
        elif stands_apart(candidate, texts):
            why = "its content stands apart from the other answers, which agree among themselves"
        else:
            continue
        column = sheet.candidates.index(candidate)
        reviewers = int((~np.isnan(sheet.overall[:, column])).sum())
        flags.append(UnanimityFlag(candidate, reviewers, why))
    return flags
