"""review.both_orders: each reviewer scores the answers in two orders, the ballots are averaged, consistency reported.

The stage tests run simulated members through reply functions; the run
tests go over real HTTP to the fake upstream and read what it received.
A reviewer with a position bias (it favours whatever it is shown first) is
what the consistency figure exists to expose.
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console

from council import Council, CouncilConfig, CouncilResult
from council.cli.render import position_line, render_report
from council.cli.rich_report import render_rich_report
from council.config import load_config, simulated_config_path
from council.pipeline.both_orders import second_order
from council.pipeline.call_reuse import reused_in
from council.pipeline.review_stage import presentation_order, review_answers
from council.review.prompt import ReviewTask, read_review_task
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, honest_ballot, request_messages
from council.types import ChatMessage
from tests.pipeline.stages import answer, context, member, quality

ANSWERS = [answer(name, f"{name} says 42. quality={q}") for name, q in
           (("a", 9), ("b", 7), ("c", 5), ("d", 3), ("e", 1))]


def shown_members(task: ReviewTask) -> list[str]:
    """Who wrote each candidate, in the order shown (the test's answers name their writer first)."""
    return [c.text.split(" says", 1)[0].strip() for c in task.candidates]


def first_shown_wins(task: ReviewTask) -> str:
    """A ballot by quality, except that the answer shown first gets full marks: a pure position bias."""
    shown_first = task.candidates[0].text
    return honest_ballot(task, lambda text: 10 if text == shown_first else quality(text))


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_the_second_order_moves_every_answer(count):
    order = [f"m{n}" for n in range(count)]
    second = second_order(order)
    assert sorted(second) == order and second[0] == order[-1], "the last shown comes first"
    assert all(second.index(name) != slot for slot, name in enumerate(order))


async def test_each_reviewer_scores_both_orders_and_its_record_is_their_mean():
    seen: list[list[str]] = []

    def recording(messages: list[ChatMessage]) -> str:
        task = read_review_task(messages)
        if task is not None:
            seen.append(shown_members(task))
        return member("-")(messages)

    replies = {"a": recording, **{name: member("-") for name in "bcde"}}
    ctx, events = context(replies, review={"both_orders": True})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    assert len(seen) == 2, "two review calls for one reviewer"
    first, second = seen
    assert sorted(first) == sorted(second) == ["b", "c", "d", "e"]
    assert all(second.index(name) != slot for slot, name in enumerate(first)), "every answer moved"
    record = reviews["a"]
    assert [b.order for b in record.order_ballots] == [first, second] and record.order == first
    assert record.position_consistency == "held", "an honest reviewer's top pick does not follow the order"
    for name, entry in record.scores.items():
        ballots = [b.overall[name] for b in record.order_ballots]
        assert entry.overall == pytest.approx(sum(ballots) / 2, abs=1e-4)
    assert record.ranking == ["b", "c", "d", "e"]
    assert all(r.position_consistency == "held" for r in reviews.values())
    assert [e.kind for e in events].count("review") == 5, "one event per reviewer, for its merged record"


async def test_a_reviewer_biased_to_the_first_slot_changes_its_top_pick_with_the_order():
    def biased(messages: list[ChatMessage]) -> str:
        task = read_review_task(messages)
        return first_shown_wins(task) if task is not None else "a says 42. quality=9"

    ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-"), "z": biased},
                     review={"both_orders": True})
    answers = [*ANSWERS[:3], answer("z", "z says 42. quality=1")]
    reviews = {r.reviewer: r for r in await review_answers(ctx, answers, {})}
    z = reviews["z"]
    assert z.position_consistency == "changed"
    tops = [b.top for b in z.order_ballots]
    assert tops == [[b.order[0]] for b in z.order_ballots] and tops[0] != tops[1], "each ballot crowned its first"
    assert {r.reviewer: r.position_consistency for r in reviews.values() if r.reviewer != "z"} == \
        {"a": "held", "b": "held", "c": "held"}
    # Averaged, the bonus lands on two answers by halves: the honestly best one stays on top.
    assert z.ranking[0] == "a"


async def test_one_failed_order_leaves_the_other_ballot_standing_and_consistency_unknown():
    # The run's seed is 7: the first order is this one, and the second shows its last answer first.
    last_of_first = presentation_order(7, "a", ["b", "c", "d", "e"])[-1]

    def fails_in_the_second_order(messages: list[ChatMessage]) -> str:
        task = read_review_task(messages)
        if task is not None and shown_members(task)[0] == last_of_first:
            return "I would rather not say."
        return member("-")(messages)

    ctx, _ = context({"a": fails_in_the_second_order, **{name: member("-") for name in "bcde"}},
                     review={"both_orders": True})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    record = reviews["a"]
    failed = [b for b in record.order_ballots if b.status == "failed"]
    stands = [b for b in record.order_ballots if b.status == "ok"]
    assert len(failed) == 1 and failed[0].order[0] == last_of_first and failed[0].error.reason == "parse"
    assert record.status == "ok" and record.position_consistency == "unknown"
    assert position_line(ctx.result.model_copy(update={"reviews": list(reviews.values())})) == \
        "position consistency: 4 of 4 reviewers kept their top pick; top pick held in both orders: b, c, d, e; " \
        "unknown, one order's call failed: a"
    assert record.order == stands[0].order and record.order_ballots[0] == stands[0], "the first order stands"
    assert {name: entry.overall for name, entry in record.scores.items()} == stands[0].overall
    assert record.attempts == 1 + 2, "the standing ballot's call, and the failed one asked twice"


async def test_both_orders_failing_is_a_failed_review_with_no_consistency():
    def garbled(messages: list[ChatMessage]) -> str:
        return "They all look fine to me." if read_review_task(messages) is not None else "a says 42."

    ctx, _ = context({"a": garbled, **{name: member("-") for name in "bcde"}}, review={"both_orders": True})
    record = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}["a"]
    assert record.status == "failed" and record.error is not None and record.error.reason == "parse"
    assert [b.status for b in record.order_ballots] == ["failed", "failed"]
    assert record.position_consistency is None and record.attempts == 4


async def test_without_the_option_one_call_per_reviewer_and_no_consistency():
    calls: list[int] = []

    def counting(messages: list[ChatMessage]) -> str:
        calls.append(1)
        return member("-")(messages)

    ctx, _ = context({"a": counting, **{name: member("-") for name in "bcde"}})
    reviews = {r.reviewer: r for r in await review_answers(ctx, ANSWERS, {})}
    assert len(calls) == 1
    assert reviews["a"].position_consistency is None and reviews["a"].order_ballots == []
    assert "position_consistency" not in reviews["a"].model_dump(mode="json")


# Over real HTTP: the fake upstream says what each reviewer was sent, and the run's cost counts every call.

NAMES = ("alpha", "beta", "gamma", "delta")
PRICE = {"input_per_mtok": 100.0, "output_per_mtok": 300.0}


def run_config(fake: FakeLLMServer, both_orders: bool, **extra: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai"),
                     "price": PRICE} for n in NAMES],
        "chairman": "alpha", "retry": {"max_attempts": 1}, "budget": {"max_output_tokens": 64},
        "review": {"both_orders": both_orders, "seed": 3}, **extra})


def delta_is_position_biased(task: ReviewTask, request: RecordedRequest) -> str:
    return first_shown_wins(task)


def script(fake: FakeLLMServer) -> None:
    for n, name in enumerate(NAMES):
        fake.script(f"model-{name}", Step(reply=council_member(
            f"{name} says 42. quality={8 - 2 * n}", quality,
            review=delta_is_position_biased if name == "delta" else None)))


def review_requests(fake: FakeLLMServer, name: str) -> list[list[str]]:
    orders = []
    for request in fake.requests_for(f"model-{name}"):
        task = read_review_task(request_messages(request))
        if task is not None:
            orders.append(shown_members(task))
    return orders


async def test_a_run_over_http_sends_two_orders_per_reviewer_and_reports_each_reviewers_consistency(fake_llm):
    script(fake_llm)
    store = Store(":memory:")
    async with Council(run_config(fake_llm, both_orders=True), store=store, environ={}) as council:
        result = await council.ask("What is six times seven?")
    kept = store.get(result.run_id)
    store.close()
    assert result.status == "complete" and not result.degraded, result.degraded_reasons
    for name in NAMES:
        first, second = review_requests(fake_llm, name)
        assert sorted(first) == sorted(second) and len(first) == 3
        assert all(second.index(m) != slot for slot, m in enumerate(first)), f"{name}: every answer moved"
    reviews = {r.reviewer: r for r in result.reviews}
    assert {name: r.position_consistency for name, r in reviews.items()} == \
        {"alpha": "held", "beta": "held", "gamma": "held", "delta": "changed"}
    assert result.ranking[0].member == "alpha"
    assert kept is not None and kept.reviews == result.reviews, "the store keeps both ballots and the consistency"
    stored = result.model_dump(mode="json")["reviews"]
    assert [r["position_consistency"] for r in stored] == ["held", "held", "held", "changed"]
    assert all(len(r["order_ballots"]) == 2 for r in stored)
    assert len(fake_llm.requests) == 4 + 2 * 4 + 1, "four answers, two reviews each, one synthesis"
    said = ("position consistency: 3 of 4 reviewers kept their top pick; top pick held in both orders: alpha, beta, "
            "gamma; changed with the order: delta")
    assert said in render_report(result)
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(render_rich_report(result))
    assert said in " ".join(console.export_text().split())


async def test_both_orders_doubles_the_review_cost_the_run_counts_and_its_budget_holds(fake_llm):
    script(fake_llm)
    costs, totals = {}, {}
    for both in (False, True):
        async with Council(run_config(fake_llm, both_orders=both), store=False, environ={}) as council:
            result = await council.ask("What is six times seven?")
        assert result.cost is not None
        costs[both] = sum(c.usd or 0.0 for c in result.cost.calls if c.stage == "reviews")
        totals[both] = result.cost.total_usd or 0.0
        fake_llm.requests.clear()
    assert costs[True] == pytest.approx(2 * costs[False], rel=0.2), "two calls per reviewer, about the same size"
    # A budget that pays for one order's reviews (and the rest of the run) cannot pay for both orders'.
    budget = totals[False] + costs[False] / 2
    async with Council(run_config(fake_llm, both_orders=True), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", max_usd=budget)
    assert result.cost is not None and result.cost.total_usd is not None and result.cost.total_usd <= budget
    refused = [b for r in result.reviews for b in r.order_ballots if b.error is not None and b.error.reason == "budget"]
    assert refused, "some of the doubled review calls did not fit"
    sent = [r for r in fake_llm.requests if read_review_task(request_messages(r)) is not None]
    assert len(sent) == 8 - len(refused), "a call the budget refused never reached the upstream"


async def test_kept_replies_answer_both_orders_of_a_rerun_each_under_its_own_key(fake_llm, tmp_path):
    script(fake_llm)
    config = run_config(fake_llm, both_orders=True, storage={"path": str(tmp_path / "runs.db")})
    async with Council(config, environ={}) as council:
        plan = replace(council.plan("What is six times seven?"), reuse_calls=True, reuse_scope="test", shuffle_seed=7)
        first = await council.ask(plan)
        calls = len(fake_llm.requests)
        second = await council.ask(plan)
    assert calls == 4 + 2 * 4 + 1 and len(fake_llm.requests) == calls, "the rerun asked nothing"
    assert all(r.reused for r in second.reviews)
    assert reused_in(second)["review"] == 2 * 4, "both orders' calls were kept, apart"
    def read(result: CouncilResult) -> list[list[tuple[object, ...]]]:  # the hashes carry each run's nonce
        return [[(b.order, b.ranking, b.overall, b.top) for b in r.order_ballots] for r in result.reviews]

    assert read(second) == read(first)
    assert [r.position_consistency for r in second.reviews] == ["held", "held", "held", "changed"]


async def test_the_shipped_simulated_council_reviews_in_both_orders_as_a_real_one_does():
    shipped = load_config(simulated_config_path(), {})
    config = shipped.model_copy(update={"review": shipped.review.model_copy(update={"both_orders": True})})
    async with Council(config, store=False, environ={}) as council:
        result = await council.ask("Why is the sky blue?")
    assert result.simulated and result.status == "complete"
    answered = [a for a in result.answers if a.status == "ok"]
    assert len(result.reviews) == len(answered) >= 3
    for review in result.reviews:
        first, second = review.order_ballots
        assert first.status == second.status == "ok" and review.position_consistency in ("held", "changed")
        assert all(second.order.index(m) != slot for slot, m in enumerate(first.order))
        assert set(first.labels.values()) == set(second.labels.values()) == set(review.scores)
        for name, entry in review.scores.items():
            assert entry.overall == pytest.approx((first.overall[name] + second.overall[name]) / 2, abs=1e-4)
        held = first.top == second.top
        assert review.position_consistency == ("held" if held else "changed")
