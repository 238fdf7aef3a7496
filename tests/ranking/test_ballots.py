"""Ranking anyone's ballots through the public ``council.rank_ballots``: modes, games, labels and bad rows."""

from __future__ import annotations

import json
import math
import random

import pytest

from council import BallotError, BallotReport, rank_ballots
from council.ranking.aggregation import fold_increment
from council.ranking.ballots import without_increment
from council.ranking.sheet import HistoryIncrement


def pair_items(n: int = 12) -> list[dict[str, object]]:
    """Items of two answers: ``good`` is better; a wide judge (scores +-20) votes wrong, two narrow ones right.

    The wide judge is wrong only on the odd items, by a small margin of its own scale; the narrow judges are
    always right by their whole (small) scale. Raw means follow the wide judge; calibrated z follow the majority.
    """
    rows: list[dict[str, object]] = []
    for i in range(n):
        item = f"q{i}"
        wide = (-3, 3) if i % 2 else (20, -20)  # good, bad
        for judge, (good, bad) in (("wide", wide), ("n1", (1, -1)), ("n2", (1, -1))):
            rows += [{"item": item, "candidate": "good", "judge": judge, "score": good},
                     {"item": item, "candidate": "bad", "judge": judge, "score": bad}]
    return rows


def test_two_pass_calibrates_every_pair_and_online_only_once_history_exists():
    two_pass = rank_ballots(pair_items())
    assert isinstance(two_pass, BallotReport) and two_pass.mode == "two-pass"
    assert all(item.calibrated for item in two_pass.items)
    assert [item.ranking[0].member for item in two_pass.items] == ["good"] * 12
    online = rank_ballots(pair_items(), mode="online")
    assert online.items[0].calibrated is False, "the first item has no history yet"
    assert all(item.calibrated for item in online.items[1:])
    assert online.items[1].ranking[0].member == "good"
    # Raw means rank item q1 the wrong way: the wide judge's -3/+3 outweighs the narrow judges' +-1 twice.
    raw = rank_ballots(pair_items(), method="raw_mean")
    assert raw.items[1].ranking[0].member == "bad"


def test_two_pass_does_not_depend_on_the_order_of_the_rows():
    rows = pair_items()
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    first = {i.item: [(c.member, round(c.score, 9)) for c in i.ranking] for i in rank_ballots(rows).items}
    second = {i.item: [(c.member, round(c.score, 9)) for c in i.ranking] for i in rank_ballots(shuffled).items}
    assert first == second


def test_taking_an_item_back_out_of_the_history_restores_what_was_there():
    one = HistoryIncrement(3, 5.0, 8.0, 3, 1.5, (1.0,) * 15)
    two = HistoryIncrement(2, 8.0, 2.0, 2, 0.5, (2.0,) * 15)
    both = fold_increment(fold_increment(None, one), two)
    back = without_increment(both, two)
    alone = fold_increment(None, one)
    assert back is not None
    assert (back.count, back.resid_count) == (alone.count, alone.resid_count)
    assert (back.mean, back.m2, back.resid_m2) == pytest.approx((alone.mean, alone.m2, alone.resid_m2))
    assert back.bias == pytest.approx(alone.bias)
    assert without_increment(alone, one) is None


def test_swapped_games_are_averaged_and_their_disagreement_is_the_position_consistency():
    rows = []
    for i in range(4):
        for game, first in ((1, "a"), (2, "b")):
            second = "b" if first == "a" else "a"
            # fickle likes whatever it sees first; steady likes a in both orders.
            rows += [{"item": f"q{i}", "candidate": first, "judge": "fickle", "score": 8, "game": game, "position": 0},
                     {"item": f"q{i}", "candidate": second, "judge": "fickle", "score": 6, "game": game,
                      "position": 1},
                     {"item": f"q{i}", "candidate": "a", "judge": "steady", "score": 7 + (i % 2), "game": game,
                      "position": 0 if first == "a" else 1},
                     {"item": f"q{i}", "candidate": "b", "judge": "steady", "score": 5, "game": game,
                      "position": 1 if first == "a" else 0}]
    report = rank_ballots(rows, mode="online")
    judges = {j.judge: j for j in report.judges}
    assert (judges["fickle"].position_consistency, judges["fickle"].position_items) == (0.0, 4)
    assert (judges["steady"].position_consistency, judges["steady"].position_items) == (1.0, 4)
    # Averaged per answer: fickle gives a and b 7 each, so only steady decides.
    assert report.items[0].ranking[0].raw_mean == pytest.approx((7 + 7) / 2)
    assert all(item.ranking[0].member == "a" for item in report.items)


def test_games_told_apart_by_position_alone():
    rows = [{"item": "q", "candidate": "a", "judge": "j", "score": 8, "position": 0},
            {"item": "q", "candidate": "b", "judge": "j", "score": 6, "position": 1},
            {"item": "q", "candidate": "b", "judge": "j", "score": 9, "position": 0},
            {"item": "q", "candidate": "a", "judge": "j", "score": 5, "position": 1}]
    judge = rank_ballots(rows).judges[0]
    assert (judge.position_consistency, judge.position_items) == (0.0, 1)


def test_dimension_scores_stand_in_for_a_missing_overall():
    rows = [{"item": "q", "candidate": "a", "judge": "j", "score": 9, "dimension": "accuracy"},
            {"item": "q", "candidate": "a", "judge": "j", "score": 5, "dimension": "style"},
            {"item": "q", "candidate": "b", "judge": "j", "score": 6, "dimension": "overall"}]
    ranking = rank_ballots(rows).items[0].ranking
    assert [(c.member, c.raw_mean) for c in ranking] == [("a", 7.0), ("b", 6.0)]
    assert ranking[0].dimensions == {"accuracy": 9.0, "style": 5.0}


def test_labels_give_the_accuracy_of_the_aggregate_the_majority_and_each_judge():
    rows: list[dict[str, object]] = []
    for i in range(10):
        for judge, likes in (("right", "a"), ("wrong", "b"), ("tied", None)):
            rows += [{"item": f"q{i}", "candidate": c, "judge": judge,
                      "score": 5 if likes is None else 8 if c == likes else 4} for c in ("a", "b")]
    report = rank_ballots(rows, labels={f"q{i}": "a" for i in range(10)} | {"elsewhere": "x"})
    accuracy = {row.name: row for row in report.accuracy}
    assert [row.kind for row in report.accuracy] == ["aggregate", "majority", "judge", "judge", "judge"]
    assert (accuracy["right"].accuracy, accuracy["wrong"].accuracy) == (1.0, 0.0)
    assert accuracy["tied"].accuracy == 0.5, "a tie at the top earns half"
    assert accuracy["majority vote"].accuracy == 0.5, "one vote each way and a split vote: a tie"
    assert accuracy["right"].low == accuracy["right"].high == 1.0
    assert report.labelled_items == 10 and report.labels_without_ballots == ["elsewhere"]
    orders = rank_ballots(rows, labels={f"q{i}": ["b", "a"] for i in range(10)})
    assert {row.name: row.accuracy for row in orders.accuracy}["wrong"] == 1.0
    assert json.loads(json.dumps(report.to_dict()))["accuracy"][0]["kind"] == "aggregate"


def test_bootstrap_intervals_cover_the_mean_and_shrink_with_more_items():
    def rows(n: int) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        for i in range(n):
            liked = "a" if i % 4 else "b"  # right three times in four
            out += [{"item": f"q{i}", "candidate": c, "judge": "j", "score": 8 if c == liked else 3} for c in "ab"]
        return out

    small, large = (next(r for r in rank_ballots(rows(n), labels={f"q{i}": "a" for i in range(n)}).accuracy
                         if r.name == "j") for n in (20, 400))
    assert small.accuracy == large.accuracy == 0.75
    assert small.low < 0.75 < small.high and large.low < 0.75 < large.high
    assert large.high - large.low < small.high - small.low


@pytest.mark.parametrize(("text", "message"), [
    ('{"item": "q", "candidate": "a", "judge": "j"}\n', "rows.jsonl:1: missing 'score'"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": 1}\n{"item": "q", "candidate": "b", "judge": "j", '
     '"score": "high"}\n', "rows.jsonl:2: 'score' must be a number, got 'high'"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": 1}\n\n[1, 2]\n', "rows.jsonl:3: expected a JSON object"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": 1}\n{"item": "q", "candidate": "a", "judge": "j", '
     '"score": 2}\n', "rows.jsonl:2: judge 'j' already scored 'a' of item 'q' on line 1"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": 1, "game": 1}\n{"item": "q", "candidate": "a", '
     '"judge": "j", "score": 2, "game": 1}\n', "rows.jsonl:2: judge 'j' already scored 'a' of item 'q' in game '1'"),
    ('{"item": "q", "candidate": "a", "judge": "", "score": 1}\n', "rows.jsonl:1: missing 'judge'"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": 1, "position": -1}\n', "rows.jsonl:1: 'position'"),
    ('{"item": "q", "candidate": "a", "judge": "j", "score": NaN}\n', "rows.jsonl:1: not valid JSON (NaN is not"),
    ('{"item": "q", "candidate": ["a"], "judge": "j", "score": 1}\n', "rows.jsonl:1: 'candidate' must be text"),
    ("{not json\n", "rows.jsonl:1: not valid JSON"),
    ("\n\n", "rows.jsonl: no ballot rows"),
])
def test_bad_rows_are_named_by_their_line(tmp_path, text, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(text)
    with pytest.raises(BallotError) as error:
        rank_ballots(path)
    assert message in str(error.value)


def test_csv_ballots_and_labels(tmp_path):
    ballots = tmp_path / "scores.csv"
    ballots.write_text("item,candidate,judge,score,notes\nq1,a,j1,8,fine\nq1,b,j1,3,\nq1,a,j2,7,\nq1,b,j2,4,\n"
                       "q2,a,j1,2,\nq2,b,j1,9,\n")
    labels = tmp_path / "right.csv"
    labels.write_text("item,best,order\nq1,a,\nq2,,b>a\n")
    report = rank_ballots(ballots, labels=labels)
    assert [i.ranking[0].member for i in report.items] == ["a", "b"]
    assert report.ignored_columns == ["notes"], "a column not used is said, not dropped in silence"
    assert report.accuracy[0].accuracy == 1.0
    broken = tmp_path / "broken.csv"
    broken.write_text("item,candidate,judge,score\nq1,a,j1,8\nq1,b,j1\n")
    with pytest.raises(BallotError, match=r"broken.csv:3: 3 fields, but the header has 4"):
        rank_ballots(broken)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("item,best\nq1,a\nq2,c\n")
    with pytest.raises(BallotError, match=r"wrong.csv:3: item 'q2' has no candidate 'c' \(its candidates: a, b\)"):
        rank_ballots(ballots, labels=wrong)
    twice = tmp_path / "twice.csv"
    twice.write_text("item,best\nq1,a\nq1,b\n")
    with pytest.raises(BallotError, match=r"twice.csv:3: item 'q1' is already labelled on line 2"):
        rank_ballots(ballots, labels=twice)


def test_unknown_options_and_missing_files_are_clear(tmp_path):
    with pytest.raises(BallotError, match="unknown mode 'batch'; choose one of two-pass, online"):
        rank_ballots(pair_items(), mode="batch")
    with pytest.raises(BallotError, match="unknown weighting 'popular'"):
        rank_ballots(pair_items(), weighting="popular")
    with pytest.raises(BallotError, match="no such file"):
        rank_ballots(tmp_path / "absent.jsonl")


def test_judge_summary_reports_calibration_and_weight():
    judges = {j.judge: j for j in rank_ballots(pair_items()).judges}
    assert judges["wide"].sd > 10 * judges["n1"].sd
    assert judges["n1"].mean == pytest.approx(0.0) and judges["n1"].items == 12
    assert all(0.1 <= j.weight <= 1.0 for j in judges.values())
    assert not math.isnan(judges["wide"].mean)
