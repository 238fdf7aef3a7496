"""Peer review on its own: who reviews whom, anonymized and shuffled; a bad ballot is a failed review, with why."""

from __future__ import annotations

import json

import pytest

from council.pipeline.plan import judging_for
from council.pipeline.review_stage import presentation_order, review_answers, reviewers_and_candidates
from council.presets import CouncilPreset
from council.result import JudgingRecord
from council.review.prompt import read_review_task
from council.types import ChatMessage
from tests.pipeline.stages import answer, context, member, quality

ANSWERS = [
    answer("a", "a says 42. quality=9"),
    answer("b", "b says 42. quality=6"),
    answer("c", "c says 41. quality=2"),
]


async def test_each_member_reviews_the_others_under_labels():
    ctx, events = context({"a": member("-"), "b": member("-"), "c": member("-")})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    assert set(reviews) == {"a", "b", "c"} and all(r.status == "ok" for r in reviews.values())
    assert set(reviews["a"].scores) == {"b", "c"}, "no reviewer scores itself by default"
    assert reviews["a"].scores["b"].overall > reviews["a"].scores["c"].overall
    assert set(reviews["a"].labels) == {"Response A", "Response B"}
    assert [e.kind for e in events].count("review") == 3 and events[0].data == {"stage": "review"}


async def test_reviewers_see_labels_never_names():
    shown: list[str] = []

    def reviewer(messages: list[ChatMessage]) -> str:
        shown.append("\n".join(m.content for m in messages))
        return member("-")(messages)

    ctx, _ = context({"a": reviewer, "b": member("-"), "c": member("-")})
    await review_answers(ctx, ANSWERS, {})
    assert len(shown) == 1 and "Response A" in shown[0] and "Response B" in shown[0]
    assert "b says" in shown[0] and "c says" in shown[0]
    assert "sim-b" not in shown[0] and "sim-c" not in shown[0], "no model or member name reaches the reviewer"
    task = read_review_task([ChatMessage(role="user", content=shown[0])])
    assert task is None or all(c.label.startswith("Response ") for c in task.candidates)


async def test_a_garbled_ballot_is_asked_again_then_recorded_as_failed():
    calls: list[int] = []

    def garbled(messages: list[ChatMessage]) -> str:
        calls.append(len(messages))
        return "I think they are all fine."

    ctx, _ = context({"a": garbled, "b": member("-"), "c": member("-")})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    assert reviews["a"].status == "failed" and reviews["a"].error.reason == "parse"
    assert reviews["a"].attempts == 2 and calls[1] == calls[0] + 2, "the retry adds the reply and the correction"
    assert reviews["b"].status == "ok"


async def test_a_reviewer_that_echoes_its_instructions_then_answers_in_a_json_fence_is_counted():
    calls: list[int] = []

    def echoing(messages: list[ChatMessage]) -> str:
        # Restates the prompt's reply section, verdict tag and placeholder JSON included, then answers in a fence.
        calls.append(len(messages))
        task = read_review_task(messages)
        assert task is not None
        system = messages[0].content
        instructions = system[system.index("## Your reply"):]
        assert f'<verdict nonce="{task.nonce}">' in instructions
        scores = {c.label: quality(c.text) for c in task.candidates}
        ballot = {"ranking": sorted(scores, key=lambda label: -scores[label]), "evaluations": {
            label: {**dict.fromkeys(task.dimension_ids, score), "overall": score, "notes": "Checked."}
            for label, score in scores.items()}}
        return f"My instructions:\n{instructions}\n\nMy verdict:\n```json\n{json.dumps(ballot, indent=2)}\n```"

    ctx, _ = context({"a": echoing, "b": member("-"), "c": member("-")})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    assert reviews["a"].status == "ok", reviews["a"].error
    assert reviews["a"].attempts == 1 and len(calls) == 1, "read the first time, not asked again"
    assert reviews["a"].ranking == ["b", "c"]
    assert reviews["a"].scores["b"].scores == dict.fromkeys(ctx.plan.rubric.dimension_ids(), 6)
    assert reviews["a"].scores["b"].overall > reviews["a"].scores["c"].overall


async def test_fewer_than_two_survivors_get_no_review():
    ctx, events = context({"a": member("-"), "b": member("-")})
    assert await review_answers(ctx, [ANSWERS[0], answer("b", "x", status="blocked")], {}) == []
    assert events == []


def test_plan_and_order_are_deterministic_per_seed():
    plan = reviewers_and_candidates(ANSWERS, include_self=False)
    assert plan == {"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}
    assert reviewers_and_candidates(ANSWERS, include_self=True)["a"] == ["a", "b", "c"]
    order = presentation_order(7, "a", ["b", "c", "d", "e"])
    assert order == presentation_order(7, "a", ["b", "c", "d", "e"]) and sorted(order) == ["b", "c", "d", "e"]
    assert any(presentation_order(seed, "a", ["b", "c", "d", "e"]) != order for seed in range(8))


def test_a_judge_never_scores_its_own_answer_whatever_include_self_says():
    for include_self in (False, True):
        assert reviewers_and_candidates(ANSWERS, include_self, judges=["a", "b"]) == {"a": ["b", "c"], "b": ["a", "c"]}
        assert reviewers_and_candidates(ANSWERS, include_self, judges=["z"]) == {"z": ["a", "b", "c"]}
    only_the_judge = [ANSWERS[0], answer("b", "blocked", status="blocked")]
    assert reviewers_and_candidates(only_the_judge, False, judges=["a", "b"]) == {"b": ["a"]}, "nothing left for a"


@pytest.mark.parametrize(("preset", "answering", "expected"), [
    ({"judge": "c"}, ["a", "b"], JudgingRecord(policy="judge_does_not_answer", judge="c")),
    ({"judge": "c"}, ["a", "b", "c"], JudgingRecord(policy="second_judge", judge="c", second_judge="a")),
    ({"judge": "a"}, ["a", "b", "c"], JudgingRecord(policy="second_judge", judge="a", second_judge="b")),
    ({"judge": "a", "second_judge": "c"}, ["a", "b"], JudgingRecord(policy="second_judge", judge="a",
                                                                   second_judge="c")),
    ({"judge": "a"}, ["a"], JudgingRecord(policy="second_judge", judge="a", second_judge="b")),
])
def test_the_judging_policy_follows_whether_the_judge_answers(preset, answering, expected):
    judging = judging_for(CouncilPreset(review="judge", **preset), answering, ["a", "b", "c"])
    assert judging == expected and judging.reviewers() == [expected.judge, *filter(None, [expected.second_judge])]
    assert judging_for(None, answering, ["a", "b", "c"]) is None
    assert judging_for(CouncilPreset(), answering, ["a", "b", "c"]) is None, "a peers preset has no judge"
