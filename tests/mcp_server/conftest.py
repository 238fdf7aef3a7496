"""Fixtures shared by the MCP server's tests: the simulated council's config, and ``council mcp --http`` running."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from tests.storage.test_store import simulated_without_latency
from tests.waiting import PROCESS_S, wait_until_sync

KEY = "sk-mcp-test-key"


@pytest.fixture
def simulated() -> dict:
    """The simulated council's config, without latency, as the YAML a test server is started with."""
    return simulated_without_latency().model_dump(mode="json", exclude_none=True)


class McpOverHttp(NamedTuple):
    """A running ``council mcp --http``: its URL, what it wrote to stderr since it announced, its port and pid."""

    url: str
    log: list[str]
    port: int
    pid: int


LISTENING = "0A"  # a socket's state in /proc/net/tcp


def tcp_sockets(port: int, state: str | None = None) -> set[str]:
    """The inodes of this machine's IPv4 sockets on local ``port`` (in ``state``; any but listening if None)."""
    inodes = set()
    with open("/proc/net/tcp") as table:
        for row in list(table)[1:]:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and (
                    fields[3] == state if state is not None else fields[3] != LISTENING):
                inodes.add(fields[9])
    return inodes


def server_connections(server: McpOverHttp) -> int:
    """How many client connections the server process holds open: accepted (a descriptor of its own), not just
    queued by the kernel, and not yet closed by it."""
    held = set()
    for fd in os.listdir(f"/proc/{server.pid}/fd"):
        with contextlib.suppress(FileNotFoundError):  # closed while we look
            target = os.readlink(f"/proc/{server.pid}/fd/{fd}")
            if target.startswith("socket:["):
                held.add(target.removeprefix("socket:[").removesuffix("]"))
    return len(held & tcp_sockets(server.port))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_mcp_http(tmp_path: Path, server: dict | None = None, *, cache: dict | None = None,
                     keys: str = KEY) -> Iterator[McpOverHttp]:
    """``council mcp --http`` on a free loopback port, API keys required, ``server`` merged into the config."""
    config = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    config["server"] = {**config.get("server", {}), **(server or {})}
    if cache is not None:
        config["cache"] = cache
    config_path = tmp_path / "council.yaml"
    config_path.write_text(yaml.safe_dump(config))
    port = free_port()
    drain = None
    log: list[str] = []
    process = subprocess.Popen(
        [sys.executable, "-m", "council", "mcp", "--config", str(config_path), "--http", f"127.0.0.1:{port}"],
        env={"PATH": "/usr/bin:/bin", "COUNCIL_API_KEYS": keys, "COUNCIL_DB_PATH": str(tmp_path / "council.db")},
        stderr=subprocess.PIPE, text=True)
    try:
        announced = process.stderr.readline() if process.stderr else ""
        assert announced.startswith(f"council: MCP on http://127.0.0.1:{port}/mcp"), announced
        assert "API keys required" in announced
        # Keep reading what the server logs, so a full pipe never blocks it, and keep it for the tests.
        drain = threading.Thread(target=lambda: log.extend(process.stderr or []), daemon=True)
        drain.start()
        # uvicorn binds just after the announcement. Seen in the kernel's table rather than by connecting, so no
        # probe connection of ours is left for a test counting the server's connections to wait away.
        wait_until_sync(lambda: bool(tcp_sockets(port, LISTENING)), what=f"the server to listen on port {port}")
        yield McpOverHttp(f"http://127.0.0.1:{port}/mcp", log, port, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=PROCESS_S)
        if drain is not None:
            drain.join(timeout=5)
        if process.stderr:
            process.stderr.close()


@pytest.fixture
def mcp_over_http(tmp_path: Path) -> Iterator[McpOverHttp]:
    """``council mcp --http`` on the simulated council with the server's default limits."""
    with running_mcp_http(tmp_path) as running:
        yield running
