"""Structured answers over HTTP: the openai SDK's typed output from `council` and its presets, on defaults.

The server runs the shipped simulated council (what a new user gets with
no config); a second server runs members on the fake upstream, one of
which answers in prose, to show an invalid candidate dropped visibly.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import aiohttp
import openai
import pytest
from pydantic import BaseModel

from council import Council
from council.config import load_config, simulated_config_path
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import RunningServer, quality_judge, server_config
from tests.server.openai_schemas import assert_valid

QUESTION = [{"role": "user", "content": "Name a large city and a few words about it."}]


class City(BaseModel):
    name: str
    population: int
    tags: list[str]


@pytest.fixture
async def simulated(fake_llm: FakeLLMServer) -> AsyncIterator[RunningServer]:
    """`council serve` on the shipped simulated council, no key, an in-memory store."""
    config = load_config(simulated_config_path(), {})
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ={}, council=council), config.server, "127.0.0.1", 0)
    yield RunningServer(f"http://127.0.0.1:{site.port}", fake_llm, council, store, site)
    await runner.cleanup()
    store.close()


def client(server: RunningServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_the_sdk_parses_a_typed_answer_from_the_council(simulated, model):
    async with client(simulated) as sdk:
        raw = await sdk.chat.completions.with_raw_response.parse(model=model, messages=QUESTION,
                                                                  response_format=City)
        completion = raw.parse()
    city = completion.choices[0].message.parsed
    assert isinstance(city, City) and city.name and isinstance(city.population, int)
    assert json.loads(completion.choices[0].message.content) == city.model_dump()
    assert completion.choices[0].finish_reason == "stop"
    body = json.loads(raw.http_response.text)
    body.pop("council")  # Council's own field beside OpenAI's
    assert_valid(body, "CreateChatCompletionResponse")
    stored = simulated.store.get(raw.headers["x-council-run-id"])
    assert stored is not None and stored.output_schema is not None
    assert all(a.status == "ok" for a in stored.answers), "every simulated member wrote a valid instance"


async def test_a_streamed_typed_answer_concatenates_to_the_object(simulated):
    async with client(simulated) as sdk, sdk.chat.completions.stream(
            model="council", messages=QUESTION, response_format=City) as stream:
        chunks = [event.chunk async for event in stream if event.type == "chunk"]
        final = await stream.get_final_completion()
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert City.model_validate_json(content) == final.choices[0].message.parsed
    assert "<think>" not in content, "progress never goes into a structured answer's content"
    for chunk in chunks:
        assert_valid(chunk.model_dump(mode="json", exclude_unset=True), "CreateChatCompletionStreamResponse")


async def test_json_object_mode_returns_an_object(simulated):
    async with client(simulated) as sdk:
        completion = await sdk.chat.completions.create(model="council", messages=QUESTION,
                                                       response_format={"type": "json_object"})
    assert isinstance(json.loads(completion.choices[0].message.content or ""), dict)


async def test_a_schema_that_is_not_one_is_a_400_naming_it(simulated):
    bad = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "minProperties": -1}}}
    async with aiohttp.ClientSession() as http, http.post(f"{simulated.base_url}/chat/completions", json={
            "model": "council", "messages": QUESTION, "response_format": bad}) as response:
        body = await response.json()
    assert response.status == 400 and body["error"]["param"] == "response_format"


async def test_a_candidate_in_prose_is_dropped_visibly_and_a_valid_one_wins(fake_llm):
    valid = {"name": "Lagos", "population": 15000000, "tags": ["coastal"]}
    fake_llm.script("model-alpha", Step(reply=council_member("It is Lagos, a very large city.", quality_judge)))
    for name in ("beta", "gamma"):
        fake_llm.script(f"model-{name}", Step(reply=council_member(json.dumps(valid), quality_judge)))
    config = server_config(fake_llm)
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ={}, council=council), config.server, "127.0.0.1", 0)
    try:
        async with openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{site.port}/v1", api_key="k", max_retries=0) as sdk:
            raw = await sdk.chat.completions.with_raw_response.parse(model="council", messages=QUESTION,
                                                                      response_format=City)
            completion = raw.parse()
        assert completion.choices[0].message.parsed == City.model_validate(valid)
        stored = store.get(raw.headers["x-council-run-id"])
        assert stored is not None
        alpha = next(a for a in stored.answers if a.member == "alpha")
        assert alpha.status == "failed" and alpha.error is not None and alpha.error.reason == "invalid_output"
        assert alpha.error.message.startswith("the answer not valid JSON") and alpha.attempts == 2
        assert alpha.content == "It is Lagos, a very large city.", "the invalid text is kept for the record"
        asked = [r.body for r in fake_llm.requests if r.body.get("model") == "model-beta"]
        assert asked[0]["response_format"]["type"] == "json_schema", "an OpenAI-format member is asked natively"
    finally:
        await runner.cleanup()
        store.close()
