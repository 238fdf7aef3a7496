"""The deliberation stage on its own: when a second round runs, and when it does not fit the budget."""

from __future__ import annotations

from council.config import Price
from council.pipeline.budget import RunBudget
from council.pipeline.stages import RUN_STAGES, run_stages
from council.review.revision import read_revision_task
from council.testing.scripted import honest_ballot, revision_reply
from council.types import ChatMessage
from tests.pipeline.stages import context, quality

PRICE = Price(input_per_mtok=10.0, output_per_mtok=10.0)
UP_TO_RANKING = RUN_STAGES[:[s.name for s in RUN_STAGES].index("ranking") + 1]
SECOND_ROUND = [s for s in RUN_STAGES if s.name in ("deliberation", "revisions", "second_review", "second_ranking")]


def tied_member(text: str, revised: str | None = None):
    """Answers ``text``, reviews by quality, and in a second round revises to ``revised`` (or keeps)."""
    def reply(messages: list[ChatMessage]) -> str:
        from council.review.prompt import read_review_task
        if (task := read_review_task(messages)) is not None:
            return honest_ballot(task, quality)
        if (revision := read_revision_task(messages)) is not None:
            return revision_reply(revision, revised)
        return text
    return reply


def tied_context():
    ctx, events = context({"a": tied_member("A quality=8"), "b": tied_member("B quality=8", "B better. quality=9"),
                           "c": tied_member("C quality=3")}, rounds=2, review={"rounds": 2})
    ctx.budget = RunBudget(limit_usd=10.0, prices=dict.fromkeys("abc", PRICE), max_output_tokens=1000)
    return ctx, events


async def test_a_second_round_that_does_not_fit_the_budget_is_skipped_with_the_reason():
    ctx, events = tied_context()
    so_far = await run_stages(ctx, UP_TO_RANKING)
    assert so_far.ranked is not None and so_far.ranked.tied_for_first, "the first round ends tied"
    ctx.budget.spent_usd = ctx.budget.limit_usd - 0.001  # what an expensive first round leaves
    after = await run_stages(ctx, SECOND_ROUND, so_far)
    rounds = after.deliberation
    assert rounds is not None and rounds.rounds == 1 and rounds.revisions == []
    assert rounds.reason.startswith("one round: the second could cost up to $")
    assert "while $0.0010 of the run's $10 budget is left" in rounds.reason
    assert after.ranked is so_far.ranked and after.answers == so_far.answers, "the first round stands"
    assert not any(e.kind == "revision" for e in events)


async def test_a_second_round_that_fits_runs_and_ranks_the_revised_answer_first():
    ctx, events = tied_context()
    so_far = await run_stages(ctx, UP_TO_RANKING)
    spent_in_round_one = ctx.budget.spent_usd
    after = await run_stages(ctx, SECOND_ROUND, so_far)
    rounds = after.deliberation
    assert rounds is not None and rounds.rounds == 2 and rounds.revised == ["b"]
    assert after.ranked is not None and after.ranked.ranking[0].member == "b"
    assert rounds.calls == 6 and rounds.tokens > 0, "3 revisions and 3 reviews"
    assert ctx.budget.spent_usd > spent_in_round_one and ctx.budget.reserved_usd == 0, "the round spent via the budget"
    assert [e.data["decision"] for e in events if e.kind == "revision"] != []


def broken_reviser(text: str):
    """Answers ``text``, reviews by quality, and crashes (a bug in the member, not a failed call) when revising."""
    def reply(messages: list[ChatMessage]) -> str:
        if read_revision_task(messages) is not None:
            raise RuntimeError("the member's code crashed")
        return tied_member(text)(messages)
    return reply


async def test_a_member_that_crashes_while_revising_keeps_its_first_answer_and_the_round_goes_on():
    ctx, _events = context({"a": tied_member("A quality=8"), "b": tied_member("B quality=8", "B better. quality=9"),
                           "c": broken_reviser("C quality=3")}, rounds=2)
    after = await run_stages(ctx, SECOND_ROUND, await run_stages(ctx, UP_TO_RANKING))
    rounds = after.deliberation
    assert rounds is not None and rounds.rounds == 2 and rounds.revised == ["b"]
    crashed = next(r for r in rounds.revisions if r.member == "c")
    assert crashed.decision == "failed" and crashed.error is not None
    assert crashed.error.message == "internal error: RuntimeError: the member's code crashed"
    assert "second round: revisions failed: c (upstream_error); their first answers stand" in after.degraded


def crashes_reviewing(text: str, trigger: str):
    """Answers ``text``; its review code has a bug that raises on an answer containing ``trigger``."""
    def reply(messages: list[ChatMessage]) -> str:
        from council.review.prompt import read_review_task
        task = read_review_task(messages)
        if task is not None and any(trigger in c.text for c in task.candidates):
            raise RuntimeError("the reviewer's code crashed")
        return tied_member(text)(messages)
    return reply


async def test_a_second_round_that_crashes_costs_the_round_not_the_run():
    ctx, events = context({"a": crashes_reviewing("A quality=8", "better"),
                           "b": tied_member("B quality=8", "B better. quality=9"), "c": tied_member("C quality=3")},
                          rounds=2)
    so_far = await run_stages(ctx, UP_TO_RANKING)
    after = await run_stages(ctx, SECOND_ROUND, so_far)
    rounds = after.deliberation
    assert rounds is not None and rounds.rounds == 1 and rounds.first_round is None
    assert rounds.reason == ("one round: the second round failed (internal error: RuntimeError: the reviewer's code "
                             "crashed); the first round stands")
    assert after.ranked is so_far.ranked and after.answers == so_far.answers, "the first round stands whole"
    assert after.degraded == (rounds.reason.removeprefix("one round: "),)
    assert [e.data["rounds"] for e in events if e.kind == "deliberation"] == [1]
