"""The council's tool decisions asked in each member's own tool calling, over HTTP, on the fake upstream.

One server has a member on each wire format (OpenAI's, Anthropic's,
Gemini's). A forced call on ``council`` reaches each member as its wire
format's tools and tool choice (asserted on what the fake upstream got) and
comes back as ``tool_calls`` valid for the tool; the next turn, carrying
the council's call and the tool's result, reaches each member as its own
call and result blocks; a member that answers a forced call in text, or
calls with bad arguments, is asked once more (the error quoted) and then
recorded as ``invalid_output``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
import openai
import pytest

from council import Council, RunRequest
from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeCall, FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import RunningServer, quality_judge, serve

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1},
                                                    "unit": {"enum": ["celsius", "fahrenheit"]}},
                   "required": ["city", "unit"], "additionalProperties": False}}}
TIME = {"type": "function", "function": {"name": "get_time", "description": "The time in a zone", "parameters": {
    "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}
QUESTION = {"role": "user", "content": "What is the weather in Oslo?"}
NAMED = {"type": "function", "function": {"name": "get_weather"}}
GOOD = {"city": "Oslo", "unit": "celsius"}
RESULT = '{"temp_c": 4, "sky": "clear"}'
MEMBERS = {"alpha": "openai", "beta": "anthropic", "gamma": "gemini"}


@pytest.fixture
async def server(fake_llm: FakeLLMServer) -> AsyncIterator[RunningServer]:
    config = CouncilConfig.model_validate({
        "members": [{"name": name, "provider": wire, "model": f"model-{name}", "base_url": fake_llm.base_url(wire)}
                    for name, wire in MEMBERS.items()],
        "chairman": "alpha",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
        "server": {"council_tools": "decide"},
    })
    runner, running = await serve(fake_llm, config, Store(":memory:"), None)
    yield running
    await runner.cleanup()
    running.store.close()


def script(fake: FakeLLMServer, member: str, *first: Step, later: str = json.dumps(GOOD)) -> None:
    """``first`` answers the member's first calls; every later one (reviews, the chairman) plays a member."""
    fake.script(f"model-{member}", *first, Step(reply=council_member(later, quality_judge)))


async def ask(server: RunningServer, messages: list[dict[str, Any]], **extra: Any) -> Any:
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0) as sdk:
        return await sdk.chat.completions.with_raw_response.create(model="council", messages=messages,
                                                                    tools=[WEATHER, TIME], **extra)


def first_request(fake: FakeLLMServer, member: str) -> dict[str, Any]:
    return fake.requests_for(f"model-{member}")[0].body


async def test_a_forced_call_reaches_each_member_as_its_own_tool_calling(server):
    for member in MEMBERS:
        script(server.fake, member, Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    raw = await ask(server, [QUESTION], tool_choice=NAMED)
    choice = raw.parse().choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert call.function.name == "get_weather"
    jsonschema.validate(json.loads(call.function.arguments), WEATHER["function"]["parameters"])

    openai_sent = first_request(server.fake, "alpha")
    assert openai_sent["tools"] == [WEATHER, TIME] and openai_sent["tool_choice"] == NAMED
    assert "response_format" not in openai_sent, "asked natively, not for a JSON answer"
    anthropic_sent = first_request(server.fake, "beta")
    assert [(t["name"], t["input_schema"]) for t in anthropic_sent["tools"]] == [
        ("get_weather", WEATHER["function"]["parameters"]), ("get_time", TIME["function"]["parameters"])]
    assert {k: anthropic_sent["tool_choice"][k] for k in ("type", "name")} == {"type": "tool", "name": "get_weather"}
    gemini_sent = first_request(server.fake, "gamma")
    assert [d["name"] for d in gemini_sent["tools"][0]["functionDeclarations"]] == ["get_weather", "get_time"]
    assert gemini_sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY",
                                                                   "allowedFunctionNames": ["get_weather"]}}
    stored = server.store.get(raw.headers["x-council-run-id"])
    assert stored is not None and all(a.status == "ok" for a in stored.answers)
    assert all(json.loads(a.content or "") == GOOD for a in stored.answers), "each call read back as its arguments"
    assert all(a.usage.total_tokens > 0 for a in stored.answers), "each member's usage is in its record"


async def test_the_next_turn_carries_the_call_and_its_result_in_each_wire_format(server):
    for member in MEMBERS:
        script(server.fake, member, Step(reply=council_member("It is 4 degrees and clear in Oslo.", quality_judge)),
               later="It is 4 degrees and clear in Oslo.")
    call = {"id": "call_abc123", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps(GOOD)}}
    conversation = [QUESTION, {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": "call_abc123", "content": RESULT}]
    raw = await ask(server, conversation)  # tool_choice auto: the council may answer in text, and does
    choice = raw.parse().choices[0]
    assert choice.finish_reason == "stop" and "4 degrees" in (choice.message.content or "")
    assert not choice.message.tool_calls

    assert first_request(server.fake, "alpha")["messages"] == conversation
    assert first_request(server.fake, "alpha")["tool_choice"] == "auto"
    assert first_request(server.fake, "beta")["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": QUESTION["content"]}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_abc123", "name": "get_weather",
                                           "input": GOOD}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_abc123", "content": RESULT}]},
    ]
    contents = first_request(server.fake, "gamma")["contents"]
    assert contents[0] == {"role": "user", "parts": [{"text": QUESTION["content"]}]}
    assert [part["functionCall"] for part in contents[1]["parts"]] == [{"name": "get_weather", "args": GOOD}]
    assert contents[2] == {"role": "user", "parts": [{"functionResponse": {
        "name": "get_weather", "response": {"temp_c": 4, "sky": "clear"}}}]}


async def test_a_member_answering_a_forced_call_in_text_is_invalid_output(server):
    script(server.fake, "alpha", Step(reply="Oslo is cold."), Step(reply="Still cold, I think."))
    script(server.fake, "beta", Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    script(server.fake, "gamma", Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    raw = await ask(server, [QUESTION], tool_choice="required")
    (call,) = raw.parse().choices[0].message.tool_calls or []
    assert json.loads(call.function.arguments) == GOOD
    stored = server.store.get(raw.headers["x-council-run-id"])
    assert stored is not None
    alpha = next(a for a in stored.answers if a.member == "alpha")
    assert alpha.status == "failed" and alpha.error is not None and alpha.error.reason == "invalid_output"
    assert alpha.error.message == "the answer is text where a call of get_weather or get_time was required"
    assert alpha.attempts == 2 and alpha.content == "Still cold, I think."
    retry = server.fake.requests_for("model-alpha")[1].body
    assert retry["messages"][-2:] == [
        {"role": "assistant", "content": "Oslo is cold."},
        {"role": "user", "content": "That reply is text where a call of get_weather or get_time was required. "
                                    "Reply again by calling the tool."}]


async def test_a_call_with_bad_arguments_is_retried_with_the_error_as_the_tools_result(server):
    bad = FakeCall("get_weather", {"city": "Oslo", "unit": "kelvin"}, id="toolu_bad")
    script(server.fake, "beta", Step(tool_calls=(bad,)), Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    for member in ("alpha", "gamma"):
        script(server.fake, member, Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    raw = await ask(server, [QUESTION], tool_choice=NAMED)
    stored = server.store.get(raw.headers["x-council-run-id"])
    assert stored is not None
    beta = next(a for a in stored.answers if a.member == "beta")
    assert beta.status == "ok" and beta.attempts == 2 and json.loads(beta.content or "") == GOOD
    retry = server.fake.requests_for("model-beta")[1].body["messages"]
    assert retry[-2]["content"] == [{"type": "tool_use", "id": "toolu_bad", "name": "get_weather",
                                     "input": {"city": "Oslo", "unit": "kelvin"}}]
    (result,) = retry[-1]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_bad"
    assert "does not validate against the schema at unit" in json.dumps(result["content"])


async def test_a_tool_decision_is_admitted_and_paid_from_the_runs_budget(fake_llm):
    price = {"input_per_mtok": 100.0, "output_per_mtok": 300.0}
    config = CouncilConfig.model_validate({
        "members": [{"name": name, "provider": wire, "model": f"model-{name}", "base_url": fake_llm.base_url(wire),
                     "price": price} for name, wire in MEMBERS.items()],
        "chairman": None,
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
    })
    for member in MEMBERS:
        script(fake_llm, member, Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    store = Store(":memory:")
    async with Council(config, store=store, environ={}) as council:
        starved = await council.ask(RunRequest(messages=[QUESTION], tools=[WEATHER, TIME], tool_choice=NAMED,
                                               max_usd=0.000001))
        assert not fake_llm.requests, "a call that could cost more than is left is not made"
        assert {a.error.reason for a in starved.answers if a.error is not None} == {"budget"}
        paid = await council.ask(RunRequest(messages=[QUESTION], tools=[WEATHER, TIME], tool_choice=NAMED,
                                            max_usd=5.0))
    store.close()
    assert paid.output == GOOD and all(a.status == "ok" for a in paid.answers)
    assert paid.cost is not None and set(paid.cost.by_member) >= set(MEMBERS)
    answers = [call for call in paid.cost.calls if call.stage == "answers"]
    assert len(answers) == 3 and all(call.usd > 0 for call in answers), "each member's call is priced"


async def test_a_reply_with_no_message_is_a_failed_answer_not_an_exception(server):
    script(server.fake, "alpha", Step(body=b'{"object": "chat.completion", "choices": []}'))
    for member in ("beta", "gamma"):
        script(server.fake, member, Step(tool_calls=(FakeCall("get_weather", GOOD),)))
    raw = await ask(server, [QUESTION], tool_choice=NAMED)
    assert raw.parse().choices[0].finish_reason == "tool_calls"
    stored = server.store.get(raw.headers["x-council-run-id"])
    assert stored is not None
    alpha = next(a for a in stored.answers if a.member == "alpha")
    assert alpha.status == "failed" and alpha.error is not None and alpha.error.reason == "protocol"
    assert "no choices[0].message" in alpha.error.message
