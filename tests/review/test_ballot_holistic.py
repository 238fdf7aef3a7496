"""ADR-016's holistic fallback in the ballot parser: its example ballot and its holistic ballot are read.

The ADR's example ballot scores four dimensions (no relevance) with an
``overall`` on the 1-10 scale; its holistic ballot is ``{"ranking": [...],
"scores": {...}}``. Under the default rubric (five dimensions) each is read
as holistic for its answers: what it scored counts, the holistic score (0 to
10) stands in for the rest. A ballot with neither is still refused, with why.
"""

from __future__ import annotations

import json

import pytest

from council.review.ballot import BallotParse, parse_ballot
from council.rubrics import load_rubric

RUBRIC = load_rubric("default", quiet=True)
LABELS = ["Response A", "Response B", "Response C"]
NONCE = "9c1d2e3f4a5b6c7d"

# The ADR's example ballot, in its shape: four of the default rubric's five dimensions, an overall, notes.
ADR_EXAMPLE = {
    "ranking": ["Response A", "Response B", "Response C"],
    "evaluations": {
        "Response A": {"accuracy": 9, "completeness": 8, "conciseness": 7, "clarity": 8, "overall": 8.15,
                       "notes": "Factually solid, a little long."},
        "Response B": {"accuracy": 7, "completeness": 9, "conciseness": 9, "clarity": 8, "overall": 8.0,
                       "notes": "Concise, one small error."},
        "Response C": {"accuracy": 6, "completeness": 6, "conciseness": 5, "clarity": 7, "overall": 6.0,
                       "notes": "Wordy, misses points."},
    },
}
# The ADR's holistic ballot: a ranking and one score per answer.
ADR_HOLISTIC = {"ranking": ["Response A", "Response B", "Response C"],
                "scores": {"Response A": 8, "Response B": 6, "Response C": 5}}


def parse(data: object, wrap: str = "fence") -> BallotParse:
    body = json.dumps(data, indent=2)
    # The ADR asks for "a JSON block" at the end of the reply; Council's prompt asks for a verdict tag.
    text = (f"My evaluation.\n\n```json\n{body}\n```" if wrap == "fence"
            else f'Done.\n<verdict nonce="{NONCE}">{body}</verdict>')
    return parse_ballot(text, LABELS, RUBRIC, NONCE)


def unit(normalized: dict[str, float], holistic: float) -> float:
    return round(RUBRIC.unit_score(normalized, holistic=holistic / 10), 4)


@pytest.mark.parametrize("wrap", ["fence", "verdict"])
def test_the_adr_example_ballot_is_read_as_holistic_for_the_missing_relevance(wrap):
    result = parse(ADR_EXAMPLE, wrap)
    assert result.ok, result.error
    assert result.ranking == LABELS
    a = result.evaluations["Response A"]
    assert a.missing == ("relevance",) and a.holistic == 8.15
    assert a.scores == {"accuracy": 9, "completeness": 8, "conciseness": 7, "clarity": 8}
    assert a.notes == "Factually solid, a little long."
    # The scored dimensions count as scored; the holistic 8.15 (of 10) stands in for relevance alone.
    assert set(a.normalized) == {"accuracy", "completeness", "conciseness", "clarity"}
    assert a.overall == unit(a.normalized, 8.15)
    by_hand = (0.35 * 8 / 9 + 0.1 * 0.815 + 0.2 * 7 / 9 + 0.15 * 6 / 9 + 0.2 * 7 / 9)
    assert a.overall == pytest.approx(by_hand, abs=1e-4)
    # Response C's accuracy 6 still meets the accuracy ceiling (7.0 on the scale: 0.667): it was scored.
    c = result.evaluations["Response C"]
    assert c.overall == unit(c.normalized, 6.0) and c.overall < a.overall
    assert result.reported_overall == {"Response A": 8.15, "Response B": 8.0, "Response C": 6.0}


def test_the_adr_holistic_ballot_is_read_with_every_dimension_missing():
    result = parse(ADR_HOLISTIC)
    assert result.ok, result.error
    assert {label: e.overall for label, e in result.evaluations.items()} == {
        "Response A": 0.8, "Response B": 0.6, "Response C": 0.5}
    assert all(e.missing == tuple(RUBRIC.dimension_ids()) and e.scores == {} for e in result.evaluations.values())


def test_a_full_ballot_is_still_read_as_the_rubric_and_a_scores_object_beside_it_is_ignored():
    full = {label: {**dict.fromkeys(RUBRIC.dimension_ids(), 7), "overall": 7, "notes": ""} for label in LABELS}
    result = parse({"ranking": LABELS, "evaluations": full, "scores": "not read"})
    assert result.ok, result.error
    assert all(e.holistic is None and e.missing == () for e in result.evaluations.values())
    assert result.evaluations["Response A"].overall == round(RUBRIC.unit_score(dict.fromkeys(RUBRIC.dimension_ids(),
                                                                                            6 / 9)), 4)


def test_scores_fill_in_for_an_answer_the_evaluations_leave_out_or_score_without_an_overall():
    data = json.loads(json.dumps(ADR_EXAMPLE))
    del data["evaluations"]["Response C"]
    del data["evaluations"]["Response B"]["overall"]
    data["scores"] = {"Response B": 7.5, "Response C": 4}
    result = parse(data)
    assert result.ok, result.error
    assert result.evaluations["Response B"].holistic == 7.5 and result.evaluations["Response B"].missing == (
        "relevance",)
    assert result.evaluations["Response C"].overall == 0.4


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"ranking": LABELS}, "evaluations is missing"),
        ({"ranking": LABELS, "evaluations": {label: {"accuracy": 9, "notes": ""} for label in LABELS}},
         "evaluations.Response A.relevance is missing"),
        ({"ranking": LABELS, "evaluations": {label: {"accuracy": 9, "overall": 85} for label in LABELS}},
         "evaluations.Response A.relevance is missing (its overall, 85, is not a holistic score from 0 to 10)"),
        ({"ranking": LABELS, "scores": {"Response A": 8, "Response B": 6}}, "scores is missing Response C"),
        ({"ranking": LABELS, "scores": {"Response A": 8, "Response B": "six", "Response C": 5}},
         "scores.Response B must be a number from 0 to 10, got 'six'"),
        # The fallback never hides a wrong value: a dimension it did score must still be valid.
        ({"ranking": LABELS, "evaluations": {label: {"accuracy": 11, "overall": 8} for label in LABELS}},
         "evaluations.Response A.accuracy must be an integer from 1 to 10, got 11"),
    ],
)
def test_a_ballot_with_neither_the_rubric_nor_a_holistic_score_still_fails_with_its_reason(data, error):
    result = parse(data)
    assert not result.ok and result.evaluations == {}
    assert result.error is not None and result.error.startswith(error), result.error
