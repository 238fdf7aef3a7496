"""Chat apps' extra requests: side tasks to a task model; tools refused by the council and relayed by members."""

from __future__ import annotations

import json

import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import Step
from council.testing.scripted import read_review_task, request_messages
from tests.server.conftest import script, serve, server_config

# The shape of Open WebUI's title task (its default template, abridged): a "### Task:" header and the chat
# quoted between <chat_history> tags.
TITLE_TASK = ("### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
              "### Output:\nJSON format: { \"title\": \"your concise title here\" }\n### Chat History:\n"
              "<chat_history>\nUSER: Why is the sky blue?\nASSISTANT: Rayleigh scattering.\n</chat_history>")
WEATHER_TOOL = {"type": "function", "function": {"name": "weather", "description": "Weather in a city",
                                                 "parameters": {"type": "object",
                                                                "properties": {"city": {"type": "string"}}}}}


async def start(fake, **server):
    script(fake)
    base = server_config(fake, **server).model_dump(mode="json", exclude_none=True)
    config = CouncilConfig.model_validate({**base, "councils": {"quick": {"chairman": "none"}}})
    return await serve(fake, config, Store(":memory:"), None)


@pytest.fixture
async def task_server(fake_llm):
    runner, running = await start(fake_llm, task_model="member/gamma")
    yield running
    await runner.cleanup()
    running.store.close()


def sdk(server) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_a_title_task_goes_to_the_task_model_alone(task_server, model):
    async with sdk(task_server) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model=model, messages=[{"role": "user", "content": TITLE_TASK}])
    completion = raw.parse()
    assert raw.headers["x-council-task-model"] == "member/gamma"
    assert completion.model == model and completion.choices[0].message.content
    assert [r.model for r in task_server.fake.requests] == ["model-gamma"], "one call, no council run"


async def test_a_streamed_title_task_goes_to_the_task_model_too(task_server):
    async with sdk(task_server) as client:
        stream = await client.chat.completions.create(model="council", stream=True,
                                                      messages=[{"role": "user", "content": TITLE_TASK}])
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text and [r.model for r in task_server.fake.requests] == ["model-gamma"]


async def test_a_question_that_only_looks_like_a_task_runs_the_council(task_server):
    question = "### Task: explain why the sky is blue, in two sentences."
    async with sdk(task_server) as client:
        completion = await client.chat.completions.create(model="council",
                                                          messages=[{"role": "user", "content": question}])
    assert completion.model_extra["council"]["run_id"]
    reviews = [r for r in task_server.fake.requests if read_review_task(request_messages(r))]
    assert len(reviews) == 3, "a whole council run: every member reviewed"


async def test_without_a_task_model_side_tasks_run_the_council(fake_llm):
    runner, running = await start(fake_llm)
    try:
        async with sdk(running) as client:
            completion = await client.chat.completions.create(model="council",
                                                              messages=[{"role": "user", "content": TITLE_TASK}])
        assert completion.model_extra["council"]["run_id"] and len(running.fake.requests) == 7
    finally:
        await runner.cleanup()
        running.store.close()


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_tools_on_the_council_are_a_400_naming_the_pass_through_models(task_server, model):
    async with sdk(task_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model=model, tools=[WEATHER_TOOL],
                                                 messages=[{"role": "user", "content": "Weather in Oslo?"}])
    error = caught.value.body
    assert error["param"] == "tools" and error["code"] == "tools_not_supported"
    assert "member/alpha, member/beta, member/gamma" in error["message"]
    assert task_server.fake.requests == [], "refused before any run"


@pytest.mark.parametrize(("task_model", "message"), [
    ("member/zeta", "server.task_model 'member/zeta' names no member"),
    ("gamma", "String should match pattern"),
])
def test_a_task_model_that_is_no_member_stops_the_config(fake_llm, task_model, message):
    base = server_config(fake_llm).model_dump(mode="json", exclude_none=True)
    base["server"]["task_model"] = task_model
    with pytest.raises(ValueError, match=message):
        CouncilConfig.model_validate(base)


# -- tools through member/NAME ----------------------------------------------------------------------

TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}


def tool_call_completion() -> bytes:
    return json.dumps({"id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": "model-alpha",
                       "choices": [{"index": 0, "finish_reason": "tool_calls",
                                    "message": {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}}],
                       "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}}).encode()


def tool_call_stream() -> bytes:
    def chunk(delta: dict, finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
                                      "model": "model-alpha",
                                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "weather", "arguments": ""}}
    return "".join([
        chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": "}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}),
        chunk({}, "tool_calls"),
        "data: [DONE]\n\n",
    ]).encode()


CONVERSATION = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\": 4}"},
    {"role": "user", "content": "And tomorrow?"},
]


async def test_tools_pass_through_a_member_and_tool_calls_come_back(task_server):
    task_server.fake.script("model-alpha", Step(body=tool_call_completion()))
    async with sdk(task_server) as client:
        completion = await client.chat.completions.create(model="member/alpha", messages=CONVERSATION,
                                                          tools=[WEATHER_TOOL], tool_choice="auto")
    [call] = completion.choices[0].message.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == ("call_1", "weather", '{"city": "Oslo"}')
    assert completion.choices[0].finish_reason == "tool_calls" and completion.model == "member/alpha"
    [sent] = task_server.fake.requests
    assert sent.body["tools"] == [WEATHER_TOOL] and sent.body["tool_choice"] == "auto"
    assert sent.body["messages"] == CONVERSATION, "tool messages and calls pass through untouched"
    assert sent.body["model"] == "model-alpha"


async def test_streamed_tool_calls_pass_through_a_member(task_server):
    task_server.fake.script("model-alpha", Step(body=tool_call_stream(), content_type="text/event-stream"))
    async with sdk(task_server) as client:
        stream = await client.chat.completions.create(model="member/alpha", messages=CONVERSATION[:1],
                                                      tools=[WEATHER_TOOL], stream=True)
        chunks = [chunk async for chunk in stream]
    arguments = "".join(c.choices[0].delta.tool_calls[0].function.arguments or ""
                        for c in chunks if c.choices and c.choices[0].delta.tool_calls)
    assert arguments == '{"city": "Oslo"}' and chunks[0].choices[0].delta.tool_calls[0].function.name == "weather"
    assert {c.model for c in chunks} == {"member/alpha"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert task_server.fake.requests[0].body["stream"] is True


async def test_tools_for_a_member_on_another_wire_format_are_a_400(fake_llm):
    script(fake_llm)
    base = server_config(fake_llm).model_dump(mode="json", exclude_none=True)
    base["members"][2] = {"name": "gamma", "provider": "anthropic", "model": "model-gamma",
                          "base_url": fake_llm.base_url("anthropic")}
    runner, running = await serve(fake_llm, CouncilConfig.model_validate(base), Store(":memory:"), None)
    try:
        async with sdk(running) as client:
            with pytest.raises(openai.BadRequestError) as caught:
                await client.chat.completions.create(model="member/gamma", tools=[WEATHER_TOOL],
                                                     messages=[{"role": "user", "content": "Weather?"}])
        assert "speaks the anthropic API; tool calling passes through to OpenAI-format members only" in \
            caught.value.body["message"]
        assert running.fake.requests == []
    finally:
        await runner.cleanup()
        running.store.close()
