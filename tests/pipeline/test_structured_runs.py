"""Structured runs from Python, as docs/structured-output.md shows: typed output and tool decisions on defaults."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel

from council import Council, RunRequest
from council.config import load_config, simulated_config_path
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
