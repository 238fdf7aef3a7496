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


CYCLE = {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}


@pytest.mark.parametrize(("schema", "message"), [
    ({"$ref": "https://example.org/city.json"}, "only references within the schema"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}, "points at nothing in the schema"),
    (CYCLE, "lead back to themselves without end"),
])
async def test_a_schema_no_answer_could_be_checked_against_is_a_400_not_a_failed_council(simulated, schema, message):
    # Before, each reached the members and failed every one of them ("quorum not met").
    bad = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    async with aiohttp.ClientSession() as http, http.post(f"{simulated.base_url}/chat/completions", json={
            "model": "council/quick", "messages": QUESTION, "response_format": bad}) as response:
        body = await response.json()
    assert response.status == 400 and body["error"]["param"] == "response_format"
    assert message in body["error"]["message"]


async def test_tool_parameters_whose_refs_never_end_are_a_400_naming_the_tool(simulated):
    looping = {"type": "function", "function": {"name": "loop", "parameters": CYCLE}}
    async with client(simulated) as sdk:
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk.chat.completions.create(model="council", messages=QUESTION, tools=[looping],
                                              tool_choice="required")
    assert "tools[0].function.parameters" in refused.value.body["message"]
    assert "lead back to themselves without end" in refused.value.body["message"]


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
        assert alpha.error.message.startswith("the answer is not valid JSON") and alpha.attempts == 2
        assert alpha.content == "It is Lagos, a very large city.", "the invalid text is kept for the record"
        served = [r for r in fake_llm.requests if r.body.get("model") == "model-alpha"][:2]  # the answer and retry
        assert alpha.usage.prompt_tokens == sum(len(m["content"].split()) for r in served for m in r.messages), \
            "both calls' tokens are counted"
        asked = [r.body for r in fake_llm.requests if r.body.get("model") == "model-beta"]
        assert asked[0]["response_format"]["type"] == "json_schema", "an OpenAI-format member is asked natively"
    finally:
        await runner.cleanup()
        store.close()


WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
                                            "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
    "required": ["city", "unit"], "additionalProperties": False}}}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}


@pytest.mark.parametrize(("tools", "choice", "names"), [
    ([WEATHER, TIME], {"type": "function", "function": {"name": "get_weather"}}, {"get_weather"}),
    ([WEATHER], "required", {"get_weather"}),
    ([WEATHER, TIME], "required", {"get_weather", "get_time"}),
])
async def test_a_forced_tool_call_is_decided_by_the_council(simulated, tools, choice, names):
    async with client(simulated) as sdk:
        raw = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION, tools=tools,
                                                                   tool_choice=choice)
        completion = raw.parse()
    choice_ = completion.choices[0]
    assert choice_.finish_reason == "tool_calls" and choice_.message.content is None
    (call,) = choice_.message.tool_calls or []
    assert call.type == "function" and call.function.name in names and call.id.startswith("call_")
    schema = next(t["function"]["parameters"] for t in tools if t["function"]["name"] == call.function.name)
    from jsonschema import Draft202012Validator
    Draft202012Validator(schema).validate(json.loads(call.function.arguments))
    body = json.loads(raw.http_response.text)
    body.pop("council")
    assert_valid(body, "CreateChatCompletionResponse")
    assert "x-council-tools-ignored" not in raw.headers, "the tools were used, not ignored"


async def test_a_streamed_forced_call_arrives_as_tool_call_deltas(simulated):
    async with client(simulated) as sdk:
        stream = await sdk.chat.completions.create(model="council", messages=QUESTION, tools=[WEATHER],
                                                   tool_choice="required", stream=True)
        chunks = [chunk async for chunk in stream]
    calls = [call for c in chunks if c.choices for call in (c.choices[0].delta.tool_calls or [])]
    assert len(calls) == 1 and calls[0].function.name == "get_weather"
    assert json.loads(calls[0].function.arguments)["unit"] in ("celsius", "fahrenheit")
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]
    assert not "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    for chunk in chunks:
        assert_valid(chunk.model_dump(mode="json", exclude_unset=True), "CreateChatCompletionStreamResponse")


async def test_a_choice_naming_no_tool_is_a_400(simulated):
    async with client(simulated) as sdk:
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk.chat.completions.create(model="council", messages=QUESTION, tools=[WEATHER],
                                              tool_choice={"type": "function", "function": {"name": "nope"}})
    assert refused.value.body["param"] == "tool_choice" and "no tool named 'nope'" in refused.value.body["message"]


async def structured_server(fake_llm: FakeLLMServer) -> tuple[str, Store, object]:
    config = server_config(fake_llm)
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ={}, council=council), config.server, "127.0.0.1", 0)
    return f"http://127.0.0.1:{site.port}/v1", store, runner


@pytest.mark.parametrize("stream", [False, True])
async def test_a_council_whose_members_refuse_answers_a_refusal_as_openai_does(fake_llm, stream):
    for name in ("alpha", "beta", "gamma"):
        fake_llm.script(f"model-{name}", Step(reply="I can't help with that request.", refuse=True))
    base_url, store, runner = await structured_server(fake_llm)
    try:
        async with openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0) as sdk:
            if stream:
                async with sdk.chat.completions.stream(model="council", messages=QUESTION,
                                                       response_format=City) as events:
                    completion = await events.get_final_completion()
            else:
                completion = await sdk.chat.completions.parse(model="council", messages=QUESTION,
                                                              response_format=City)
        message = completion.choices[0].message
        assert message.refusal == "I can't help with that request." and message.parsed is None
        assert not message.content and completion.choices[0].finish_reason == "stop"
        (run,) = store.list_runs(limit=5)
        stored = store.get(run.run_id)
        assert stored is not None
        assert {a.error.reason for a in stored.answers if a.error is not None} == {"refused"}
        assert all(a.attempts == 1 for a in stored.answers), "a refusal is not asked again"
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        store.close()


async def test_when_no_member_writes_a_valid_object_the_error_says_so(fake_llm):
    for name in ("alpha", "beta", "gamma"):
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name} thinks it is Lagos.", quality_judge)))
    base_url, store, runner = await structured_server(fake_llm)
    try:
        async with aiohttp.ClientSession() as http, http.post(f"{base_url}/chat/completions", json={
                "model": "council", "messages": QUESTION, "response_format": {"type": "json_schema", "json_schema": {
                    "name": "City", "schema": City.model_json_schema()}}}) as response:
            body = await response.json()
        assert response.status == 502 and body["error"]["code"] == "council_failed"
        assert "no member produced a valid answer for the schema" in body["error"]["message"]
        assert "alpha: the answer is not valid JSON" in body["error"]["message"]
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        store.close()
