"""The listening socket of ``council serve``, and the process's life from start to SIGTERM.

aiohttp serves the requests; this module decides who gets a connection and
how long it may dawdle:

* at most ``server.max_connections`` client connections at once; one more is
  answered ``503`` and closed at once, so a flood of idle sockets cannot use
  up the process's file descriptors and lock real clients out;
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
import json
import signal
from collections.abc import Callable

from aiohttp import web

from council.config import ServerConfig

# After the grace period the runs are cancelled; handlers then need only moments to end their responses.
WRAP_UP_S = 1.0
LINGER_S = 1.0
_BUSY_BODY = json.dumps({"error": {"message": "the server has too many open connections; retry shortly",
                                   "type": "server_error", "param": None, "code": "too_many_connections"}}).encode()
_BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                  b"Connection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)


class _TurnAway(asyncio.Protocol):
    """A connection over the cap: told why, then closed, without reading a byte."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(_BUSY_RESPONSE)
        transport.close()


class CappedSite(web.BaseSite):
    """A TCP site whose connections are capped; ``port`` is the bound port (useful with port 0)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, max_connections: int) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self.max_connections = max_connections
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

    def _protocol_factory(self) -> Callable[[], asyncio.BaseProtocol]:
        server = self._runner.server
        assert server is not None, "the runner must be set up first"

        def factory() -> asyncio.BaseProtocol:
            if len(server.connections) >= self.max_connections:
                self.turned_away += 1
                return _TurnAway()
            return server()

        return factory

    async def start(self) -> None:
        """Bind and listen."""
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._protocol_factory(), self._host, self._port,
                                                reuse_address=True)


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
    site = CappedSite(runner, host, port, config.max_connections)
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
