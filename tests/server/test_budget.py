"""The server's budgets: council_max_usd per request, and budget.max_usd_per_day across runs and replicas."""

from __future__ import annotations

import aiohttp
import pytest

from council.config import CouncilConfig
from council.storage.spend import spent_on, today
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer
from tests.server.conftest import API_KEY, script, serve
from tests.waiting import wait_until

PRICE = {"input_per_mtok": 100.0, "output_per_mtok": 300.0}
QUESTION = {"role": "user", "content": "What is six times seven?"}


def config(fake: FakeLLMServer, **budget: object) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake.base_url("openai"), "price": PRICE} for name in ("alpha", "beta", "gamma")],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        "budget": {"max_output_tokens": 64, **budget},
    })


async def post(server, body: dict[str, object]) -> tuple[int, dict[str, str], dict[str, object]]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {API_KEY}"}) as http, \
            http.post(server.base_url + "/chat/completions", json=body) as response:
        return response.status, dict(response.headers), await response.json()


async def test_the_daily_cap_turns_new_runs_away_once_spent(fake_llm, tmp_path):
    script(fake_llm)
    store = Store(tmp_path / "runs.db")
    runner, server = await serve(fake_llm, config(fake_llm, max_usd_per_day=0.001), store, API_KEY)
    try:
        status, headers, _first = await post(server, {"model": "council", "messages": [QUESTION]})
        assert status == 200
        cost = float(headers["x-council-cost-usd"])
        assert cost > 0.001, "one run spends the day's budget"

        async def counted() -> bool:
            return await store.call(spent_on, store, today()) == pytest.approx(cost)

        await wait_until(counted, what="the run's cost added to the day's sum (just after its answer went out)")
        calls = len(fake_llm.requests)
        for model in ("council", "member/beta"):
            status, headers, refused = await post(server, {"model": model, "messages": [QUESTION]})
            assert status == 429, refused
            assert refused["error"]["code"] == "daily_budget_reached"
            assert "the daily budget of $0.001 is spent" in refused["error"]["message"]
            assert 0 < int(headers["Retry-After"]) <= 86400
        assert len(fake_llm.requests) == calls, "refused requests reach no member"
    finally:
        await runner.cleanup()
        await server.council.aclose()


async def test_replicas_on_one_database_share_the_days_sum(fake_llm, tmp_path):
    script(fake_llm)
    path = tmp_path / "shared.db"
    first_runner, first = await serve(fake_llm, config(fake_llm, max_usd_per_day=0.001), Store(path), API_KEY)
    second_runner, second = await serve(fake_llm, config(fake_llm, max_usd_per_day=0.001), Store(path), API_KEY)
    try:
        # A pass-through call on the first replica spends the day's budget (its cost counts as a run's would).
        status, _headers, _body = await post(first, {"model": "member/alpha", "messages": [QUESTION]})
        assert status == 200
        refused: dict = {}

        async def second_refuses() -> bool:  # once the first replica's cost is in the shared database
            nonlocal refused
            status, _headers, refused = await post(second, {"model": "council", "messages": [QUESTION]})
            return status == 429

        await wait_until(second_refuses, what="the second replica to see the day's budget spent")
        assert refused["error"]["code"] == "daily_budget_reached"
    finally:
        for runner, server in ((first_runner, first), (second_runner, second)):
            await runner.cleanup()
            await server.council.aclose()


async def test_council_max_usd_caps_one_run(fake_llm):
    script(fake_llm)
    runner, server = await serve(fake_llm, config(fake_llm), Store(":memory:"), API_KEY)
    try:
        status, _headers, body = await post(server, {"model": "council", "messages": [QUESTION],
                                                     "council_max_usd": 0.07})
        assert status == 200, body
        council = body["council"]
        assert council["cost"]["total_usd"] <= 0.07
        assert any(reason.startswith("budget $0.07 reached: not called:") for reason in council["degraded_reasons"])
    finally:
        await runner.cleanup()
        await server.council.aclose()


@pytest.mark.parametrize(("value", "says"), [(0, "greater than 0"), ("1", "number"),
                                             (50, "above the configured budget.max_usd_per_run")])
async def test_a_bad_council_max_usd_is_a_400_naming_it(fake_llm, value, says):
    script(fake_llm)
    runner, server = await serve(fake_llm, config(fake_llm, max_usd_per_run=1.0), Store(":memory:"), API_KEY)
    try:
        status, _headers, body = await post(server, {"model": "council", "messages": [QUESTION],
                                                     "council_max_usd": value})
    finally:
        await runner.cleanup()
        await server.council.aclose()
    assert status == 400 and body["error"]["param"] == "council_max_usd"
    assert says in body["error"]["message"]
    assert fake_llm.requests == []


async def test_council_max_usd_is_judged_on_the_members_the_run_calls(fake_llm):
    script(fake_llm)
    raw = config(fake_llm).model_dump(mode="json", exclude_none=True)
    raw["members"][2].pop("price")  # gamma has no price
    raw["councils"] = {"priced": {"members": ["alpha", "beta"]}, "judged": {"members": ["alpha", "beta"],
                                                                            "review": "judge", "judge": "gamma"}}
    runner, server = await serve(fake_llm, CouncilConfig.model_validate(raw), Store(":memory:"), API_KEY)
    try:
        refused = {}
        for model in ("council", "council/judged"):  # both would call gamma: its answer, or its judging
            status, _headers, refused[model] = await post(server, {"model": model, "messages": [QUESTION],
                                                                   "council_max_usd": 5})
            assert status == 400 and refused[model]["error"]["code"] == "invalid_budget", refused[model]
            assert refused[model]["error"]["message"] == (
                "council_max_usd: a budget needs a price on every member it may call; no price: gamma "
                "(add members[].price)")
        assert fake_llm.requests == []
        status, _headers, body = await post(server, {"model": "council/priced", "messages": [QUESTION],
                                                     "council_max_usd": 5})
        assert status == 200, body
        assert body["council"]["cost"]["total_usd"] > 0
        assert server.store.get(body["council"]["run_id"]).cost.budget_usd == 5
        assert not fake_llm.requests_for("model-gamma")
    finally:
        await runner.cleanup()
        await server.council.aclose()
