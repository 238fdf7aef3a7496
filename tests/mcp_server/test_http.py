"""``council mcp --http``: the streamable HTTP transport, behind API keys like ``council serve``."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import httpx2
import pytest
import yaml
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from council.cli import main
from tests.storage.test_store import simulated_without_latency

KEY = "sk-mcp-test-key"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def mcp_over_http(tmp_path: Path):
    config = tmp_path / "council.yaml"
    config.write_text(yaml.safe_dump(simulated_without_latency().model_dump(mode="json", exclude_none=True)))
    port = free_port()
    drain = None
    process = subprocess.Popen(
        [sys.executable, "-m", "council", "mcp", "--config", str(config), "--http", f"127.0.0.1:{port}"],
        env={"PATH": "/usr/bin:/bin", "COUNCIL_API_KEYS": KEY, "COUNCIL_DB_PATH": str(tmp_path / "council.db")},
        stderr=subprocess.PIPE, text=True)
    try:
        announced = process.stderr.readline() if process.stderr else ""
        assert announced.startswith(f"council: MCP on http://127.0.0.1:{port}/mcp"), announced
        assert "API keys required" in announced
        # Keep reading what the server logs, so a full pipe never blocks it.
        drain = threading.Thread(target=process.stderr.read, daemon=True)  # type: ignore[union-attr]
        drain.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # uvicorn binds just after the announcement
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=5)
        if process.stderr:
            process.stderr.close()


async def test_without_the_key_the_endpoint_answers_401(mcp_over_http):
    async with aiohttp.ClientSession() as http:
        async with http.post(mcp_over_http, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) as response:
            assert response.status == 401 and response.headers["WWW-Authenticate"] == "Bearer"
            assert "API key" in (await response.json())["error"]
        async with http.post(mcp_over_http, json={}, headers={"Authorization": "Bearer wrong"}) as response:
            assert response.status == 401


async def test_with_the_key_the_sdk_client_asks_the_council(mcp_over_http):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(mcp_over_http, http_client=http), read_timeout_seconds=60) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        asked = await client.call_tool("ask_council", {"question": "Why is the sky blue?"})
    assert "ask_council" in names
    assert not asked.is_error and asked.structured_content["status"] == "complete"


def test_a_public_address_without_keys_is_refused(capsys, tmp_path):
    code = main(["mcp", "--http", "0.0.0.0:8765"], environ={"COUNCIL_DB_PATH": str(tmp_path / "c.db")})
    assert code == 2
    assert "refusing to listen on 0.0.0.0 without API keys" in capsys.readouterr().err


def test_a_bad_http_address_is_a_usage_error(capsys):
    assert main(["mcp", "--http", "8765"], environ={}) == 2
    assert "--http '8765': give HOST:PORT" in capsys.readouterr().err
