"""Malformed requests, auth, limits, streaming details and disconnects, over raw HTTP."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from council.errors import CouncilError
from council.server.app import check_binding, is_loopback
from council.testing.fake_llm import Step
from tests.server.conftest import API_KEY, script, server_config, start_server
from tests.waiting import wait_until

AUTH = {"Authorization": f"Bearer {API_KEY}"}
JSON = {"Content-Type": "application/json"}
GOOD = {"model": "council", "messages": [{"role": "user", "content": "hi"}]}


async def post(server, body: bytes | str | dict, headers: dict[str, str] | None = None,
               path: str = "/v1/chat/completions") -> tuple[int, dict, dict[str, str]]:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    async with aiohttp.ClientSession() as http, http.post(server.url + path, data=data,
                                                          headers={**AUTH, **JSON, **(headers or {})}) as response:
        return response.status, await response.json(content_type=None), dict(response.headers)


def assert_error_shape(payload: dict) -> None:
    assert set(payload) == {"error"}
    assert set(payload["error"]) == {"message", "type", "param", "code"}
    assert isinstance(payload["error"]["message"], str) and "Traceback" not in payload["error"]["message"]


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        (b"{not json", 400, None),
        (b"[" * 10_000 + b"]" * 10_000, 400, None),
        (b'{"model": "council", "messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", 400, None),
        (b"[]", 400, None),
        (b"\xff\xfe garbage", 400, None),
        ({"model": "council", "messages": "hello"}, 400, "messages"),
        ({"model": "council", "messages": []}, 400, "messages"),
        ({**GOOD, "temperature": "hot"}, 400, "temperature"),
        ({**GOOD, "temperature": 9}, 400, "temperature"),
        ({**GOOD, "stream": "yes"}, 400, "stream"),
        ({**GOOD, "max_tokens": -1}, 400, "max_tokens"),
        ({**GOOD, "n": 5}, 400, "n"),
        ({"messages": GOOD["messages"]}, 400, "model"),
        ({"model": "council", "messages": [{"role": "wizard", "content": "x"}]}, 400, "messages[0].role"),
        (b'{"model": "council", "messages": [{"role": "user", "content": "\\ud800"}]}', 400, "messages[0].content"),
        (b'{"model": "council", "messages": [{"role": "user", "content": "a\\u0000b"}]}', 400, "messages[0].content"),
        ({"model": "nope", "messages": GOOD["messages"]}, 404, "model"),
    ],
    ids=["invalid-json", "deep-array", "deep-messages", "not-object", "bad-utf8", "messages-string", "messages-empty",
         "temperature-string", "temperature-range", "stream-string", "max-tokens-negative", "n", "no-model",
         "bad-role", "lone-surrogate", "nul", "unknown-model"],
)
async def test_malformed_requests(server, body, status, param):
    code, payload, _ = await post(server, body)
    assert code == status
    assert_error_shape(payload)
    assert payload["error"]["param"] == param
    assert not server.fake.requests, "a bad request never reaches a member"


async def test_unknown_fields_are_ignored(server):
    body = {
        **GOOD,
        "logit_bias": {},
        "reasoning_effort": "low",
        "x_vendor_extension": {"any": 1},
        "metadata": {"a": "b"},
        "store": False,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}], "name": "me"}],
    }
    code, payload, headers = await post(server, body)
    assert code == 200 and payload["choices"][0]["message"]["content"]
    assert headers["x-council-run-id"] == payload["council"]["run_id"]


@pytest.mark.parametrize("chunked", [False, True])
async def test_oversized_body_is_refused(server, chunked):
    big = json.dumps({**GOOD, "padding": "x" * 200_000}).encode()

    async def body_stream():
        for start in range(0, len(big), 16_384):
            yield big[start:start + 16_384]

    async with aiohttp.ClientSession() as http, http.post(server.url + "/v1/chat/completions",
                                                          data=body_stream() if chunked else big,
                                                          headers={**AUTH, **JSON}) as response:
        assert response.status == 413
        assert_error_shape(await response.json())


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer ", "Basic abc", f"Bearer {API_KEY}x", "Bearer wrong"])
async def test_missing_empty_and_wrong_auth(server, header):
    headers = {} if header is None else {"Authorization": header}
    async with aiohttp.ClientSession() as http, http.get(server.url + "/v1/models", headers=headers) as response:
        assert response.status == 401
        payload = await response.json()
    assert_error_shape(payload)
    assert payload["error"]["type"] == "authentication_error"


async def test_unknown_route_and_method(server):
    async with aiohttp.ClientSession(headers=AUTH) as http:
        async with http.get(server.url + "/v1/engines") as response:
            assert response.status == 404
            assert_error_shape(await response.json())
        async with http.get(server.url + "/v1/chat/completions") as response:
            assert response.status == 405
            assert_error_shape(await response.json())


async def read_sse(response: aiohttp.ClientResponse) -> list[str]:
    lines = []
    async for raw in response.content:
        line = raw.decode().rstrip("\n")
        if line:
            lines.append(line)
    return lines


async def test_keepalive_comments_while_waiting(fake_llm):
    script(fake_llm)
    # beta answers once three keep-alives have come (a fixed 0.6 s held fewer when a loaded machine was slow).
    beta_answers = asyncio.Event()
    fake_llm.script("model-beta", Step(release=beta_answers, reply="beta quality=7"))
    runner, running = await start_server(fake_llm, keepalive_s=0.1)
    try:
        async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
                running.url + "/v1/chat/completions", json={**GOOD, "stream": True}) as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            lines = []
            async for raw in response.content:
                if line := raw.decode().rstrip("\n"):
                    lines.append(line)
                if lines.count(": keep-alive") == 3:
                    beta_answers.set()
        assert lines.count(": keep-alive") >= 3
        assert lines[-1] == "data: [DONE]"
    finally:
        await runner.cleanup()
        running.store.close()


async def test_error_after_the_stream_started(server):
    for name in ("alpha", "beta", "gamma"):
        server.fake.script(f"model-{name}", Step(status=500))
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            server.url + "/v1/chat/completions", json={**GOOD, "stream": True}) as response:
        assert response.status == 200
        lines = await read_sse(response)
    error = json.loads(lines[-2].removeprefix("data: "))
    assert error["error"]["code"] == "council_failed" and "quorum not met" in error["error"]["message"]
    assert lines[-1] == "data: [DONE]"  # the stream ends the way every client knows, after the error


@pytest.mark.parametrize("mode", ["cancel", "finish"])
async def test_client_disconnect(fake_llm, mode):
    script(fake_llm)
    # gamma answers only after the client has left (a fixed 0.8 s could pass first on a loaded machine); cancelled,
    # it never does.
    gamma_answers = asyncio.Event()
    fake_llm.script("model-gamma", Step(release=gamma_answers, reply="gamma quality=5"))
    runner, running = await start_server(fake_llm, on_disconnect=mode)
    try:
        chat = running.council  # the run is observable in the store
        async with aiohttp.ClientSession(headers=AUTH) as http:
            response = await http.post(running.url + "/v1/chat/completions", json={**GOOD, "stream": True})
            await response.content.readline()
            response.close()
        if mode == "finish":
            gamma_answers.set()
        def ended():  # the run, once it has ended one way or the other
            summaries = running.store.list_runs()
            stored = running.store.get(summaries[0].run_id) if summaries else None
            return stored if stored is not None and stored.status != "running" else None

        await wait_until(lambda: ended() is not None, what="the run to end")
        stored = ended()
        if mode == "cancel":
            assert stored.status == "interrupted", "the run was cancelled when its client left"
            # Alpha was asked for its answer at most (the client may leave before the answers are sent for).
            assert len(fake_llm.requests_for("model-alpha")) <= 1, "no review was started"
        else:
            assert stored.status == "complete" and stored.final_answer is not None
        assert chat is running.council
    finally:
        await runner.cleanup()
        running.store.close()


def test_binding_rules(fake_llm):
    config = server_config(fake_llm)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    check_binding(config, "127.0.0.1", False, {})
    with pytest.raises(CouncilError, match=r"refusing to listen on 0\.0\.0\.0 without API keys"):
        check_binding(config, "0.0.0.0", False, {})
    check_binding(config, "0.0.0.0", True, {})
    check_binding(config, "0.0.0.0", False, {"COUNCIL_API_KEYS": "k"})
