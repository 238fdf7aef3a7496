"""Budgets: a run admits a call only if its cost bound fits, and degrades instead of overspending."""

from __future__ import annotations

import pytest
import yaml

from council import Council
from council.config import CouncilConfig, load_config
from council.errors import ConfigError, InvalidRequestError
from council.pipeline.budget import IMAGE_TOKENS, prompt_tokens_bound
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from council.types import ChatMessage, ImageRef
from tests.server.conftest import quality_judge

PRICE = {"input_per_mtok": 100.0, "output_per_mtok": 300.0}
NAMES = ("alpha", "beta", "gamma")


def config(fake: FakeLLMServer, **budget: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake.base_url("openai"), "price": PRICE} for name in NAMES],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        # The fake's replies are short; a small output cap keeps each call's bound close to its real cost.
        "budget": {"max_output_tokens": 64, **budget},
    })


def script(fake: FakeLLMServer) -> None:
    for quality, name in enumerate(NAMES, start=6):
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} says 42. quality={quality}", quality_judge)))


async def full_cost(fake: FakeLLMServer) -> float:
    async with Council(config(fake), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert result.cost is not None and result.cost.total_usd is not None and not result.degraded
    fake.requests.clear()
    return result.cost.total_usd


async def test_a_run_three_times_over_its_budget_degrades_within_it(fake_llm):
    script(fake_llm)
    full = await full_cost(fake_llm)
    budget = full / 3
    async with Council(config(fake_llm), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", max_usd=budget)
    cost = result.cost
    assert cost is not None and cost.budget_usd == budget and cost.total_usd is not None
    assert cost.total_usd <= budget, f"spent {cost.total_usd} of {budget}"
    assert result.status == "complete" and result.final_answer is not None
    # The answers fit; reviews and the chairman's synthesis did not all fit, and the run says which were skipped.
    assert [a.status for a in result.answers] == ["ok", "ok", "ok"]
    budget_reason = next(r for r in result.degraded_reasons if r.startswith(f"budget ${budget:g} reached: not called:"))
    skipped_reviews = [r.reviewer for r in result.reviews if r.error is not None and r.error.reason == "budget"]
    chairman_skipped = result.final_answer.fallback
    assert skipped_reviews or chairman_skipped, "a third of the budget cannot pay for every review and the chairman"
    for reviewer in NAMES:
        assert (f"the review by {reviewer}" in budget_reason) == (reviewer in skipped_reviews)
    assert ("the chairman alpha's synthesis" in budget_reason) == chairman_skipped
    assert all("could cost up to $" in r.error.message for r in result.reviews if r.error)
    made = 3 + (3 - len(skipped_reviews)) + (0 if chairman_skipped else 1)
    assert len(fake_llm.requests) == made, "calls refused by the budget never reach the upstream"


async def test_a_budget_that_fits_changes_nothing(fake_llm):
    script(fake_llm)
    full = await full_cost(fake_llm)
    async with Council(config(fake_llm), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", max_usd=full * 100)
    assert not result.degraded and result.final_answer is not None and result.final_answer.source == "chairman"
    assert result.cost is not None and result.cost.total_usd == pytest.approx(full, rel=0.05)


async def test_a_budget_too_small_for_the_quorum_fails_the_run_saying_so(fake_llm):
    script(fake_llm)
    async with Council(config(fake_llm), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", max_usd=1e-9)
    assert result.status == "failed" and "quorum not met" in (result.error or "")
    assert all(a.error is not None and a.error.reason == "budget" for a in result.answers)
    assert fake_llm.requests == []


async def test_the_configured_cap_applies_and_a_request_cannot_raise_it(fake_llm):
    script(fake_llm)
    async with Council(config(fake_llm, max_usd_per_run=1e-9), store=False, environ={}) as council:
        with pytest.raises(InvalidRequestError, match=r"max_usd 5 is above the configured budget.max_usd_per_run"):
            await council.ask("What is six times seven?", max_usd=5)
        result = await council.ask("What is six times seven?")
    assert result.status == "failed" and result.cost is not None and result.cost.budget_usd == 1e-9


def test_a_budget_without_prices_stops_the_config(fake_llm, tmp_path):
    raw = config(fake_llm).model_dump(mode="json", exclude_none=True)
    raw["members"][1].pop("price")
    raw["budget"]["max_usd_per_run"] = 1.0
    path = tmp_path / "council.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="a budget needs a price on every member; no price: beta"):
        load_config(path, environ={})


def test_an_attached_image_counts_toward_a_calls_bound():
    text = ChatMessage(role="user", content="x" * 30)
    pixel = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
             "kgAAAABJRU5ErkJggg==")
    with_image = text.model_copy(update={"images": (ImageRef(url=pixel),)})
    assert prompt_tokens_bound([text]) == 10 + 8
    assert prompt_tokens_bound([with_image]) == 10 + 8 + IMAGE_TOKENS


async def test_an_upstream_that_over_reports_its_usage_is_counted_named_and_stops_the_run_at_the_cap(fake_llm):
    script(fake_llm)
    full = await full_cost(fake_llm)
    # beta's upstream says every reply took 50 times the output tokens the call allowed.
    fake_llm.script("model-beta", Step(reply=council_member("beta says 42. quality=7", quality_judge),
                                       usage={"completion_tokens": 64 * 50}))
    async with Council(config(fake_llm), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?", max_usd=full * 2)
    reason = next(r for r in result.degraded_reasons if r.startswith("upstream over-reported its usage"))
    assert "beta reported 3200 output tokens for a call allowed 64" in reason
    beta = result.answer("beta")
    assert beta is not None and beta.usage.completion_tokens == 3200, "what it reported is what is counted"
    assert any(r.startswith(f"budget ${full * 2:g} reached: not called:") for r in result.degraded_reasons), \
        "once over the cap, no further call is made"
