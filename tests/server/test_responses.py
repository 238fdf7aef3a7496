"""The Responses API (`POST /v1/responses`, GET, DELETE) with the openai SDK and pydantic-ai, on defaults.

The server runs the shipped simulated council. Every response object is
checked by the SDK's own types and, where the helpers below say so, by
OpenAI's published schema.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import openai
import pytest
from openai.types.responses import Response
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

from council import Council
from council.config import load_config, simulated_config_path
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from tests.server.conftest import RunningServer
from tests.server.openai_schemas import assert_valid
from tests.server.test_tool_decisions import config_with

WEATHER = {"type": "function", "name": "get_weather", "description": "The weather in a city now",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                          "additionalProperties": False}, "strict": True}


class City(BaseModel):
    name: str
    population: int


async def start(path: Path | None = None, keys: str | None = None) -> tuple[RunningServer, object]:
    config = load_config(path or simulated_config_path(), {})
    store = Store(":memory:")
    environ = {"COUNCIL_API_KEYS": keys} if keys else {}
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ=environ, council=council), config.server,
                                    "127.0.0.1", 0)
    return RunningServer(f"http://127.0.0.1:{site.port}", None, council, store, site), runner  # type: ignore[arg-type]


@pytest.fixture
async def served() -> AsyncIterator[RunningServer]:
    server, runner = await start()
    yield server
    await runner.cleanup()  # type: ignore[attr-defined]
    server.store.close()


def sdk(server: RunningServer, key: str = "unused") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=key, max_retries=0)


def checked(body: dict) -> Response:
    """The body checked by OpenAI's published schema and by the SDK's Response type (validated, not constructed)."""
    body = dict(body)
    body.pop("council", None)  # Council's own field beside OpenAI's
    assert_valid(body, "Response", schemas="responses")
    return Response.model_validate(body)


async def raw_events(server: RunningServer, body: dict) -> list[dict]:
    """The events of a streamed response as they came over the wire, each checked by OpenAI's schema."""
    events = []
    async with aiohttp.ClientSession() as http, http.post(f"{server.base_url}/responses",
                                                          json={**body, "stream": True}) as response:
        assert response.status == 200
        kind = None
        async for line in response.content:
            text = line.decode().strip()
            if text.startswith("event: "):
                kind = text.removeprefix("event: ")
            elif text.startswith("data: "):
                event = json.loads(text.removeprefix("data: "))
                assert event["type"] == kind, "the SSE event name is the event's type"
                if "response" in event:
                    event["response"].pop("council", None)
                assert_valid(event, "ResponseStreamEvent", schemas="responses")
                events.append(event)
    return events


@pytest.mark.parametrize("model", ["council", "council/quick", "member/atlas"])
async def test_a_response_answers_in_the_responses_shape(served, model):
    async with sdk(served) as client:
        raw = await client.responses.with_raw_response.create(model=model, input="Why is the sky blue?",
                                                              instructions="Answer briefly.")
    response = checked(json.loads(raw.http_response.text))
    assert response.id.startswith("resp_") and response.status == "completed" and response.output_text
    assert response.usage is not None and response.usage.total_tokens == \
        response.usage.input_tokens + response.usage.output_tokens > 0
    assert response.instructions == "Answer briefly." and response.model == model
    if model != "member/atlas":
        assert raw.headers["x-council-run-id"], "the council run that answered is named, as on chat completions"


async def test_a_streamed_response_carries_progress_as_reasoning_and_its_text_as_deltas(served):
    async with sdk(served) as client, client.responses.stream(model="council", input="Why is the sky blue?") as s:
        events = [event async for event in s]
        final = await s.get_final_response()
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    reasoning = [item for item in final.output if item.type == "reasoning"]
    assert reasoning and "Asking the council members" in reasoning[0].summary[0].text
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text and text == final.output_text
    assert "<think>" not in text and "Asking the council" not in text, "progress never goes into the text"


async def test_previous_response_id_continues_and_get_and_delete_reach_a_stored_response(served):
    async with sdk(served) as client:
        first = await client.responses.create(model="council/quick", input="Name a prime number.")
        raw = await client.responses.with_raw_response.create(model="council/quick", input="Double it.",
                                                              previous_response_id=first.id)
        second = raw.parse()
        assert second.previous_response_id == first.id
        run = served.store.get(raw.headers["x-council-run-id"])
        assert run is not None
        asked = [m.content for m in run.question]
        assert asked[0] == "Name a prime number." and asked[1] == first.output_text and asked[2] == "Double it."
        fetched = await client.responses.retrieve(first.id)
        assert fetched.id == first.id and fetched.output_text == first.output_text
        deleted = await client.responses.delete(first.id)
        assert deleted is None or getattr(deleted, "deleted", True)
        with pytest.raises(openai.NotFoundError):
            await client.responses.retrieve(first.id)
        with pytest.raises(openai.NotFoundError) as missing:
            await client.responses.create(model="council", input="Go on.", previous_response_id=first.id)
    assert missing.value.body["param"] == "previous_response_id"


async def test_a_stored_response_belongs_to_the_key_that_made_it():
    server, runner = await start(keys="key-one,key-two")
    try:
        async with sdk(server, "key-one") as one, sdk(server, "key-two") as two:
            made = await one.responses.create(model="council/quick", input="Hello?")
            with pytest.raises(openai.NotFoundError):
                await two.responses.retrieve(made.id)
            with pytest.raises(openai.NotFoundError):
                await two.responses.create(model="council/quick", input="And?", previous_response_id=made.id)
            assert (await one.responses.retrieve(made.id)).id == made.id
            unkept = await one.responses.create(model="council/quick", input="Hello?", store=False)
            with pytest.raises(openai.NotFoundError):
                await one.responses.retrieve(unkept.id)
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        server.store.close()


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_parse_returns_a_typed_object(served, model):
    async with sdk(served) as client:
        parsed = await client.responses.parse(model=model, input="Name a large city.", text_format=City)
    assert isinstance(parsed.output_parsed, City) and parsed.output_parsed.name


async def test_a_forced_tool_call_is_a_function_call_item_and_its_result_is_answered(tmp_path):
    server, runner = await start(config_with(tmp_path, {"council_tools": "decide"}))
    try:
        async with sdk(server) as client:
            called = await client.responses.create(model="council", input="What is the weather in Paris now?",
                                                   tools=[WEATHER], tool_choice="required")
            (call,) = [item for item in called.output if item.type == "function_call"]
            assert call.name == "get_weather" and json.loads(call.arguments)["city"]
            answered = await client.responses.create(
                model="council", tools=[WEATHER], previous_response_id=called.id,
                input=[{"type": "function_call_output", "call_id": call.call_id, "output": "18 degrees, sunny"}])
        assert "18 degrees, sunny" in answered.output_text
        assert not [item for item in answered.output if item.type == "function_call"]
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        server.store.close()


@pytest.mark.parametrize("body", [
    {"model": "council", "input": "Why is the sky blue?"},
    {"model": "council/quick", "input": "Name a city.", "text": {"format": {
        "type": "json_schema", "name": "City", "schema": City.model_json_schema()}}},
    {"model": "council", "input": "Weather in Paris?", "tools": [WEATHER], "tool_choice": "required"},
    {"model": "member/atlas", "input": [{"role": "user", "content": [{"type": "input_text", "text": "Hi!"}]}]},
])
async def test_every_streamed_event_validates_against_openais_schema(served, body):
    events = await raw_events(served, body)
    assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    checked(events[-1]["response"])


async def test_a_forced_call_with_a_text_format_beside_it_is_the_call(served):
    # instructor's RESPONSES_TOOLS mode sends the schema twice: as text.format and as the forced tool's parameters.
    city = {"type": "object", "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
            "required": ["name", "population"], "additionalProperties": False}
    async with sdk(served) as client:
        response = await client.responses.create(
            model="council/quick", input="Name a large city.",
            text={"format": {"type": "json_schema", "name": "City", "schema": city, "strict": True}},
            tools=[{"type": "function", "name": "City", "parameters": city, "strict": True}],
            tool_choice={"type": "function", "name": "City"})
    (call,) = [item for item in response.output if item.type == "function_call"]
    arguments = json.loads(call.arguments)
    assert call.name == "City" and set(arguments) == {"name", "population"}


async def test_a_streamed_tool_call_arrives_as_function_call_events(served):
    async with sdk(served) as client, client.responses.stream(
            model="council", input="What is the weather in Paris now?", tools=[WEATHER],
            tool_choice={"type": "function", "name": "get_weather"}) as s:
        kinds = [event.type async for event in s]
        final = await s.get_final_response()
    assert "response.function_call_arguments.done" in kinds
    (call,) = [item for item in final.output if item.type == "function_call"]
    assert json.loads(call.arguments)["city"]


@pytest.mark.parametrize(("body", "param"), [
    ({"input": [{"type": "item_reference", "id": "x"}]}, "input[0].id"),
    ({"input": [{"type": "item_reference", "id": "msg_0123456789abcdef0123456789abcdef_1"}]}, "input[0].id"),
    ({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]}, "input[0].content[0].type"),
    ({"input": "hi", "tools": [{"type": "web_search"}]}, "tools[0].type"),
    ({"input": "hi", "text": {"format": {"type": "yaml"}}}, "text.format"),
    ({"input": 5}, "input"),
    ({"input": "hi", "previous_response_id": "resp_nothing"}, "previous_response_id"),
])
async def test_what_cannot_be_answered_is_refused_naming_the_parameter(served, body, param):
    async with aiohttp.ClientSession() as http, http.post(f"{served.base_url}/responses",
                                                          json={"model": "council", **body}) as response:
        error = (await response.json())["error"]
    assert response.status in (400, 404) and error["param"] == param and error["message"]


async def test_item_references_bring_back_a_stored_responses_items_and_the_reasoning_is_left_out(served):
    # As the Vercel AI SDK's default provider continues a conversation (store on): earlier output by reference.
    async with sdk(served) as client:
        async with client.responses.stream(model="council/quick", input="Name a prime number.") as s:
            first = await s.get_final_response()
        reasoning, message = first.output
        assert reasoning.type == "reasoning" and message.type == "message"
        raw = await client.responses.with_raw_response.create(model="council/quick", input=[
            {"role": "user", "content": "Name a prime number."},
            {"type": "item_reference", "id": reasoning.id}, {"type": "item_reference", "id": message.id},
            {"role": "user", "content": "Double it."}])
    run = served.store.get(raw.headers["x-council-run-id"])
    assert run is not None
    assert [m.content for m in run.question] == ["Name a prime number.", first.output_text, "Double it."]


async def test_an_item_reference_reaches_only_the_key_that_made_the_response():
    server, runner = await start(keys="key-one,key-two")
    try:
        async with sdk(server, "key-one") as one, sdk(server, "key-two") as two:
            made = await one.responses.create(model="council/quick", input="Hello?")
            (message,) = made.output
            follow_up = [{"type": "item_reference", "id": message.id}, {"role": "user", "content": "And?"}]
            with pytest.raises(openai.BadRequestError) as refused:
                await two.responses.create(model="council/quick", input=follow_up)
            assert refused.value.body["param"] == "input[0].id" and message.id in refused.value.body["message"]
            assert (await one.responses.create(model="council/quick", input=follow_up)).output_text
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        server.store.close()


@pytest.mark.parametrize("model", ["council/quick", "member/atlas"])
async def test_a_streamed_response_is_stored_before_its_last_event(served, model):
    # A client that follows up the moment it reads response.completed (an agent's next step, before the stream's
    # end) must find what it names: the response is in the database by then.
    body = {"model": model, "input": "Name a prime number.", "stream": True}
    async with aiohttp.ClientSession() as http, http.post(f"{served.base_url}/responses", json=body) as response:
        async for line in response.content:
            if line.startswith(b"data: ") and b'"type": "response.completed"' in line:
                response_id = json.loads(line.decode().removeprefix("data: "))["response"]["id"]
                kept = served.store.db.fetchall("SELECT response_id FROM responses WHERE response_id = ?",
                                                (response_id,))
                assert kept == [(response_id,)], "response.completed was sent before the response was stored"
                break
        else:
            raise AssertionError("the stream ended without response.completed")


async def test_pydantic_ai_responses_model_gets_a_typed_answer(served):
    async with sdk(served) as client:
        agent = Agent(OpenAIResponsesModel("council", provider=OpenAIProvider(openai_client=client)),
                      output_type=City)
        result = await agent.run("Name a large city.")
    assert isinstance(result.output, City) and result.output.name


async def test_a_run_that_fails_mid_stream_ends_with_error_and_response_failed(fake_llm):
    from council.testing.fake_llm import Step
    from tests.server.conftest import MEMBERS, server_config

    for name in MEMBERS:
        fake_llm.script(f"model-{name}", Step(status=500))
    config = server_config(fake_llm)
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ={}, council=council), config.server, "127.0.0.1", 0)
    try:
        server = RunningServer(f"http://127.0.0.1:{site.port}", fake_llm, council, store, site)
        events = await raw_events(server, {"model": "council", "input": "Why is the sky blue?"})
    finally:
        await runner.cleanup()
        store.close()
    kinds = [e["type"] for e in events]
    assert kinds[0] == "response.created" and kinds[-2:] == ["error", "response.failed"]
    failed = events[-1]["response"]
    assert failed["status"] == "failed" and "the council could not answer" in failed["error"]["message"]
