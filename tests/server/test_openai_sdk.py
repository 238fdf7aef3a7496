"""The server, driven by the real openai SDK (async and sync, plain and streamed)."""

from __future__ import annotations

import asyncio

import aiohttp
import openai
import pytest

from council.testing.fake_llm import Step
from council.testing.scripted import CHAIRMAN_PREFIX
from tests.server.conftest import API_KEY, health_when, start_server

QUESTION = [{"role": "user", "content": "What is six times seven?"}]


def client(server, key: str = API_KEY, **kwargs) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=key, max_retries=kwargs.pop("max_retries", 0),
                              **kwargs)


async def test_models_list_and_retrieve(server):
    async with client(server) as sdk:
        models = await sdk.models.list()
        assert [m.id for m in models.data] == ["council", "member/alpha", "member/beta", "member/gamma"]
        assert all(m.object == "model" and m.owned_by == "council" for m in models.data)
        model = await sdk.models.retrieve("member/beta")
        assert model.id == "member/beta"
        with pytest.raises(openai.NotFoundError):
            await sdk.models.retrieve("gpt-4")


async def test_council_completion(server):
    async with client(server) as sdk:
        raw = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION)
        completion = raw.parse()
    run_id = raw.headers["x-council-run-id"]
    assert completion.choices[0].message.content == CHAIRMAN_PREFIX + "model-alpha"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "council"
    summary = completion.model_extra["council"]
    assert summary["run_id"] == run_id
    assert [r["member"] for r in summary["ranking"]] == ["alpha", "beta", "gamma"]
    stored = server.store.get(run_id)
    assert stored is not None
    assert completion.usage.total_tokens == stored.usage.total_tokens > 0
    assert completion.usage.prompt_tokens == stored.usage.prompt_tokens


async def test_council_stream_with_usage(server):
    async with client(server) as sdk:
        stream = await sdk.chat.completions.create(model="council", messages=QUESTION, stream=True,
                                                   stream_options={"include_usage": True})
        chunks = [chunk async for chunk in stream]
    assert len({c.id for c in chunks}) == 1 and len({c.created for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    reasoning = "".join(c.choices[0].delta.model_extra.get("reasoning_content") or "" for c in chunks if c.choices)
    assert "alpha answered" in reasoning and "Ranking: 1. alpha" in reasoning
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == CHAIRMAN_PREFIX + "model-alpha"
    # Progress comes before the answer, the finish chunk after it, and the usage chunk last.
    first_content = next(i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content)
    last_reasoning = max(i for i, c in enumerate(chunks)
                         if c.choices and c.choices[0].delta.model_extra.get("reasoning_content"))
    assert last_reasoning < first_content
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert all(c.usage is None for c in chunks[:-1])


async def test_think_progress_mode(fake_llm):
    from tests.server.conftest import script

    script(fake_llm)
    runner, running = await start_server(fake_llm, progress="think")
    try:
        async with client(running) as sdk:
            stream = await sdk.chat.completions.create(model="council", messages=QUESTION, stream=True)
            content = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert content.startswith("<think>\n") and "</think>\n\n" + CHAIRMAN_PREFIX in content
    finally:
        await runner.cleanup()
        running.store.close()


async def test_sync_sdk(server):
    """The sync SDK, run in a worker thread so the server's loop keeps serving."""

    def use_sync_client() -> tuple[str, str]:
        with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as sdk:
            plain = sdk.chat.completions.create(model="member/gamma", messages=QUESTION)
            streamed = sdk.chat.completions.create(model="council", messages=QUESTION, stream=True)
            text = "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
            return plain.choices[0].message.content, text

    plain, streamed = await asyncio.to_thread(use_sync_client)
    assert plain == "gamma thinks 42. quality=5"
    assert streamed == CHAIRMAN_PREFIX + "model-alpha"


async def test_pass_through_member(server):
    async with client(server) as sdk:
        completion = await sdk.chat.completions.create(
            model="member/beta", messages=[{"role": "developer", "content": "Be brief."}, *QUESTION],
            temperature=0.3, max_tokens=50, user="someone", presence_penalty=0, tools=[])
        stream = await sdk.chat.completions.create(model="member/beta", messages=QUESTION, stream=True,
                                                   stream_options={"include_usage": True})
        chunks = [c async for c in stream]
    assert completion.choices[0].message.content == "beta thinks 42. quality=7"
    assert completion.model == "member/beta" and completion.usage.completion_tokens == 4
    first, second = server.fake.requests_for("model-beta")
    assert first.body["temperature"] == 0.3 and first.body["max_tokens"] == 50
    assert first.messages[0] == {"role": "system", "content": "Be brief."}
    assert "tools" not in first.body, "an empty tools list is not forwarded"
    assert first.body["user"] == "someone" and first.body["presence_penalty"] == 0
    assert second.stream
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "beta thinks 42. quality=7"
    assert chunks[-1].usage is not None and chunks[-1].choices == []
    assert len(server.fake.requests_for("model-alpha")) == 0, "a pass-through call runs no council"


async def test_pass_through_upstream_failure_is_typed(server):
    server.fake.script("model-gamma", Step(status=401))
    async with client(server) as sdk:
        with pytest.raises(openai.InternalServerError) as caught:
            await sdk.chat.completions.create(model="member/gamma", messages=QUESTION)
    assert caught.value.status_code == 502 and caught.value.code == "auth"


@pytest.mark.parametrize(
    ("kwargs", "error", "param"),
    [
        ({"model": "gpt-4"}, openai.NotFoundError, "model"),
        ({"n": 2}, openai.BadRequestError, "n"),
        ({"tool_choice": "sometimes", "tools": [{"type": "function", "function": {"name": "f"}}]},
         openai.BadRequestError, "tool_choice"),
        ({"messages": [{"role": "user",
                        "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}]},
         openai.BadRequestError, "messages[0].content[0]"),
        ({"messages": [{"role": "assistant", "content": "hi"}]}, openai.BadRequestError, "messages"),
    ],
)
async def test_request_errors_map_to_sdk_exceptions(server, kwargs, error, param):
    arguments = {"model": "council", "messages": QUESTION, **kwargs}
    async with client(server) as sdk:
        with pytest.raises(error) as caught:
            await sdk.chat.completions.create(**arguments)
    assert caught.value.body["param"] == param


async def test_wrong_key_is_an_authentication_error(server):
    async with client(server, key="wrong") as sdk:
        with pytest.raises(openai.AuthenticationError):
            await sdk.models.list()


async def test_every_member_failing_is_a_502_that_the_sdk_does_not_retry(server):
    for name in ("alpha", "beta", "gamma"):
        server.fake.script(f"model-{name}", Step(status=401))
    async with client(server, max_retries=2) as sdk:
        with pytest.raises(openai.InternalServerError) as caught:
            await sdk.chat.completions.create(model="council", messages=QUESTION)
    assert caught.value.status_code == 502
    assert caught.value.response.headers["x-should-retry"] == "false"
    assert "quorum not met" in caught.value.message
    assert len(server.fake.requests) == 3, "one council run, not three"


async def test_every_answer_blocked_ends_with_content_filter(server):
    unsafe = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
    for name in ("alpha", "beta", "gamma"):
        server.fake.script(f"model-{name}", Step(reply=unsafe))
    async with client(server) as sdk:
        completion = await sdk.chat.completions.create(model="council", messages=QUESTION)
    assert completion.choices[0].finish_reason == "content_filter"
    # A chat app shows an empty reply as nothing at all: the content says what happened.
    content = completion.choices[0].message.content
    assert content.startswith("The council withheld its answer") and "weapon" in content
    assert "pipe" not in content  # the explanation names the category, never the withheld text


async def test_every_answer_blocked_streams_its_explanation(server):
    unsafe = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
    for name in ("alpha", "beta", "gamma"):
        server.fake.script(f"model-{name}", Step(reply=unsafe))
    async with client(server) as sdk:
        stream = await sdk.chat.completions.create(model="council", messages=QUESTION, stream=True)
        chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("The council withheld its answer")
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "content_filter"


async def test_requests_over_the_run_limit_wait_their_turn(fake_llm):
    from tests.server.conftest import script

    script(fake_llm)
    fake_llm.script("model-alpha", Step(latency_s=0.3, reply="slow alpha quality=9"))
    runner, running = await start_server(fake_llm, max_concurrent_runs=2)
    try:
        async with client(running) as sdk:
            answers = await asyncio.gather(*(sdk.chat.completions.create(model="council", messages=QUESTION)
                                             for _ in range(8)))
        assert all(a.choices[0].message.content for a in answers)  # queued, then answered: no 429
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_full_queue_answers_429_with_retry_after(fake_llm):
    from tests.server.conftest import script

    script(fake_llm)
    alpha_answers = asyncio.Event()  # the first run holds the one slot until the test has been refused
    fake_llm.script("model-alpha", Step(release=alpha_answers, reply="slow alpha quality=9"))
    runner, running = await start_server(fake_llm, max_concurrent_runs=1, queue_size=1)
    try:
        async with client(running) as sdk:
            first = asyncio.ensure_future(sdk.chat.completions.create(model="council", messages=QUESTION))
            await health_when(running.url, lambda h: h["active_runs"] == 1)
            queued = asyncio.ensure_future(sdk.chat.completions.create(model="council", messages=QUESTION))
            await health_when(running.url, lambda h: h["queued"] == 1)
            with pytest.raises(openai.RateLimitError) as caught:
                await sdk.with_options(max_retries=0).chat.completions.create(model="council", messages=QUESTION)
            assert int(caught.value.response.headers["retry-after"]) >= 1
            assert "waiting" in caught.value.message
            alpha_answers.set()
            assert (await first).choices[0].message.content
            assert (await queued).choices[0].message.content
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_wait_longer_than_the_queue_timeout_gets_429(fake_llm):
    from tests.server.conftest import script

    script(fake_llm)
    alpha_answers = asyncio.Event()  # the first run holds the slot past the second's 0.3 s in the queue
    fake_llm.script("model-alpha", Step(release=alpha_answers, reply="slow alpha quality=9"))
    runner, running = await start_server(fake_llm, max_concurrent_runs=1, queue_timeout_s=0.3)
    try:
        async with client(running) as sdk:
            first = asyncio.ensure_future(sdk.chat.completions.create(model="council", messages=QUESTION))
            await health_when(running.url, lambda h: h["active_runs"] == 1)
            with pytest.raises(openai.RateLimitError) as caught:
                await sdk.with_options(max_retries=0).chat.completions.create(model="council", messages=QUESTION)
            assert "within 0.3 s" in caught.value.message and caught.value.response.headers["retry-after"]
            alpha_answers.set()
            assert (await first).choices[0].message.content
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_client_that_leaves_the_queue_frees_its_place(fake_llm):
    import aiohttp

    from tests.server.conftest import API_KEY, script

    script(fake_llm)
    alpha_answers = asyncio.Event()  # the first run holds the slot until the leaver has gone
    fake_llm.script("model-alpha", Step(release=alpha_answers, reply="slow alpha quality=9"))
    runner, running = await start_server(fake_llm, max_concurrent_runs=1)
    try:
        async with client(running) as sdk:
            first = asyncio.ensure_future(sdk.chat.completions.create(model="council", messages=QUESTION))
            await health_when(running.url, lambda h: h["active_runs"] == 1)
            async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {API_KEY}"}) as http:
                leaving = asyncio.ensure_future(http.post(running.url + "/v1/chat/completions",
                                                          json={"model": "council", "messages": QUESTION}))
                await health_when(running.url, lambda h: h["queued"] == 1)
                leaving.cancel()  # the client gives up while queued
                await asyncio.gather(leaving, return_exceptions=True)
            health = await health_when(running.url, lambda h: h["queued"] == 0)
            assert health["active_runs"] == 1, "the first run is still running: the leaver left the queue at once"
            alpha_answers.set()
            await first
            assert len([r for r in running.fake.requests if r.model == "model-beta"]) <= 3, "the leaver never ran"
    finally:
        await runner.cleanup()
        running.store.close()


async def test_stored_run_endpoint(server):
    async with client(server) as sdk:
        raw = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION)
    run_id = raw.headers["x-council-run-id"]
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {API_KEY}"}) as http:
        async with http.get(f"{server.base_url}/council/runs/{run_id}") as response:
            found_status, found = response.status, await response.json()
        async with http.get(f"{server.base_url}/council/runs/nope") as response:
            missing_status, missing = response.status, await response.json()
    async with aiohttp.ClientSession() as http, http.get(f"{server.url}/healthz") as response:
        health_status, health = response.status, await response.json()
    assert found_status == 200 and found["run_id"] == run_id
    assert [r["member"] for r in found["ranking"]] == ["alpha", "beta", "gamma"]
    assert missing_status == 404 and missing["error"]["code"] == "run_not_found"
    assert health_status == 200 and health["status"] == "ok"
