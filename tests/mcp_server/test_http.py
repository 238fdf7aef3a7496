"""``council mcp --http``: the streamable HTTP transport, behind API keys like ``council serve``."""

from __future__ import annotations

import aiohttp
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from council.cli import main
from tests.mcp_server.conftest import KEY, running_mcp_http
from tests.waiting import wait_until_sync


async def test_without_the_key_the_endpoint_answers_401(mcp_over_http):
    async with aiohttp.ClientSession() as http:
        async with http.post(mcp_over_http.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) as response:
            assert response.status == 401 and response.headers["WWW-Authenticate"] == "Bearer"
            assert "API key" in (await response.json())["error"]
        async with http.post(mcp_over_http.url, json={}, headers={"Authorization": "Bearer wrong"}) as response:
            assert response.status == 401


async def test_with_the_key_the_sdk_client_asks_the_council(mcp_over_http):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(mcp_over_http.url, http_client=http),
                            read_timeout_seconds=60) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        asked = await client.call_tool("ask_council", {"question": "Why is the sky blue?"})
    assert "ask_council" in names
    assert not asked.is_error and asked.structured_content["status"] == "complete"


async def test_mistakes_over_http_read_plainly_and_log_one_line_each(mcp_over_http):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(mcp_over_http.url, http_client=http),
                            read_timeout_seconds=60) as client:
        missing = await client.call_tool("ask_council", {"members": ["atlas"]})
        limit = await client.call_tool("list_runs", {"limit": "ten"})
        rubric = await client.call_tool("evaluate_answer", {"rubric": "strict", "question": "Q", "answer": "A"})
        with pytest.raises(MCPError) as preset:
            await client.get_prompt("ask_the_council", {"question": "Why?", "preset": "slow"})
        prompt = await client.get_prompt("compare_the_answers", {"question": "Why?", "members": "atlas, boreal"})
    assert missing.is_error and missing.content[0].text == "question: required"
    assert limit.is_error and limit.content[0].text == 'limit: must be a whole number, got "ten"'
    assert rubric.is_error and "rubric://NAME" in rubric.content[0].text and "/v1/" not in rubric.content[0].text
    assert preset.value.error.code == -32602
    assert preset.value.error.message == "preset: unknown preset 'slow'; presets: deliberate, full, quick"
    assert 'compare_answers tool (members ["atlas", "boreal"])' in prompt.messages[0].content.text
    # The drain thread reads the server's lines as they come.
    wait_until_sync(lambda: len(mcp_over_http.log) >= 4, what="a log line for each of the four mistakes")
    events = [(line.split("] ")[1].split()[0], line.rsplit("=", 1)[1].strip()) for line in mcp_over_http.log]
    assert events == [("tool_error", "ask_council"), ("tool_error", "list_runs"), ("tool_error", "evaluate_answer"),
                      ("prompt_error", "ask_the_council")], mcp_over_http.log
    assert not any("Traceback" in line or "│" in line for line in mcp_over_http.log)


def test_a_public_address_without_keys_is_refused(capsys, tmp_path):
    code = main(["mcp", "--http", "0.0.0.0:8765"], environ={"COUNCIL_DB_PATH": str(tmp_path / "c.db")})
    assert code == 2
    assert "refusing to listen on 0.0.0.0 without API keys" in capsys.readouterr().err


def test_a_bad_http_address_is_a_usage_error(capsys):
    assert main(["mcp", "--http", "8765"], environ={}) == 2
    assert "--http '8765': give HOST:PORT" in capsys.readouterr().err


async def _ask(url: str, key: str) -> dict:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    async with http, Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as client:
        asked = await client.call_tool("ask_council", {"question": "Why is the sky blue?"})
    assert not asked.is_error, asked.content
    return dict(asked.structured_content)


async def test_an_answer_from_the_result_cache_says_so_and_stays_with_its_key(tmp_path):
    other = "sk-mcp-other-key"
    with running_mcp_http(tmp_path, cache={"ttl_s": 600, "scope": "key"}, keys=f"{KEY},{other}") as running:
        first = await _ask(running.url, KEY)
        again = await _ask(running.url, KEY)
        other_key = await _ask(running.url, other)
    assert "cached_from" not in first and "notice" not in first
    assert again["cached_from"] == first["run_id"] and again["run_id"] != first["run_id"]
    assert again["notice"].startswith(f"answered from the result cache (run {first['run_id']})")
    assert again["final_answer"] == first["final_answer"]
    assert "cached_from" not in other_key, "another key's caller is not answered from this key's run"
