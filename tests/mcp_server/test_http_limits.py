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

from tests.mcp_server.conftest import KEY, McpOverHttp, running_mcp_http, server_connections
from tests.waiting import TIMEOUT_S, wait_until_sync

HEAD = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + KEY.encode()
        + b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
# Loopback is all of 127/8 on Linux: a socket bound to 127.0.0.2 is another client address to the server.
OTHER_CLIENT = "127.0.0.2"


def connect(server: McpOverHttp, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def held_until_closed(sock: socket.socket, trickle: bytes, give_up_s: float = 10) -> tuple[bool, bytes]:
    """Send ``trickle`` a byte every 0.2 s (the pace of the slow client played) until the server closes the
    connection; whether it did before ``give_up_s`` (a bound against a hang), and what it answered."""
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
            return True, received
        if not chunk:
            return True, received
        received += chunk
    return False, received


def still_open(sock: socket.socket) -> bool:
    """Whether the server still holds ``sock``'s connection: nothing to read, not even the end of it."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False


async def list_tools(server: McpOverHttp) -> set[str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"})
    async with http, Client(streamable_http_client(server.url, http_client=http), read_timeout_seconds=30) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


def answer_in_full(sock: socket.socket) -> bytes:
    """What the server sends on ``sock`` until it closes it (the bound is against a hang)."""
    sock.settimeout(TIMEOUT_S)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_silent_or_half_sent_request_is_closed_at_the_header_deadline(tmp_path: Path):
    # uvicorn alone holds both for good (its own timer starts after a first answer, and stops at any byte): that
    # the server closes them at all is the header deadline at work.
    with running_mcp_http(tmp_path, {"header_timeout_s": 1, "body_timeout_s": 1}) as server:
        silent = connect(server)
        silent_closed, _ = held_until_closed(silent, b"")
        half_sent = connect(server)
        half_sent.sendall(HEAD)
        # A byte every 0.2 s, never the blank line that ends the headers: the deadline is for all of them.
        trickled_closed, _ = held_until_closed(half_sent, b"X-Slow: " + b"a" * 200)
        silent.close()
        half_sent.close()
    assert silent_closed, "an idle connection was held open"
    assert trickled_closed, "a half-sent request was held open"


def test_a_half_sent_body_gets_408_at_the_body_deadline(tmp_path: Path):
    with running_mcp_http(tmp_path, {"header_timeout_s": 5, "body_timeout_s": 1}) as server:
        sock = connect(server)
        sock.sendall(HEAD + b"Content-Length: 400\r\n\r\n" + b'{"jsonrpc": "2.0", ')
        closed, answer = held_until_closed(sock, b" " * 300)
        sock.close()
    assert closed, "a half-sent body was held open"
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer[:200]
    error = json.loads(body)
    assert error["jsonrpc"] == "2.0" and error["id"] is None
    assert "request body did not arrive within 1 s" in error["error"]["message"]


async def test_connections_over_the_cap_are_turned_away_and_the_server_recovers(tmp_path: Path):
    with running_mcp_http(tmp_path, {"max_connections": 8, "header_timeout_s": 2}) as server:
        before = open_fds(server.pid)
        held = [connect(server, OTHER_CLIENT) for _ in range(8)]
        wait_until_sync(lambda: server_connections(server) == 8, what="the server to accept the 8 connections")
        flood = [connect(server, OTHER_CLIENT) for _ in range(200)]
        # Every one of the 200 is answered and closed by the server (read to the end), none held.
        answers = [answer_in_full(sock) for sock in flood]
        during = open_fds(server.pid)
        for sock in flood:
            sock.close()
        # The held ones reach their header deadline and are closed by the server: it has room again.
        wait_until_sync(lambda: not any(still_open(sock) for sock in held),
                        what="the server to close the held connections")
        assert await list_tools(server) >= {"ask_council", "list_runs"}
        for sock in held:
            sock.close()
    assert all(answer.startswith(b"HTTP/1.1 503") for answer in answers), answers[:3]
    error = json.loads(answers[0].partition(b"\r\n\r\n")[2])
    assert error["jsonrpc"] == "2.0" and "too many open connections" in error["error"]["message"]
    assert during - before <= 8 + 4, f"{during - before} descriptors for 8 allowed connections and 200 turned away"


async def test_a_legitimate_client_is_served_beside_half_sent_requests(tmp_path: Path):
    with running_mcp_http(tmp_path, {"header_timeout_s": 30, "body_timeout_s": 30}) as server:
        stalled = [connect(server) for _ in range(20)]
        for sock in stalled:
            sock.sendall(HEAD)
        tools = await list_tools(server)
        # Served beside them, not after them: the stalled requests are all still held.
        held = sum(still_open(sock) for sock in stalled)
        for sock in stalled:
            sock.close()
    assert "ask_council" in tools and held == 20


async def test_one_client_address_holds_only_its_share_of_the_cap(tmp_path: Path):
    # Loopback addresses are held to the share only with per_client_loopback (one local proxy serves many).
    with running_mcp_http(tmp_path, {"max_connections": 16, "max_connections_per_client": 4,
                                     "per_client_loopback": True, "header_timeout_s": 30}) as server:
        held = [connect(server, OTHER_CLIENT) for _ in range(4)]
        wait_until_sync(lambda: server_connections(server) == 4, what="the server to accept the 4 connections")
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
