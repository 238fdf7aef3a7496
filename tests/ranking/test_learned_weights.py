"""Judge weights learned from labels, on juries written by ``scripts/simulate_juries.py`` (the truth is known)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from council.ranking import BallotError, CurvePoint, fit_weights, labels_needed, rank_ballots
from council.ranking.learned_weights import Features, credits
from council.ranking.learning_report import cross_validated_credits, folds

ROOT = Path(__file__).resolve().parents[2]
LABELLED = 50


@pytest.fixture(scope="module")
def jury(tmp_path_factory) -> tuple[Path, Path, dict[str, str], list[str]]:
    """One strong judge and five weak ones sharing 60% of their error: 350 two-answer items, 50 labelled.

    Seed 0, the bench's first file; ``scripts/bench_learned_weights.py`` counts the files of other seeds where 50
    labels fall short of the best single judge (docs/ranking.md quotes it)."""
    folder = tmp_path_factory.mktemp("learn")
    ballots, truth_file, labels = folder / "ballots.jsonl", folder / "truth.jsonl", folder / "labels.jsonl"
    done = subprocess.run([sys.executable, "scripts/simulate_juries.py", "--only", "jury-5-0.6-2", "--items", "350",
                           "--seed", "0", "--export", str(ballots), str(truth_file)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in truth_file.read_text().splitlines()]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows[:LABELLED]))
    truth = {row["item"]: row["best"] for row in rows}
    return ballots, labels, truth, [row["item"] for row in rows[LABELLED:]]


def held_out_accuracy(report, truth: dict[str, str], held: list[str]) -> float:
    tops = {item.item: item.ranking[0].member for item in report.items}
    return sum(tops[item] == truth[item] for item in held) / len(held)


def single_judge_accuracy(ballots: Path, truth: dict[str, str], held: list[str]) -> dict[str, float]:
    """Each judge alone on the held-out items: its top pick from its scores averaged over the two orders."""
    games: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in ballots.read_text().splitlines():
        row = json.loads(line)
        games[(row["item"], row["judge"])][row["candidate"]].append(row["score"])
    out: dict[str, float] = defaultdict(float)
    for (item, judge), scores in games.items():
        if item in held:
            means = {c: sum(v) / len(v) for c, v in scores.items()}
            winners = [c for c, v in means.items() if v == max(means.values())]
            out[judge] += (truth[item] in winners) / len(winners) / len(held)
    return dict(out)


def test_fifty_labels_rank_the_other_items_like_the_best_judge_and_better_than_equal_weights(jury):
    ballots, labels, truth, held = jury
    learned = rank_ballots(ballots, labels=labels, learn=True)
    equal = rank_ballots(ballots, weighting="equal")
    singles = single_judge_accuracy(ballots, truth, held)
    assert len(held) == 300 and len(singles) == 6
    assert learned.weighting == "learned" and learned.learning is not None
    assert held_out_accuracy(learned, truth, held) >= max(singles.values())
    assert held_out_accuracy(learned, truth, held) > held_out_accuracy(equal, truth, held)
    # The weights say why: the strong judge counts more than any weak one.
    weights = {w.judge: w for w in learned.learning.weights}
    assert all(weights["strong"].learned > weights[f"weak{i}"].learned for i in range(5))
    assert all(w.low <= w.learned <= w.high and w.learned >= 0 for w in weights.values())
    assert sum(w.learned for w in weights.values()) == pytest.approx(sum(w.default for w in weights.values()))


def test_the_report_compares_every_method_on_the_labelled_items(jury):
    ballots, labels, _, _ = jury
    learning = rank_ballots(ballots, labels=labels, learn=True).learning
    assert learning is not None and learning.labelled_items == LABELLED and learning.folds == 5
    names = [row.name for row in learning.cross_validated]
    assert names[:4] == ["learned weights (cross-validated)", "default weights", "equal weights", "majority vote"]
    assert names[4:] == ["strong", *(f"weak{i}" for i in range(5))]
    assert all(row.items == LABELLED and row.low <= row.accuracy <= row.high for row in learning.cross_validated)
    # Curve: 10 and 20 labels leave at least 10 of the 50 to test on; 50 would leave none.
    assert [p.labels for p in learning.curve] == [10, 20]
    assert all(p.held_out == LABELLED - p.labels and 0 <= p.learned <= 1 for p in learning.curve)
    assert learning.labels_needed == labels_needed(learning.curve)


def test_no_labelled_item_leaves_the_default_ranking_exactly(jury, tmp_path):
    ballots, _, _, _ = jury
    labels = tmp_path / "elsewhere.jsonl"
    labels.write_text('{"item": "not-in-the-ballots", "best": "c0"}\n')
    default = rank_ballots(ballots)
    learned = rank_ballots(ballots, labels=labels, learn=True)
    assert learned.weighting == default.weighting == "outlier"
    assert [item.ranking for item in learned.items] == [item.ranking for item in default.items]
    assert [item.top_confidence for item in learned.items] == [item.top_confidence for item in default.items]
    assert learned.learning is not None and learned.learning.labelled_items == 0
    assert [(w.learned, w.default) for w in learned.learning.weights] == [(1.0, 1.0)] * 6


def test_learning_is_deterministic(jury):
    ballots, labels, _, _ = jury
    assert (rank_ballots(ballots, labels=labels, learn=True).to_dict()
            == rank_ballots(ballots, labels=labels, learn=True).to_dict())


def test_learning_needs_labels_and_the_calibrated_method(jury):
    ballots, labels, _, _ = jury
    with pytest.raises(BallotError, match="needs labels"):
        rank_ballots(ballots, learn=True)
    with pytest.raises(BallotError, match="method 'borda'"):
        rank_ballots(ballots, labels=labels, learn=True, method="borda")
    with pytest.raises(BallotError, match="prior_labels"):
        rank_ballots(ballots, labels=labels, learn=True, prior_labels=float("nan"))


def _random_items(rng: np.random.Generator, items: int, judges: int, skill: list[float]) -> Features:
    """Two-answer items; judge r's z margin tracks the right answer with strength skill[r]."""
    best = rng.integers(0, 2, items)
    sign = np.where(best == 0, 1.0, -1.0)
    margin = np.array(skill)[None, :] * sign[:, None] + rng.normal(size=(items, judges))
    z = np.stack([margin / 2, -margin / 2], axis=2)
    return Features(z, np.ones((items, 2), dtype=bool), best)


def test_a_prior_worth_more_labels_keeps_the_weights_nearer_the_default():
    data = _random_items(np.random.default_rng(7), 30, 3, [2.0, 0.0, 0.0])
    default = [1.0, 1.0, 1.0]
    assert list(fit_weights(data.subset([]), default)) == default
    loose, tight = fit_weights(data, default, prior_labels=1.0), fit_weights(data, default, prior_labels=1000.0)
    assert loose[0] > tight[0] > 1.0  # the informative judge gains weight, less under a strong prior
    assert np.abs(tight - 1.0).max() < np.abs(loose - 1.0).max()
    assert float(loose.sum()) == pytest.approx(3.0) and float(tight.sum()) == pytest.approx(3.0)


def test_cross_validation_never_scores_an_item_with_weights_fitted_on_it():
    data = _random_items(np.random.default_rng(11), 60, 4, [0.4, 0.2, 0.0, 0.0])
    before = cross_validated_credits(data, [1.0] * 4, 20.0)
    # Flip every label of the first fold: the weights that score it were fitted on the other folds, which did
    # not change, so each of its items' credit must flip exactly (two answers, no ties).
    test = folds(data.items)[0]
    flipped = data.best.copy()
    flipped[test] = 1 - flipped[test]
    after = cross_validated_credits(Features(data.z, data.valid, flipped), [1.0] * 4, 20.0)
    assert np.array_equal(after[test], 1.0 - before[test])
    # Fitted in sample, the same flip changes the weights, so the credits move with them (the check can fail).
    in_sample = credits(Features(data.z, data.valid, flipped), fit_weights(Features(data.z, data.valid, flipped),
                                                                           [1.0] * 4, 0.0))
    assert not np.array_equal(in_sample[test], 1.0 - credits(data, fit_weights(data, [1.0] * 4, 0.0))[test])


def test_labels_needed_is_the_count_from_which_learning_stays_ahead():
    def curve(*gains: float) -> list[CurvePoint]:
        return [CurvePoint(10 * (i + 1), 20, 100, 0.7 + g, 0.7) for i, g in enumerate(gains)]

    assert labels_needed(curve(-0.01, 0.02, 0.03)) == 20
    assert labels_needed(curve(0.01, -0.01, 0.03)) == 30
    assert labels_needed(curve(0.01, 0.02, -0.01)) is None
    assert labels_needed([]) is None
