"""Chat apps' extra requests: side tasks to one member; tools answered in text by the council, relayed by members."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import UTC, datetime, timedelta

import openai
import pytest

from council.cli.app import EXIT_OK, main
from council.config import CouncilConfig
from council.server.task_routing import side_task_member
from council.storage.direct_calls import direct_cost_since
from council.storage.spend import spent_on, today
from council.storage.store import Store
from council.testing.fake_llm import Step
from council.testing.scripted import read_review_task, request_messages
from tests.server.conftest import script, serve, server_config
from tests.storage.outage import sqlite_locked_elsewhere
from tests.waiting import wait_until

# The shape of Open WebUI's title task (its default template, abridged): a "### Task:" header and the chat
# quoted between <chat_history> tags.
TITLE_TASK = ("### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
              "### Output:\nJSON format: { \"title\": \"your concise title here\" }\n### Chat History:\n"
              "<chat_history>\nUSER: Why is the sky blue?\nASSISTANT: Rayleigh scattering.\n</chat_history>")
# LibreChat's title request (titleMethod "completion", its default): its default prompt, then the chat as
# "User: …\nAI: …" (see tests/data/librechat/task-title.json); the reply's whole text becomes the title.
LIBRECHAT_TITLE = ("Provide a concise, 5-word-or-less title for the conversation, using title case conventions. "
                   "Only return the title itself.\n\nConversation:\nUser: Why is the sky blue?\nAI: \n"
                   "Rayleigh scattering.")
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


async def test_librechats_title_goes_to_the_task_model_alone(task_server):
    async with sdk(task_server) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="council", user="67a1f2c3d4e5f60718293a4b", messages=[{"role": "user", "content": LIBRECHAT_TITLE}])
    assert raw.headers["x-council-task-model"] == "member/gamma"
    assert [r.model for r in task_server.fake.requests] == ["model-gamma"], "one call, no council run"


@pytest.mark.parametrize("question", [
    # LibreChat's prompt asked about, with no conversation quoted after it.
    "Provide a concise, 5-word-or-less title for the conversation. What does that prompt do?",
    # The conversation's shape without the prompt.
    "Summarise this.\n\nConversation:\nUser: Why is the sky blue?\nAI: Rayleigh scattering.",
    # The prompt quoted inside a question rather than opening it.
    "What does this do? " + LIBRECHAT_TITLE,
])
async def test_a_question_that_only_looks_like_librechats_title_runs_the_council(task_server, question):
    async with sdk(task_server) as client:
        completion = await client.chat.completions.create(model="council",
                                                          messages=[{"role": "user", "content": question}])
    assert completion.model_extra["council"]["run_id"]


async def test_on_defaults_a_side_task_goes_to_the_chairman(fake_llm):
    runner, running = await start(fake_llm)
    try:
        async with sdk(running) as client:
            raw = await client.chat.completions.with_raw_response.create(
                model="council", messages=[{"role": "user", "content": TITLE_TASK}])
        assert raw.headers["x-council-task-model"] == "member/alpha", "alpha chairs this council"
        assert "council" not in raw.parse().model_extra, "no council run"
        assert [r.model for r in running.fake.requests] == ["model-alpha"]
    finally:
        await runner.cleanup()
        running.store.close()


def priced(fake, chairman: str | None, **prices: float) -> CouncilConfig:
    base = server_config(fake).model_dump(mode="json", exclude_none=True)
    for member in base["members"]:
        if member["name"] in prices:
            member["price"] = {"input_per_mtok": prices[member["name"]], "output_per_mtok": prices[member["name"]]}
    base["chairman"] = chairman
    base["councils"] = {"pair": {"members": ["alpha", "gamma"], "chairman": "none"}}
    return CouncilConfig.model_validate(base)


@pytest.mark.parametrize(("chairman", "prices", "preset", "expected"), [
    ("beta", {"alpha": 1, "gamma": 0.5}, None, "beta"),  # the chairman, when it is a member
    (None, {"alpha": 1, "gamma": 0.5, "beta": 3}, None, "gamma"),  # else the cheapest priced member
    (None, {"beta": 3}, None, "beta"),  # a priced member before unpriced ones
    (None, {}, None, "alpha"),  # else the first
    ("beta", {"beta": 0.1}, "pair", "alpha"),  # a preset's own members: beta is not one, none is priced
])
def test_auto_picks_one_member_for_side_tasks(fake_llm, chairman, prices, preset, expected):
    config = priced(fake_llm, chairman, **prices)
    assert side_task_member(config, config.councils.get(preset or "")) == expected


async def test_task_model_council_runs_the_council_for_side_tasks(fake_llm):
    runner, running = await start(fake_llm, task_model="council")
    try:
        async with sdk(running) as client:
            completion = await client.chat.completions.create(model="council",
                                                              messages=[{"role": "user", "content": TITLE_TASK}])
        assert completion.model_extra["council"]["run_id"] and len(running.fake.requests) == 7
    finally:
        await runner.cleanup()
        running.store.close()


# -- tools on the council -----------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["council", "council/quick"])
@pytest.mark.parametrize("choice", [{}, {"tool_choice": "auto"}, {"tool_choice": "none"},
                                    {"tool_choice": {"type": "allowed_tools",
                                                     "allowed_tools": {"mode": "auto", "tools": []}}},
                                    {"parallel_tool_calls": False}])
async def test_the_council_answers_in_text_when_tools_are_offered(task_server, model, choice):
    async with sdk(task_server) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model=model, tools=[WEATHER_TOOL, WEATHER_TOOL], messages=[{"role": "user", "content": "Weather in Oslo?"}],
            **choice)
    completion = raw.parse()
    assert raw.headers["x-council-tools-ignored"] == "2"
    assert completion.choices[0].message.content and completion.choices[0].message.tool_calls is None
    assert "tools" not in task_server.fake.requests[0].body, "tools are not sent on to the members"


async def test_a_streamed_council_answer_says_the_tools_were_ignored(task_server):
    async with sdk(task_server) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="council", tools=[WEATHER_TOOL], stream=True, messages=[{"role": "user", "content": "Weather?"}])
        assert raw.headers["x-council-tools-ignored"] == "1"
        text = "".join([c.choices[0].delta.content or "" async for c in raw.parse() if c.choices])
    assert text


async def test_legacy_functions_are_ignored_too(task_server):
    async with sdk(task_server) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="council", functions=[WEATHER_TOOL["function"]], function_call="auto",
            messages=[{"role": "user", "content": "Weather?"}])
    assert raw.headers["x-council-tools-ignored"] == "1" and raw.parse().choices[0].message.content


@pytest.mark.parametrize("model", ["council", "council/quick"])
@pytest.mark.parametrize(("forcing", "param"), [
    ({"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": []}}}, "tool_choice"),
    ({"functions": [WEATHER_TOOL["function"]], "function_call": {"name": "weather"}}, "function_call"),
])
async def test_a_forcing_the_council_cannot_decide_is_a_400_naming_it(task_server, model, forcing, param):
    # A forced function tool call is decided by the council (tests/server/test_structured.py); these are not.
    tools = {} if "functions" in forcing else {"tools": [WEATHER_TOOL]}
    async with sdk(task_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Weather?"}],
                                                 **tools, **forcing)
    error = caught.value.body
    assert error["param"] == param
    assert task_server.fake.requests == [], "refused before any run"


@pytest.mark.parametrize("choice", ["sometimes", {"function": {"name": "weather"}}])
async def test_a_malformed_tool_choice_is_a_400_naming_it(task_server, choice):
    async with sdk(task_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(model="council", tools=[WEATHER_TOOL], tool_choice=choice,
                                                 messages=[{"role": "user", "content": "Weather?"}])
    assert caught.value.body["param"] == "tool_choice"


@pytest.mark.parametrize(("task_model", "message"), [
    ("member/zeta", "server.task_model 'member/zeta' names no member"),
    ("gamma", "task_model must be auto, council or member/NAME, got 'gamma'"),
    (None, "task_model"),
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


async def test_a_custom_tool_for_a_member_on_another_wire_format_is_a_400(fake_llm):
    script(fake_llm)
    base = server_config(fake_llm).model_dump(mode="json", exclude_none=True)
    base["members"][2] = {"name": "gamma", "provider": "anthropic", "model": "model-gamma",
                          "base_url": fake_llm.base_url("anthropic")}
    runner, running = await serve(fake_llm, CouncilConfig.model_validate(base), Store(":memory:"), None)
    try:
        async with sdk(running) as client:
            with pytest.raises(openai.BadRequestError) as caught:
                await client.chat.completions.create(
                    model="member/gamma", messages=[{"role": "user", "content": "Weather?"}],
                    tools=[WEATHER_TOOL, {"type": "custom", "custom": {"name": "grammar", "description": "Free text"}}])
        assert caught.value.body["message"] == ("tools[1]: member 'gamma' speaks the anthropic API: only function "
                                                "tools can be translated, got 'custom'")
        assert caught.value.body["param"] == "tools[1]"
        assert running.fake.requests == []
    finally:
        await runner.cleanup()
        running.store.close()


# -- what direct calls cost ----------------------------------------------------------------------------

async def test_direct_calls_carry_their_cost_count_toward_the_day_and_show_in_runs_since(fake_llm, tmp_path, capsys):
    script(fake_llm)
    config = priced(fake_llm, "alpha", alpha=2.0, beta=1.0, gamma=1.0)
    config = config.model_copy(update={"budget": config.budget.model_copy(update={"max_usd_per_day": 50.0})})
    store = Store(tmp_path / "runs.db")
    runner, running = await serve(fake_llm, config, store, None)
    try:
        async with sdk(running) as client:
            plain = await client.chat.completions.with_raw_response.create(
                model="member/beta", messages=[{"role": "user", "content": "Hello?"}])
            stream = await client.chat.completions.create(
                model="member/gamma", stream=True, messages=[{"role": "user", "content": "Hello?"}])
            assert "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
            title = await client.chat.completions.with_raw_response.create(
                model="council", messages=[{"role": "user", "content": TITLE_TASK}])
        usage = plain.parse().usage
        assert float(plain.headers["x-council-cost-usd"]) == pytest.approx(
            (usage.prompt_tokens + usage.completion_tokens) * 1.0 / 1e6, abs=1e-6)
        assert title.headers["x-council-task-model"] == "member/alpha"
        assert float(title.headers["x-council-cost-usd"]) > 0
        since = datetime.now(UTC) - timedelta(hours=1)
        # The rows are written behind the answers: wait for them rather than sleep.
        await wait_until(lambda: direct_cost_since(store, since).calls == 3 and spent_on(store, today()) > 0,
                         what="the three calls' rows and the day's cost")
        totals = direct_cost_since(store, since)
        assert (totals.calls, totals.unpriced) == (3, 0)
        assert totals.usd == pytest.approx(spent_on(store, today()))
        assert totals.usd >= float(plain.headers["x-council-cost-usd"]) + float(title.headers["x-council-cost-usd"])
    finally:
        await runner.cleanup()
        store.close()
    environ = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}
    assert main(["runs", "--since", "1d"], environ) == EXIT_OK
    last = capsys.readouterr().out.strip().splitlines()[-1]
    label, _, usd = last.partition(": $")
    assert label == "3 direct calls (member/NAME and chat apps' side tasks)"
    assert float(usd) == pytest.approx(totals.usd, rel=0.01)


async def test_relayed_tool_calls_carry_their_cost_and_are_counted(fake_llm, tmp_path):
    script(fake_llm)
    fake_llm.script("model-alpha", Step(body=tool_call_completion()), Step(body=tool_call_stream(),
                                                                          content_type="text/event-stream"))
    store = Store(tmp_path / "runs.db")
    runner, running = await serve(fake_llm, priced(fake_llm, "alpha", alpha=10.0), store, None)
    try:
        async with sdk(running) as client:
            raw = await client.chat.completions.with_raw_response.create(
                model="member/alpha", messages=CONVERSATION, tools=[WEATHER_TOOL])
            stream = await client.chat.completions.create(model="member/alpha", messages=CONVERSATION[:1],
                                                          tools=[WEATHER_TOOL], stream=True)
            assert [chunk async for chunk in stream]
        assert raw.parse().choices[0].message.tool_calls
        assert float(raw.headers["x-council-cost-usd"]) == pytest.approx((20 * 10 + 8 * 10) / 1e6)
        since = datetime.now(UTC) - timedelta(hours=1)
        await wait_until(lambda: direct_cost_since(store, since).calls == 2, what="the two calls' rows")
        totals = direct_cost_since(store, since)
        # The scripted stream reports no usage: that call is counted, its cost unknown.
        assert (totals.calls, totals.unpriced) == (2, 1) and totals.usd == pytest.approx(280 / 1e6)
    finally:
        await runner.cleanup()
        store.close()


async def test_a_locked_database_holds_no_direct_call_and_loses_none_of_its_cost(fake_llm, tmp_path):
    script(fake_llm)
    config = priced(fake_llm, "alpha", beta=1.0)
    config = config.model_copy(update={"budget": config.budget.model_copy(update={"max_usd_per_day": 50.0})})
    store = Store(tmp_path / "runs.db")
    runner, running = await serve(fake_llm, config, store, None)
    try:
        with sqlite_locked_elsewhere(tmp_path / "runs.db"):
            async with sdk(running) as client:
                # wait_for guards against a hang; how long it takes is the benchmark's business, not this test's.
                raw = await asyncio.wait_for(client.chat.completions.with_raw_response.create(
                    model="member/beta", messages=[{"role": "user", "content": "Hello?"}]), timeout=20)
            assert raw.parse().choices[0].message.content and float(raw.headers["x-council-cost-usd"]) > 0
            assert direct_cost_since(store, datetime.now(UTC) - timedelta(hours=1)).calls == 0, "not written yet"
        since = datetime.now(UTC) - timedelta(hours=1)

        async def landed() -> bool:
            return direct_cost_since(store, since).calls == 1 and spent_on(store, today()) > 0

        await wait_until(landed, what="the call's row and its cost, once the lock was let go")
        assert spent_on(store, today()) == pytest.approx(float(raw.headers["x-council-cost-usd"]), rel=1e-3)
    finally:
        await runner.cleanup()
        store.close()
