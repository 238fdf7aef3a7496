"""`council serve` as a real process: it answers, refuses unsafe binds, and stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys

import aiohttp
import pytest

from tests.waiting import PROCESS_S, wait_until


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def start(*args: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "council", "serve", *args, env={"PATH": os.environ.get("PATH", ""), **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def wait_healthy(url: str) -> None:
    async with aiohttp.ClientSession() as http:

        async def healthy() -> bool:
            try:
                async with http.get(url + "/healthz") as response:
                    return response.status == 200
            except aiohttp.ClientError:
                return False

        await wait_until(healthy, what=f"the server at {url} to answer /healthz")


async def test_serves_the_simulated_council_and_stops_on_sigterm(tmp_path):
    port = free_port()
    process = await start(
        "--port", str(port), env={"COUNCIL_DB_PATH": str(tmp_path / "s.db"), "COUNCIL_API_KEYS": "k1"}
    )
    try:
        url = f"http://127.0.0.1:{port}"
        await wait_healthy(url)
        async with aiohttp.ClientSession(headers={"Authorization": "Bearer k1"}) as http, http.post(
                url + "/v1/chat/completions",
                json={"model": "council", "messages": [{"role": "user", "content": "Why is ice slippery?"}]}) as r:
            assert r.status == 200
            payload = await r.json()
        assert payload["council"]["simulated"] is True and payload["choices"][0]["message"]["content"]
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
        assert code == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1"])
async def test_refuses_a_public_bind_without_keys(tmp_path, host):
    process = await start("--host", host, "--port", str(free_port()), env={"COUNCIL_DB_PATH": str(tmp_path / "s.db")})
    _, err = await asyncio.wait_for(process.communicate(), timeout=PROCESS_S)
    assert process.returncode == 2
    assert f"refusing to listen on {host} without API keys" in err.decode()
    assert "Traceback" not in err.decode()
