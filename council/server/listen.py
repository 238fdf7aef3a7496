"""The listening socket of ``council serve``, and the process's life from start to SIGTERM.

aiohttp serves the requests; this module decides who gets a connection and
how long it may dawdle:

* at most ``server.max_connections`` client connections at once; one more is
  answered ``503`` and closed at once, so a flood of idle sockets cannot use
  up the process's file descriptors and lock real clients out;
* each client address (an IPv6 /64 counts as one) holds at most its share,
  ``server.max_connections_per_client``; one more is answered ``429`` and
  closed, so one client cannot hold the whole cap either. Loopback clients
  are held to the cap alone unless ``server.per_client_loopback`` is set: a
  reverse proxy or chat app on this machine is one address for all its users;
* a request aiohttp's parser refuses (a bad ``Content-Length``, an 8 KB
  header, TLS bytes...) is answered in OpenAI's error shape and logged in one
  access line, never with a traceback;
* a connection must send a request's headers within
  ``server.header_timeout_s`` (aiohttp closes a connection that is still
  waiting for a request when its keep-alive timer fires, and that timer is
  armed when the connection opens), so a client that sends half its headers
  is closed, not served forever; bodies have their own deadline
  (:func:`council.server.guards.read_body`);
* SIGTERM or SIGINT: stop accepting, give runs the grace period once
  (``server.shutdown_grace_s``, see ``drain`` in :mod:`council.server.app`),
  then a short wrap-up for handlers to write their last words (an error event
  and ``[DONE]`` on cut streams), then exit 0.

It knows sockets and aiohttp's runner; nothing of councils.
"""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import json
import signal
from collections.abc import Callable

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMethod, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from council.config import ServerConfig
from council.logs import access_logger, get_logger

# After the grace period the runs are cancelled; handlers then need only moments to end their responses.
WRAP_UP_S = 1.0
LINGER_S = 1.0
#: The default share of the connection cap one client address may hold: an eighth, at least this many.
MIN_CLIENT_SHARE = 64
_log = get_logger("server.listen")


def _error_body(message: str, code: str, type_: str = "server_error") -> bytes:
    return json.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}}).encode()


def _refusal(status: str, body: bytes) -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


_BUSY_RESPONSE = _refusal("503 Service Unavailable", _error_body(
    "the server has too many open connections; retry shortly", "too_many_connections"))


def connection_share(config: ServerConfig) -> int:
    """How many connections one client address may hold (``server.max_connections_per_client``)."""
    share = config.max_connections_per_client or max(MIN_CLIENT_SHARE, config.max_connections // 8)
    return min(share, config.max_connections)


def _peer_address(peer: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    host = peer[0] if isinstance(peer, tuple) and peer and isinstance(peer[0], str) else ""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_key(peer: object) -> str:
    """What one client's connections are counted under: its address, or its /64 for IPv6 (one host holds many)."""
    address = _peer_address(peer)
    if address is None:
        return "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def is_loopback_peer(peer: object) -> bool:
    """Whether a connection comes from this machine's loopback interface."""
    address = _peer_address(peer)
    return address is not None and address.is_loopback


def _first_line(text: str) -> str:
    # aiohttp's messages quote the offending bytes on the lines after the first: those are not repeated.
    line = text.strip().splitlines()[0] if text.strip() else "malformed request"
    for quoted in (": b'", ': b"', ": bytearray("):
        line = line.split(quoted, 1)[0]
    return line.rstrip(":. ")[:200]


def malformed_reason(error: BaseException | None, message: str | None) -> str:
    """What was wrong with a request aiohttp's parser refused, in one line without the request's bytes."""
    if isinstance(error, LineTooLong):
        return "the request line or a header is longer than 8190 bytes"
    if isinstance(error, BadHttpMethod) and "HTTPS" in (message or ""):
        return "this port speaks plain HTTP: use http://, not https://"
    return "malformed HTTP request: " + _first_line(message or getattr(error, "message", "") or str(error or ""))


class CouncilRequestHandler(RequestHandler):
    """aiohttp's connection handler, with its own answers to requests that never reach the application.

    aiohttp answers a request its parser refuses with a ``text/plain`` 400 and
    logs a traceback; here it is OpenAI's error shape and one access line.
    """

    log_requests = True

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """The answer to a malformed request (400) or to a failure outside every middleware (500)."""
        if request.writer.output_size > 0:
            raise ConnectionError("part of the response went out already: no error can follow it")
        if status >= 500:
            _log.error("unhandled_error", error=exc)
            body = _error_body("internal server error", "internal_error")
        else:
            reason = malformed_reason(exc, message)
            if self.log_requests:
                access_logger().info("request", status=status, latency_ms=0.0, client=request.remote,
                                     error=reason)
            body = _error_body(reason, "malformed_request", "invalid_request_error")
        response = web.Response(status=status, body=body, content_type="application/json")
        response.force_close()
        return response


class _TurnAway(asyncio.Protocol):
    """A connection over the cap: told why, then closed, without reading a byte."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(self.answer)
        transport.close()


class _Counted(asyncio.Protocol):
    """A served connection: aiohttp's handler does the work; its client's count drops when it closes."""

    def __init__(self, site: CappedSite) -> None:
        self.site = site
        self.inner: asyncio.Protocol | None = None
        self.client: str | None = None  # None: not held to a share (a loopback client, by default)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = transport.get_extra_info("peername")
        self.client = None if is_loopback_peer(peer) and not self.site.per_client_loopback else client_key(peer)
        self.inner = self.site.admit(self.client)
        if self.inner is None:
            _TurnAway(self.site.refusal(self.client)).connection_made(transport)
        else:
            self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is not None:
            self.site.release(self.client)
            self.inner.connection_lost(exc)
            self.inner = None


class CappedSite(web.BaseSite):
    """A TCP site whose connections are capped, in all and per client; ``port`` is the bound port (for port 0)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, config: ServerConfig) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self.max_connections = config.max_connections
        self.per_client = connection_share(config)
        self.per_client_loopback = config.per_client_loopback
        self.log_requests = config.access_log
        self.open = 0
        self.by_client: dict[str, int] = {}
        self.turned_away = 0

    @property
    def name(self) -> str:
        """The URL this site serves."""
        return f"http://{self._host}:{self.port}"

    @property
    def port(self) -> int:
        """The port actually bound."""
        if self._server is None:
            return self._port
        sockets = getattr(self._server, "sockets", None) or []
        return sockets[0].getsockname()[1] if sockets else self._port

    def admit(self, client: str | None) -> asyncio.Protocol | None:
        """aiohttp's handler for a new connection from ``client``, counted; None when over the cap or the share."""
        if self.open >= self.max_connections or (client is not None
                                                 and self.by_client.get(client, 0) >= self.per_client):
            self.turned_away += 1
            return None
        server = self._runner.server
        assert server is not None, "the runner must be set up first"
        # The handler aiohttp's Server would make, with the same settings, answering malformed requests our way.
        handler = CouncilRequestHandler(server, loop=asyncio.get_running_loop(), **server._kwargs)
        handler.log_requests = self.log_requests
        self.open += 1
        if client is not None:
            self.by_client[client] = self.by_client.get(client, 0) + 1
        return handler

    def refusal(self, client: str | None) -> bytes:
        """What a turned-away connection is told: the cap in all (503), or this client's share (429)."""
        if self.open >= self.max_connections or client is None:
            return _BUSY_RESPONSE
        return _refusal("429 Too Many Requests", _error_body(
            f"this client address has {self.by_client.get(client, 0)} open connections, its share of the "
            f"server's {self.max_connections}; reuse or close them, or retry shortly", "too_many_connections",
            "rate_limit_error"))

    def release(self, client: str | None) -> None:
        """A counted connection closed."""
        self.open -= 1
        if client is None:
            return
        left = self.by_client.get(client, 1) - 1
        if left > 0:
            self.by_client[client] = left
        else:
            self.by_client.pop(client, None)

    async def start(self) -> None:
        """Bind and listen."""
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _Counted(self), self._host, self._port, reuse_address=True)


def make_runner(app: web.Application, config: ServerConfig) -> web.AppRunner:
    """The runner for ``app`` with the server's timeouts (signals are handled by :func:`serve`)."""
    # After an early answer (408, 413) aiohttp reads and drops the rest of the body for lingering_time, so the
    # client sees the answer rather than a reset; its default of 10 s is long enough to hold a slow client.
    return web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True,
                         keepalive_timeout=config.header_timeout_s, shutdown_timeout=WRAP_UP_S,
                         lingering_time=LINGER_S)


async def start_site(
    app: web.Application, config: ServerConfig, host: str, port: int
) -> tuple[web.AppRunner, CappedSite]:
    """Set up ``app`` and listen on ``host:port``; the caller cleans up the runner."""
    runner = make_runner(app, config)
    await runner.setup()
    site = CappedSite(runner, host, port, config)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, site


#: Container allocations (net of frees) between two collections of the youngest generation; Python's default is 700.
GC_YOUNG_THRESHOLD = 10_000


def tune_garbage_collector() -> None:
    """Collect cycles less often and never re-scan what start-up built.

    A council run allocates a few thousand short-lived objects, few of them in
    cycles; with the default thresholds the collector ran about once a run and
    its full passes walked every module, schema and config object loaded at
    start-up, about 8% of a run's CPU. Frozen objects are still freed by
    reference counting if dropped; they are only skipped by the cycle collector.
    """
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


async def serve(app: web.Application, config: ServerConfig, host: str, port: int,
                announce: Callable[[CappedSite], None] | None = None) -> None:
    """Serve ``app`` until SIGTERM or SIGINT, then shut down once, within the grace period."""
    runner, site = await start_site(app, config, host, port)
    tune_garbage_collector()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    try:
        if announce is not None:
            announce(site)
        await stopping.wait()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await runner.cleanup()
