"""A council free to call a tool (`server.council_tools: decide`): it answers a call or text, and an agent loop runs.

The server runs the shipped simulated council with the setting on, as a
user writes it in the config file; clients are the openai SDK and a
pydantic-ai agent with one tool, as their docs show.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import openai
import pytest
import yaml
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from council import Council
from council.config import load_config, simulated_config_path
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from tests.server.conftest import RunningServer
from tests.server.openai_schemas import assert_valid

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city now",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                   "additionalProperties": False}}}
ASK = [{"role": "user", "content": "What is the weather in Paris right now?"}]


def config_with(tmp_path: Path, server: dict[str, object], councils: dict[str, object] | None = None) -> Path:
    raw = yaml.safe_load(Path(simulated_config_path()).read_text())
    raw.setdefault("server", {}).update(server)
    if councils:
        raw.setdefault("councils", {}).update(councils)
    path = tmp_path / "council.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


async def serve(path: Path) -> tuple[RunningServer, object]:
    config = load_config(path, {})
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    runner, site = await start_site(create_app(config, environ={}, council=council), config.server, "127.0.0.1", 0)
    return RunningServer(f"http://127.0.0.1:{site.port}", None, council, store, site), runner  # type: ignore[arg-type]


@pytest.fixture
async def deciding(tmp_path: Path) -> AsyncIterator[RunningServer]:
    server, runner = await serve(config_with(tmp_path, {"council_tools": "decide"}))
    yield server
    await runner.cleanup()  # type: ignore[attr-defined]
    server.store.close()


def sdk(server: RunningServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_the_council_calls_a_tool_then_answers_with_its_result(deciding, model):
    async with sdk(deciding) as client:
        raw = await client.chat.completions.with_raw_response.create(model=model, messages=ASK, tools=[WEATHER])
        first = raw.parse()
        call = first.choices[0].message.tool_calls[0]
        assert first.choices[0].finish_reason == "tool_calls" and first.choices[0].message.content is None
        assert call.function.name == "get_weather" and isinstance(json.loads(call.function.arguments)["city"], str)
        body = json.loads(raw.http_response.text)
        body.pop("council")
        assert_valid(body, "CreateChatCompletionResponse")
        followed = [*ASK, first.choices[0].message.model_dump(exclude_none=True),
                    {"role": "tool", "tool_call_id": call.id, "content": "18 degrees and sunny"}]
        second = await client.chat.completions.create(model=model, messages=followed, tools=[WEATHER])
    answer = second.choices[0].message
    assert second.choices[0].finish_reason == "stop" and not answer.tool_calls
    assert "18 degrees and sunny" in (answer.content or ""), "the answer reads the tool's result"
    assert not answer.content.lstrip().startswith("{"), "a text decision arrives as text, not as its JSON envelope"


async def test_a_streamed_decision_arrives_as_tool_call_deltas(deciding):
    async with sdk(deciding) as client:
        stream = await client.chat.completions.create(model="council", messages=ASK, tools=[WEATHER], stream=True)
        chunks = [chunk async for chunk in stream]
    calls = [c for chunk in chunks for choice in chunk.choices for c in choice.delta.tool_calls or []]
    assert len(calls) == 1 and calls[0].function.name == "get_weather"
    assert json.loads(calls[0].function.arguments)["city"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]
    assert not "".join(c.choices[0].delta.content or "" for c in chunks if c.choices).strip()
    for chunk in chunks:
        assert_valid(chunk.model_dump(mode="json", exclude_unset=True), "CreateChatCompletionStreamResponse")


async def test_tool_choice_none_answers_in_text_even_when_the_council_decides(deciding):
    async with sdk(deciding) as client:
        completion = await client.chat.completions.create(model="council", messages=ASK, tools=[WEATHER],
                                                          tool_choice="none")
    assert completion.choices[0].finish_reason == "stop" and completion.choices[0].message.content
    assert not completion.choices[0].message.tool_calls


async def test_on_defaults_tools_are_answered_in_text(tmp_path):
    server, runner = await serve(config_with(tmp_path, {}))
    try:
        async with sdk(server) as client:
            raw = await client.chat.completions.with_raw_response.create(model="council", messages=ASK,
                                                                         tools=[WEATHER])
        completion = raw.parse()
        assert completion.choices[0].finish_reason == "stop" and not completion.choices[0].message.tool_calls
        assert raw.headers["x-council-tools-ignored"] == "1"
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        server.store.close()


async def test_a_preset_turns_tool_decisions_on_for_its_model(tmp_path):
    server, runner = await serve(config_with(tmp_path, {}, {"agents": {"tools": "decide"}}))
    try:
        async with sdk(server) as client:
            plain = await client.chat.completions.create(model="council", messages=ASK, tools=[WEATHER])
            agent = await client.chat.completions.create(model="council/agents", messages=ASK, tools=[WEATHER])
        assert not plain.choices[0].message.tool_calls
        assert agent.choices[0].message.tool_calls[0].function.name == "get_weather"
    finally:
        await runner.cleanup()  # type: ignore[attr-defined]
        server.store.close()


async def test_a_pydantic_ai_agent_loop_runs_through_the_council(deciding):
    called: list[str] = []
    async with sdk(deciding) as client:
        agent = Agent(OpenAIChatModel("council", provider=OpenAIProvider(openai_client=client)))

        @agent.tool_plain
        def get_weather(city: str) -> str:
            """The weather in a city now."""
            called.append(city)
            return f"Weather in {city}: 18 degrees and sunny"

        result = await agent.run("What is the weather in Paris right now?")
    assert len(called) == 1, "the council called the tool once, then answered"
    assert "18 degrees and sunny" in result.output
