"""How ``council mcp --http`` holds its clients to ``council serve``'s deadlines and connection cap.

uvicorn serves the streamable HTTP transport. On its own it accepts every
connection, waits for a request's headers forever (its keep-alive timer is
armed only after a first response, and any byte that arrives stops it) and
reads a body as slowly as the client sends it. Here, with the settings of
``council serve`` (``server.*``):

* :func:`guarded_protocol`, uvicorn's HTTP/1.1 protocol with limits: at most
  ``max_connections`` connections (one more is answered 503 and closed
  without reading a byte), each client address holding at most its share
  (``max_connections_per_client``; loopback clients only with
  ``per_client_loopback``, as for ``council serve``; one more is answered
  429), and a request's headers in full within
  ``header_timeout_s`` of the connection opening or its last answer, however
  they trickle (the connection is closed otherwise);
* :class:`BodyLimits`, ASGI middleware: a body in full within
  ``body_timeout_s`` (408 otherwise) and no larger than ``max_body_bytes``
  (413, read no further); then a message the SDK would misread is answered
  400 with the JSON-RPC error for it (:mod:`.envelope`).

Every refusal is a JSON-RPC error with ``id: null`` in a JSON body, as the
SDK words its own HTTP-level refusals, so an MCP client can show it.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from council.config import ServerConfig
from council.logs import get_logger
from council.mcp_server.envelope import envelope_error, rpc_error
from council.server import client_key, connection_share, is_loopback_peer

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_log = get_logger("mcp")
# Not one of JSON-RPC's own codes: -32000 to -32099 are the server's to define.
SERVER_BUSY = -32000
REQUEST_TIMEOUT = -32001
TOO_LARGE = -32002


def _http_error(status: str, code: int, message: str, close: bool) -> bytes:
    body = json.dumps(rpc_error(code, message)).encode()
    retry = "Retry-After: 1\r\n" if status.startswith(("503", "429")) else ""
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{retry}"
            + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body


_BUSY = _http_error("503 Service Unavailable", SERVER_BUSY,
                    "the server has too many open connections; retry shortly", close=True)
_CLIENT_BUSY = _http_error("429 Too Many Requests", SERVER_BUSY,
                           "this client address has too many open connections; close some, or retry shortly",
                           close=True)


def guarded_protocol(limits: ServerConfig) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with the connection cap, each client's share of it, and the header deadline."""
    share = connection_share(limits)
    per_client: Counter[str] = Counter()

    class GuardedH11(H11Protocol):
        """One client connection: turned away over the cap or its client's share, closed when its headers are late."""

        turned_away = False
        client_address: str | None = None  # None: held to the cap alone (a loopback client, by default)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            if not is_loopback_peer(peer) or limits.per_client_loopback:
                self.client_address = client_key(peer)
            full = len(self.connections) >= limits.max_connections
            if full or (self.client_address is not None and per_client[self.client_address] >= share):
                self.turned_away = True
                self.transport = transport  # connection_lost closes it again, harmlessly
                transport.write(_BUSY if full else _CLIENT_BUSY)
                transport.close()
                return
            if self.client_address is not None:
                per_client[self.client_address] += 1
            super().connection_made(transport)
            self._arm_header_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            if not self.turned_away and self.client_address is not None:
                per_client[self.client_address] -= 1
                if per_client[self.client_address] <= 0:
                    del per_client[self.client_address]
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            # uvicorn stops its timer on any byte, so a request sent a byte at a time would be waited for
            # forever; here the timer stops only when the headers are complete (handle_events, on a Request).
            if self.turned_away:
                return
            self.conn.receive_data(data)
            self.handle_events()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # uvicorn has armed its keep-alive timer, unless a pipelined request already started: the wait
            # for the next request's headers is the header deadline, not uvicorn's own 5 s.
            if self.timeout_keep_alive_task is not None:
                self._arm_header_deadline()

        def _arm_header_deadline(self) -> None:
            self._unset_keepalive_if_required()
            self.timeout_keep_alive_task = self.loop.call_later(limits.header_timeout_s,
                                                                self.timeout_keep_alive_handler)

    return GuardedH11


class BodyLimits:
    """ASGI middleware: the whole body, on time and within the size cap, before the app sees the request.

    The app then reads the body in one piece, and later reads of ``receive``
    reach the server's own (which says when the client goes away).
    """

    def __init__(self, app: App, limits: ServerConfig) -> None:
        self.app = app
        self.max_bytes = limits.max_body_bytes
        self.timeout_s = limits.body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(send)
            return
        try:
            async with asyncio.timeout(self.timeout_s):
                body = await self._read(receive)
        except TimeoutError:
            await _answer(send, 408, REQUEST_TIMEOUT, f"the request body did not arrive within {self.timeout_s:g} s",
                          close=True)
            return
        except _TooLarge:
            await self._too_large(send)
            return
        if body is None:  # the client went away
            return
        if scope["method"] == "POST" and body.strip():
            problem = envelope_error(body)
            if problem is not None:
                _log.warning("message_refused", error=problem["error"]["message"])
                await _send_json(send, 400, problem)
                return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _too_large(self, send: Send) -> None:
        # No Connection: close: the server reads and drops the rest of the body (within the header deadline),
        # so the client gets this answer rather than a connection reset in the middle of its upload.
        await _answer(send, 413, TOO_LARGE, f"the request body is larger than the server's limit of "
                                            f"{self.max_bytes} bytes (server.max_body_bytes)", close=False)


class _TooLarge(Exception):
    """The body grew past the cap while it was read."""


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


async def _answer(send: Send, status: int, code: int, message: str, *, close: bool) -> None:
    await _send_json(send, status, rpc_error(code, message), close=close)


async def _send_json(send: Send, status: int, payload: dict[str, Any], *, close: bool = False) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
