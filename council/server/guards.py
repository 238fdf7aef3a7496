"""What every request passes through on its way in: body deadline, CORS, the access log.

* :func:`read_body` reads a request body within ``server.body_timeout_s``: a
  client that announces more bytes than it sends is answered 408 and closed,
  never waited on forever.
* :class:`Cors` answers browser preflights and adds CORS headers
  for the origins in ``server.cors_origins`` only; with none configured the
  API is same-origin, as browsers enforce by default, and a cross-origin
  preflight is refused with 403 rather than a confusing 405.
* :func:`access_log_middleware` writes one structured line per request:
  method, path, status, latency, run id, client address and how many tool
  definitions the council answered without calling; never the query
  string (``?token=``), headers or bodies.

This module knows HTTP and the server settings; it knows nothing of councils.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from council.config import ServerConfig
from council.logs import access_logger
from council.pipeline import caller_scope
from council.server.conversation import MessageOrigin
from council.server.schema import ApiError

# The chat handler names its run here before any response exists (a client may leave before one does).
RUN_ID_KEY = web.RequestKey("council_run_id", str)
# How many tool definitions a council request carried that the council answered without calling (0: none).
TOOLS_IGNORED_KEY = web.RequestKey("council_tools_ignored", int)
#: Where each message of a chat request's conversation came from, to name a part the run plan refused.
ORIGINS_KEY: web.RequestKey[list[MessageOrigin]] = web.RequestKey("council_message_origins", list)
TOOLS_IGNORED_HEADER = "x-council-tools-ignored"
#: Whether the result cache answered a council request: hit or miss (absent when the cache is off or bypassed).
CACHE_HEADER = "x-council-cache"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_CORS_METHODS = "GET, POST, PATCH, DELETE, OPTIONS"
_CORS_EXPOSED = "x-council-run-id, x-council-cost-usd, x-council-tools-ignored, Retry-After"
_CORS_MAX_AGE = "600"


def caller_of(request: web.Request) -> str:
    """Who is calling: a hash of the caller's API key ("" for a request without one); see :func:`caller_scope`."""
    return caller_scope(request.headers.get("Authorization"))


async def read_body(request: web.Request, timeout_s: float) -> bytes:
    """The whole body, or a 408 when the client takes longer than ``timeout_s`` to send it."""
    try:
        async with asyncio.timeout(timeout_s):
            return await request.read()
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {timeout_s:g} s", code="request_timeout",
                       headers={"Connection": "close"}) from None


class Cors:
    """CORS for ``server.cors_origins`` (``*`` allows any origin; credentials are never allowed)."""

    def __init__(self, config: ServerConfig) -> None:
        self.origins = frozenset(config.cors_origins)
        self.any_origin = "*" in self.origins

    def allows(self, origin: str) -> bool:
        """Whether a page on ``origin`` may call the API."""
        return self.any_origin or origin in self.origins

    def _allow_origin(self, origin: str) -> str:
        return "*" if self.any_origin else origin

    @web.middleware
    async def preflight(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Answer a browser's preflight ``OPTIONS`` itself: 204 for an allowed origin, 403 otherwise."""
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return await handler(request)
        origin = request.headers.get("Origin")
        if origin is None or not self.allows(origin):
            error = ApiError(403, f"cross-origin requests from {(origin or 'an unnamed origin')[:100]!r} are not "
                                  "allowed; list the origin in server.cors_origins", code="cors_forbidden")
            return web.json_response(error.body(), status=403)
        return web.Response(status=204, headers={
            "Access-Control-Allow-Origin": self._allow_origin(origin),
            "Access-Control-Allow-Methods": _CORS_METHODS,
            "Access-Control-Allow-Headers": request.headers.get("Access-Control-Request-Headers",
                                                                "Authorization, Content-Type")[:1000],
            "Access-Control-Max-Age": _CORS_MAX_AGE,
            "Vary": "Origin",
        })

    async def add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """``on_response_prepare``: every response to an allowed origin, streams included, carries the headers."""
        origin = request.headers.get("Origin")
        if origin is not None and self.allows(origin) and "Access-Control-Allow-Origin" not in response.headers:
            response.headers["Access-Control-Allow-Origin"] = self._allow_origin(origin)
            response.headers["Access-Control-Expose-Headers"] = _CORS_EXPOSED
            response.headers.add("Vary", "Origin")


@web.middleware
async def access_log_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """One line per request, written when it ends (also when the client left or it failed)."""
    started = time.perf_counter()
    status = 499  # nginx's "client closed the request": what is left if the handler is cancelled
    response: web.StreamResponse | None = None
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as error:
        status = error.status
        raise
    except Exception:
        status = 500
        raise
    finally:
        run_id = request.get(RUN_ID_KEY) or (response.headers.get("x-council-run-id") if response else None)
        extra = {"tools_ignored": ignored} if (ignored := request.get(TOOLS_IGNORED_KEY)) else {}
        access_logger().info("request", method=request.method, path=request.path, status=status,
                             latency_ms=round((time.perf_counter() - started) * 1000, 1), run_id=run_id,
                             client=request.remote, **extra)
