"""Council.plan: one validated, frozen run request, and Council.ask running it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from council import Council, InvalidRequestError, RunPlan
from council.config import CouncilConfig
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from council.types import GenerationParams
from tests.server.conftest import quality_judge

PRICE = {"input_per_mtok": 100.0, "output_per_mtok": 300.0}
NAMES = ("alpha", "beta", "gamma", "delta")
QUESTION = "What is six times seven?"


def config(fake: FakeLLMServer, unpriced: tuple[str, ...] = ("delta",), **extra: Any) -> CouncilConfig:
    return CouncilConfig.model_validate({
        # delta has no price (by default): a run with a budget may not call it.
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}", "base_url": fake.base_url("openai"),
                     **({"price": PRICE} if name not in unpriced else {})} for name in NAMES],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        "councils": {"judged": {"members": ["alpha", "beta"], "chairman": "none", "review": "judge", "judge": "gamma"},
                     "duo": {"members": ["beta", "gamma"], "chairman": "beta"}},
        **extra,
    })


def script(fake: FakeLLMServer) -> None:
    for quality, name in enumerate(NAMES, start=6):
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} says 42. quality={quality}", quality_judge)))


# Each bad request and the message Council.ask gave for it before plans existed.
BAD_REQUESTS = [
    ({"question": "   "}, "messages", "invalid question: the question is empty"),
    ({"question": []}, "messages", "invalid question: the message list is empty"),
    ({"question": [{"role": "assistant", "content": "hi"}]}, "messages",
     "invalid question: the conversation must end with a user message, not 'assistant'"),
    ({"question": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "?"},
                   {"role": "user", "content": "  "}]}, "messages",
     "invalid question: messages[2]: the last user message is empty"),
    ({"rounds": 3}, "rounds", "rounds must be 1 or 2, got 3"),
    ({"output_type": {"type": "object", "minProperties": -1}}, "output_type",
     "output_type is not a valid JSON Schema: -1 is less than the minimum of 0"),
    ({"members": ["alpha", "omega"]}, "members", "unknown members: omega; members are: alpha, beta, gamma, delta"),
    ({"members": []}, "members", "unknown members: (none chosen); members are: alpha, beta, gamma, delta"),
    ({"chairman": "omega"}, "chairman", "chairman 'omega' is not a member; members are: alpha, beta, gamma, delta"),
    ({"preset": "trio"}, "preset", "unknown preset 'trio'; presets: judged, duo"),
    ({"max_usd": 0}, "max_usd", "max_usd must be more than 0, got 0"),
    ({"max_usd": 1.0}, "max_usd",
     "a budget needs a price on every member it may call; no price: delta (add members[].price)"),
    ({"max_usd": 1.0, "members": ["alpha"], "chairman": "delta"}, "max_usd",
     "a budget needs a price on every member it may call; no price: delta (add members[].price)"),
]


@pytest.mark.parametrize(("request_", "option", "message"), BAD_REQUESTS)
async def test_a_bad_request_is_refused_by_plan_and_ask_alike(fake_llm, request_, option, message):
    options = dict(request_)
    question = options.pop("question", QUESTION)
    async with Council(config(fake_llm), store=False, environ={}) as council:
        with pytest.raises(InvalidRequestError) as planned:
            council.plan(question, **options)
        with pytest.raises(InvalidRequestError) as asked:
            await council.ask(question, **options)
    assert str(planned.value) == str(asked.value) == message
    assert planned.value.option == option
    assert fake_llm.requests == []


async def test_a_request_cannot_raise_the_configured_cap(fake_llm):
    capped = config(fake_llm, unpriced=(), budget={"max_usd_per_run": 0.5})
    async with Council(capped, store=False, environ={}) as council:
        above = r"^max_usd 5 is above the configured budget.max_usd_per_run \(0.5\)$"
        with pytest.raises(InvalidRequestError, match=above):
            council.plan(QUESTION, members=["alpha"], max_usd=5)
        assert council.plan(QUESTION, members=["alpha"]).budget_usd == 0.5


async def test_a_preset_fills_the_plan_and_arguments_still_win(fake_llm):
    async with Council(config(fake_llm), store=False, environ={}) as council:
        plan = council.plan(QUESTION, preset="judged", max_usd=0.25)
        assert plan.members == ("alpha", "beta") and plan.chairman is None and plan.preset == "judged"
        assert plan.judging is not None and plan.judges == ["gamma"]
        # The judge is called too, so the budget needs its price, and its account covers it.
        assert plan.callers == ["alpha", "beta", "gamma"] and plan.budget_usd == 0.25
        budget = plan.new_budget(council.config)
        assert budget is not None and sorted(budget.prices) == ["alpha", "beta", "gamma"]
        chosen = council.plan(QUESTION, preset="duo", chairman="alpha", members=["gamma"])
        assert chosen.members == ("gamma",) and chosen.chairman == "alpha" and chosen.judging is None
        assert chosen.budget_usd is None and chosen.new_budget(council.config) is None


async def test_a_plan_is_frozen(fake_llm):
    async with Council(config(fake_llm), store=False, environ={}) as council:
        plan = council.plan(QUESTION, params=GenerationParams(temperature=0.2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.members = ("delta",)  # type: ignore[misc]
    assert isinstance(plan.messages, tuple) and isinstance(plan.members, tuple)
    assert plan.messages[0].content == QUESTION and plan.rubric.id == council.rubric.id


async def test_ask_runs_a_plan_as_planned(fake_llm):
    script(fake_llm)
    async with Council(config(fake_llm), store=False, environ={}) as council:
        plan = council.plan(QUESTION, members=["alpha", "beta", "gamma"], chairman="beta", max_usd=100.0)
        first = await council.ask(plan, run_id="first-run")
        second = await council.ask(plan)
    for result in (first, second):
        assert result.status == "complete", result.degraded_reasons
        assert [a.member for a in result.answers] == ["alpha", "beta", "gamma"]
        assert result.final_answer is not None and result.final_answer.by == "beta"
        assert result.cost is not None and result.cost.budget_usd == 100.0
    # Each run of a plan draws its own id and its own account: the second did not inherit the first's spending.
    assert first.run_id == "first-run" and second.run_id != first.run_id
    assert first.cost is not None and second.cost is not None
    assert second.cost.total_usd == pytest.approx(first.cost.total_usd, rel=0.05)
    asked = {request.body["model"] for request in fake_llm.requests}
    assert "model-delta" not in asked


async def test_options_given_with_a_plan_are_refused(fake_llm):
    async with Council(config(fake_llm), store=False, environ={}) as council:
        plan = council.plan(QUESTION)
        assert isinstance(plan, RunPlan)
        with pytest.raises(InvalidRequestError,
                           match=r"give them to Council.plan, not with the plan: max_usd, members$"):
            await council.ask(plan, members=["alpha"], max_usd=1.0)
        with pytest.raises(InvalidRequestError, match=r"not with the plan: chairman$"):
            await council.ask(plan, chairman=None)
    assert fake_llm.requests == []
