"""Typed output from `council serve` on defaults, asked for as the agent frameworks' docs show.

LangChain's ``with_structured_output`` (JSON schema and function calling),
pydantic-ai's ``output_type`` (tool output, its default, and
``NativeOutput``, ``PromptedOutput``): each gets back a
validated object from ``council`` and from ``council/quick`` (no chairman),
run by the shipped simulated council.
"""

from __future__ import annotations

import httpx
import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel
from pydantic_ai import Agent, NativeOutput, PromptedOutput
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.server.test_structured import simulated  # noqa: F401  (the fixture: `council serve` on defaults)

MODELS = ["council", "council/quick"]
QUESTION = "Name a large city and a few words about it."


class City(BaseModel):
    name: str
    population: int
    tags: list[str]




@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
async def test_langchain_with_structured_output(simulated, model, method):  # noqa: F811
    async with httpx.AsyncClient() as http:
        chat = ChatOpenAI(model=model, base_url=simulated.base_url, api_key="unused", max_retries=0,
                          http_async_client=http)
        if method == "json_mode":
            structured = chat.with_structured_output(City.model_json_schema(), method="json_mode")
            value = await structured.ainvoke(f"{QUESTION} Reply in JSON.")
            assert isinstance(value, dict) and value
            return
        city = await chat.with_structured_output(City, method=method).ainvoke(QUESTION)
    assert isinstance(city, City) and city.name


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("output", ["tool", "native", "prompted"])
async def test_pydantic_ai_output_type(simulated, model, output):  # noqa: F811
    output_type = {"tool": City, "native": NativeOutput(City), "prompted": PromptedOutput(City)}[output]
    async with openai.AsyncOpenAI(base_url=simulated.base_url, api_key="unused", max_retries=0) as client:
        agent = Agent(OpenAIChatModel(model, provider=OpenAIProvider(openai_client=client)), output_type=output_type)
        result = await agent.run(QUESTION)
    assert isinstance(result.output, City) and result.output.name and isinstance(result.output.population, int)
