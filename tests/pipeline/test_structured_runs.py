"""Structured runs from Python, as docs/structured-output.md shows: typed output and tool decisions on defaults."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from pydantic import BaseModel

from council import Council, GenerationParams, RunRequest
from council.config import load_config, simulated_config_path
from council.errors import InvalidRequestError
from council.storage.store import Store

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CLOCK = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}


class City(BaseModel):
    name: str
    population: int


@pytest.fixture
async def council() -> AsyncIterator[Council]:
    store = Store(":memory:")
    async with Council(load_config(simulated_config_path(), {}), store=store, environ={}) as running:
        yield running
    store.close()


async def test_output_type_returns_an_instance_and_the_record_keeps_the_schema(council):
    result = await council.ask("Name a large city.", output_type=City)
    assert isinstance(result.output, City) and result.output.name
    assert result.output_schema is not None and all(a.status == "ok" for a in result.answers)


async def test_a_json_schema_returns_a_dict(council):
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 5}},
              "required": ["n"]}
    result = await council.ask("Pick a number.", output_type=schema)
    assert isinstance(result.output, dict) and 3 <= result.output["n"] <= 5


async def test_tools_with_the_choice_left_free_return_a_decision(council):
    result = await council.ask(RunRequest.of("What is the weather in Paris?", tools=[WEATHER, CLOCK]))
    assert result.output["name"] == "get_weather" and isinstance(result.output["arguments"]["city"], str)
    answered = await council.ask(RunRequest(messages=[
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": '[called tool get_weather with arguments {"city": "Paris"}]'},
        {"role": "user", "content": "[tool result of get_weather]\nrain, 9 degrees"}], tools=[WEATHER, CLOCK]))
    assert set(answered.output) == {"reply"} and "rain, 9 degrees" in answered.output["reply"]


async def test_tool_choice_none_is_a_prose_run(council):
    result = await council.ask("What is the weather in Paris?", tools=[WEATHER], tool_choice="none")
    assert result.output is None and result.output_schema is None and result.final_answer.content


async def test_the_tool_conversation_reaches_members_with_its_calls_and_results(council):
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    raw = [{"role": "user", "content": "What is the weather in Paris?"},
           {"role": "assistant", "content": None, "tool_calls": [call]},
           {"role": "tool", "tool_call_id": "call_1", "content": "rain, 9 degrees"}]
    text = [{"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": '[called tool get_weather with arguments {"city": "Paris"}]'},
            {"role": "user", "content": "[tool result of get_weather]\nrain, 9 degrees"}]
    answered = await council.ask(RunRequest(messages=text, tool_messages=raw, tools=[WEATHER, CLOCK]))
    assert set(answered.output) == {"reply"} and "rain, 9 degrees" in answered.output["reply"]


def test_a_tool_conversation_no_wire_format_carries_is_refused_naming_it(council):
    raw = [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}]
    with pytest.raises(InvalidRequestError) as refused:
        council.plan(RunRequest(messages="Weather?", tool_messages=raw, tools=[WEATHER], tool_choice="required"))
    assert refused.value.option == "tool_messages" and "messages[0].content[0]" in str(refused.value)
    plain = council.plan(RunRequest(messages="Weather?", tool_messages=raw))
    assert plain.tool_messages is None, "read only when the run decides a call"


async def test_tool_sets_that_differ_only_in_a_description_are_different_requests(council):
    described = {"type": "function", "function": {**WEATHER["function"], "description": "Weather, in kelvin"}}
    plans = [council.plan(RunRequest(messages="Weather in Paris?", tools=[tool], tool_choice="required"))
             for tool in (WEATHER, described)]
    assert plans[0].output is not None and plans[1].output is not None
    assert plans[0].output.fingerprint() != plans[1].output.fingerprint()
    # A kept call never stands in for a tool decision: each run asks its members again.
    runs = [await council.ask(replace(plan, reuse_calls=True, reuse_scope="same")) for plan in (*plans, plans[0])]
    assert all(not answer.reused for run in runs for answer in run.answers)


def test_a_forced_call_with_a_response_format_beside_it_decides_the_call(council):
    # OpenAI takes both (the format shapes text, and a forced call leaves none); instructor's Responses mode sends both.
    schema = WEATHER["function"]["parameters"]
    both = GenerationParams(response_format={"type": "json_schema", "json_schema": {"name": "w", "schema": schema}})
    plan = council.plan(RunRequest(messages="Weather in Paris?", tools=[WEATHER], tool_choice="required", params=both))
    assert plan.output is not None and plan.output.calls == ("get_weather",)
    with pytest.raises(InvalidRequestError) as free:
        council.plan(RunRequest(messages="Weather in Paris?", tools=[WEATHER], params=both))
    assert free.value.option == "tool_choice" and "tool_choice auto" in str(free.value)
    with pytest.raises(InvalidRequestError) as typed:
        council.plan(RunRequest(messages="Weather in Paris?", tools=[WEATHER], tool_choice="required",
                                output_type=City))
    assert typed.value.option == "tool_choice" and "output_type" in str(typed.value)
