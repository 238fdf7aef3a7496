"""What a run costs: per call, per stage, per member and in all, against the fake upstream's reported usage."""

from __future__ import annotations

import aiohttp
import pytest

from council import Council
from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import API_KEY, quality_judge, serve

# Every call of every member reports the same usage, so each call's cost is easy to work out by hand.
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100}
PRICES = {
    "alpha": {"input_per_mtok": 2.0, "output_per_mtok": 10.0},  # 1000*2 + 100*10 = 3000 -> $0.003 a call
    # 400 of the 1000 prompt tokens cached: 600*1 + 400*0.5 + 100*4 = 1200 -> $0.0012 a call
    "beta": {"input_per_mtok": 1.0, "output_per_mtok": 4.0, "cached_input_per_mtok": 0.5},
    "gamma": None,
}


def config(fake: FakeLLMServer, prices: dict[str, dict[str, float] | None]) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake.base_url("openai"), **({"price": price} if price else {})}
                    for name, price in prices.items()],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
    })


def script(fake: FakeLLMServer, **extra_usage: dict[str, object]) -> None:
    for quality, name in enumerate(PRICES, start=5):
        usage = {**USAGE, **extra_usage.get(name, {})}
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} says 42. quality={quality}", quality_judge),
                                          usage=usage))


async def test_cost_per_call_stage_member_and_total(fake_llm):
    script(fake_llm, beta={"prompt_tokens_details": {"cached_tokens": 400}})
    async with Council(config(fake_llm, PRICES), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    cost = result.cost
    assert cost is not None and result.status == "complete"
    # alpha: answer, review, chairman; beta: answer, review; gamma: answer, review (no price).
    assert [(c.stage, c.member) for c in cost.calls if c.member == "alpha"] == [
        ("answers", "alpha"), ("reviews", "alpha"), ("chairman", "alpha")]
    assert {c.member: c.usd for c in cost.calls if c.stage == "answers"} == pytest.approx(
        {"alpha": 0.003, "beta": 0.0012, "gamma": None})
    assert all(c.source == ("computed" if c.member != "gamma" else None) for c in cost.calls)
    assert cost.by_member == pytest.approx({"alpha": 0.009, "beta": 0.0024})
    assert cost.by_stage == pytest.approx({"answers": 0.0042, "reviews": 0.0042, "chairman": 0.003})
    assert cost.total_usd == pytest.approx(0.0114)
    assert cost.partial is True and cost.unpriced == ["gamma"]


async def test_every_member_priced_gives_a_whole_total(fake_llm):
    script(fake_llm)
    prices = {**PRICES, "gamma": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}, "beta": PRICES["alpha"]}
    async with Council(config(fake_llm, prices), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert result.cost is not None and result.cost.partial is False and result.cost.unpriced == []
    assert result.cost.by_member == pytest.approx({"alpha": 0.009, "beta": 0.006, "gamma": 0.0})
    assert result.cost.total_usd == pytest.approx(0.015)


async def test_a_reported_cost_wins_over_the_computed_one(fake_llm):
    script(fake_llm, alpha={"cost": 0.5}, gamma={"cost": 0.25})
    async with Council(config(fake_llm, PRICES), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    cost = result.cost
    assert cost is not None
    alpha = [c for c in cost.calls if c.member == "alpha"]
    assert [c.usd for c in alpha] == [0.5, 0.5, 0.5] and {c.source for c in alpha} == {"reported"}
    # beta: no cached tokens this time: 1000*1 + 100*4 = 1400 -> $0.0014 a call, two calls.
    assert cost.by_member == pytest.approx({"alpha": 1.5, "beta": 0.0028, "gamma": 0.5})
    assert cost.partial is False, "gamma has no price, but its upstream reported what each call cost"
    assert result.usage.cost_usd is None, "beta's calls reported no cost, so the run's usage carries none"


async def test_no_prices_means_unknown_never_zero():
    async with Council.from_config(environ={}, store=False) as council:  # the simulated council: no prices
        result = await council.ask("Why is the sky blue?")
    assert result.cost is not None
    assert result.cost.total_usd is None and result.cost.partial is True
    assert set(result.cost.unpriced) == {a.member for a in result.answers}
    assert all(call.usd is None for call in result.cost.calls)


async def test_the_server_reports_cost_in_a_header_and_the_council_block(fake_llm):
    script(fake_llm)
    runner, server = await serve(fake_llm, config(fake_llm, PRICES), Store(":memory:"), API_KEY)
    try:
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {API_KEY}"}) as http:
            async with http.post(server.base_url + "/chat/completions", json={
                    "model": "council", "messages": [{"role": "user", "content": "What is six times seven?"}]}) as r:
                body = await r.json()
                headers = r.headers
            async with http.get(f"{server.base_url}/council/runs/{headers['x-council-run-id']}") as stored:
                run = await stored.json()
    finally:
        await runner.cleanup()
        await server.council.aclose()
    # No cached tokens here: alpha 3 calls x $0.003, beta 2 calls x $0.0014; gamma unpriced.
    assert float(headers["x-council-cost-usd"]) == pytest.approx(0.0118)
    assert headers["x-council-cost-partial"] == "true"
    assert body["council"]["cost"]["total_usd"] == pytest.approx(0.0118)
    assert body["council"]["cost"]["unpriced"] == ["gamma"]
    assert len(run["cost"]["calls"]) == 7
