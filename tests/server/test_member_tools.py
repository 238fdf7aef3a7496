"""Tool calling through ``member/NAME`` on every wire format, with the openai SDK as the client.

One server has a member on each wire format: OpenAI's, Anthropic's and
Gemini's on the fake upstream, and a simulated one. For each, plain and
streamed, a tool call comes back as OpenAI ``tool_calls`` (arguments valid
for the tool's schema, ``finish_reason: "tool_calls"``), the tool result
reaches the member in its own format in the next turn (asserted on what
the fake upstream recorded), the text answer comes back, and every
response and chunk is valid for OpenAI's schema.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeCall, FakeLLMServer, Step
from tests.server.conftest import RunningServer, serve
from tests.server.openai_schemas import assert_valid

WEATHER = {"type": "function", "function": {
    "name": "weather", "description": "Weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1},
                                                    "days": {"type": "integer", "minimum": 1, "maximum": 7}},
                   "required": ["city", "days"], "additionalProperties": False}}}
CLOCK = {"type": "function", "function": {"name": "clock", "description": "The time now",
                                          "parameters": {"type": "object", "properties": {}}}}
QUESTION = {"role": "user", "content": "What is the weather in Oslo?"}
RESULT = '{"temp_c": 4, "sky": "clear"}'
ANSWER = "It is 4 degrees and clear in Oslo."
PERSONA = {"quality": 0.8, "verbosity": "terse", "style": "plain", "leniency": 0.0, "spread": 1.0, "noise": 0.0,
           "latency_ms": 0, "uptake": 0.4}
MEMBERS = ["alpha", "beta", "gamma", "atlas"]  # openai, anthropic, gemini, simulated


@pytest.fixture
async def server(fake_llm: FakeLLMServer) -> AsyncIterator[RunningServer]:
    config = CouncilConfig.model_validate({
        "members": [
            {"name": "alpha", "provider": "openai", "model": "model-alpha", "base_url": fake_llm.base_url("openai")},
            {"name": "beta", "provider": "anthropic", "model": "model-beta",
             "base_url": fake_llm.base_url("anthropic")},
            {"name": "gamma", "provider": "gemini", "model": "model-gamma", "base_url": fake_llm.base_url("gemini")},
            {"name": "atlas", "provider": "simulated", "model": "sim-atlas-1", "persona": PERSONA},
        ],
        "chairman": "alpha",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
    })
    runner, running = await serve(fake_llm, config, Store(":memory:"), None)
    yield running
    await runner.cleanup()
    running.store.close()


def sdk(server: RunningServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)


async def ask(server: RunningServer, member: str, messages: list[dict[str, Any]], stream: bool,
              **extra: Any) -> tuple[str, list[dict[str, Any]], str]:
    """The answer's text, its tool calls (as OpenAI's ``tool_calls`` entries) and its finish reason, every
    response or chunk checked against OpenAI's schema."""
    async with sdk(server) as client:
        if not stream:
            raw = await client.chat.completions.with_raw_response.create(
                model=f"member/{member}", messages=messages, tools=[WEATHER, CLOCK], **extra)
            body = json.loads(raw.http_response.text)
            assert_valid(body, "CreateChatCompletionResponse")
            assert body["model"] == f"member/{member}"
            [choice] = body["choices"]
            return choice["message"]["content"] or "", choice["message"].get("tool_calls") or [], \
                choice["finish_reason"]
        chunks = [chunk async for chunk in await client.chat.completions.create(
            model=f"member/{member}", messages=messages, tools=[WEATHER, CLOCK], stream=True, **extra)]
    text, calls, finish = "", {}, ""
    for chunk in chunks:
        data = chunk.model_dump(mode="json", exclude_unset=True)
        assert_valid(data, "CreateChatCompletionStreamResponse")
        assert data["model"] == f"member/{member}"
        for choice in data["choices"]:
            text += choice["delta"].get("content") or ""
            finish = choice.get("finish_reason") or finish
            for delta in choice["delta"].get("tool_calls") or []:
                call = calls.setdefault(delta["index"], {"id": "", "type": "function",
                                                         "function": {"name": "", "arguments": ""}})
                call["id"] += delta.get("id") or ""
                call["function"]["name"] += (delta.get("function") or {}).get("name") or ""
                call["function"]["arguments"] += (delta.get("function") or {}).get("arguments") or ""
    return text, [calls[index] for index in sorted(calls)], finish


def script_call_then_answer(fake: FakeLLMServer, member: str) -> None:
    call = FakeCall("weather", {"city": "Oslo", "days": 2}, signature="sig-gemini-1" if member == "gamma" else None)
    fake.script(f"model-{member}", Step(tool_calls=(call,)), Step(reply=ANSWER))


def assert_a_valid_weather_call(calls: list[dict[str, Any]]) -> dict[str, Any]:
    [call] = calls
    assert call["type"] == "function" and call["function"]["name"] == "weather" and call["id"]
    jsonschema.validate(json.loads(call["function"]["arguments"]), WEATHER["function"]["parameters"])
    return call


def upstream_turn(fake: FakeLLMServer, member: str) -> dict[str, Any]:
    """The body the member's upstream got for the second turn."""
    return fake.requests_for(f"model-{member}")[-1].body


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("member", MEMBERS)
async def test_a_tool_call_and_its_result_round_trip_through_a_member(server, member, stream):
    if member != "atlas":
        script_call_then_answer(server.fake, member)
    # The simulated member calls a tool when obliged to; upstream models are scripted to.
    choice: Any = {"type": "function", "function": {"name": "weather"}} if member == "atlas" else "auto"
    text, calls, finish = await ask(server, member, [QUESTION], stream, tool_choice=choice)
    call = assert_a_valid_weather_call(calls)
    assert finish == "tool_calls" and not text
    conversation = [QUESTION, {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": call["id"], "content": RESULT}]
    text, calls, finish = await ask(server, member, conversation, stream, tool_choice=choice)
    assert (calls, finish) == ([], "stop")
    if member == "atlas":
        assert text and RESULT in text, "the simulated member answers in text, quoting the result"
        return
    assert text == ANSWER
    sent = upstream_turn(server.fake, member)
    arguments = json.loads(call["function"]["arguments"])
    if member == "alpha":
        assert sent["messages"] == conversation and sent["tools"] == [WEATHER, CLOCK]
    elif member == "beta":
        assert call["id"] == "toolu_fake0", "Claude's own id is kept"
        assert sent["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": QUESTION["content"]}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_fake0", "name": "weather",
                                               "input": arguments}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_fake0", "content": RESULT}]},
        ]
        assert sent["tools"] == [
            {"name": "weather", "description": "Weather in a city", "input_schema": WEATHER["function"]["parameters"]},
            {"name": "clock", "description": "The time now", "input_schema": CLOCK["function"]["parameters"]},
        ]
        assert sent["tool_choice"] == {"type": "auto"}
        assert sent.get("stream", False) is stream
    else:
        assert call["id"].startswith("call_")
        assert sent["contents"] == [
            {"role": "user", "parts": [{"text": QUESTION["content"]}]},
            {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": arguments},
                                         "thoughtSignature": "sig-gemini-1"}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "weather",
                                                             "response": {"temp_c": 4, "sky": "clear"}}}]},
        ]
        assert sent["tools"] == [{"functionDeclarations": [
            {"name": "weather", "description": "Weather in a city",
             "parametersJsonSchema": WEATHER["function"]["parameters"]},
            {"name": "clock", "description": "The time now", "parametersJsonSchema": CLOCK["function"]["parameters"]},
        ]}]
        assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
        path = server.fake.requests_for("model-gamma")[-1].path
        assert ("streamGenerateContent" in path) is stream


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_the_simulated_member_answers_in_text_unless_obliged_to_call(server, stream):
    text, calls, finish = await ask(server, "atlas", [QUESTION], stream)
    assert text and calls == [] and finish == "stop"
    text, calls, finish = await ask(server, "atlas", [QUESTION], stream, tool_choice="none")
    assert text and calls == [] and finish == "stop"
    text, calls, finish = await ask(server, "atlas", [QUESTION], stream, tool_choice="required")
    assert_a_valid_weather_call(calls)  # the tool whose name matches the question best
    assert finish == "tool_calls"
    _, calls, _ = await ask(server, "atlas", [QUESTION], stream, tool_choice={"type": "function",
                                                                               "function": {"name": "clock"}})
    assert [c["function"]["name"] for c in calls] == ["clock"] and json.loads(calls[0]["function"]["arguments"]) == {}


@pytest.mark.parametrize("member, expected", [
    ("beta", [{"type": "any", "disable_parallel_tool_use": True}, {"type": "tool", "name": "clock"},
              {"type": "none"}]),
    ("gamma", [{"functionCallingConfig": {"mode": "ANY"}},
               {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["clock"]}},
               {"functionCallingConfig": {"mode": "NONE"}}]),
])
async def test_each_tool_choice_reaches_the_member_in_its_own_terms(server, member, expected):
    server.fake.script(f"model-{member}", Step(tool_calls=(FakeCall("clock"),)))
    choices: list[dict[str, Any]] = [{"tool_choice": "required", "parallel_tool_calls": False},
                                     {"tool_choice": {"type": "function", "function": {"name": "clock"}}},
                                     {"tool_choice": "none"}]
    for choice in choices:
        _, calls, finish = await ask(server, member, [QUESTION], False, **choice)
        assert [c["function"]["name"] for c in calls] == ["clock"] and calls[0]["function"]["arguments"] == "{}"
        assert finish == "tool_calls"
    key = "tool_choice" if member == "beta" else "toolConfig"
    assert [r.body[key] for r in server.fake.requests_for(f"model-{member}")] == expected


@pytest.mark.parametrize("member", ["beta", "gamma"])
async def test_text_before_a_streamed_call_comes_first(server, member):
    server.fake.script(f"model-{member}", Step(reply="Let me look that up.",
                                               tool_calls=(FakeCall("weather", {"city": "Oslo", "days": 1}),)))
    text, calls, finish = await ask(server, member, [QUESTION], True)
    assert text == "Let me look that up." and finish == "tool_calls"
    assert_a_valid_weather_call(calls)
