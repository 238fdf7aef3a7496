"""The fake upstream's random faults, which the load benchmark relies on."""

from __future__ import annotations

import aiohttp
import pytest

from council.testing.fake_llm import FakeLLMServer, RandomFaults, Step

BODY = {"model": "model-x", "messages": [{"role": "user", "content": "hi"}]}


async def statuses(fake: FakeLLMServer, n: int, model: str = "model-x") -> list[tuple[int, str | None]]:
    seen = []
    async with aiohttp.ClientSession() as http:
        for _ in range(n):
            async with http.post(fake.url + "/v1/chat/completions", json={**BODY, "model": model}) as response:
                await response.read()
                seen.append((response.status, response.headers.get("Retry-After")))
    return seen


async def test_faults_come_at_the_given_rates_and_are_counted(fake_llm):
    fake_llm.inject_random_faults(RandomFaults(server_error_rate=0.3, rate_limit_rate=0.2, retry_after_s=2, seed=7))
    seen = await statuses(fake_llm, 400)
    count = {status: sum(s == status for s, _ in seen) for status in (200, 429, 500)}
    assert sum(count.values()) == 400
    assert 80 <= count[500] <= 160 and 45 <= count[429] <= 120, count
    assert all(after == "2" for status, after in seen if status == 429)
    async with aiohttp.ClientSession() as http, http.get(fake_llm.url + "/_fake/faults") as response:
        assert await response.json() == {"429": count[429], "500": count[500]}


async def test_the_same_seed_draws_the_same_faults():
    runs = []
    for _ in range(2):
        async with FakeLLMServer() as fake:
            fake.inject_random_faults(RandomFaults(server_error_rate=0.5, seed=3))
            runs.append([status for status, _ in await statuses(fake, 40)])
    assert runs[0] == runs[1] and 500 in runs[0] and 200 in runs[0]


async def test_scripted_models_are_never_faulted(fake_llm):
    fake_llm.inject_random_faults(RandomFaults(server_error_rate=1.0, seed=1))
    fake_llm.script("model-steady", Step(reply="fine"))
    assert {status for status, _ in await statuses(fake_llm, 20, "model-steady")} == {200}
    assert {status for status, _ in await statuses(fake_llm, 5)} == {500}


def test_rates_over_one_are_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        RandomFaults(server_error_rate=0.7, rate_limit_rate=0.4)
