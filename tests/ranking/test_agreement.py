"""Bias flags pooled across runs: a reviewer's slot or length preference shows once evidence accumulates."""

from __future__ import annotations

import numpy as np

from council.ranking.aggregation import ScoreSheet, aggregate, update_history
from council.ranking.agreement import POOLED_MIN_PAIRS, bias_pairs, pooled_flags

NAMES = ("r0", "r1", "r2", "r3")


def run_sheet(rng: np.random.Generator, slot_bonus: dict[str, float], length_bonus: dict[str, float]) -> ScoreSheet:
    quality = rng.normal(6, 1.5, size=4)
    lengths = rng.integers(200, 3000, size=4).astype(float)
    overall = np.full((4, 4), np.nan)
    position = np.full((4, 4), -1)
    for r, name in enumerate(NAMES):
        shown = [c for c in range(4) if c != r]
        rng.shuffle(shown)
        for slot, c in enumerate(shown):
            position[r, c] = slot
            score = quality[c] + rng.normal(0, 0.3)
            score += slot_bonus.get(name, 0.0) * (slot == 0)
            score += length_bonus.get(name, 0.0) * (lengths[c] == lengths[shown].max())
            overall[r, c] = score
    return ScoreSheet(NAMES, NAMES, overall, {}, position, lengths)


def flags_after(runs: int, slot_bonus: dict[str, float], length_bonus: dict[str, float], seed: int = 7):
    rng = np.random.default_rng(seed)
    history: dict = {}
    for _ in range(runs):
        sheet = run_sheet(rng, slot_bonus, length_bonus)
        result = aggregate(sheet, history)
        history = update_history(history, sheet)
    return {(f.reviewer, f.kind) for f in result.bias_flags}, history


def test_a_position_bias_is_flagged_once_pooled_evidence_is_clear():
    flags, history = flags_after(12, {"r0": 2.5}, {})
    assert ("r0", "position") in flags
    assert not any(reviewer != "r0" for reviewer, _ in flags)
    assert history["r0"].bias[0] >= POOLED_MIN_PAIRS


def test_a_length_bias_is_flagged():
    flags, _ = flags_after(12, {}, {"r2": 2.5})
    assert ("r2", "length") in flags
    assert ("r2", "position") not in flags


def test_unbiased_reviewers_are_not_flagged():
    for seed in range(5):
        flags, _ = flags_after(12, {}, {}, seed=seed)
        assert flags == set(), seed


def test_too_little_evidence_raises_no_flag():
    flags, _ = flags_after(2, {"r0": 2.5}, {})
    assert ("r0", "position") not in flags


def test_pairs_hand_computed():
    # Two reviewers, two answers. Centred scores: r0 (+1, -1), r1 (-0.5, +0.5).
    x = np.array([[8.0, 6.0], [5.0, 6.0]])
    position = np.array([[0, 1], [1, 0]])
    sums = bias_pairs(position, np.array([np.e, np.e ** 2]), x)
    # r0 residuals: +1 - (-0.5) = 1.5 at slot 0, -1 - 0.5 = -1.5 at slot 1.
    n, sx, sy, sxx, syy, sxy = sums[0][:6]
    assert (n, sx, sy, sxx, syy, sxy) == (2, 1, 0, 1, 4.5, -1.5)
    # Length covariate is log(length): 1 and 2.
    assert list(sums[0][6:]) == [2, 3, 0, 5, 4.5, -1.5]
    assert pooled_flags(["r0"], [sums[0]]) == [], "two pairs are far too few"
