"""Fixtures shared by the MCP server's tests: the simulated council's config, and ``council mcp --http`` running."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from tests.storage.test_store import simulated_without_latency

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_mcp_http(tmp_path: Path, server: dict | None = None) -> Iterator[McpOverHttp]:
    """``council mcp --http`` on a free loopback port, API keys required, ``server`` merged into the config."""
    config = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    config["server"] = {**config.get("server", {}), **(server or {})}
    config_path = tmp_path / "council.yaml"
    config_path.write_text(yaml.safe_dump(config))
    port = free_port()
    drain = None
    log: list[str] = []
    process = subprocess.Popen(
        [sys.executable, "-m", "council", "mcp", "--config", str(config_path), "--http", f"127.0.0.1:{port}"],
        env={"PATH": "/usr/bin:/bin", "COUNCIL_API_KEYS": KEY, "COUNCIL_DB_PATH": str(tmp_path / "council.db")},
        stderr=subprocess.PIPE, text=True)
    try:
        announced = process.stderr.readline() if process.stderr else ""
        assert announced.startswith(f"council: MCP on http://127.0.0.1:{port}/mcp"), announced
        assert "API keys required" in announced
        # Keep reading what the server logs, so a full pipe never blocks it, and keep it for the tests.
        drain = threading.Thread(target=lambda: log.extend(process.stderr or []), daemon=True)
        drain.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # uvicorn binds just after the announcement
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield McpOverHttp(f"http://127.0.0.1:{port}/mcp", log, port, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=5)
        if process.stderr:
            process.stderr.close()


@pytest.fixture
def mcp_over_http(tmp_path: Path) -> Iterator[McpOverHttp]:
    """``council mcp --http`` on the simulated council with the server's default limits."""
    with running_mcp_http(tmp_path) as running:
        yield running
