"""What ``council mcp`` refuses, and how: NUL characters, a limit out of range, a body too large, an id not an id.

The SDK's own client sends what it can (over stdio and over HTTP); what it
cannot (an object for an id, 10 MB) goes raw, over HTTP or the server's stdin.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.conftest import KEY, McpOverHttp, running_mcp_http
from tests.mcp_server.test_stdio import council_over_stdio

HEADERS = {"Authorization": f"Bearer {KEY}", "Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "raw", "version": "0"}}


@pytest.fixture(scope="module")
def mcp_over_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpOverHttp]:
    """One ``council mcp --http`` for this module's requests, rather than a server started for each: every one is
    refused on its own, and none changes the server (no run is stored, no limit is reached)."""
    with running_mcp_http(tmp_path_factory.mktemp("mcp-inputs")) as running:
        yield running


async def mistakes(client: Client) -> dict[str, str]:
    """Each mistaken call's error text, by what was wrong."""
    calls = {
        "nul_question": ("ask_council", {"question": "Why is the sky\x00 blue?"}),
        "nul_member": ("ask_council", {"question": "Why?", "members": ["atlas", "bo\x00real"]}),
        "nul_answer": ("evaluate_answer", {"rubric": "default", "question": "Q", "answer": "A\x00"}),
        "negative_limit": ("list_runs", {"limit": -5}),
        "huge_limit": ("list_runs", {"limit": 10**12}),
    }
    texts = {}
    for mistake, (tool, arguments) in calls.items():
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (mistake, result)
        texts[mistake] = result.content[0].text
    good = await client.call_tool("list_runs", {"limit": 200})
    assert not good.is_error, good.content
    return texts


def assert_plainly_refused(texts: dict[str, str]) -> None:
    assert texts["nul_question"] == 'question: must not contain a NUL character, got "Why is the sky\\u0000 blue?"'
    assert texts["nul_member"].startswith("members[1]: must not contain a NUL character")
    assert texts["nul_answer"].startswith("answer: must not contain a NUL character")
    assert texts["negative_limit"] == "limit: must be at least 1, got -5"
    assert texts["huge_limit"] == "limit: must be at most 200, got 1000000000000"


async def test_the_sdk_client_over_stdio_is_refused_in_plain_words(tmp_path, simulated):
    async with council_over_stdio(tmp_path, simulated) as client:
        assert_plainly_refused(await mistakes(client))


async def test_the_sdk_client_over_http_is_refused_in_plain_words(mcp_over_http):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(mcp_over_http.url, http_client=http),
                            read_timeout_seconds=60) as client:
        assert_plainly_refused(await mistakes(client))
        # Over the body cap (server.max_body_bytes, 1 MiB by default): the SDK's client shows the server's words.
        with pytest.raises(MCPError) as too_large:
            await client.call_tool("ask_council", {"question": "Why? " * 300_000})
        assert not (await client.call_tool("list_runs", {})).is_error  # the session goes on
    assert "larger than the server's limit of 1048576 bytes" in too_large.value.error.message


async def test_a_10_mb_request_is_answered_413_not_reset(mcp_over_http):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {**INITIALIZE, "padding": "x" * 10_000_000}}).encode()

    async def chunked():  # no Content-Length: the cap is found while the body is read
        for start in range(0, len(body), 65536):
            yield body[start:start + 65536]

    async with httpx2.AsyncClient(headers={**HEADERS, "Content-Type": "application/json"}) as http:
        for data in (body, chunked()):
            response = await http.post(mcp_over_http.url, content=data)
            assert response.status_code == 413
            error = response.json()
            assert error["jsonrpc"] == "2.0" and error["id"] is None
            assert error["error"]["message"] == ("the request body is larger than the server's limit of "
                                                 "1048576 bytes (server.max_body_bytes)")


@pytest.mark.parametrize(("request_id", "shown"), [({"a": 1}, '{"a": 1}'), ([1], "[1]"), (True, "true"),
                                                   (1.5, "1.5")])
async def test_an_id_that_is_not_an_id_is_an_invalid_request_over_http(mcp_over_http, request_id, shown):
    message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": INITIALIZE}
    async with aiohttp.ClientSession(headers=HEADERS) as http, http.post(mcp_over_http.url, json=message) as response:
        assert response.status == 400
        error = await response.json()
    assert error == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": f"id: must be a string or a whole number, got {shown}"}}


def test_a_malformed_line_on_stdin_is_answered_and_the_server_goes_on(tmp_path: Path):
    process = subprocess.Popen([sys.executable, "-m", "council", "mcp"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env={"PATH": "/usr/bin:/bin", "COUNCIL_DB_PATH": str(tmp_path / "council.db")})
    assert process.stdin and process.stdout
    answers: queue.Queue[dict] = queue.Queue()
    reader = threading.Thread(target=lambda: [answers.put(json.loads(line)) for line in process.stdout], daemon=True)
    reader.start()

    def send(message: object) -> dict:
        line = message if isinstance(message, str) else json.dumps(message)  # json escapes a surrogate as \ud800
        process.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        return answers.get(timeout=30)

    try:
        by_object = send({"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize", "params": INITIALIZE})
        not_json = send("this is not json")
        batch = send([{"jsonrpc": "2.0", "id": 2, "method": "ping"}])
        initialized = send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": INITIALIZE})
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        surrogate = send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                          "params": {"name": "ask_council", "arguments": {"question": "Why \ud800?"}}})
    finally:
        process.kill()
        process.wait()
        reader.join(timeout=5)
        process.stdin.close()
        process.stdout.close()
    assert by_object == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": 'id: must be a string or a whole number, got {"a": 1}'}}
    assert not_json == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700,
                                                                "message": "the message is not valid JSON"}}
    assert batch == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "a batch (a JSON array) is not supported: send one message at a time"}}
    assert initialized["id"] == 3 and initialized["result"]["serverInfo"]["name"] == "council"
    assert surrogate == {"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": (
        "the message holds an unpaired surrogate (an escape such as \\ud800 without its pair): text must be "
        "valid Unicode")}}


@pytest.mark.parametrize("depth", [100, 1000, 100_000])
async def test_json_nested_too_deep_is_a_parse_error_over_http(mcp_over_http, depth):
    body = '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + "[" * depth + "]" * depth + "}}"
    async with aiohttp.ClientSession(headers={**HEADERS, "Content-Type": "application/json"}) as http, \
            http.post(mcp_over_http.url, data=body) as response:
        assert response.status == 400
        error = await response.json()
    assert error["error"]["code"] == -32700 and f"nested {depth + 2} levels deep" in error["error"]["message"]


def test_the_nesting_depth_skips_brackets_inside_strings():
    from council.mcp_server.envelope import nesting_depth
    assert nesting_depth('{"a": "[[[{{{\\"]]]", "b": [[1]]}') == 3
