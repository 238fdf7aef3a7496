"""The ranking stage on its own: scores in, a calibrated ranking out; history read and folded through the store."""

from __future__ import annotations

import pytest

from council.pipeline.answer import survivor_problem
from council.pipeline.rank_stage import (
    HistoryRead,
    build_sheet,
    rank_answers,
    read_history_ahead,
    reviewer_key,
    unranked,
)
from council.pipeline.review_stage import review_answers
from council.ranking.sheet import ReviewerHistory
from council.storage import Store
from tests.pipeline.stages import answer, context, member

ANSWERS = [answer("a", "a: quality=9"), answer("b", "b: quality=6"), answer("c", "c: quality=2")]


async def ranked_run(calibration, read_ahead=False):
    ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-")})
    # As the orchestrator does: the history read starts as the reviews go out.
    ahead = read_history_ahead(ctx, calibration) if read_ahead else None
    reviews = await review_answers(ctx, ANSWERS, {})
    return ctx, reviews, await rank_answers(ctx, ANSWERS, reviews, calibration, ahead)


async def test_reviews_become_a_ranking_and_history_is_kept():
    store = Store(":memory:")
    try:
        ctx, reviews, ranked = await ranked_run(store)
        assert [e.member for e in ranked.ranking] == ["a", "b", "c"] and ranked.problems == []
        assert all(e.n_reviews == 2 for e in ranked.ranking) and ranked.agreement.n_reviewers == 3
        # The result says what ranked it: the method, calibrated or not, the weighting and each weight.
        agreement = ranked.agreement
        assert (agreement.method, agreement.calibrated, agreement.weighting) == ("calibrated", True, "outlier")
        assert set(agreement.reviewer_weights) == {"a", "b", "c"}
        assert all(0.1 <= w <= 1.0 for w in agreement.reviewer_weights.values())
        keys = [reviewer_key(ctx.providers[name]) for name in "abc"]
        assert store.reviewer_history(keys) == {}, "the update is written behind the run"
        await ranked.history_write
        assert set(store.reviewer_history(keys)) == set(keys), "every reviewer's history is stored"
        sheet = build_sheet(ANSWERS, reviews, ctx.plan.rubric)
        assert sheet.candidates == ("a", "b", "c") and sheet.overall.shape == (3, 3)
    finally:
        store.close()


@pytest.mark.parametrize("read_ahead", [False, True], ids=["read-when-ranking", "read-ahead"])
async def test_lost_history_costs_calibration_not_the_ranking(read_ahead):
    store = Store(":memory:")
    try:
        store.db.execute("DROP TABLE reviewer_stats")  # a damaged database: the history table is gone
        _, _, ranked = await ranked_run(store, read_ahead)
    finally:
        store.close()
    assert [e.member for e in ranked.ranking] == ["a", "b", "c"]
    assert ranked.calibration == []
    [problem] = ranked.problems
    assert problem.startswith("reviewer calibration history could not be read (reading reviewer statistics "
                              "failed: no such table: reviewer_stats")
    assert ranked.history_write is None, "nothing is folded into history that could not be read"
    assert ":memory:" not in problem, "the cause leaves the database's location out"


async def test_history_read_ahead_calibrates_the_ranking_as_a_read_when_ranking_does():
    outcomes = []
    for read_ahead in (False, True):
        store = Store(":memory:")
        try:
            ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-")})
            key = reviewer_key(ctx.providers["a"])
            history = {key: ReviewerHistory(40, 6.0, 90.0, 30, 12.0)}
            store.update_reviewer_history([key], lambda _current, history=history: history)
            _, _, ranked = await ranked_run(store, read_ahead)
            outcomes.append(ranked)
        finally:
            store.close()
    by_reading, ahead = outcomes
    assert [(c.reviewer, c.count) for c in ahead.calibration] == [("a", 40)]
    assert ahead.calibration == by_reading.calibration and ahead.ranking == by_reading.ranking


async def test_a_read_ahead_missing_a_reviewer_is_read_again():
    store = Store(":memory:")
    try:
        ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-")})
        key = reviewer_key(ctx.providers["a"])
        store.update_reviewer_history([key], lambda _current: {key: ReviewerHistory(40, 6.0, 90.0, 30, 12.0)})

        async def nothing_stored():
            return {}

        partial = HistoryRead(frozenset({key}), nothing_stored())  # reviewers b and c were not read
        reviews = await review_answers(ctx, ANSWERS, {})
        ranked = await rank_answers(ctx, ANSWERS, reviews, store, partial)
        assert [(c.reviewer, c.count) for c in ranked.calibration] == [("a", 40)], "read again, from the store"
        partial.stored.close()
    finally:
        store.close()


async def test_two_answers_are_calibrated_once_the_reviewers_have_history():
    store = Store(":memory:")
    try:
        ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-")})
        pair = ANSWERS[:2]
        first = await rank_answers(ctx, pair, await review_answers(ctx, pair, {}), store)
        assert first.agreement.calibrated is False, "no history yet: two answers rank by raw means"
        await first.history_write
        second = await rank_answers(ctx, pair, await review_answers(ctx, pair, {}), store)
        assert second.agreement.calibrated is True and second.agreement.weighting == "outlier"
        assert [e.member for e in second.ranking] == ["a", "b"]
    finally:
        store.close()


async def test_a_lone_answer_is_ranked_unreviewed():
    ctx, _ = context({"a": member("-"), "b": member("-")})
    ranked = await rank_answers(ctx, ANSWERS[:1], [], None)
    assert [(e.member, e.rank, e.n_reviews) for e in ranked.ranking] == [("a", 1, 0)]
    assert [e.member for e in unranked(ANSWERS)] == ["a", "b", "c"]


def test_too_few_survivors_are_described():
    assert survivor_problem([]) == "every answer was blocked by the safety gate"
    assert survivor_problem(ANSWERS[:1]) == "only one answer survived (a): no review"
    assert survivor_problem(ANSWERS[:2]).startswith("only two answers survived")
    assert survivor_problem(ANSWERS) is None
