"""A run says how sure it is of its top answer, everywhere it is read, and tells the chairman about a tie."""

from __future__ import annotations

import aiohttp

from council import Council
from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member, is_chairman_prompt, request_messages
from tests.server.conftest import API_KEY, quality_judge, serve


def config(fake: FakeLLMServer, names: tuple[str, ...]) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                     "base_url": fake.base_url("openai")} for name in names],
        "chairman": names[0],
        "retry": {"max_attempts": 1},
    })


def script(fake: FakeLLMServer, qualities: dict[str, int]) -> None:
    for name, quality in qualities.items():
        fake.script(f"model-{name}", Step(reply=council_member(f"{name} says 42. quality={quality}", quality_judge)))


def chairman_prompt(fake: FakeLLMServer, name: str) -> str:
    request = next(r for r in fake.requests_for(f"model-{name}") if is_chairman_prompt(request_messages(r)))
    return request.messages[-1]["content"]


async def test_a_clear_ranking_is_reported_sure_and_the_chairman_is_told(fake_llm):
    qualities = {"alpha": 9, "beta": 5, "gamma": 2, "delta": 1}
    script(fake_llm, qualities)
    async with Council(config(fake_llm, tuple(qualities)), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert result.ranking[0].member == "alpha"
    assert result.ranking_confidence is not None and result.ranking_confidence >= 0.9
    assert result.tied_for_first == []
    for entry in result.ranking:
        assert len(entry.rank_probabilities) == 4 and abs(sum(entry.rank_probabilities) - 1) < 1e-3
    assert result.ranking[0].rank_probabilities[0] == result.ranking_confidence
    assert "The reviewers agree on the answer ranked 1" in chairman_prompt(fake_llm, "alpha")


async def test_two_equal_answers_are_a_tie_the_chairman_weighs_as_equals(fake_llm):
    # Every reviewer scores by the quality marker: beta and gamma are exactly as good as each other.
    qualities = {"alpha": 2, "beta": 8, "gamma": 8, "delta": 1}
    script(fake_llm, qualities)
    async with Council(config(fake_llm, tuple(qualities)), store=False, environ={}) as council:
        result = await council.ask("What is six times seven?")
    top = result.ranking[0].member
    assert {top, *result.tied_for_first} == {"beta", "gamma"}
    assert result.ranking_confidence is not None and result.ranking_confidence < 0.6
    assert "The answers ranked 1, 2 are statistically tied" in chairman_prompt(fake_llm, "alpha")


async def test_the_server_and_the_stored_run_carry_the_confidence(fake_llm):
    qualities = {"alpha": 9, "beta": 5, "gamma": 2}
    script(fake_llm, qualities)
    store = Store(":memory:")
    runner, server = await serve(fake_llm, config(fake_llm, tuple(qualities)), store, API_KEY)
    try:
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {API_KEY}"}) as http, \
                http.post(server.base_url + "/chat/completions", json={
                    "model": "council", "messages": [{"role": "user", "content": "Six times seven?"}]}) as response:
            body = await response.json()
    finally:
        await runner.cleanup()
        await server.council.aclose()
    block = body["council"]
    stored = store.get(block["run_id"])
    assert stored is not None
    assert block["ranking_confidence"] == stored.ranking_confidence is not None
    assert block["tied_for_first"] == stored.tied_for_first == []
    assert block["ranking"][0]["rank_probabilities"] == stored.ranking[0].rank_probabilities
