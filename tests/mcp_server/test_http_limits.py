"""``council mcp --http`` holds clients to ``council serve``'s deadlines and connection cap, over raw sockets.

Each test starts the real server in a subprocess with small limits, and
plays the abusive client with plain sockets (a half-sent request, a flood
of idle connections); a legitimate client is the MCP SDK's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.conftest import KEY, McpOverHttp, running_mcp_http

HEAD = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + KEY.encode()
        + b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
# Loopback is all of 127/8 on Linux: a socket bound to 127.0.0.2 is another client address to the server.
OTHER_CLIENT = "127.0.0.2"


def connect(server: McpOverHttp, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def held_until_closed(sock: socket.socket, trickle: bytes, give_up_s: float) -> tuple[float, bytes]:
    """Send ``trickle`` a byte every 0.2 s until the server closes; how long that took and what it answered."""
    sock.settimeout(0.2)
    started, received, sent = time.monotonic(), b"", 0
    while time.monotonic() - started < give_up_s:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            if sent < len(trickle):
                with contextlib.suppress(OSError):  # closed under us: the next recv says how
                    sock.sendall(trickle[sent:sent + 1])
                sent += 1
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return time.monotonic() - started, received


async def list_tools(server: McpOverHttp) -> set[str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(server.url, http_client=http), read_timeout_seconds=30) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_silent_or_half_sent_request_is_closed_at_the_header_deadline(tmp_path: Path):
    with running_mcp_http(tmp_path, {"header_timeout_s": 1, "body_timeout_s": 1}) as server:
        silent = connect(server)
        silent_for, _ = held_until_closed(silent, b"", give_up_s=10)
        half_sent = connect(server)
        half_sent.sendall(HEAD)
        # A byte every 0.2 s, never the blank line that ends the headers: the deadline is for all of them.
        trickled_for, _ = held_until_closed(half_sent, b"X-Slow: " + b"a" * 200, give_up_s=10)
        silent.close()
        half_sent.close()
    assert silent_for < 3, f"an idle connection was held {silent_for:.1f} s"
    assert trickled_for < 3, f"a half-sent request was held {trickled_for:.1f} s"


def test_a_half_sent_body_gets_408_at_the_body_deadline(tmp_path: Path):
    with running_mcp_http(tmp_path, {"header_timeout_s": 5, "body_timeout_s": 1}) as server:
        sock = connect(server)
        sock.sendall(HEAD + b"Content-Length: 400\r\n\r\n" + b'{"jsonrpc": "2.0", ')
        held_for, answer = held_until_closed(sock, b" " * 300, give_up_s=10)
        sock.close()
    assert held_for < 3.5, f"a half-sent body was held {held_for:.1f} s"
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer[:200]
    error = json.loads(body)
    assert error["jsonrpc"] == "2.0" and error["id"] is None
    assert "request body did not arrive within 1 s" in error["error"]["message"]


async def test_connections_over_the_cap_are_turned_away_and_the_server_recovers(tmp_path: Path):
    with running_mcp_http(tmp_path, {"max_connections": 8, "header_timeout_s": 2}) as server:
        time.sleep(0.3)  # the fixture's readiness probe has gone from the server's connections
        before = open_fds(server.pid)
        held = [connect(server, OTHER_CLIENT) for _ in range(8)]
        time.sleep(0.3)  # accepted by the server, not just queued by the kernel
        flood = [connect(server, OTHER_CLIENT) for _ in range(200)]
        answers = []
        for sock in flood[:5]:
            sock.settimeout(3)
            answers.append(sock.recv(65536))
        time.sleep(0.5)  # every one of the 200 accepted and closed again
        during = open_fds(server.pid)
        for sock in flood:
            sock.close()
        time.sleep(2.5)  # the held ones reach their header deadline and are closed by the server
        assert await list_tools(server) >= {"ask_council", "list_runs"}
        for sock in held:
            sock.close()
    assert all(answer.startswith(b"HTTP/1.1 503") for answer in answers), answers
    error = json.loads(answers[0].partition(b"\r\n\r\n")[2])
    assert error["jsonrpc"] == "2.0" and "too many open connections" in error["error"]["message"]
    assert during - before <= 8 + 4, f"{during - before} descriptors for 8 allowed connections and 200 turned away"


async def test_a_legitimate_client_is_served_beside_half_sent_requests(tmp_path: Path):
    with running_mcp_http(tmp_path, {"header_timeout_s": 30, "body_timeout_s": 30}) as server:
        stalled = [connect(server) for _ in range(20)]
        for sock in stalled:
            sock.sendall(HEAD)
        started = time.monotonic()
        tools = await list_tools(server)
        took = time.monotonic() - started
        for sock in stalled:
            sock.close()
    assert "ask_council" in tools and took < 5


async def test_one_client_address_holds_only_its_share_of_the_cap(tmp_path: Path):
    # Loopback addresses are held to the share only with per_client_loopback (one local proxy serves many).
    with running_mcp_http(tmp_path, {"max_connections": 16, "max_connections_per_client": 4,
                                     "per_client_loopback": True, "header_timeout_s": 30}) as server:
        time.sleep(0.3)  # the fixture's readiness probe has gone from the server's connections
        held = [connect(server, OTHER_CLIENT) for _ in range(4)]
        time.sleep(0.3)
        over = [connect(server, OTHER_CLIENT) for _ in range(50)]
        over[0].settimeout(3)
        answer = over[0].recv(65536)
        # Another address, while the first holds all it may: served, with room to spare under the cap.
        tools = await list_tools(server)
        for sock in held + over:
            sock.close()
    assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
    assert "too many open connections" in json.loads(answer.partition(b"\r\n\r\n")[2])["error"]["message"]
    assert "ask_council" in tools
