"""No silence longer than ``server.keepalive_s``: answers that start early and keep talking (issue 43).

With ``keepalive_s`` tiny and a member (or handler) held by an event, a
whole answer must send whitespace before its body and the body must still
parse as JSON; an error known at once keeps its status; a member stream
sends its headers and keep-alive comments before the member's first token.
Behind a real proxy, with real waits: tests/server/test_behind_nginx.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import openai
import pytest
from aiohttp import web

from council.server.app import error_answer, errors_middleware
from council.server.patience import PATIENCE_KEY, Patience, announce, keep_waiting, patient
from council.server.schema import ApiError
from council.testing.fake_llm import Step
from tests.server.conftest import API_KEY, RunningServer, script, start_server
from tests.waiting import wait_until

AUTH = {"Authorization": f"Bearer {API_KEY}"}
TINY = 0.05
QUESTION = [{"role": "user", "content": "What is 6 x 7?"}]


async def read_until(response: aiohttp.ClientResponse, enough: Callable[[bytes], bool]) -> bytes:
    """Bytes of the body as they come, until ``enough`` of them have."""
    got = b""
    while not enough(got):
        chunk = await response.content.readany()
        assert chunk, f"the body ended before enough came: {got!r}"
        got += chunk
    return got


@pytest.fixture
async def held() -> AsyncIterator[asyncio.Event]:
    """What holds a handler or member until the test has seen what it waits for."""
    event = asyncio.Event()
    yield event
    event.set()


async def serve_handler(handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> tuple[web.AppRunner, str]:
    """An app with the server's error middleware and a Patience of ``TINY``, answering POST / patiently."""
    app = web.Application(middlewares=[errors_middleware])
    app[PATIENCE_KEY] = Patience(TINY, error_answer)
    app.router.add_post("/", patient(handler))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/"  # type: ignore[union-attr]


async def test_a_late_answer_sends_whitespace_then_its_body_with_late_headers_in_it(held):
    async def handler(request: web.Request) -> web.StreamResponse:
        announce(request, {"x-council-run-id": "run-1"})
        await held.wait()
        return web.json_response({"answer": 42}, status=202, headers={"x-council-run-id": "run-1",
                                                                       "x-council-cost-usd": "0.01"})

    runner, url = await serve_handler(handler)
    try:
        async with aiohttp.ClientSession() as http, http.post(url) as response:
            assert response.status == 200  # started before the answer was ready: its 202 could not be said
            assert response.headers["Content-Type"].startswith("application/json")
            assert response.headers["x-council-run-id"] == "run-1", "an announced header goes out with the start"
            first = await read_until(response, lambda got: len(got) >= 2)
            assert first.strip() == b"", "whitespace comes before the body"
            held.set()
            raw = first + await response.read()
        body = json.loads(raw)
        assert body == {"answer": 42, "council": {"headers": {"x-council-cost-usd": "0.01"}}}
    finally:
        await runner.cleanup()


async def test_a_quick_answer_and_a_quick_error_keep_their_status_and_headers():
    async def handler(request: web.Request) -> web.StreamResponse:
        if request.query.get("fail"):
            raise ApiError(429, "too many", type="rate_limit_error", code="too_many_runs",
                           headers={"Retry-After": "3"})
        return web.json_response({"made": True}, status=201, headers={"x-council-cost-usd": "0.01"})

    runner, url = await serve_handler(handler)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.post(url) as response:
                assert response.status == 201 and response.headers["x-council-cost-usd"] == "0.01"
                assert await response.read() == b'{"made": true}'
            async with http.post(url + "?fail=1") as response:
                assert response.status == 429 and response.headers["Retry-After"] == "3"
                assert (await response.json())["error"]["code"] == "too_many_runs"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("raised", [ApiError(429, "too many", type="rate_limit_error", code="too_many_runs"),
                                    RuntimeError("a bug")], ids=["api-error", "unexpected"])
async def test_a_late_error_is_an_error_object_under_the_200(held, raised):
    async def handler(_request: web.Request) -> web.StreamResponse:
        await held.wait()
        raise raised

    runner, url = await serve_handler(handler)
    try:
        async with aiohttp.ClientSession() as http, http.post(url) as response:
            assert response.status == 200
            first = await read_until(response, lambda got: len(got) >= 1)
            held.set()
            body = json.loads(first + await response.read())
        expected = ("too_many_runs", "rate_limit_error") if isinstance(raised, ApiError) \
            else ("internal_error", "server_error")
        assert set(body) == {"error"} and (body["error"]["code"], body["error"]["type"]) == expected
        assert "a bug" not in json.dumps(body), "an unexpected error is never shown"
    finally:
        await runner.cleanup()


async def test_keep_waiting_ticks_until_the_awaitable_is_done(held):
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 3:
            held.set()

    async def answer() -> str:
        await held.wait()
        return "done"

    assert await keep_waiting(answer(), TINY / 5, tick) == "done"
    assert ticks >= 3


async def test_keep_waiting_cancels_its_awaitable_when_a_tick_fails():
    cancelled = asyncio.Event()

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    async def tick() -> None:
        raise ConnectionResetError("client gone")

    with pytest.raises(ConnectionResetError):
        await keep_waiting(forever(), TINY / 5, tick)
    assert cancelled.is_set()


# -- through the server ----------------------------------------------------------------------------------------------
@pytest.fixture
async def patient_server(fake_llm) -> AsyncIterator[RunningServer]:
    script(fake_llm)
    runner, running = await start_server(fake_llm, keepalive_s=TINY)
    yield running
    await runner.cleanup()
    running.store.close()


async def test_a_held_council_answer_starts_with_its_run_id_then_whitespace(patient_server, held):
    patient_server.fake.script("model-beta", Step(release=held, reply="beta thinks 42. quality=7"))
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            patient_server.base_url + "/chat/completions", json={"model": "council", "messages": QUESTION}) as response:
        assert response.status == 200
        run_id = response.headers["x-council-run-id"]
        first = await read_until(response, lambda got: len(got) >= 2)
        assert first.strip() == b""
        held.set()
        body = json.loads(first + await response.read())
    assert body["object"] == "chat.completion" and body["choices"][0]["message"]["content"]
    assert body["council"]["run_id"] == run_id


async def test_a_held_member_answer_starts_early_and_an_unknown_member_keeps_its_404(patient_server, held):
    patient_server.fake.script("model-alpha", Step(release=held, reply="alpha says 42"))
    async with aiohttp.ClientSession(headers=AUTH) as http:
        async with http.post(patient_server.base_url + "/chat/completions",
                             json={"model": "member/nobody", "messages": QUESTION}) as response:
            assert response.status == 404
        async with http.post(patient_server.base_url + "/chat/completions",
                             json={"model": "member/alpha", "messages": QUESTION}) as response:
            assert response.status == 200
            first = await read_until(response, lambda got: len(got) >= 2)
            assert first.strip() == b""
            held.set()
            body = json.loads(first + await response.read())
    assert body["choices"][0]["message"]["content"] == "alpha says 42"


async def test_a_held_member_stream_sends_headers_and_keepalives_before_its_first_token(patient_server, held):
    patient_server.fake.script("model-alpha", Step(release=held, reply="alpha says 42"))
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            patient_server.base_url + "/chat/completions",
            json={"model": "member/alpha", "messages": QUESTION, "stream": True}) as response:
        assert response.status == 200 and response.headers["Content-Type"].startswith("text/event-stream")
        first = await read_until(response, lambda got: got.count(b": keep-alive") >= 2)
        held.set()
        raw = (first + await response.read()).decode()
    events = [line.removeprefix("data: ") for line in raw.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1])
    assert text == "alpha says 42"


async def test_a_member_failing_after_its_stream_started_ends_it_with_an_error_event(patient_server, held):
    patient_server.fake.script("model-alpha", Step(release=held, status=400, error_message="bad prompt"))
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            patient_server.base_url + "/chat/completions",
            json={"model": "member/alpha", "messages": QUESTION, "stream": True}) as response:
        assert response.status == 200
        first = await read_until(response, lambda got: b": keep-alive" in got)
        held.set()
        raw = (first + await response.read()).decode()
    events = [line.removeprefix("data: ") for line in raw.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    error = json.loads(events[-2])
    assert set(error) == {"error"} and error["error"]["type"] == "server_error"


async def test_what_the_openai_sdk_makes_of_a_late_error(patient_server, held):
    """The truth docs/server.md tells: no exception; a completion whose fields are None, the error in ``error``."""
    patient_server.fake.script("model-alpha", Step(release=held, status=400, error_message="bad prompt"))
    client = openai.AsyncOpenAI(base_url=patient_server.base_url, api_key=API_KEY, max_retries=0)
    # Entered once the headers came: the answer has started, so the member may fail now.
    async with client, client.chat.completions.with_streaming_response.create(
            model="member/alpha", messages=QUESTION) as response:
        assert response.http_response.status_code == 200
        held.set()
        completion = await response.parse()
    assert completion.choices is None and completion.id is None
    error = (completion.model_extra or {})["error"]
    assert error["type"] == "server_error" and "bad prompt" in error["message"]


async def test_a_held_relayed_tool_stream_sends_keepalives_before_the_member_answers(patient_server, held):
    patient_server.fake.script("model-alpha", Step(release=held, reply="alpha says 42"))
    tool = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            patient_server.base_url + "/chat/completions",
            json={"model": "member/alpha", "messages": QUESTION, "stream": True, "tools": [tool]}) as response:
        assert response.status == 200 and response.headers["Content-Type"].startswith("text/event-stream")
        first = await read_until(response, lambda got: got.count(b": keep-alive") >= 2)
        held.set()
        raw = (first + await response.read()).decode()
    events = [line.removeprefix("data: ") for line in raw.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    assert "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1]
                   if json.loads(e).get("choices")) == "alpha says 42"


async def test_a_council_stream_waiting_for_a_run_slot_starts_and_keeps_talking(fake_llm, held):
    script(fake_llm)
    fake_llm.script("model-beta", Step(release=held, reply="beta thinks 42. quality=7"))
    runner, running = await start_server(fake_llm, keepalive_s=TINY, max_concurrent_runs=1)
    try:
        async with aiohttp.ClientSession(headers=AUTH) as http:
            holding = asyncio.ensure_future(http.post(running.base_url + "/chat/completions",
                                                      json={"model": "council", "messages": QUESTION}))
            await wait_until(lambda: fake_llm.requests_for("model-beta"), what="the first run to hold the slot")
            async with http.post(running.base_url + "/chat/completions",
                                 json={"model": "council", "messages": QUESTION, "stream": True}) as response:
                assert response.status == 200 and response.headers["x-council-run-id"]
                first = await read_until(response, lambda got: got.count(b": keep-alive") >= 2)
                assert b"data:" not in first, "queued: nothing but keep-alives yet"
                held.set()
                raw = (first + await response.read()).decode()
            async with await holding as answered:
                assert answered.status == 200
        assert raw.rstrip().endswith("data: [DONE]") and '"finish_reason": "stop"' in raw
    finally:
        held.set()
        await runner.cleanup()
        running.store.close()


async def test_a_run_slot_refused_after_the_stream_started_is_its_error_event(fake_llm, held):
    script(fake_llm)
    fake_llm.script("model-beta", Step(release=held, reply="beta thinks 42. quality=7"))
    runner, running = await start_server(fake_llm, keepalive_s=TINY, max_concurrent_runs=1, queue_timeout_s=1)
    try:
        async with aiohttp.ClientSession(headers=AUTH) as http:
            holding = asyncio.ensure_future(http.post(running.base_url + "/chat/completions",
                                                      json={"model": "council", "messages": QUESTION}))
            await wait_until(lambda: fake_llm.requests_for("model-beta"), what="the first run to hold the slot")
            async with http.post(running.base_url + "/chat/completions",
                                 json={"model": "council", "messages": QUESTION, "stream": True}) as response:
                assert response.status == 200
                raw = (await response.read()).decode()
            held.set()
            async with await holding as answered:
                assert answered.status == 200
        events = [line.removeprefix("data: ") for line in raw.split("\n") if line.startswith("data: ")]
        assert events[-1] == "[DONE]" and json.loads(events[-2])["error"]["code"] == "too_many_runs"
    finally:
        held.set()
        await runner.cleanup()
        running.store.close()
